#!/usr/bin/env bash
# Batch benchmark: N data sets of 1,000,000 8-bit samples (half IID: rotations of
# truerand_8bit.bin; half not IID: rotations of GetTickCount_8bit.bin), assessed in one
# process and as N separate runs. Prints assessments per minute and the GPU utilisation
# sampled by nvidia-smi every 0.5 s during the batch (where present): mean and timeline, and
# the one process's CPU time (where /usr/bin/time is).
#
# usage: scripts/bench-batch.sh [BUILD_DIR] [N]      (N even, default 64)
# Environment: BATCH_OPTS extra options of the one-process run (e.g. "--jobs 8");
# GPU_SETS="0 0,1" runs the one-process batch once per --gpu value, in one call, and prints
# each one's speed relative to the first (several GPUs);
# SEPARATE=0 skips the N separate runs; SOURCES="truerand_8bit" cuts every block from
# that file only (default: "truerand_8bit GetTickCount_8bit", half each); ORDER=interleaved
# names the files so that the sources alternate in the batch (default: one source's files,
# then the other's).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
n=${2:-64}
exe=$build/ea_iid
data=$here/testdata/samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${smi:-}" ] && kill "$smi" 2>/dev/null || true' EXIT

read -r -a sources <<<"${SOURCES:-truerand_8bit GetTickCount_8bit}"
half=$((n / ${#sources[@]}))
for k in $(seq 0 $((half - 1))); do
  off=$((k * 15625))
  for src in "${sources[@]}"; do
    name="${src}_$(printf %02d "$k")"
    [ "${ORDER:-}" = interleaved ] && name="$(printf %02d "$k")_${src}"
    { tail -c +$((off + 1)) "$data/$src.bin"; head -c "$off" "$data/$src.bin"; } >"$tmp/$name.bin"
  done
done
files=("$tmp"/*.bin)

now() { date +%s.%N; }
echo "ea_iid batch benchmark: $n assessments of 1,000,000 8-bit samples ($half rotations each of: ${sources[*]})"
echo "machine: $(nproc) CPU cores; GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo none)"

one_process() {  # $1: a --gpu value or ""
  local gpu_opt=() label=""
  [ -n "$1" ] && gpu_opt=(--gpu "$1") && label="--gpu $1 "
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 >"$tmp/util.txt" 2>/dev/null &
    smi=$!
  fi
  a=$(now)
  # shellcheck disable=SC2086
  local timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -f "%U %S" -o "$tmp/cpu.txt")
  "${timer[@]}" "$exe" --seed 1 -q ${BATCH_OPTS:-} "${gpu_opt[@]}" --jsonl "$tmp/batch.jsonl" --force "${files[@]}" || true
  b=$(now)
  [ -n "${smi:-}" ] && kill "$smi" 2>/dev/null && smi=""
  iid=$(grep -c '"result":"IID"' "$tmp/batch.jsonl" || true)
  util=$( [ -s "$tmp/util.txt" ] && awk '{s+=$1; c++} END {printf "%.0f%%", s/c}' "$tmp/util.txt" || echo "n/a")
  echo "command: ea_iid --seed 1 -q ${BATCH_OPTS:+$BATCH_OPTS }${label}--jsonl OUT --force FILE x $n"
  awk -v a="$a" -v b="$b" -v n="$n" -v iid="$iid" -v u="$util" 'BEGIN {
    printf "one process:   %7.1f s  %6.1f assessments/min  (%d judged IID; mean GPU utilisation %s)\n", b - a, n * 60 / (b - a), iid, u }'
  [ -s "$tmp/cpu.txt" ] && awk '{ printf "CPU time of the process: user %.1f s, system %.1f s\n", $1, $2 }' "$tmp/cpu.txt"
  last=$(awk -v a="$a" -v b="$b" 'BEGIN{print b - a}')
  # The utilisation timeline: one sample per 0.5 s, 0-9 for 0-94%, # for 95% and more.
  [ -s "$tmp/util.txt" ] && awk '{ printf "%s", ($1 >= 95 ? "#" : int($1 / 10)); if (NR % 60 == 0) printf "\n" }
    END { if (NR % 60) printf "\n" }' "$tmp/util.txt" | sed 's/^/GPU utilisation (0.5 s per digit): /'
  return 0
}
batch_start=$(now)
if [ -n "${GPU_SETS:-}" ]; then
  first=""
  for g in $GPU_SETS; do
    one_process "$g"
    [ -z "$first" ] && first=$last
    awk -v f="$first" -v l="$last" -v g="$g" 'BEGIN { printf "--gpu %s: %.2fx the speed of the first set\n", g, f / l }'
  done
else
  one_process ""
fi
b=$(now)
batch_start=$(awk -v b="$b" -v l="$last" 'BEGIN{printf "%.6f", b - l}')

[ "${SEPARATE:-1}" = 0 ] && exit 0
a=$(now)
for f in "${files[@]}"; do "$exe" --seed 1 -q -o "$tmp/one.json" "$f" || true; done
c=$(now)
awk -v a="$a" -v c="$c" -v n="$n" -v one="$(awk -v a="$batch_start" -v b="$b" 'BEGIN{print b - a}')" 'BEGIN {
  printf "separate runs: %7.1f s  %6.1f assessments/min  (one process is %.2fx faster)\n", c - a, n * 60 / (c - a), (c - a) / one }'
