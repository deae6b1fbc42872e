#!/usr/bin/env bash
# scripts/calibrate-prngs.sh --table: the committed calibration rows give the tables that
# docs/prngs.md quotes (each test's count against the exact 99% interval of 2(t+1)/(N+1); the
# intervals [2, 17] for 7,367 and [1, 12] for 4,641 data sets were computed apart, in exact
# rational arithmetic, the compression test's on the 7,228 data sets the other 18 passed); a
# count above the interval is flagged, a test that --fast-only rows left out is not counted,
# another generator's rate is compared with Philox's whatever the shuffles (the engine's
# names: Philox's bucket shuffle, Fisher-Yates for the others), and rows of different
# permutation counts are refused. (The edited rows are *.rows: schema/outputs validates every
# *.json and *.jsonl of the tests' folder against the record schema.)
# usage: calibration-table.sh SOURCE_DIR WORK_DIR
set -uo pipefail
src=$1 work=$2
mkdir -p "$work"
fail=0
check() {  # check NAME PATTERN FILE: FILE has a line matching PATTERN (grep -E)
  if grep -Eq -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1 (no line matching '$2' in $3)"; fail=1; fi
}
cal=$src/docs/calibration
bash "$src/scripts/calibrate-prngs.sh" --table "$cal/h200-2026-11-29-bucket.jsonl" "$cal/h200-2026-11-30-bucket.jsonl" \
  "$cal/h200-2026-11-30-bucket-4bit.jsonl" >"$work/bucket.md" || { echo "FAIL the table of the bucket rows"; exit 1; }
check "8-bit rows added up" '^\| philox \| 8 \| bucket b0=3 b1=8 L=1024 \| 7367 \| 145 \| 0\.0197 ' "$work/bucket.md"
check "8-bit per-test interval, nothing above" '^\| philox \| 8 \| bucket .*\| 8\.84 \| \[2, 17\] \| 8 \| 12 \| \(1\) \| .* \| 6 of 7228 \[2, 17\] \| none \|$' "$work/bucket.md"
check "4-bit: compression not counted (--fast-only)" '^\| philox \| 4 \| bucket .*\| 5\.57 \| \[1, 12\] \| .*\| - \| none \|$' "$work/bucket.md"
# Another generator, by Fisher-Yates as the engine names it, rejecting 400 of 6,882 data sets
# (Wilson 95% [0.053, 0.064], Philox's 0.0197 outside) with one test above its interval.
sed -e 's/"prng":"philox"/"prng":"xorwow"/' -e 's/"shuffle":"bucket[^"]*"/"shuffle":"Fisher-Yates, Lemire bounded draws"/' \
    -e 's/"rejected":135/"rejected":400/' -e 's/"covariance(1)":13/"covariance(1)":40/' \
    "$cal/h200-2026-11-30-bucket.jsonl" >"$work/excess.rows"
bash "$src/scripts/calibrate-prngs.sh" --table "$cal/h200-2026-11-30-bucket.jsonl" "$work/excess.rows" >"$work/excess.md" ||
  { echo "FAIL the table of the excess row"; exit 1; }
check "another generator's rate against Philox's bucket shuffle" '^\| xorwow \| 8 \| fisher-yates \| 6882 \| 400 \| .*\| \*\*FLAGGED\*\* \(philox by bucket b0=3 b1=8 L=1024\) \|' "$work/excess.md"
check "a count above the interval flagged" '^\| xorwow .*\| \*\*40\*\* \| .*\| covariance\(1\) \|$' "$work/excess.md"
# Rows of 10,000 and of 1,000 permutations cannot be added up.
sed -e 's/"iterations":10000/"iterations":1000/' "$cal/h200-2026-11-30-bucket.jsonl" >"$work/other.rows"
if bash "$src/scripts/calibrate-prngs.sh" --table "$cal/h200-2026-11-30-bucket.jsonl" "$work/other.rows" >"$work/mixed.md" 2>&1; then
  echo "FAIL rows of different permutation counts added up"; fail=1
else
  check "rows of different permutation counts refused" 'different permutations or thresholds' "$work/mixed.md"
fi
[ $fail = 0 ] && echo "calibration table: all checks passed"
exit $fail
