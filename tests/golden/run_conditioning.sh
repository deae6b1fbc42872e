#!/usr/bin/env bash
# The ea_conditioning link (NIST ea_conditioning's command line) against NIST's text for
# each caseN.args of the golden folder, byte for byte; prints "N passed, M failed".
# usage: run_conditioning.sh EA_CONDITIONING TESTDATA_DIR WORK_DIR
set -uo pipefail
exe=$1 data=$2 work=$3
golden="$data/golden/nist-ea_conditioning-1.1.8"
mkdir -p "$work"
passed=0 failed=0
for args in "$golden"/case*.args; do
  name=$(basename "$args" .args)
  # shellcheck disable=SC2046
  "$exe" $(cat "$args") >"$work/$name.ours" 2>&1
  if [ $? -eq 0 ] && cmp -s "$golden/$name.txt" "$work/$name.ours"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "DIFFERS $name ($(cat "$args"))"
    diff "$golden/$name.txt" "$work/$name.ours" | head -20
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
