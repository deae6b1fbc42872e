#!/usr/bin/env bash
# `ea_iid --format nist` at a verbosity level against NIST's whole output at that level,
# line for line (compare_golden --lines: numbers to tolerance, counter rows by name only).
# usage: run_nist_format.sh EA_IID COMPARE_GOLDEN TESTDATA_DIR WORK_DIR GOLDEN SAMPLE FLAGS...
set -euo pipefail
exe=$1 cmp=$2 data=$3 work=$4 golden=$5 sample=$6
shift 6
mkdir -p "$work"
out="$work/$(basename "$golden").ours"
(cd "$data/samples" && "$exe" --format nist "$@" --seed 1 --device cpu "$sample") >"$out"
"$cmp" --lines "$data/golden/nist-ea_iid-1.1.7/$golden" "$out"
