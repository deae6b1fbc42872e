#!/usr/bin/env bash
# The ea_restart link's text at NIST's other verbosity levels (-q, default, -v, -v -v -v) for
# a non-IID claim, byte for byte against tests/golden/restart-levels/: expectations derived
# from NIST ea_restart 1.1.8's print statements (which lines each level prints) and its -v -v
# output (testdata/golden/nist-ea_restart-1.1.8/truerand_1bit.b1.H0.99.n.vv.txt), not NIST
# outputs themselves. X_cutoff is our exact one (574, as NIST printed).
# usage: run_restart_levels.sh EA_RESTART TESTDATA_DIR WORK_DIR
set -uo pipefail
exe=$1 data=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
passed=0 failed=0
for level in q default v vvv; do
  case $level in q) flags=(-q) ;; default) flags=() ;; v) flags=(-v) ;; vvv) flags=(-v -v -v) ;; esac
  (cd "$data/samples" && "$exe" "${flags[@]}" truerand_1bit.bin 1 0.99) >"$work/$level.ours"
  if cmp -s "$here/restart-levels/truerand_1bit.b1.H0.99.n.$level.txt" "$work/$level.ours"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "DIFFERS at $level"
    diff "$here/restart-levels/truerand_1bit.b1.H0.99.n.$level.txt" "$work/$level.ours" | head -10
  fi
done
echo "$passed passed, $failed failed"
