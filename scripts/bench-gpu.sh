#!/usr/bin/env bash
# GPU benchmark (run on the GPU machine): for each file, the permutation-test time on the
# GPU (kernel time, CUDA events), the whole ea_iid wall time on the GPU, the same run with
# --device cpu on all cores, and the ratio of the wall times.
#
# Then, per shuffling generator (--prng), the GPU kernel time of the 10,000 permutations of
# GetTickCount_8bit (not IID: every permutation is run).
#
# usage: scripts/bench-gpu.sh [BUILD_DIR] [--prngs-only]   (BUILD_DIR built with -DEA_IID_CUDA=ON)
# BENCH_OPTS="..." adds options to the per-generator runs (e.g. "--gpu-tuning skip-draws=0").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
only_prngs=${2:-}
exe=$build/ea_iid
data=$here/testdata/samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

timing() {  # timing FILE.json KEY
  sed -n '/"timings"/,/}/p' "$1" | grep -o "\"$2\": [0-9.e+-]*" | head -n 1 | awk '{print $2}'
}
json_field() {  # json_field FILE.json KEY (first occurrence, a number or a quoted string)
  grep -o "\"$2\": \(\"[^\"]*\"\|[0-9]*\)" "$1" | head -n 1 | sed 's/^[^:]*: //; s/"//g'
}
wall() {  # wall OUT.json ARGS...: runs ea_iid, prints seconds
  local out=$1
  shift
  local a b
  a=$(date +%s.%N)
  "$exe" -q --seed 1 -o "$out" "$@"
  b=$(date +%s.%N)
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }'
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo "?")
echo "ea_iid GPU benchmark: $gpu, $(nproc) CPU cores; seed 1; $(date -u +%Y-%m-%d)"
echo "commands: ea_iid -q --seed 1 -o OUT.json --device gpu FILE;  ea_iid -q --seed 1 -o OUT.json --device cpu FILE"
[ "$only_prngs" = --prngs-only ] || printf '%-20s %-8s %6s %11s %11s %11s %11s %8s\n' file verdict perms "gpu-kernel" "gpu-perm" "gpu-wall" "cpu-wall" "cpu/gpu"
[ "$only_prngs" = --prngs-only ] || for f in GetTickCount_1bit GetTickCount_4bit GetTickCount_8bit truerand_1bit truerand_4bit truerand_8bit; do
  [ -f "$data/$f.bin" ] || continue
  gw=$(wall "$tmp/g.json" --device gpu "$data/$f.bin")
  cw=$(wall "$tmp/c.json" --device cpu "$data/$f.bin")
  verdict=$(json_field "$tmp/g.json" result | tr ' ' '_')
  perms=$(json_field "$tmp/g.json" permutationsRun)
  awk -v f="$f" -v v="$verdict" -v p="$perms" -v k="$(timing "$tmp/g.json" deviceBusy)" \
      -v gp="$(timing "$tmp/g.json" permutation)" -v gw="$gw" -v cw="$cw" \
      'BEGIN { printf "%-20s %-8s %6d %10.3fs %10.3fs %10.2fs %10.2fs %7.1fx\n", f, v, p, k, gp, gw, cw, cw / gw }'
done
echo "gpu-kernel: shuffle + statistics kernels of the 18 tests (CUDA events); gpu-perm: the 18-test phase"
echo "as the host sees it (kernels, copies, counting); walls include loading, estimates, LRS and compression."

echo
echo "per generator: GetTickCount_8bit, all 10,000 permutations (ea_iid -q --seed 1 -o OUT.json --device gpu --prng P FILE)"
printf '%-14s %6s %11s %11s %s\n' prng perms "gpu-kernel" "gpu-wall" "kernel split"
for p in $("$exe" --list-prngs | sed -n 's/^\([a-z0-9-]*\)\( (default)\)\{0,1\}: .*/\1/p'); do
  # shellcheck disable=SC2086 # BENCH_OPTS: extra options, word-split
  gw=$(wall "$tmp/p.json" --device gpu --prng "$p" ${BENCH_OPTS:-} "$data/GetTickCount_8bit.bin")
  split=$(grep -o '"deviceProfile": "[^"]*"' "$tmp/p.json" | sed 's/.*: "GPU: //; s/"$//')
  awk -v p="$p" -v n="$(json_field "$tmp/p.json" permutationsRun)" -v k="$(timing "$tmp/p.json" deviceBusy)" -v gw="$gw" -v s="$split" \
      'BEGIN { printf "%-14s %6d %10.3fs %10.2fs %s\n", p, n, k, gw, s }'
done
