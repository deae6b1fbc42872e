#!/usr/bin/env bash
# Calibration of the shuffling generators (issue: --prng): for every generator, the share
# of independent IID data sets (OpenSSL RAND_bytes) that the 18 statistical permutation
# tests reject, with a Wilson 95% interval, next to Philox's; 8-bit and 1-bit data.
# usage: scripts/calibrate-prngs.sh BUILD_DIR [DATASETS_8BIT] [DATASETS_1BIT] [OUT.jsonl] [extra ea_calibrate options]
# Prints Markdown tables for docs/prngs.md: the rate of each generator (and shuffle), a
# generator whose interval excludes Philox's rate on data of the same bits flagged (Philox by
# the same shuffle where there is such a row, else by the one the cell names); then each
# test's rejections against the exact 99% binomial interval of the rate 2(t+1)/(N+1) of one
# test under the null (t the decision threshold, N the permutations; the compression test's
# on the data sets the other 18 passed, the only ones it runs on): statistics with ties
# (lenDirectionalRuns, maxCollision) reject less often than that, so only a count above the
# interval is flagged (one below is in parentheses).
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
def shuffle_of(r):
    # The algorithm without its parenthesised details; rows before the bucket shuffle
    # (session 26) name none and were Fisher-Yates, as every lane-group row is.
    name = r.get("shuffle", "fisher-yates").split(" (")[0]
    return "fisher-yates" if name.lower().startswith("fisher-yates") else name
for name in sys.argv[1:]:
  for l in open(name):
    if not l.strip():
        continue
    r = json.loads(l)
    shuffle = shuffle_of(r)
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
rows = {k: r for k, r in rows.items() if r["datasets"] > 0}  # (a part stopped before its first data set)
def wilson(k, n, z=1.959963984540054):
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, c - h), min(1.0, c + h)
print("| generator | bits | shuffle | data sets | rejected | rate | Wilson 95% | vs philox | most failed tests | perms/set |")
print("|---|---|---|---|---|---|---|---|---|---|")
for bits in sorted({k[1] for k in rows}, reverse=True):
  for shuffle in sorted({k[2] for k in rows if k[1] == bits}):
    for r in (r for r in rows.values() if r["bits"] == bits and r["shuffle"] == shuffle):
        n = r["datasets"]
        rate = r["rejected"] / n
        lo, hi = wilson(r["rejected"], n)
        # Philox's rate on data of these bits, by the same shuffle where there is one (a uniform
        # shuffle does not change the rate under the null; the cell names another one).
        refs = [x for x in rows.values() if x["prng"] == "philox" and x["bits"] == bits]
        ref = next((x for x in refs if x["shuffle"] == shuffle), refs[0] if refs else None)
        if ref is None or r["prng"] == "philox":
            flag = ""
        else:
            ref_rate = ref["rejected"] / ref["datasets"]
            flag = "ok" if lo <= ref_rate <= hi else "**FLAGGED**"
            if ref["shuffle"] != shuffle:
                flag += f" (philox by {ref['shuffle']})"
        tests = ", ".join(f"{k} {v}" for k, v in sorted(r["failedTests"].items(), key=lambda kv: -kv[1])[:3])
        print(f"| {r['prng']} | {bits} | {shuffle} | {n} | {r['rejected']} | {rate:.4f} | [{lo:.4f}, {hi:.4f}] | {flag} | "
              f"{tests} | {r['permutations'] / n:.0f} |")

def binom_interval(n, p, tail=0.005):
    """The exact central 99% interval [lo, hi] of Binomial(n, p): lo the least k with
    P(X <= k) > tail, hi the least k with P(X <= k) >= 1 - tail (the pmf in logs: no underflow)."""
    if p <= 0 or n == 0:
        return 0, 0
    if p >= 1:
        return n, n
    lp, lq = math.log(p), math.log1p(-p)
    cdf, lo = 0.0, None
    for k in range(n + 1):
        cdf += math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq)
        if lo is None and cdf > tail:
            lo = k
        if cdf >= 1 - tail:
            return lo, k
    return lo, n  # (rounding: the whole sum fell short of 1 - tail)

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
    above, cells = [], []
    for t in tests:
        c = r["failedTests"].get(t, 0)
        if t != "compression":
            a, b, note = lo, hi, ""
        elif not r["compression"]:  # (a test some rows left out, --fast-only: not counted)
            cells.append("-")
            continue
        else:
            # The compression test runs only where the 18 others passed: on the data sets not
            # rejected by them (a data set it rejects was rejected by it alone).
            m = n - (r["rejected"] - c)
            a, b = binom_interval(m, p)
            note = f" of {m} [{a}, {b}]"
        if c > b:
            above.append(t)
        cells.append((f"**{c}**" if c > b else f"({c})" if c < a else str(c)) + note)
    print(f"| {r['prng']} | {r['bits']} | {r['shuffle']} | {n} | {p:.6f} | {n * p:.2f} | [{lo}, {hi}] | "
          f"{' | '.join(cells)} | {', '.join(above) if above else 'none'} |")
PY
