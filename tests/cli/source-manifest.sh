#!/usr/bin/env bash
# ea_iid source --manifest: four sources (the IID tests deciding, a non-IID claim with
# restart data and a vetted component, an IID claim with H_submitter and a non-vetted
# component whose h' comes from a conditioned file, a non-IID claim with h' given) in one
# run: each per-source JSON equals that of `ea_iid source` with the same options, the JSONL
# rows are those records with their "run", everything follows the schema, the lab table,
# CSV and HTML list every source. Then manifest errors (exit 2, naming the source and the
# field, nothing written), a source that cannot be read (an error row, the others assessed,
# exit 2), and a run interrupted by SIGINT (exit 130, the rows written kept) and resumed
# (--resume refuses other options or another manifest, then completes the run).
# usage: source-manifest.sh EA_IID SAMPLES_DIR WORK_DIR VALIDATE_JSON SCHEMA
set -uo pipefail
exe=$1 samples=$2 work=$3 validate=$4 schema=$5
rm -rf "$work" && mkdir -p "$work/data"
fail=0
for f in rand8_short.bin rand1_short.bin truerand_1bit.bin truerand_4bit.bin; do cp "$samples/$f" "$work/data/"; done
d=$work/data
cat >"$work/m.json" <<'EOF'
{"sources": [
  {"primaryNoiseSource": "rand8 auto", "rawNoisePath": "data/rand8_short.bin", "bitsPerSample": 8},
  {"primaryNoiseSource": "rand1 non-iid", "rawNoisePath": "data/rand1_short.bin", "iidClaim": false,
   "restartTestPath": "data/truerand_1bit.bin", "numberOfRestarts": 1000, "samplesPerRestart": 1000,
   "conditioningComponent": [{"sequencePosition": 1, "vetted": true, "description": "HMAC-SHA-256",
                              "minNin": 64, "nOut": 32, "nw": 64}]},
  {"primaryNoiseSource": "rand8 claim", "rawNoisePath": "data/rand8_short.bin", "iidClaim": true, "hminEstimate": 5,
   "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "bijectiveClaim": false, "minNin": 64,
                              "nOut": 32, "nw": 64, "unvettedConditionedPaths": "data/rand1_short.bin"}]},
  {"primaryNoiseSource": "trng", "rawNoisePath": "data/truerand_1bit.bin", "iidClaim": false,
   "restartTestPath": "data/truerand_1bit.bin",
   "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.9}]}
]}
EOF
"$exe" source --manifest "$work/m.json" --seed 7 --iterations 100 -o "$work/out/" --jsonl "$work/run.jsonl" \
  --html "$work/lab.html" --csv "$work/lab.csv" >"$work/m.out" 2>"$work/m.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAILED: the manifest run exit $rc, expected 0"; cat "$work/m.err"; fail=1; }
# Each source alone, as ea_iid source runs it.
"$exe" source "rand8 auto" "$d/rand8_short.bin" --bits 8 --seed 7 --iterations 100 -q -o "$work/s0.json"
"$exe" source "rand1 non-iid" "$d/rand1_short.bin" --track non-iid --restart-data "$d/truerand_1bit.bin" \
  --conditioning vetted --n-in 64 --n-out 32 --nw 64 --seed 7 -q -o "$work/s1.json"
"$exe" source "rand8 claim" "$d/rand8_short.bin" --h-submitter 5 --conditioning non-vetted --n-in 64 --n-out 32 \
  --nw 64 --conditioned "$d/rand1_short.bin" --seed 7 --iterations 100 -q -o "$work/s2.json"
"$exe" source trng "$d/truerand_1bit.bin" --track non-iid --restart-data "$d/truerand_1bit.bin" \
  --conditioning non-vetted --n-in 64 --n-out 32 --nw 64 --h-prime 0.9 --seed 7 -q -o "$work/s3.json"
python3 - "$work" <<'EOF' || fail=1
import json, sys
work = sys.argv[1]
def norm(j):  # what differs between two runs of the same assessment: the time and the command line
    if isinstance(j, dict):
        return {k: norm(v) for k, v in j.items() if k not in ("dateTimeStamp", "commandline", "timings", "run")}
    if isinstance(j, list):
        return [norm(x) for x in j]
    return j
rows = [json.loads(l) for l in open(work + "/run.jsonl")]
stems = ["rand8_auto", "rand1_non-iid", "rand8_claim", "trng"]
ok = len(rows) == 4
for k, stem in enumerate(stems):
    alone = json.load(open("%s/s%d.json" % (work, k)))
    page = json.load(open("%s/out/%s.json" % (work, stem)))
    if norm(alone) != norm(page):
        print("FAILED: out/%s.json differs from ea_iid source's" % stem); ok = False
    if k < len(rows) and (norm(rows[k]) != norm(page) or rows[k]["run"]["item"] != k or rows[k]["run"]["items"] != 4
                          or rows[k]["run"]["userSeed"] != "7" or rows[k]["run"]["shard"] is not None):
        print("FAILED: JSONL row %d is not out/%s.json with its run" % (k, stem)); ok = False
if rows and rows[2]["flow"]["hSubmitter"] != 5:
    print("FAILED: hminEstimate is not H_submitter"); ok = False
csv = open(work + "/lab.csv").read().splitlines()
html = open(work + "/lab.html").read()
if len(csv) != 5 or not csv[0].startswith("source,track,"):
    print("FAILED: lab.csv has %d lines" % len(csv)); ok = False
for stem in stems:
    if 'href="out/%s.html"' % stem not in html:
        print("FAILED: lab.html does not link out/%s.html" % stem); ok = False
if "IID claim not confirmed" not in open(work + "/m.out").read() and rows and rows[2]["flow"]["verdict"] != "IID":
    print("FAILED: the table does not say rand8 claim's IID claim was not confirmed"); ok = False
sys.exit(0 if ok else 1)
EOF
grep -q "^4 sources: " "$work/m.out" || { echo "FAILED: no lab table on standard output"; cat "$work/m.out"; fail=1; }
# The lab summary: the entropy with 6 decimals (as the text report), the reason a source is
# not for compliance (its first complianceNotes), the run's tool, date and seed on the page.
python3 - "$work" <<'EOF' || fail=1
import csv, json, re, sys
work = sys.argv[1]
rows = list(csv.DictReader(open(work + "/lab.csv", newline="")))
table = open(work + "/m.out").read()
html = open(work + "/lab.html").read()
ok = True
for r in rows:
    if not re.fullmatch(r"[0-9]+\.[0-9]{6}", r["entropy"]):
        print("FAILED: lab.csv's entropy of %s is %r, not 6 decimals" % (r["source"], r["entropy"])); ok = False
    if r["entropy"] not in table:
        print("FAILED: the table does not give %s's entropy %s" % (r["source"], r["entropy"])); ok = False
    if r["for_compliance"] == "no":
        note = json.load(open("%s/out/%s.json" % (work, r["source"].replace(" ", "_"))))["complianceNotes"][0]
        if r["compliance_note"] != note or "not for compliance (" + note + ")" not in table:
            print("FAILED: %s's reason for not for compliance is not given" % r["source"]); ok = False
if not any(r["for_compliance"] == "no" for r in rows):
    print("FAILED: no source not for compliance to check"); ok = False
for cell in ("<th>tool</th><td>", "<th>date</th><td>20", "<th>seed</th><td>7 (repeat the run"):
    if cell not in html:
        print("FAILED: lab.html has no %r" % cell); ok = False
sys.exit(0 if ok else 1)
EOF
"$validate" "$schema" "$work/out" "$work/run.jsonl" | tail -1 | grep -q " 0 invalid" ||
  { echo "FAILED: the reports do not follow the schema"; "$validate" "$schema" "$work/out" "$work/run.jsonl" | tail -5; fail=1; }

# Manifest errors: exit 2 before any work, naming the source and the field; nothing written.
bad() {  # NAME EXPECTED JSON
  printf '%s' "$3" >"$work/$1.json"
  "$exe" source --manifest "$work/$1.json" --seed 7 -o "$work/$1-out/" --jsonl "$work/$1.jsonl" 2>"$work/$1.err" >/dev/null
  local rc=$?
  [ $rc -eq 2 ] || { echo "FAILED: $1: exit $rc, expected 2"; fail=1; }
  grep -qF -- "$2" "$work/$1.err" || { echo "FAILED: $1: the error does not say '$2'"; cat "$work/$1.err"; fail=1; }
  [ ! -e "$work/$1-out" ] && [ ! -e "$work/$1.jsonl" ] || { echo "FAILED: $1 wrote something"; fail=1; }
}
ok='{"primaryNoiseSource": "a", "rawNoisePath": "data/rand8_short.bin"}'
bad e-unknown 'sources[1] (b): colour: unknown field' "{\"sources\": [$ok, {\"primaryNoiseSource\": \"b\", \"rawNoisePath\": \"data/rand8_short.bin\", \"colour\": 1}]}"
bad e-type 'sources[1] (b): iidClaim: expected true or false, got "yes"' "{\"sources\": [$ok, {\"primaryNoiseSource\": \"b\", \"rawNoisePath\": \"data/rand8_short.bin\", \"iidClaim\": \"yes\"}]}"
bad e-raw 'sources[1] (b): rawNoisePath: missing (required)' "{\"sources\": [$ok, {\"primaryNoiseSource\": \"b\"}]}"
bad e-file 'sources[1] (b): restartTestPath: ' "{\"sources\": [$ok, {\"primaryNoiseSource\": \"b\", \"rawNoisePath\": \"data/rand8_short.bin\", \"restartTestPath\": \"data/nope.bin\"}]}"
bad e-dup 'sources[1] (a): primaryNoiseSource: the name of sources[0] (a) too' "{\"sources\": [$ok, $ok]}"
bad e-position 'sources[0] (a): conditioningComponent[0].sequencePosition: 2: the 1 components take the positions 1..1' \
  '{"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "data/rand8_short.bin", "conditioningComponent": [{"sequencePosition": 2, "vetted": true, "minNin": 64, "nOut": 32, "nw": 64}]}]}'
bad e-twice 'sources[0] (a): conditioningComponent[1].sequencePosition: 1: the 2 components take the positions 1..2, each once' \
  '{"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "data/rand8_short.bin", "conditioningComponent": [{"sequencePosition": 1, "vetted": true, "minNin": 64, "nOut": 32, "nw": 64}, {"sequencePosition": 1, "vetted": true, "minNin": 64, "nOut": 32, "nw": 64}]}]}'
"$exe" source --manifest "$work/m.json" --track non-iid -o "$work/e-opt-out/" 2>"$work/e-opt.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--track is given per source with --manifest: its field iidClaim" "$work/e-opt.err" &&
  [ ! -e "$work/e-opt-out" ] || { echo "FAILED: --track with --manifest: exit $rc"; cat "$work/e-opt.err"; fail=1; }
# The run's options by the one set of rules: --iterations where no source runs the IID tests.
printf '{"sources": [{"primaryNoiseSource": "n", "rawNoisePath": "data/rand1_short.bin", "iidClaim": false}]}' >"$work/n.json"
"$exe" source --manifest "$work/n.json" --iterations 100 --jsonl "$work/n.jsonl" 2>"$work/n.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--iterations applies to the IID tests" "$work/n.err" && [ ! -e "$work/n.jsonl" ] ||
  { echo "FAILED: --iterations with only non-IID sources: exit $rc"; cat "$work/n.err"; fail=1; }

# Sources that draw no random numbers (iidClaim false): no seed drawn or logged, run.userSeed
# null (as ea_iid source --track non-iid), and --resume --seed 5 is not refused over it.
# --jsonl /dev/null is taken, as by ea_iid --jsonl.
"$exe" source --manifest "$work/n.json" --jsonl "$work/n.jsonl" -q 2>"$work/n2.err"
rc=$?
[ $rc -eq 0 ] && ! grep -q "seed" "$work/n2.err" &&
  python3 -c 'import json, sys; sys.exit(json.loads(open(sys.argv[1]).readline())["run"]["userSeed"] is not None)' "$work/n.jsonl" ||
  { echo "FAILED: non-IID sources only: exit $rc, a seed logged or recorded"; cat "$work/n2.err" "$work/n.jsonl"; fail=1; }
"$exe" source --manifest "$work/n.json" --jsonl "$work/n.jsonl" --resume --seed 5 -q 2>"$work/n3.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAILED: --resume --seed 5 of sources that draw nothing: exit $rc"; cat "$work/n3.err"; fail=1; }
"$exe" source --manifest "$work/n.json" --jsonl /dev/null -q 2>"$work/n4.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAILED: --jsonl /dev/null: exit $rc"; cat "$work/n4.err"; fail=1; }

# A source that cannot be assessed (an empty file): its error row, the others assessed, exit 2.
: >"$d/empty.bin"
printf '{"sources": [%s, {"primaryNoiseSource": "empty", "rawNoisePath": "data/empty.bin"}]}' "$ok" >"$work/x.json"
"$exe" source --manifest "$work/x.json" --seed 7 --iterations 100 --jsonl "$work/x.jsonl" >"$work/x.out" 2>"$work/x.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAILED: a source in error: exit $rc, expected 2"; fail=1; }
[ "$(grep -c '"errorLevel":0' "$work/x.jsonl")" = 1 ] && [ "$(grep -c '"errorLevel":-1' "$work/x.jsonl")" = 1 ] ||
  { echo "FAILED: x.jsonl holds no result and error row"; cat "$work/x.jsonl"; fail=1; }
grep -q "^empty .* error .*error: .*empty" "$work/x.out" || { echo "FAILED: the table does not show the error"; cat "$work/x.out"; fail=1; }

# SIGINT during the second source (4-bit, 1,000,000 samples: seconds of non-IID estimates).
cat >"$work/i.json" <<'EOF'
{"sources": [
  {"primaryNoiseSource": "first", "rawNoisePath": "data/rand8_short.bin"},
  {"primaryNoiseSource": "slow", "rawNoisePath": "data/truerand_4bit.bin", "iidClaim": false},
  {"primaryNoiseSource": "last", "rawNoisePath": "data/rand1_short.bin", "iidClaim": false}
]}
EOF
"$exe" source --manifest "$work/i.json" --seed 7 --iterations 100 --jsonl "$work/i.jsonl" -q 2>"$work/i.err" &
pid=$!
while [ ! -s "$work/i.jsonl" ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 130 ] || { echo "FAILED: SIGINT: exit $rc, expected 130"; cat "$work/i.err"; fail=1; }
[ "$(wc -l <"$work/i.jsonl")" = 1 ] || { echo "FAILED: SIGINT: not the first source's row alone"; fail=1; }
grep -q "^Incomplete: interrupted by SIGINT after 1 of 3 sources" "$work/i.err" && ! grep -q "error" "$work/i.err" ||
  { echo "FAILED: no Incomplete line, or an error"; cat "$work/i.err"; fail=1; }
cp "$work/i.jsonl" "$work/i-first.jsonl"
"$exe" source --manifest "$work/i.json" --iterations 200 --jsonl "$work/i.jsonl" --resume -q 2>"$work/r1.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "permutation.iterations (--iterations) was 100, now 200" "$work/r1.err" ||
  { echo "FAILED: --resume with other options: exit $rc"; cat "$work/r1.err"; fail=1; }
"$exe" source --manifest "$work/i.json" --seed 8 --iterations 100 --jsonl "$work/i.jsonl" --resume -q 2>"$work/r2.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--seed 8 differs from the earlier rows' 7" "$work/r2.err" ||
  { echo "FAILED: --resume with another seed: exit $rc"; cat "$work/r2.err"; fail=1; }
cp "$work/i.json" "$work/i2.json" && echo " " >>"$work/i2.json"
"$exe" source --manifest "$work/i2.json" --iterations 100 --jsonl "$work/i.jsonl" --resume -q 2>"$work/r3.err"
rc=$?
[ $rc -eq 2 ] && grep -q "a row of another manifest" "$work/r3.err" ||
  { echo "FAILED: --resume with another manifest: exit $rc"; cat "$work/r3.err"; fail=1; }
"$exe" source --manifest "$work/i.json" --iterations 100 --jsonl "$work/i.jsonl" --resume -o "$work/pg/" -q 2>"$work/r4.err"
rc=$?
[ $rc -eq 2 ] && grep -q "sources\[0\] (first)'s row was written without -o (run.page null), where this run writes .*pg/first.html: resume without -o as the run" "$work/r4.err" &&
  [ ! -e "$work/pg" ] || { echo "FAILED: --resume -o DIR/ of rows without pages: exit $rc"; cat "$work/r4.err"; fail=1; }
cmp -s "$work/i.jsonl" "$work/i-first.jsonl" || { echo "FAILED: a refused --resume changed the JSONL file"; fail=1; }
"$exe" source --manifest "$work/i.json" --iterations 100 --jsonl "$work/i.jsonl" --resume >"$work/r.out" 2>"$work/r.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAILED: --resume: exit $rc"; cat "$work/r.err"; fail=1; }
[ "$(head -1 "$work/i.jsonl")" = "$(cat "$work/i-first.jsonl")" ] && [ "$(wc -l <"$work/i.jsonl")" = 3 ] ||
  { echo "FAILED: --resume did not keep the first row and add the other two"; fail=1; }
grep -q "seed 7 (the earlier run's)" "$work/r.err" && grep -q "^3 sources: " "$work/r.out" ||
  { echo "FAILED: --resume's seed or table"; cat "$work/r.err" "$work/r.out"; fail=1; }
# A kept row edited to lack its steps: refused by the record reader (exit 2), never read past what it holds.
python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readline()); del r["steps"]; open(sys.argv[2], "w").write(json.dumps(r) + "\n")' \
  "$work/i.jsonl" "$work/edited.jsonl"
"$exe" source --manifest "$work/i.json" --iterations 100 --jsonl "$work/edited.jsonl" --resume -q 2>"$work/ed.err"
rc=$?
[ $rc -eq 2 ] && grep -q "edited.jsonl:1: sources\[0\] (first): steps: missing" "$work/ed.err" ||
  { echo "FAILED: an edited row: exit $rc"; cat "$work/ed.err"; fail=1; }
# Kept rows edited to hold a field of the wrong type or range: exit 2 naming the file:line,
# the source and the field (never an internal error).
edit() {  # NAME EXPECTED PYTHON-STATEMENT-ON-r
  python3 -c "import json, sys; r = json.loads(open(sys.argv[1]).readline()); $3; open(sys.argv[2], 'w').write(json.dumps(r) + '\n')" \
    "$work/i.jsonl" "$work/$1.jsonl"
  "$exe" source --manifest "$work/i.json" --iterations 100 --jsonl "$work/$1.jsonl" --resume -q 2>"$work/$1.err"
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$work/$1.jsonl:1: sources[0] (first): $2" "$work/$1.err" && ! grep -q "internal error" "$work/$1.err" ||
    { echo "FAILED: $1: exit $rc, expected 2 naming the line, the source and $2"; cat "$work/$1.err"; fail=1; }
}
edit ed-seed "run.userSeed: 99999999999999999999 is out of range" 'r["run"]["userSeed"] = r["userSeed"] = "99999999999999999999"'
edit ed-seed-other "run.userSeed: contradicts the row's own seed" 'r["run"]["userSeed"] = "8"'
edit ed-seed-type "run.userSeed: expected type [\"string\",\"null\"], found 7" 'r["run"]["userSeed"] = 7'
edit ed-level "errorLevel: expected 0, found \"0\"" 'r["errorLevel"] = "0"'
edit ed-type "type: expected a string, found number" 'r["type"] = 5'
edit ed-kind "errorKind: not a field of this kind of row" 'r["errorKind"] = []'
edit ed-passed "passed: contradicts failed" 'r["passed"] = not r["passed"]'
edit ed-step "steps.sequential: testCases.0.hAssessed: contradicts assessedMinEntropy" 'r["steps"]["sequential"]["assessedMinEntropy"] += 0.5'
# Rows written with -o DIR/ link their pages (run.page): a --resume without -o (rows with page
# null beside them) is refused, exit 2 and the file unchanged; with the same -o DIR/ it completes.
cat >"$work/p.json" <<'EOF'
{"sources": [
  {"primaryNoiseSource": "first", "rawNoisePath": "data/rand8_short.bin"},
  {"primaryNoiseSource": "last", "rawNoisePath": "data/rand1_short.bin", "iidClaim": false}
]}
EOF
"$exe" source --manifest "$work/p.json" --seed 7 --iterations 100 -o "$work/pages/" --jsonl "$work/p-all.jsonl" -q 2>"$work/p.err" ||
  { echo "FAILED: the manifest run with -o DIR/"; cat "$work/p.err"; fail=1; }
head -1 "$work/p-all.jsonl" >"$work/p.jsonl" && cp "$work/p.jsonl" "$work/p-first.jsonl"
"$exe" source --manifest "$work/p.json" --iterations 100 --jsonl "$work/p.jsonl" --resume -q 2>"$work/p1.err"
rc=$?
[ $rc -eq 2 ] && grep -q "sources\[0\] (first)'s row links its page .*pages/first.html (run.page): give -o .*pages/ as the run that wrote it did" "$work/p1.err" &&
  cmp -s "$work/p.jsonl" "$work/p-first.jsonl" ||
  { echo "FAILED: --resume without -o of rows with pages: exit $rc"; cat "$work/p1.err"; fail=1; }
"$exe" source --manifest "$work/p.json" --iterations 100 --jsonl "$work/p.jsonl" --resume -o "$work/pages/" -q 2>"$work/p2.err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '"page":"[^"]*pages/[a-z]*.html"' "$work/p.jsonl")" = 2 ] ||
  { echo "FAILED: --resume with the same -o DIR/: exit $rc, or a row without its page"; cat "$work/p2.err" "$work/p.jsonl"; fail=1; }
"$validate" "$schema" "$work/i.jsonl" "$work/x.jsonl" | tail -1 | grep -q " 0 invalid" ||
  { echo "FAILED: the resumed rows do not follow the schema"; fail=1; }
[ $fail -eq 0 ] && echo "source manifest: all passed"
exit $fail
