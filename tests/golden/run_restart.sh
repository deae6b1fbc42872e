#!/usr/bin/env bash
# `ea_iid --restart H_I --format nist -v -v -v` against NIST ea_restart -i -v -v -v, line for line
# (compare_golden --lines --restart: X_cutoff to +-1, the columns' permutation block by
# label only, counter rows by name only).
# usage: run_restart.sh EA_IID COMPARE_GOLDEN TESTDATA_DIR WORK_DIR GOLDEN SAMPLE BITS H_I [OPTIONS...]
# (OPTIONS: e.g. --iterations 2000 where the CPU run of 10,000 would be long, and --seed; the
# counters are random in the reference and compared by test name only.)
set -euo pipefail
exe=$1 cmp=$2 data=$3 work=$4 golden=$5 sample=$6 bits=$7 h_i=$8
shift 8
seed="--seed 1"  # (unless OPTIONS give one)
for a in "$@"; do [ "$a" = --seed ] && seed=""; done
mkdir -p "$work"
out="$work/$(basename "$golden").ours"
(cd "$data/samples" && "$exe" --restart "$h_i" --format nist -v -v -v --device cpu $seed "$@" "$sample" "$bits") >"$out"
"$cmp" --lines --restart "$data/golden/nist-ea_restart-1.1.8/$golden" "$out"
