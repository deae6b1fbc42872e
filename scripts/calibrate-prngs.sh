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
# SEED (default 20261122). Rows are appended to OUT.jsonl, so that a calibration can be run
# in parts (give each part its own SEED); the table adds up the rows of each generator and
# width (the data sets are independent).
if [ "${1:-}" = "--table" ]; then
  out=${2:?usage: calibrate-prngs.sh --table OUT.jsonl}
else
  build=${1:?usage: calibrate-prngs.sh BUILD_DIR [N8] [N1] [OUT.jsonl] [options]}
  n8=${2:-1000}
  n1=${3:-300}
  out=${4:-calibration.jsonl}
  shift $(( $# < 4 ? $# : 4 ))
  prngs=${PRNGS:-$("$build/ea_iid" --list-prngs | sed -n 's/^\([a-z0-9-]*\)\( (default)\)\{0,1\}: .*/\1/p')}
  # All generators in one process: their data sets share the GPU (interleaved).
  for bits in ${BITS:-8 1}; do
    n=$([ "$bits" = 8 ] && echo "$n8" || echo "$n1")
    "$build/ea_calibrate" --prng "$(echo $prngs | tr ' ' ,)" --bits "$bits" --datasets "$n" --seed "${SEED:-20261122}" "$@" |
      tee -a "$out"
  done
fi
python3 - "$out" <<'PY'
import json, math, sys
rows = {}
for l in open(sys.argv[1]):
    if not l.strip():
        continue
    r = json.loads(l)
    key = (r["prng"], r["bits"])
    t = rows.setdefault(key, {"prng": r["prng"], "bits": r["bits"], "datasets": 0, "rejected": 0,
                              "permutations": 0, "failedTests": {}, "seeds": []})
    t["datasets"] += r["datasets"]
    t["rejected"] += r["rejected"]
    t["permutations"] += r["permutations"]
    t["seeds"].append(str(r["seed"]))
    for k, v in r["failedTests"].items():
        t["failedTests"][k] = t["failedTests"].get(k, 0) + v
def wilson(k, n, z=1.959963984540054):
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, c - h), min(1.0, c + h)
print("| generator | bits | data sets | rejected | rate | Wilson 95% | vs philox | most failed tests | perms/set |")
print("|---|---|---|---|---|---|---|---|---|")
for bits in (8, 1):
    ref = rows.get(("philox", bits))
    for r in (r for r in rows.values() if r["bits"] == bits):
        n = r["datasets"]
        rate = r["rejected"] / n
        lo, hi = wilson(r["rejected"], n)
        ref_rate = ref["rejected"] / ref["datasets"] if ref else None
        flag = "" if ref is None or r["prng"] == "philox" else ("ok" if lo <= ref_rate <= hi else "**FLAGGED**")
        tests = ", ".join(f"{k} {v}" for k, v in sorted(r["failedTests"].items(), key=lambda kv: -kv[1])[:3])
        print(f"| {r['prng']} | {bits} | {n} | {r['rejected']} | {rate:.4f} | [{lo:.4f}, {hi:.4f}] | {flag} | "
              f"{tests} | {r['permutations'] / n:.0f} |")
PY
