#!/usr/bin/env bash
# The ea_restart link (NIST ea_restart's command line) against its -v -v text for a non-IID
# claim (-n, its default), line for line (compare_golden --lines --restart: X_cutoff to +-1),
# its exit status (0 passed, 1 when the validation fails) and, where the golden folder has
# one, its JSON's test cases.
# usage: run_restart_link.sh EA_RESTART COMPARE_GOLDEN TESTDATA_DIR WORK_DIR NAME SAMPLE BITS H_I EXPECTED_STATUS
set -uo pipefail
exe=$1 cmp=$2 data=$3 work=$4 name=$5 sample=$6 bits=$7 h_i=$8 want=$9
golden="$data/golden/nist-ea_restart-1.1.8"
mkdir -p "$work"
out="$work/$name.vv.ours" json="$work/$name.ours.json"
(cd "$data/samples" && "$exe" -v -v -o "$json" "$sample" "$bits" "$h_i") >"$out"
status=$?
if [ "$status" != "$want" ]; then
  echo "exit status $status, expected $want"
  exit 1
fi
"$cmp" --lines --restart "$golden/$name.vv.txt" "$out" || exit 1
if [ -f "$golden/$name.json" ]; then
  python3 "$(dirname "$0")/compare_non_iid_json.py" "$golden/$name.json" "$json" || exit 1
fi
