#!/usr/bin/env bash
# The non-IID track against NIST ea_non_iid 1.1.8: runs the ea_non_iid link (NIST's command
# line) at -v -v with -o, then compares its text with NIST's -v -v output line for line
# (compare_golden --lines: the same lines, every number to 1e-9 relative or the last digit
# printed) and its JSON's testCases with NIST's JSON where the golden folder has one.
# usage: run_non_iid.sh EA_NON_IID COMPARE_GOLDEN TESTDATA_DIR WORK_DIR NAME SAMPLE [OPTIONS...]
#   NAME: the golden files NAME.vv.txt (and NAME.json) in TESTDATA_DIR/golden/nist-ea_non_iid-1.1.8
set -euo pipefail
exe=$1 cmp=$2 data=$3 work=$4 name=$5 sample=$6
shift 6
golden="$data/golden/nist-ea_non_iid-1.1.8"
mkdir -p "$work"
out="$work/$name.vv.ours" json="$work/$name.ours.json"
(cd "$data/samples" && "$exe" -v -v "$@" -o "$json" "$sample") >"$out"
"$cmp" --lines "$golden/$name.vv.txt" "$out"
if [ -f "$golden/$name.json" ]; then
  python3 "$(dirname "$0")/compare_non_iid_json.py" "$golden/$name.json" "$json"
fi
