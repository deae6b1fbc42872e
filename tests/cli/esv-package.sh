#!/usr/bin/env bash
# ea_iid esv (issue 47): a package of three sources from one manifest: an IID claim without
# conditioning (restart data), a non-IID source with a vetted component (restart data), and a
# 12-bit capture mapped to 8 bits (selectBits 0x0db6) with a non-vetted component and its
# conditioned data. Checked: every data file is 1,000,000 bytes and holds what the server must
# read (the raw noise's first 1,000,000 samples as symbols, the script's own packing for the
# 12-bit capture, the conditioned data's first 1,000,000 bytes); SHA256SUMS holds; each
# registration carries the numbers of the package's own assessment (assessment.json) and
# validates against ESV's schema with python's jsonschema (when importable); the report is a
# PDF; run.json's paths exist; an earlier package is replaced, another folder only with
# --force; a 999,999-byte raw noise file is refused before any work (nothing written).
# usage: esv-package.sh EA_IID WORK_DIR SAMPLES_DIR ESV_SCHEMA_DIR
set -uo pipefail
exe=$1 work=$2 samples=$3 esv=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
py=/usr/bin/python3
$py -c "import numpy" 2>/dev/null || { echo "SKIP: the ESV package test needs numpy (python3-numpy) for its 12-bit capture"; exit 77; }
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null ||
  { echo "SKIP: the ESV package's report PDF needs chromium"; exit 77; }
$py "$here/../tools/wide_captures.py" generate "$work" || bad "generate"
# The non-vetted component's conditioned output: 1,000,000 bytes of SHA-256 in counter mode.
$py -c "
import hashlib, sys
out = bytearray()
k = 0
while len(out) < 1000000:
    out += hashlib.sha256(b'conditioned %d' % k).digest(); k += 1
open(sys.argv[1], 'wb').write(out[:1000000])" conditioned.bin
cat > m.json <<JSON
{"sources": [
  {"primaryNoiseSource": "rand8 iid", "rawNoisePath": "$samples/truerand_8bit.bin", "iidClaim": true,
   "bitsPerSample": 8, "restartTestPath": "$samples/truerand_8bit.bin", "physical": true,
   "numberOfRestarts": 1000, "samplesPerRestart": 1000, "additionalNoiseSources": false},
  {"primaryNoiseSource": "tick4 vetted", "rawNoisePath": "$samples/truerand_4bit.bin", "iidClaim": false,
   "bitsPerSample": 4, "restartTestPath": "$samples/truerand_4bit.bin", "physical": false,
   "conditioningComponent": [{"sequencePosition": 1, "vetted": true, "description": "HMAC-SHA2-256",
     "validationNumber": "A1234", "minNin": 1024, "nOut": 256, "nw": 256}]},
  {"primaryNoiseSource": "adc12 mapped", "rawNoisePath": "adc12.u16le", "sampleFormat": "u16le",
   "selectBits": "0x0db6", "iidClaim": false, "restartTestPath": "adc12-restart.u16le",
   "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "bijectiveClaim": false,
     "minNin": 512, "nOut": 64, "nw": 64, "unvettedConditionedPaths": "conditioned.bin"}]}
]}
JSON
"$exe" esv pkg --manifest m.json --seed 1 --iterations 100 --device cpu -q 2>esv.err || { bad "esv: exit $?"; cat esv.err; }
for s in rand8_iid tick4_vetted adc12_mapped; do
  for f in registration.json run.json assessment.json rawNoise.bin EntropyAssessmentReport.pdf; do
    [ -f "pkg/$s/$f" ] || bad "$s: no $f"
  done
done
for f in pkg/*/rawNoise.bin pkg/*/restart.bin pkg/*/conditioned-*.bin; do
  [ "$(stat -c %s "$f")" = 1000000 ] || bad "$f: $(stat -c %s "$f") bytes, not 1000000"
done
cmp -s pkg/rand8_iid/rawNoise.bin "$samples/truerand_8bit.bin" || bad "rand8: rawNoise.bin is not the file's samples"
cmp -s pkg/rand8_iid/restart.bin "$samples/truerand_8bit.bin" || bad "rand8: restart.bin is not the restart data"
$py "$here/../tools/wide_captures.py" pack adc12.u16le u16le 0x0db6 adc12.sym &&
  cmp -s pkg/adc12_mapped/rawNoise.bin <(head -c 1000000 adc12.sym) || bad "adc12: rawNoise.bin is not the script's packing of 0x0db6"
cmp -s pkg/adc12_mapped/conditioned-1.bin conditioned.bin || bad "adc12: conditioned-1.bin differs from the component's data"
$py "$here/../tools/wide_captures.py" pack adc12-restart.u16le u16le 0x0db6 adc12-restart.sym &&
  cmp -s pkg/adc12_mapped/restart.bin adc12-restart.sym || bad "adc12: restart.bin is not the script's packing of 0x0db6"
# The package passes esv check with its rehearsal on the package's files (same seed and
# iterations: the same numbers); the lab's PublicUseDocument.pdf, not yet added, is a warning.
"$exe" esv check pkg --seed 1 --iterations 100 --device cpu >check.out 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "0 errors" check.out && [ "$(grep -c "note: rehearsal: " check.out)" = 3 ] ||
  { bad "esv check of the package: exit $rc"; cat check.out; }
# A claim above what the rehearsal finds is an error naming the field and both numbers.
cp -r pkg claim && $py - claim/adc12_mapped/registration.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r[1]["hminEstimate"] = 7.9; r[1]["conditioningComponent"][0]["hOut"] = 63.5
json.dump(r, open(sys.argv[1], "w"), indent=2)
PY
"$exe" esv check claim --seed 1 --iterations 100 --device cpu >claim.out 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "error: registration.json: hminEstimate: 7.900000 is above the rehearsal's estimate 7.3" claim.out &&
  grep -q "error: registration.json: conditioningComponent\[0\].hOut: 63.500000 is above the rehearsal's h_out 57.08" claim.out ||
  { bad "a claim above the rehearsal: exit $rc"; cat claim.out; }
(cd pkg && sha256sum --quiet -c SHA256SUMS) || bad "SHA256SUMS does not hold"
# README.txt names the tool once and NIST's client's command line with its run type and files.
head -1 pkg/README.txt | grep -q "^ESV submission package written by ea_iid [0-9]" && ! grep -q "ea_iid ea_iid" pkg/README.txt &&
  grep -q "client.py full --run_path run.json --config_path " pkg/README.txt || bad "README.txt: $(head -1 pkg/README.txt)"
for s in rand8_iid tick4_vetted adc12_mapped; do
  head -c 5 "pkg/$s/EntropyAssessmentReport.pdf" | grep -q '%PDF-' || bad "$s: the report is not a PDF"
done
# The registration's numbers are the package's own assessment's.
$py - pkg <<'PY' || bad "registrations"
import json, os, sys
pkg = sys.argv[1]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
for s, claim, bits, comps in [("rand8_iid", True, 8, 0), ("tick4_vetted", False, 4, 1), ("adc12_mapped", False, 8, 1)]:
    reg = json.load(open(os.path.join(pkg, s, "registration.json")))
    rec = json.load(open(os.path.join(pkg, s, "assessment.json")))
    run = json.load(open(os.path.join(pkg, s, "run.json")))
    check(reg[0] == {"esvVersion": "1.0"}, s + ": esvVersion first")
    r = reg[1]
    check(r["iidClaim"] == claim and r["bitsPerSample"] == bits, s + ": iidClaim/bitsPerSample")
    check(r["hminEstimate"] == rec["flow"]["hValidated"], s + ": hminEstimate is not the assessment's hValidated")
    check(0 < r["hminEstimate"] <= bits, s + ": hminEstimate out of range")
    check(len(r["conditioningComponent"]) == comps, s + ": components")
    for c, a in zip(r["conditioningComponent"], rec["flow"]["conditioning"] or []):
        check(c["hOut"] == a["hOut"] and c["minHin"] == a["hIn"] and c["minNin"] == a["nIn"], s + ": component numbers")
        check(("validationNumber" in c) == c["vetted"] and ("bijectiveClaim" in c) != c["vetted"], s + ": vetted fields")
    d = run[0]["DataFiles"][0]
    for p in [d["rawNoisePath"], d.get("restartTestPath", d["rawNoisePath"])] + d["unvettedConditionedPaths"] + [run[0]["AssessmentRegistrationPath"]]:
        check(os.path.isfile(os.path.join(pkg, s, p)), s + ": run.json names " + p + ", not in the package")
    check(d["rawNoiseSampleSize"] == bits, s + ": rawNoiseSampleSize")
sys.exit(0 if ok else 1)
PY
pyenv_py=
for p in /usr/bin/python3 /root/.pyenv/shims/python3; do  # Debian's python3-jsonschema, else pip's
  [ -x "$p" ] && "$p" -c "import jsonschema" 2>/dev/null && { pyenv_py=$p; break; }
done
if [ -n "$pyenv_py" ]; then
  "$pyenv_py" - "$esv/esv-metadata-schema.json" pkg/*/registration.json <<'PY' || bad "a registration fails ESV's schema (jsonschema)"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
bad = 0
for p in sys.argv[2:]:
    for e in jsonschema.Draft7Validator(schema).iter_errors(json.load(open(p))):
        print("FAIL:", p, list(e.absolute_path), e.message); bad += 1
sys.exit(1 if bad else 0)
PY
else
  echo "note: python's jsonschema not importable: ESV's schema not checked with it"
fi
# Another folder is replaced only with --force (an earlier package is: below, with --esv).
mkdir other && echo keep > other/x
"$exe" esv other --manifest m.json -q 2>other.err; rc=$?
[ $rc -eq 2 ] && grep -q "not an ea_iid package: it is replaced only with --force" other.err && [ -f other/x ] || bad "another folder: exit $rc"
# Refused before any work: raw noise of 999,999 bytes, a source without restart data (nothing written).
$py -c "import json,sys; m=json.load(open('m.json')); del m['sources'][1]['restartTestPath']; json.dump(m, open('m-nr.json','w'))"
"$exe" esv nr-pkg --manifest m-nr.json -q 2>nr.err; rc=$?
[ $rc -eq 2 ] && grep -q 'sources\[1\] (tick4 vetted): restartTestPath: an ESV submission holds restart data' nr.err && [ ! -e nr-pkg ] ||
  { bad "no restart data: exit $rc"; cat nr.err; }
head -c 999999 "$samples/truerand_8bit.bin" > short.bin
sed "s|$samples/truerand_8bit.bin\", \"iidClaim\": true|$work/short.bin\", \"iidClaim\": true|" m.json > m-short.json
"$exe" esv short-pkg --manifest m-short.json -q 2>short.err; rc=$?
[ $rc -eq 2 ] && grep -q 'sources\[0\] (rand8 iid): rawNoisePath: .* has 999999 bytes' short.err && [ ! -e short-pkg ] ||
  { bad "a short raw noise file: exit $rc"; cat short.err; }
# One source from the command line: ea_iid source ... --esv DIR makes the same package as a
# manifest of that one source (the same registration); -o with --esv is refused.
"$exe" source "tick4 vetted" "$samples/truerand_4bit.bin" --track non-iid --bits 4 --restart-data "$samples/truerand_4bit.bin" \
  --esv one --device cpu -q 2>one.err || { bad "source --esv: exit $?"; cat one.err; }
$py -c "
import json, sys
a = json.load(open('one/tick4_vetted/registration.json'))[1]; b = json.load(open('pkg/tick4_vetted/registration.json'))[1]
b['physical'] = a['physical']; b['conditioningComponent'] = []  # the manifest's own fields
sys.exit(0 if a == b else 1)" || bad "source --esv: its registration differs from the manifest's source's"
"$exe" source x "$samples/truerand_4bit.bin" --esv one2 -o x.json 2>one2.err; rc=$?
[ $rc -eq 2 ] && grep -q "with --esv: the package holds the report" one2.err && [ ! -e one2 ] || bad "source --esv -o: exit $rc"
echo stale > one/tick4_vetted/stale.txt
mkdir one.partial-999999999  # left by a run killed before its cleanup (no such process)
"$exe" source "tick4 vetted" "$samples/truerand_4bit.bin" --track non-iid --bits 4 --restart-data "$samples/truerand_4bit.bin" \
  --esv one --device cpu -q 2>/dev/null && [ ! -e one/tick4_vetted/stale.txt ] && (cd one && sha256sum --quiet -c SHA256SUMS) ||
  bad "an earlier package was not replaced whole"
[ ! -e one.partial-999999999 ] || bad "a dead run's staging folder was not removed"
# A package of non-IID sources only: --iterations has nothing to apply to (before any work).
"$exe" esv check one --iterations 100 -q 2>it.err; rc=$?
[ $rc -eq 2 ] && grep -q "no source of one claims IID" it.err || bad "esv check --iterations without an IID claim: exit $rc"
# DIR holding the current folder is refused before any work.
(cd one && "$exe" esv . --manifest ../m.json --force -q 2>../dot.err); rc=$?
[ $rc -eq 2 ] && grep -q "holds the current folder" dot.err || bad "esv . : exit $rc"
# A package that would not pass esv check is not written: a vetted component named otherwise
# than the protocol's list (HMAC-SHA-256 for HMAC-SHA2-256).
$py -c "import json; m=json.load(open('m.json')); s=m['sources'][1]; s['conditioningComponent'][0]['description']='HMAC-SHA-256'; json.dump({'sources':[s]}, open('m-name.json','w'))"
"$exe" esv name-pkg --manifest m-name.json --device cpu -q 2>name.err; rc=$?
[ $rc -eq 2 ] && grep -q "would not pass esv check, so it is not written: tick4 vetted: registration.json: conditioningComponent\[0\].description" name.err &&
  [ ! -e name-pkg ] || { bad "a vetted component's unknown name: exit $rc"; cat name.err; }
ls -d pkg.partial-* short-pkg.partial-* name-pkg.partial-* 2>/dev/null && bad "a staging folder was left behind"
[ $fail -eq 0 ] && echo "esv package: all passed"
