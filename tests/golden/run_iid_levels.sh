#!/usr/bin/env bash
# `ea_iid --format nist` at NIST ea_iid's levels that NIST's own outputs in testdata do not
# cover whole: -q and the default byte for byte, -v -v -v line for line (compare_golden
# --lines: the counter rows are random, compared by name), against tests/golden/iid-levels/
# (derived from NIST's -v and -v -v outputs by its print statements: derive.py says how).
# usage: run_iid_levels.sh EA_IID COMPARE_GOLDEN TESTDATA_DIR WORK_DIR
set -uo pipefail
exe=$1 cmp=$2 data=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
passed=0 failed=0
for name in rand1_short rand4_short rand8_short; do
  for level in q default vvv; do
    case $level in q) flags=(-q) ;; default) flags=() ;; vvv) flags=(-v -v -v) ;; esac
    out="$work/$name.$level.ours"
    (cd "$data/samples" && "$exe" --format nist "${flags[@]}" --seed 1 --device cpu "$name.bin") >"$out" 2>/dev/null
    expected="$here/iid-levels/$name.$level.txt"
    if [ "$level" = vvv ]; then
      if "$cmp" --lines "$expected" "$out" >"$out.cmp"; then ok=1; else ok=0; tail -5 "$out.cmp"; fi
    elif cmp -s "$expected" "$out"; then
      ok=1
    else
      ok=0
      diff "$expected" "$out" | head -10
    fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "DIFFERS: $name at $level"; fi
  done
done
echo "$passed passed, $failed failed"
