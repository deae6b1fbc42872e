#!/usr/bin/env bash
# CPU benchmark: permutations per second and milliseconds per permutation on one core (18
# statistical tests, compression excluded) on 1,000,000 8-bit samples, with 1 thread and with
# every core, then whole runs, then the non-IID estimates (beside NIST ea_non_iid with
# NIST_EA_NON_IID=PATH).
#
# usage: scripts/bench-cpu.sh [BUILD_DIR] [PERMUTATIONS]
# The rate is measured on GetTickCount_8bit.bin: it is not IID, so the compression test is
# skipped and --no-early-exit makes every one of the 18 tests run all PERMUTATIONS.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
perms=${2:-200}
exe=$build/ea_iid
data=$here/testdata/samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cores=$(nproc)

field() {  # field FILE.json KEY: a number from "timings"
  sed -n '/"timings"/,/}/p' "$1" | grep -o "\"$2\": [0-9.e+-]*" | head -n 1 | awk '{print $2}'
}

echo "ea_iid CPU benchmark on $(uname -n), $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "command: $exe --device cpu --threads T --no-early-exit --iterations $perms --seed 1 -q -o OUT GetTickCount_8bit.bin"
printf '%-8s %14s %16s %18s %20s\n' threads permutations seconds "perm/s (per core)" "ms/perm on a core"
for t in 1 "$cores"; do
  "$exe" --device cpu --threads "$t" --no-early-exit --iterations "$perms" --seed 1 -q -o "$tmp/r.json" \
    "$data/GetTickCount_8bit.bin" 2>/dev/null
  s=$(field "$tmp/r.json" permutation)
  awk -v t="$t" -v n="$perms" -v s="$s" \
    'BEGIN { printf "%-8d %14d %16.3f %9.1f (%6.1f) %20.2f\n", t, n, s, n / s, n / s / t, 1000 * s * t / n }'
done
echo
echo "whole runs (default options, --device cpu, all cores):"
for f in GetTickCount_8bit truerand_8bit; do
  start=$(date +%s.%N)
  "$exe" --device cpu --seed 1 -o "$tmp/$f.json" "$data/$f.bin" >"$tmp/$f.txt" 2>/dev/null
  end=$(date +%s.%N)
  verdict=$(tail -n 1 "$tmp/$f.txt" | cut -c1-60)
  awk -v f="$f" -v a="$start" -v b="$end" -v v="$verdict" 'BEGIN { printf "%-20s %8.2f s  %s\n", f, b - a, v }'
done
echo
# The non-IID estimates (--non-iid), each file beside NIST ea_non_iid when NIST_EA_NON_IID
# names a build of it (kept out of this project: make non_iid in NIST's cpp/ folder).
echo "non-IID estimates ($exe --non-iid -q FILE, all cores${NIST_EA_NON_IID:+; NIST: $NIST_EA_NON_IID FILE}):"
for f in truerand_8bit truerand_4bit truerand_1bit GetTickCount_8bit GetTickCount_1bit; do
  start=$(date +%s.%N)
  "$exe" --non-iid -q -o "$tmp/$f.n.json" "$data/$f.bin" 2>/dev/null
  end=$(date +%s.%N)
  h=$(grep -o '"assessedMinEntropy": [0-9.e+-]*' "$tmp/$f.n.json" | awk '{print $2}')
  line=$(awk -v f="$f" -v a="$start" -v b="$end" -v h="$h" 'BEGIN { printf "%-20s %8.2f s  H = %.6f", f, b - a, h }')
  if [ -n "${NIST_EA_NON_IID:-}" ]; then
    start=$(date +%s.%N)
    (cd "$data" && "$NIST_EA_NON_IID" "$f.bin" >"$tmp/$f.nist.txt" 2>&1)
    end=$(date +%s.%N)
    line+=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "   NIST %8.2f s", b - a }')
  fi
  echo "$line"
done
