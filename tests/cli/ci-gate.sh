#!/usr/bin/env bash
# Runs the CI gate snippet of README.md (between <!-- ci-gate-begin --> and -end) with
# ea_iid on PATH, and checks its output: a compliant IID file (exit 0), a short file (exit 4),
# a stuck source of one symbol (exit 5, errorKind "degenerate"). Exit 77 (skipped) without jq.
# usage: ci-gate.sh README EA_IID SAMPLES_DIR WORK_DIR
set -uo pipefail
readme=$1 exe=$2 samples=$(realpath "$3") work=$4
command -v jq >/dev/null || { echo "jq not installed: skipped"; exit 77; }
mkdir -p "$work/bin" && ln -sf "$(realpath "$exe")" "$work/bin/ea_iid"
snippet=$(awk '/<!-- ci-gate-begin -->/{on=1; next} /<!-- ci-gate-end -->/{on=0} on' "$readme" | sed '/^```/d')
[ -n "$snippet" ] || { echo "no ci-gate snippet in $readme"; exit 1; }
fail=0
check() {  # SAMPLES EXPECTED_STATUS EXPECTED_LINE
  out=$(cd "$work" && PATH="$work/bin:$PATH" SAMPLES="$1" bash -c "$snippet" 2>&1)
  status=$?
  if [ "$status" -ne "$2" ] || ! grep -q "$3" <<<"$out"; then
    echo "FAIL $(basename "$1"): exit $status (expected $2)"; echo "$out"; fail=1
  else
    echo "ok   $(basename "$1"): exit $status, $(grep "$3" <<<"$out" | head -n 1)"
  fi
}
check "$samples/truerand_8bit.bin" 0 "PASS: compliant IID assessment"
check "$samples/rand8_short.bin" 4 "not compliant: 10000 samples"
head -c 2000 /dev/zero >"$work/zeros.bin"
check "$work/zeros.bin" 5 "FAIL: degenerate source"
exit $fail
