#!/usr/bin/env bash
# ea_iid esv check (issue 47): a hand-made package of three sources (tests/tools/
# make_esv_package.py: IID without conditioning; non-IID with a vetted component; non-IID
# 8-bit with a non-vetted component and its conditioned data) passes with exit 0, its
# schema 4b69a04c defects shown as notes; each seeded defect exits 1 with a finding that names
# it; usage errors exit 2; --json's record validates against docs/ea_iid.schema.json. The
# clean registrations are also checked with the reference validator (python jsonschema's
# Draft7Validator) against both of NIST's schemas when it is importable.
# usage: esv-check.sh EA_IID WORK_DIR VALIDATE_JSON SCHEMA ESV_SCHEMA_DIR
set -uo pipefail
exe=$1 work=$2 validate=$3 schema=$4 esv_schemas=$5
here=$(cd "$(dirname "$0")" && pwd)
make="/usr/bin/python3 $here/../tools/make_esv_package.py"
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The clean package: exit 0, no error, S18's known defects as notes.
$make clean || bad "make_esv_package.py clean"
"$exe" esv check --no-rehearsal clean --json clean.json >clean.out 2>clean.err
rc=$?
[ $rc = 0 ] || bad "clean package: exit $rc: $(cat clean.out clean.err)"
grep -q "^esv check: clean: 3 sources, 0 errors, 0 warnings, [1-9][0-9]* notes" clean.out || bad "clean package summary: $(tail -1 clean.out)"
grep -q "note: registration.json: alphabetSize: missing (required: S18 requires a field it never declares.*; schema 4b69a04c)" clean.out \
  || bad "clean package: no note for S18's alphabetSize"
grep -q "note: registration.json: conditioningComponent\[0\].minHin: .*Disagreements 3); schema 4b69a04c)" clean.out \
  || bad "clean package: no note for S18's integer minHin"
"$validate" "$schema" clean.json >validate.out 2>&1 || bad "schema: $(cat validate.out)"

# Each seeded defect: exit 1 and a message naming it.
check() {  # DEFECT PATTERN
  $make "d-$1" "$1" || { bad "$1: make_esv_package.py"; return; }
  "$exe" esv check --no-rehearsal "d-$1" >"d-$1.out" 2>&1
  local rc=$?
  [ $rc = 1 ] || bad "$1: exit $rc, not 1"
  grep -q -- "$2" "d-$1.out" || bad "$1: no finding matching '$2': $(grep -E 'error|warning' "d-$1.out" | head -5)"
}
check missing-field "error: registration.json: physical: missing (required; schemas 38490704 and 4b69a04c)"
check wrong-type 'error: registration.json: iidClaim: expected type "boolean", found "yes" (type; schemas 38490704 and 4b69a04c)'
check position-2 "error: registration.json: conditioningComponent\[0\].sequencePosition: 2 where 1 was expected (positions run 1..n in the array's order; protocol)"
check short-file "error: rawNoise.bin: 999999 bytes where exactly 1000000 were expected"
check wide-sample "error: rawNoise.bin: byte 4321: 16 does not fit in bitsPerSample 4 bits (at most 15); 1 byte in all"
check hash-mismatch "error: SHA256SUMS: line [0-9]*: src-cond/restart.bin: SHA-256 [0-9a-f]* where [0-9a-f]* is listed"
check hmin-above "error: registration.json: hminEstimate: 4.5 is above bitsPerSample 4 (0 <= hminEstimate <= bitsPerSample; server rule RegisterRequest/hMinEstimate.json)"
check vetted-no-validation "error: registration.json: conditioningComponent\[0\].validationNumber: missing"
check vetted-bijective "conditioningComponent\[0\].bijectiveClaim: true on a vetted component"
check vetted-name 'conditioningComponent\[0\].description: "HMAC_DRBG" is not one of the protocol'
check hout-ge-nout "conditioningComponent\[0\].hOut: hOut = 256, nOut = 256: hOut < nOut does not hold (hOut < nOut (non-vetted, not bijective); server rule NonVetted/nonBijective.json)"
check run-path-outside 'error: run.json: DataFiles\[0\].rawNoisePath: "../../outside.bin" is outside the package'
check run-path-missing 'error: run.json: DataFiles\[0\].restartTestPath: "nothere.bin" does not exist'
check restarts-999 "error: registration.json: numberOfRestarts: 999 is below 1000 (numberOfRestarts >= 1000; server rule Shared/minRestart.json)"
check name-65 "error: registration.json: primaryNoiseSource: is 65 characters long, more than 64 (maxLength; schemas 38490704 and 4b69a04c)"
check not-pdf "error: EntropyAssessmentReport.pdf: does not start as a pdf file does (%PDF-)"
check conditioned-count "DataFiles\[0\].unvettedConditionedPaths: 0 files for 1 non-vetted components"
check sample-size "DataFiles\[0\].rawNoiseSampleSize: 8 where bitsPerSample is 4"
check not-array "error: registration.json: (document): not a JSON array"
check additional-nonvetted "conditioningComponent\[0\].vetted: false while additionalNoiseSources is true"
# A file added later (the lab's PublicUseDocument.pdf, as README.txt asks) is a warning with the
# line to add, not an error.
$make d-unlisted-file unlisted-file && "$exe" esv check --no-rehearsal d-unlisted-file >d-unlisted-file.out 2>&1 &&
  grep -q "warning: SHA256SUMS: src-vetted/extra.bin is not listed (added later? add its line: sha256sum" d-unlisted-file.out ||
  bad "unlisted-file: $(grep -E 'error|warning' d-unlisted-file.out | head -3)"
# The source is the group's heading.
grep -q "^source src-iid:" d-hmin-above.out || bad "findings not grouped by source: $(head -3 d-hmin-above.out)"
n=$($make --list | wc -l)
[ "$(ls d-*.out | wc -l)" = "$n" ] || bad "not every defect of make_esv_package.py --list was checked"

# A hand-made package without the marker: its folders holding a registration.json are the sources.
cp -r clean nomarker && rm nomarker/ea_iid-package.json nomarker/SHA256SUMS
"$exe" esv check --no-rehearsal nomarker >nomarker.out 2>&1 || bad "a package without a marker: exit $?: $(cat nomarker.out)"
grep -q "^esv check: nomarker: 3 sources, 0 errors, 1 warning" nomarker.out || bad "no marker: $(tail -1 nomarker.out)"

# The rehearsal on a lab's package (no marker): its findings are listed under the source (its
# folder's name, which check_package gives, not its primaryNoiseSource), and a run.json whose
# rawNoiseSampleSize is not a number is a finding of that source, not an internal error.
mkdir lab && cp -r clean/src-vetted lab/one && cp -r clean/src-vetted lab/two
/usr/bin/python3 - lab/two/run.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r[0]["DataFiles"][0]["rawNoiseSampleSize"] = "6"; json.dump(r, open(sys.argv[1], "w"))
PY
"$exe" esv check lab --seed 1 --device cpu >lab.out 2>&1; rc=$?
[ $rc = 1 ] && sed -n '/^source one:/,/^source two:/p' lab.out | grep -q "^  note: rehearsal: IID tests not run" &&
  sed -n '/^source two:/,$p' lab.out | grep -q "^  error: rehearsal: cannot run: run.json: DataFiles\[0\]: rawNoiseSampleSize" ||
  { bad "the rehearsal of a lab's package: exit $rc"; cat lab.out; }

# A package whose assessment is not for compliance (built with --iterations 200, say): a
# warning naming the record's reason, not a silent pass.
cp -r clean expl && a=$(ls expl/*/assessment.json | head -1) &&
  printf '{"forCompliance": false, "complianceNotes": ["exploratory: --iterations 200"]}\n' >"$a" &&
  (cd expl && sha256sum $(awk '{print $2}' SHA256SUMS) >SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS)
"$exe" esv check --no-rehearsal expl >expl.out 2>&1; rc=$?
[ $rc = 0 ] && grep -q "warning: assessment.json: forCompliance: false: exploratory: --iterations 200 (the registration's numbers come from it" expl.out ||
  bad "an assessment not for compliance: exit $rc: $(grep -E 'error|warning' expl.out | head -5)"

# Usage: no DIR, not a folder: exit 2.
"$exe" esv check >usage.out 2>&1; [ $? = 2 ] || bad "no DIR: not exit 2"
"$exe" esv check clean/SHA256SUMS >usage.out 2>&1; [ $? = 2 ] && grep -q "is not a folder" usage.out || bad "DIR a file: $(cat usage.out)"
# --json inside the package it checks (onto one of its files, or beside them, even with --force):
# exit 2, the package unchanged.
(cd clean && sha256sum -- */registration.json) >sums-before.txt
for target in "$(ls clean/*/registration.json | head -1)" clean/check.json ./clean/x/../record.json; do
  "$exe" esv check --no-rehearsal clean --json "$target" --force >inside.out 2>&1; rc=$?
  [ $rc = 2 ] && grep -q -- "--json: .* is inside the package being checked (clean); write the check's record outside it" inside.out &&
    [ ! -e clean/check.json ] && [ ! -e clean/record.json ] || bad "--json $target inside the package: exit $rc: $(cat inside.out)"
done
(cd clean && sha256sum -c --quiet ../sums-before.txt) || bad "a refused --json changed the package"

# The reference validator on the clean registrations: valid under 38490704; under 4b69a04c only
# its known defects (alphabetSize, itar, a vetted component's bijectiveClaim, minHin's type).
py=/root/.pyenv/shims/python3
if [ -x "$py" ] && "$py" -c "import jsonschema" 2>/dev/null; then
  "$py" - "$esv_schemas" clean/*/registration.json <<'PY' || bad "jsonschema: the clean registrations"
import json, sys
from jsonschema import Draft7Validator
sn = Draft7Validator(json.load(open(sys.argv[1] + "/esv-metadata-schema.json")))
s18 = Draft7Validator(json.load(open(sys.argv[1] + "/esv-metadata-schema-4b69a04c.json")))
known = ["'alphabetSize' is a required property", "'itar' is a required property",
         "'bijectiveClaim' is a required property", "is not of type 'integer'"]
ok = True
for path in sys.argv[2:]:
    doc = json.load(open(path))
    for e in sn.iter_errors(doc):
        print("FAIL:", path, "schema 38490704:", e.message); ok = False
    for e in s18.iter_errors(doc):
        if not any(k in e.message for k in known):
            print("FAIL:", path, "schema 4b69a04c:", e.message); ok = False
# The reference validator refuses what ea_iid's does for the schema defects seeded above.
for defect, field in [("wrong-type", "iidClaim"), ("name-65", "primaryNoiseSource"), ("missing-field", "physical")]:
    doc = json.load(open("d-%s/src-iid/registration.json" % defect))
    if not any(field in (e.message + str(list(e.path))) for e in sn.iter_errors(doc)):
        print("FAIL: jsonschema accepts", defect); ok = False
print("jsonschema: 3 clean registrations valid under 38490704, only known defects under 4b69a04c")
sys.exit(0 if ok else 1)
PY
else
  echo "jsonschema not importable by $py: the reference validator's part is skipped"
fi

[ $fail = 0 ] && echo "esv check: all passed"
exit $fail
