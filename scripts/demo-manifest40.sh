#!/usr/bin/env bash
# Issue 45's "Done when": a manifest of 40 sources (IID and non-IID claims, with and without
# restart data, conditioning chains of 0-2 components) in one command; the same run
# interrupted by SIGINT and resumed; run as 4 shards and merged; every way gives the same rows
# (but time, command line and run place); sources with at most one component equal per-source
# `ea_iid source` runs (but the device text: how much GPU memory was free); the lab HTML.
# Run from the repository root.  usage: scripts/demo-manifest40.sh EA_IID OUT_DIR
set -uo pipefail
E=$(realpath "$1"); OUT=$2
W=/tmp/demo40; rm -rf "$W"; mkdir -p "$W" "$OUT"
S=$(realpath testdata/samples)
python3 "$(dirname "$0")/manifest40.py" "$S" "$W/m.json"
cd "$W"
t=$(date +%s%N); ms() { echo $(( ($(date +%s%N) - t) / 1000000 )); }
"$E" source --manifest m.json --seed 1 -o whole/ --jsonl whole.jsonl --html lab.html --csv lab.csv >whole.out 2>whole.err
echo "whole run: rc $? in $(ms) ms"; tail -45 whole.out
t=$(date +%s%N)
"$E" source --manifest m.json --seed 1 --jsonl resumed.jsonl >/dev/null 2>int.err & p=$!
sleep 4; kill -INT $p; wait $p; echo "interrupted: rc $? after $(ms) ms with $(wc -l <resumed.jsonl) rows"; tail -2 int.err
t=$(date +%s%N)
"$E" source --manifest m.json --jsonl resumed.jsonl --resume >/dev/null 2>res.err; echo "resumed: rc $? in $(ms) ms, $(wc -l <resumed.jsonl) rows"
t=$(date +%s%N)
for k in 0 1 2 3; do "$E" source --manifest m.json --seed 1 --shard $k/4 --jsonl part-$k.jsonl >/dev/null 2>part-$k.err || echo "shard $k rc $?"; done
echo "4 shards: $(ms) ms"
"$E" merge --html merged.html --csv merged.csv merged.jsonl part-0.jsonl part-1.jsonl part-2.jsonl part-3.jsonl >merge.out 2>merge.err
echo "merge rc $?"; tail -3 merge.err
t=$(date +%s%N)
"$E" source --manifest m.json --seed 1 --jobs 4 --jsonl jobs4.jsonl >/dev/null 2>jobs.err; echo "--jobs 4: rc $? in $(ms) ms"
python3 - <<'PY'
import json
def paths(a, b, at=""):
    if type(a) != type(b): return [at]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k in ("dateTimeStamp", "commandline", "timings", "run", "seconds"): continue
            out += paths(a.get(k), b.get(k), at + "." + k)
        return out
    if isinstance(a, list):
        if len(a) != len(b): return [at + "[len]"]
        out = []
        for i, (x, y) in enumerate(zip(a, b)): out += paths(x, y, at + f"[{i}]")
        return out
    return [] if a == b else [at + f" {str(a)[:60]!r} vs {str(b)[:60]!r}"]
W = {json.loads(l)["source"]: json.loads(l) for l in open("whole.jsonl") if l.strip()}
try:
    J = {json.loads(l)["source"]: json.loads(l) for l in open("jobs4.jsonl") if l.strip()}
    shown = 0
    for k in W:
        d = paths(W[k], J.get(k, {}))
        if d and shown < 3: print("jobs4 differs:", k, d[:4]); shown += 1
except FileNotFoundError: pass
def norm(j):
    if isinstance(j, dict):
        return {k: norm(v) for k, v in j.items() if k not in ("dateTimeStamp", "commandline", "timings", "run", "seconds", "device", "compressionDevice")}
    if isinstance(j, list): return [norm(x) for x in j]
    return j
def rows(p):
    try: return [json.loads(l) for l in open(p) if l.strip()]
    except FileNotFoundError: return []
whole = rows("whole.jsonl")
by = lambda rs: {r.get("source"): norm(r) for r in rs}
w = by(whole)
print("whole:", len(whole), "rows;", sum(1 for r in whole if r.get("errorLevel") == -1), "error rows")
for name in ("resumed.jsonl", "merged.jsonl", "jobs4.jsonl"):
    o = by(rows(name))
    same = sum(1 for k in w if o.get(k) == w[k])
    print(f"{name}: {len(o)} sources, {same} of {len(w)} equal to the whole run's")
PY
# Per-source ea_iid source runs of the sources with at most one component.
python3 - "$E" <<'PY'
import json, subprocess, sys
E = sys.argv[1]
m = json.load(open("m.json"))["sources"]
whole = {json.loads(l)["source"]: json.loads(l) for l in open("whole.jsonl") if l.strip()}
def norm(j):
    if isinstance(j, dict):
        return {k: norm(v) for k, v in j.items() if k not in ("dateTimeStamp", "commandline", "timings", "run", "seconds")}
    if isinstance(j, list): return [norm(x) for x in j]
    return j
checked = same = 0
for s in m:
    chain = s.get("conditioningComponent", [])
    if len(chain) > 1: continue
    a = [E, "source", s["primaryNoiseSource"], s["rawNoisePath"], "--seed", "1", "-q", "-o", "alone.json"]
    if s.get("iidClaim") is False: a += ["--track", "non-iid"]
    if "restartTestPath" in s: a += ["--restart-data", s["restartTestPath"]]
    if "hminEstimate" in s: a += ["--h-submitter", str(s["hminEstimate"])]
    for c in chain:
        a += ["--conditioning", "vetted" if c["vetted"] else "non-vetted", "--n-in", str(c["minNin"]), "--n-out", str(c["nOut"]), "--nw", str(c["nw"])]
        if "hPrime" in c: a += ["--h-prime", str(c["hPrime"])]
    subprocess.run(a, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checked += 1
    try:
        if norm(json.load(open("alone.json"))) == norm(whole[s["primaryNoiseSource"]]): same += 1
        else:
            import itertools
            a_, b_ = json.load(open("alone.json")), whole[s["primaryNoiseSource"]]
            def paths(a, b, at=""):
                if type(a) != type(b): return [at]
                if isinstance(a, dict):
                    return [p for k in sorted(set(a) | set(b)) if k not in ("dateTimeStamp", "commandline", "timings", "run", "seconds") for p in paths(a.get(k), b.get(k), at + "." + k)]
                if isinstance(a, list):
                    return [at + "[len]"] if len(a) != len(b) else [p for i, (x, y) in enumerate(zip(a, b)) for p in paths(x, y, at + f"[{i}]")]
                return [] if a == b else [at + f" {str(a)[:50]!r} vs {str(b)[:50]!r}"]
            print("differs:", s["primaryNoiseSource"], paths(a_, b_)[:3])
    except Exception as e: print("no result:", s["primaryNoiseSource"], e)
print(f"per-source ea_iid source: {same} of {checked} equal to the manifest's rows")
PY
cp lab.html lab.csv merged.html merged.csv whole.out m.json "$OUT/" 2>/dev/null
for f in whole/src-03-biased-random-bits.html whole/src-39-truerand_4bit.html; do cp "$f" "$OUT/" 2>/dev/null; done
