#!/usr/bin/env bash
# Wide captures (issue 46): tests/tools/wide_captures.py makes a 12-bit and a 16-bit capture
# with a known best mask (testdata/README.md lists their SHA-256, checked here). ea_iid's
# --select-bits auto must find each mask; the symbols it writes (--write-symbols) for a mask
# and for --bin must equal the script's own packing and binning; the 12-bit capture goes
# through the IID track (exploratory --iterations), and `ea_iid source` with its restart
# data (mapped with the sequential data's mask); every record validates against the schema.
# usage: wide-captures.sh EA_IID WORK_DIR VALIDATE_JSON SCHEMA
set -uo pipefail
exe=$1 work=$2 validate=$3 schema=$4
here=$(cd "$(dirname "$0")" && pwd)
gen="/usr/bin/python3 $here/../tools/wide_captures.py"
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
field() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
/usr/bin/python3 -c "import numpy" 2>/dev/null || { echo "SKIP: wide captures need numpy (python3-numpy)"; exit 77; }
$gen generate "$work" || bad "generate"
sha256sum -c - <<'SUMS' || bad "the generated captures differ from testdata/README.md's"
7c1279a5a2c8ca5f33258c7077f43c6183b0cf9788d707941f18f6fd6eb6ad53  adc12.u16le
4c1f3df64df0f135de52e7296f50969a59c8c1604b4d39df0c76bc9d413e456f  adc12-restart.u16le
2f0f7342acd81b8b12d79a8e07d0d86a8a7d3fa71fc6e43de8432d681fa3c30b  tsc16.u16be
2e192eab5f223ce2ac99e5cc2c95f15f4c2e701519c23002b1db9f81fed13dc5  tsc16-restart.u16be
SUMS
# The searches find the planted masks; the symbols written equal the script's packing.
for c in "adc12.u16le u16le 0x0db6" "tsc16.u16be u16be 0x69ac"; do
  set -- $c
  "$exe" --device cpu --non-iid --sample-format "$2" --select-bits auto "$1" --write-symbols "$1.sym" -q -o "$1.json" \
    || bad "$1: exit $?"
  [ "$(field "$1.json" "r['input']['mapping']['mask']")" = "$3" ] || bad "$1: the search chose $(field "$1.json" "r['input']['mapping']['mask']"), not $3"
  $gen pack "$1" "$2" "$3" "$1.expected" && cmp -s "$1.sym" "$1.expected" || bad "$1: --write-symbols differs from the script's packing of $3"
done
# Bins: the same edges and symbols as the script's binning.
"$exe" --device cpu --non-iid --sample-format u16be --bin 4 tsc16.u16be -l 0,200000 --write-symbols bin.sym -q -o bin.json || bad "--bin: exit $?"
head -c 400000 tsc16.u16be > tsc16-part.u16be
$gen bin tsc16-part.u16be u16be 4 bin.expected && cmp -s bin.sym bin.expected || bad "--bin 4: the symbols differ from the script's"
[ "$(field bin.json "len(r['input']['mapping']['binLower'])")" = 16 ] || bad "--bin 4: not 16 bins"
# The IID track (exploratory) and a source with restart data, mapped by the sequential mask.
"$exe" --device cpu --iterations 20 --seed 1 --sample-format u16le --select-bits 0x0db6 adc12.u16le -l 0,100000 -q -o iid.json \
  || bad "IID track: exit $?"
[ "$(field iid.json "r['input']['sampleRule']")" = "u16le, select-bits 0x0db6" ] || bad "IID track: the record's sampleRule"
"$exe" source adc12 adc12.u16le --restart-data adc12-restart.u16le --track non-iid --sample-format u16le \
  --select-bits auto -q -o source.json --html source.html 2>source.err || bad "source: exit $? ($(cat source.err))"
[ "$(field source.json "r['steps']['restart']['input']['mapping']['mask']")" = 0x0db6 ] \
  || bad "source: the restart data was not mapped with the sequential data's mask"
[ "$(field source.json "r['steps']['restart']['input']['sampleRule']")" = "u16le, select-bits 0x0db6" ] \
  || bad "source: the restart step's rule"
grep -q "select-bits auto:8 chose 0x0db6" source.html || bad "source: the HTML does not show the mapping"
"$validate" "$schema" adc12.u16le.json tsc16.u16be.json bin.json iid.json source.json >validate.out 2>&1 \
  || bad "schema: $(cat validate.out)"
# A restart file of the wrong size for its format is refused before any work.
head -c 1000000 adc12-restart.u16le > short.u16le
"$exe" source adc12 adc12.u16le --restart-data short.u16le --sample-format u16le --select-bits auto -q 2>short.err
[ $? = 2 ] && grep -q "2000000 bytes as u16le" short.err || bad "a short restart file: $(cat short.err)"
[ $fail = 0 ] && echo "wide captures: all passed"
exit $fail
