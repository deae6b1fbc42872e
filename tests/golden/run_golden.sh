#!/usr/bin/env bash
# Runs `ea_iid -v -v -v` with a golden file's options and compares the output with it.
# usage: run_golden.sh EA_IID COMPARE_GOLDEN TESTDATA_DIR WORK_DIR GOLDEN SAMPLE [OPTIONS...]
# Options after "--" come after the file name (the bits_per_symbol argument).
# The permutation counters are random and not part of the golden files, so the run uses a
# fixed seed and 10 permutations to stay quick; every golden value is deterministic.
set -euo pipefail
exe=$1 cmp=$2 data=$3 work=$4 golden=$5 sample=$6
shift 6
before=() after=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; after=("$@"); break; fi
  before+=("$1"); shift
done
mkdir -p "$work"
out="$work/$golden.ours"
# Both streams, as the golden files hold them: NIST prints its Cephes "igamc: UNDERFLOW" on
# standard error, and so does --format nist (our -v -v -v puts it at the top of its text).
(cd "$data/samples" && "$exe" -v -v -v --seed 1 --iterations 10 "${before[@]}" "$sample" "${after[@]}") >"$out" 2>&1
"$cmp" "$data/golden/nist-ea_iid-1.1.7/$golden" "$out"
