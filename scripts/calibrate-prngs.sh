#!/usr/bin/env bash
# Calibration of the shuffling generators (issue: --prng): for every generator, the share
# of independent IID data sets (OpenSSL RAND_bytes) that the 18 statistical permutation
# tests reject, with a Wilson 95% interval, next to Philox's; 8-bit and 1-bit data.
# usage: scripts/calibrate-prngs.sh BUILD_DIR [DATASETS_8BIT] [DATASETS_1BIT] [OUT.jsonl] [extra ea_calibrate options]
# Prints Markdown tables for docs/prngs.md: the rate of each generator (and shuffle), a
# generator whose interval excludes Philox's rate flagged; then each test's rejections against
# the exact 99% binomial interval of the rate 2(t+1)/(N+1) of one test under the null (t the
# decision threshold, N the permutations): statistics with ties (lenDirectionalRuns,
# maxCollision) reject less often than that, so only a count above the interval is flagged.
set -euo pipefail
# usage: scripts/calibrate-prngs.sh --table OUT.jsonl...  prints the tables of earlier runs
# Environment: PRNGS="philox sobol ..." (default: every generator), BITS="8 1" (default).
# SEED (default 20261122). Rows are appended to OUT.jsonl, so that a calibration can be run
# in parts (give each part its own SEED); the table adds up the rows of each generator and
# width (the data sets are independent).
if [ "${1:-}" = "--table" ]; then
  shift
  [ $# -gt 0 ] || { echo "usage: calibrate-prngs.sh --table OUT.jsonl..." >&2; exit 2; }
  files=("$@")
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
  files=("$out")
fi
python3 - "${files[@]}" <<'PY'
import json, math, sys
rows = {}
for name in sys.argv[1:]:
  for l in open(name):
    if not l.strip():
        continue
    r = json.loads(l)
    # (rows before the bucket shuffle, session 26, name no shuffle: Fisher-Yates)
    shuffle = r.get("shuffle", "fisher-yates").split(" (")[0]
    key = (r["prng"], r["bits"], shuffle)
    t = rows.setdefault(key, {"prng": r["prng"], "bits": r["bits"], "shuffle": shuffle, "datasets": 0, "rejected": 0,
                              "permutations": 0, "failedTests": {}, "seeds": [],
                              "iterations": r.get("iterations", 10000), "threshold": r.get("decisionThreshold", 5),
                              "compression": True})
    t["compression"] = t["compression"] and bool(r.get("compression", False))
    if (t["iterations"], t["threshold"]) != (r.get("iterations", 10000), r.get("decisionThreshold", 5)):
        sys.exit(f"{name}: rows of {key} with different permutations or thresholds cannot be added up")
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
print("| generator | bits | shuffle | data sets | rejected | rate | Wilson 95% | vs philox | most failed tests | perms/set |")
print("|---|---|---|---|---|---|---|---|---|---|")
for bits in sorted({k[1] for k in rows}, reverse=True):
  for shuffle in sorted({k[2] for k in rows if k[1] == bits}):
    ref = rows.get(("philox", bits, shuffle))
    for r in (r for r in rows.values() if r["bits"] == bits and r["shuffle"] == shuffle):
        n = r["datasets"]
        rate = r["rejected"] / n
        lo, hi = wilson(r["rejected"], n)
        ref_rate = ref["rejected"] / ref["datasets"] if ref else None
        flag = "" if ref is None or r["prng"] == "philox" else ("ok" if lo <= ref_rate <= hi else "**FLAGGED**")
        tests = ", ".join(f"{k} {v}" for k, v in sorted(r["failedTests"].items(), key=lambda kv: -kv[1])[:3])
        print(f"| {r['prng']} | {bits} | {shuffle} | {n} | {r['rejected']} | {rate:.4f} | [{lo:.4f}, {hi:.4f}] | {flag} | "
              f"{tests} | {r['permutations'] / n:.0f} |")

def binom_interval(n, p, tail=0.005):  # the exact central 99% interval of Binomial(n, p)
    lo = hi = None
    cdf, pmf = 0.0, (1 - p) ** n
    for k in range(n + 1):
        cdf += pmf
        if lo is None and cdf > tail:
            lo = k
        if cdf >= 1 - tail:
            hi = k
            break
        pmf *= (n - k) / (k + 1) * p / (1 - p)
    return lo, hi

tests = ["excursion", "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases", "numRunsMedian",
         "lenRunsMedian", "avgCollision", "maxCollision"] + [f"{s}({l})" for s in ("periodicity", "covariance")
                                                             for l in (1, 2, 8, 16, 32)] + ["compression"]
print()
print("| generator | bits | shuffle | data sets | per test 2(t+1)/(N+1) | expected | 99% interval | " +
      " | ".join(tests) + " | above |")
print("|---" * (len(tests) + 8) + "|")
for r in sorted(rows.values(), key=lambda r: (-r["bits"], r["shuffle"], r["prng"])):
    n = r["datasets"]
    p = 2 * (r["threshold"] + 1) / (r["iterations"] + 1)
    lo, hi = binom_interval(n, p)
    # (a test some rows left out, --fast-only: not counted)
    ran = [t != "compression" or r["compression"] for t in tests]
    counts = [r["failedTests"].get(t, 0) for t in tests]
    above = [t for t, c, x in zip(tests, counts, ran) if x and c > hi]
    cells = " | ".join("-" if not x else f"**{c}**" if c > hi else (f"({c})" if c < lo else str(c))
                       for c, x in zip(counts, ran))
    print(f"| {r['prng']} | {r['bits']} | {r['shuffle']} | {n} | {p:.6f} | {n * p:.2f} | [{lo}, {hi}] | {cells} | "
          f"{', '.join(above) if above else 'none'} |")
PY
