#!/usr/bin/env bash
# Calibration of the shuffling generators (issue: --prng): for every generator, the share
# of independent IID data sets (OpenSSL RAND_bytes) that the 18 statistical permutation
# tests reject, with a Wilson 95% interval, next to Philox's; 8-bit and 1-bit data.
# usage: scripts/calibrate-prngs.sh BUILD_DIR [DATASETS_8BIT] [DATASETS_1BIT] [OUT.jsonl] [extra ea_calibrate options]
# Prints a Markdown table for docs/prngs.md; a generator whose interval excludes Philox's
# rate is flagged.
set -euo pipefail
build=${1:?usage: calibrate-prngs.sh BUILD_DIR [N8] [N1] [OUT.jsonl] [options]}
n8=${2:-1000}
n1=${3:-300}
out=${4:-calibration.jsonl}
shift $(( $# < 4 ? $# : 4 ))
prngs=$("$build/ea_iid" --list-prngs | sed -n 's/^\([a-z0-9-]*\)\( (default)\)\{0,1\}: .*/\1/p')
: >"$out"
for bits in 8 1; do
  n=$([ "$bits" = 8 ] && echo "$n8" || echo "$n1")
  for p in $prngs; do
    "$build/ea_calibrate" --prng "$p" --bits "$bits" --datasets "$n" --seed 20261122 "$@" | tee -a "$out" >&2
  done
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| generator | bits | data sets | rejected | rate | Wilson 95% | vs philox | failing tests | seconds |")
print("|---|---|---|---|---|---|---|---|---|")
for bits in (8, 1):
    ref = next((r for r in rows if r["prng"] == "philox" and r["bits"] == bits), None)
    for r in (r for r in rows if r["bits"] == bits):
        lo, hi = r["wilson95"]
        flag = "" if ref is None or r["prng"] == "philox" else ("ok" if lo <= ref["rate"] <= hi else "**FLAGGED**")
        tests = ", ".join(f"{k} {v}" for k, v in sorted(r["failedTests"].items(), key=lambda kv: -kv[1])[:4])
        print(f"| {r['prng']} | {bits} | {r['datasets']} | {r['rejected']} | {r['rate']:.4f} | "
              f"[{lo:.4f}, {hi:.4f}] | {flag} | {tests} | {r['seconds']:.0f} |")
PY
