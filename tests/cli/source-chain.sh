#!/usr/bin/env bash
# ea_iid source --manifest with a conditioning chain of two components (SP 800-90B 3.1.5:
# each component's output is the next one's input): the report is checked by
# tests/tools/check_source_report.py (h_in of each component from what stands before it,
# sequence order, the last h_out claimed), and each component's h_out against the single
# command `ea_iid conditioning` given that component's h_in (an independent run of the
# 3.1.5 arithmetic). Then a chain after failed restart tests: nothing is computed. The JSONL
# rows follow the schema (run.userSeed null: no source draws random numbers).
# usage: source-chain.sh EA_IID SAMPLES_DIR WORK_DIR VALIDATE_JSON SCHEMA
set -uo pipefail
exe=$1 samples=$2 work=$3 validate=$4 schema=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/data"
cp "$samples/truerand_1bit.bin" "$samples/ringOsc-nist.bin" "$work/data/"
fail=0
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
cat >"$work/m.json" <<'JSON'
{"sources": [
 {"primaryNoiseSource": "trng", "rawNoisePath": "data/truerand_1bit.bin", "iidClaim": false,
  "restartTestPath": "data/truerand_1bit.bin",
  "conditioningComponent": [
   {"sequencePosition": 2, "vetted": true, "minNin": 512, "nOut": 256, "nw": 256},
   {"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.9}]},
 {"primaryNoiseSource": "ring", "rawNoisePath": "data/truerand_1bit.bin", "iidClaim": false,
  "restartTestPath": "data/ringOsc-nist.bin",
  "conditioningComponent": [
   {"sequencePosition": 1, "vetted": true, "minNin": 64, "nOut": 32, "nw": 64},
   {"sequencePosition": 2, "vetted": true, "minNin": 512, "nOut": 256, "nw": 256}]}]}
JSON
"$exe" source --manifest "$work/m.json" -q -o "$work/out/" --jsonl "$work/m.jsonl" 2>"$work/m.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 4 ] || { echo "FAILED: exit $rc"; cat "$work/m.err"; fail=1; }
a=$work/out/trng.json
[ -s "$a" ] || { echo "FAILED: no $a"; ls -R "$work/out"; exit 1; }
(cd "$work/out" && python3 "$here/../tools/check_source_report.py" trng.json trng.html) || fail=1
[ "$(field "$a" "len(r['flow']['conditioning'])")" = 2 ] || { echo "FAILED: two components"; fail=1; }
[ "$(field "$a" "r['flow']['conditioning'][0]['vetted']")" = False ] || { echo "FAILED: sequence order"; fail=1; }
# Each component's h_out as the single command computes it from that component's h_in.
h1=$(field "$a" "r['flow']['conditioning'][0]['hInText']")
o1=$(field "$a" "r['flow']['conditioning'][0]['hOutText']")
h2=$(field "$a" "r['flow']['conditioning'][1]['hInText']")
o2=$(field "$a" "r['flow']['conditioning'][1]['hOutText']")
"$exe" conditioning non-vetted 64 32 64 "$h1" 0.9 -o "$work/c1.json" -q || { echo "FAILED: ea_iid conditioning 1"; fail=1; }
"$exe" conditioning vetted 512 256 256 "$h2" -o "$work/c2.json" -q || { echo "FAILED: ea_iid conditioning 2"; fail=1; }
[ "$(field "$work/c1.json" "r['conditioning']['hOutText']")" = "$o1" ] || { echo "FAILED: component 1's h_out $o1"; fail=1; }
[ "$(field "$work/c2.json" "r['conditioning']['hOutText']")" = "$o2" ] || { echo "FAILED: component 2's h_out $o2"; fail=1; }
# h_in of the second from the first's h_out: min(512, h_out x 512 / 32), by independent arithmetic.
python3 - "$a" <<'PY' || fail=1
import json, sys
from decimal import Decimal, getcontext
getcontext().prec = 40
r = json.load(open(sys.argv[1]))
c = r["flow"]["conditioning"]
want = min(Decimal(512), Decimal(c[0]["hOutText"]) * 512 / 32)
got = Decimal(c[1]["hInText"])
if abs(got - want) > Decimal("1e-15"):
    print(f"FAILED: h_in of the second {got}, expected {want}"); sys.exit(1)
if r["flow"]["claimedText"] != c[1]["hOutText"] or r["flow"]["claimedUnit"] != "bits per 256-bit output":
    print("FAILED: the claim is not the last component's"); sys.exit(1)
PY
grep -q "Component 2 of 2" "$work/out/trng.html" || { echo "FAILED: the page shows no second component"; fail=1; }
# After failed restart tests nothing stands: no component is computed.
b=$work/out/ring.json
(cd "$work/out" && python3 "$here/../tools/check_source_report.py" ring.json ring.html) || fail=1
[ "$(field "$b" "r['steps']['conditioning']")" = "[None, None]" ] || { echo "FAILED: components computed after a failure"; fail=1; }
# The JSONL rows too: no source draws random numbers (both on the non-IID track), so the rows'
# run.userSeed is null.
[ "$(python3 -c "import json,sys; print([json.loads(l)['run']['userSeed'] for l in open(sys.argv[1])])" "$work/m.jsonl")" = "[None, None]" ] ||
  { echo "FAILED: run.userSeed of rows that drew no random numbers"; fail=1; }
"$validate" "$schema" "$a" "$b" "$work/m.jsonl" | tail -1 | grep -q " 0 invalid" ||
  { echo "FAILED: the reports do not follow the schema"; "$validate" "$schema" "$a" "$b" "$work/m.jsonl" | tail -5; fail=1; }
[ $fail -eq 0 ] && echo "source chain: all passed"
exit $fail
