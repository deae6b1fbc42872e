#!/usr/bin/env bash
# The ea_restart link (NIST ea_restart's command line) against NIST's text, line for line
# (compare_golden --lines --restart: X_cutoff to +-1, an IID claim's columns permutation
# block by label), its exit status (0 passed, 1 when the sanity check or the validation
# fails) and, for a non-IID claim (NAME.n), its JSON's test cases where the golden folder has
# them.
# usage: run_restart_link.sh EA_RESTART COMPARE_GOLDEN TESTDATA_DIR WORK_DIR NAME SAMPLE BITS H_I EXPECTED_STATUS [OPTIONS...]
#   NAME: the golden text NAME.vv.txt (default OPTIONS -v -v) or, with -i in OPTIONS, NAME.vvv.txt
set -uo pipefail
exe=$1 cmp=$2 data=$3 work=$4 name=$5 sample=$6 bits=$7 h_i=$8 want=$9
shift 9
options=("$@")
[ ${#options[@]} -gt 0 ] || options=(-v -v)
golden="$data/golden/nist-ea_restart-1.1.8"
text="$golden/$name.vv.txt"
[ -f "$text" ] || text="$golden/$name.vvv.txt"
mkdir -p "$work"
out="$work/$name.ours" json="$work/$name.ours.json"
(cd "$data/samples" && "$exe" "${options[@]}" -o "$json" "$sample" "$bits" "$h_i") >"$out"
status=$?
if [ "$status" != "$want" ]; then
  echo "exit status $status, expected $want"
  exit 1
fi
"$cmp" --lines --restart "$text" "$out" || exit 1
if [ -f "$golden/$name.json" ] && [[ "$name" == *.n ]]; then
  python3 "$(dirname "$0")/compare_non_iid_json.py" "$golden/$name.json" "$json" || exit 1
fi
