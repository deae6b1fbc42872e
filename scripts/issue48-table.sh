#!/usr/bin/env bash
# Issue 48's table in one run: every row's command RUNS times (default 3), alternately row
# by row, printed as a markdown table of the whole processes' wall times (min-max) with the
# machine, the commit and the commands. The batch row is scripts/bench-batch.sh's figure.
# NIST's programs run beside where given (they take minutes: one run each).
#
# usage: scripts/issue48-table.sh [BUILD_DIR] [RUNS]
# Environment: NIST_EA_NON_IID, NIST_EA_IID: paths of NIST's ea_non_iid 1.1.8 and ea_iid
# 1.1.7 (optional); BATCH=0 skips the batch row (about 15 s on an H200); FULL=0 skips the
# full counts (about 5 s a run); COMMIT: the commit to print (default: git's HEAD here, which
# on the GPU machine's copy of a working tree can be an older one).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
runs=${2:-3}
exe=$build/ea_iid
data=$here/testdata/samples
[ -x "$exe" ] || { echo "issue48-table.sh: no $exe (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row LABEL COMMAND...: a row of the table (the command kept shell-quoted).
declare -a labels=() commands=()
row() {
  local label=$1
  shift
  labels+=("$label")
  commands+=("$(printf '%q ' "$@")")
}
row "GetTickCount_8bit --track iid" "$exe" --seed 1 -q --track iid "$data/GetTickCount_8bit.bin"
if [ "${FULL:-1}" != 0 ]; then
  row "full counts GetTickCount_8bit" "$exe" --seed 1 -q --track iid --no-early-exit --all-tests "$data/GetTickCount_8bit.bin"
  row "full counts truerand_8bit" "$exe" --seed 1 -q --track iid --no-early-exit --all-tests "$data/truerand_8bit.bin"
fi
for f in truerand_8bit GetTickCount_8bit truerand_4bit truerand_1bit ringOsc-nist; do
  row "--non-iid $f" "$exe" --non-iid -q "$data/$f.bin"
done
row "default track GetTickCount_8bit" "$exe" --seed 1 -q "$data/GetTickCount_8bit.bin"

wall() {  # the seconds COMMAND... takes (its output discarded; a failure stops the script)
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "issue48-table.sh: failed: $*" >&2; exit 1; }
  e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", b - a }'
}
for ((r = 0; r < runs; ++r)); do
  for ((i = 0; i < ${#labels[@]}; ++i)); do
    eval "wall ${commands[$i]}" >>"$tmp/row$i"
  done
done
range() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f s", lo, hi }'; }

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
echo "Issue 48's table: ${COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')}, $(date -u +%F), $(nproc) cores, GPU: ${gpu:-none}, $runs runs each"
echo
echo "| what | command (in testdata/samples) | wall |"
echo "|---|---|---|"
for ((i = 0; i < ${#labels[@]}; ++i)); do
  c=${commands[$i]% }
  echo "| ${labels[$i]} | \`${c//$exe/ea_iid}\` | $(range "$tmp/row$i") |" | sed "s|$data/||g"
done
if [ "${BATCH:-1}" != 0 ]; then
  b=$(SEPARATE=0 BATCH_OPTS="--jobs 8" "$here/scripts/bench-batch.sh" "$build" 64 2>&1 | grep "assessments/min" | head -n 1)
  echo "| batch of 64, --jobs 8 | \`SEPARATE=0 BATCH_OPTS=\"--jobs 8\" scripts/bench-batch.sh BUILD 64\` | ${b:-failed} |"
fi
for nist in "${NIST_EA_NON_IID:-}" "${NIST_EA_IID:-}"; do
  [ -n "$nist" ] || continue
  for f in truerand_8bit GetTickCount_8bit; do
    args=(-i -a "$data/$f.bin" 8)  # (the same options for both programs)
    echo "| NIST $(basename "$nist") $f | \`$(basename "$nist") ${args[*]//$data\//}\` | $(wall "$nist" "${args[@]}") s |"
  done
done
