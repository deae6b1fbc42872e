#!/usr/bin/env bash
# Calibration of the shuffling generators (issue: --prng): for every generator, the share
# of independent IID data sets (OpenSSL RAND_bytes) that the 18 statistical permutation
# tests reject, with a Wilson 95% interval, next to Philox's; 8-bit and 1-bit data.
# usage: scripts/calibrate-prngs.sh BUILD_DIR [DATASETS_8BIT] [DATASETS_1BIT] [OUT.jsonl] [extra ea_calibrate options]
# Prints a Markdown table for docs/prngs.md; a generator whose interval excludes Philox's
# rate is flagged.
set -euo pipefail
# usage: scripts/calibrate-prngs.sh --table OUT.jsonl    prints the table of an earlier run
# Environment: PRNGS="philox sobol ..." (default: every generator), BITS="8 1" (default).
# Rows are appended to OUT.jsonl, so that a calibration can be run in parts; the table
# uses the last row of each generator and width.
if [ "${1:-}" = "--table" ]; then
  out=${2:?usage: calibrate-prngs.sh --table OUT.jsonl}
else
  build=${1:?usage: calibrate-prngs.sh BUILD_DIR [N8] [N1] [OUT.jsonl] [options]}
  n8=${2:-1000}
  n1=${3:-300}
  out=${4:-calibration.jsonl}
  shift $(( $# < 4 ? $# : 4 ))
  prngs=${PRNGS:-$("$build/ea_iid" --list-prngs | sed -n 's/^\([a-z0-9-]*\)\( (default)\)\{0,1\}: .*/\1/p')}
  for bits in ${BITS:-8 1}; do
    n=$([ "$bits" = 8 ] && echo "$n8" || echo "$n1")
    for p in $prngs; do
      "$build/ea_calibrate" --prng "$p" --bits "$bits" --datasets "$n" --seed 20261122 "$@" | tee -a "$out"
    done
  done
fi
python3 - "$out" <<'PY'
import json, sys
last = {}
for l in open(sys.argv[1]):
    if l.strip():
        r = json.loads(l)
        last[(r["prng"], r["bits"])] = r
rows = list(last.values())
print("| generator | bits | data sets | rejected | rate | Wilson 95% | vs philox | most failed tests | perms/set | seconds |")
print("|---|---|---|---|---|---|---|---|---|---|")
for bits in (8, 1):
    ref = next((r for r in rows if r["prng"] == "philox" and r["bits"] == bits), None)
    for r in (r for r in rows if r["bits"] == bits):
        lo, hi = r["wilson95"]
        flag = "" if ref is None or r["prng"] == "philox" else ("ok" if lo <= ref["rate"] <= hi else "**FLAGGED**")
        tests = ", ".join(f"{k} {v}" for k, v in sorted(r["failedTests"].items(), key=lambda kv: -kv[1])[:4])
        print(f"| {r['prng']} | {bits} | {r['datasets']} | {r['rejected']} | {r['rate']:.4f} | "
              f"[{lo:.4f}, {hi:.4f}] | {flag} | {tests} | {r['permutations'] / max(1, r['datasets']):.0f} | {r['seconds']:.0f} |")
PY
