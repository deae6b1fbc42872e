#!/usr/bin/env bash
# ea_iid source: one noise source end to end (non-IID track, restart tests, a non-vetted
# conditioning component with h' from a file), its exit status with --strict, its JSON and
# HTML checked by tests/tools/check_source_report.py (the health tests' cutoffs recomputed
# there); then without restart data (--strict: 4, not for compliance), a compliant failure
# (restart data of a ring oscillator: its sanity check fails; the page must not say a step
# "can stand" as if it passed; the cutoffs are H_I's), --health-alpha 2^-30, h' given as 0.9
# (shown as given) with the page alone (no -o: it says so), a missing restart file (exit 2
# before any step, the error in -o) and an option that does not apply (exit 2, nothing
# written).
# usage: source-report.sh EA_IID SAMPLES_DIR WORK_DIR VALIDATE_JSON SCHEMA
set -uo pipefail
exe=$1 samples=$2 work=$3 validate=$4 schema=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail=0
"$exe" source trng-1 "$samples/truerand_1bit.bin" --track non-iid --restart-data "$samples/truerand_1bit.bin" \
  --conditioning non-vetted --n-in 64 --n-out 32 --nw 64 --conditioned "$samples/truerand_1bit.bin" --seed 1 \
  -o "$work/a.json" --html "$work/a.html" --strict >"$work/a.out" 2>"$work/a.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAILED: exit $rc, expected 0"; cat "$work/a.err"; fail=1; }
grep -q "^Result: passed; 26.54966666349166004579 bits per 32-bit output" "$work/a.out" || { echo "FAILED: result line"; cat "$work/a.out"; fail=1; }
python3 "$here/../tools/check_source_report.py" "$work/a.json" "$work/a.html" || fail=1
"$exe" source trng-1 "$samples/truerand_1bit.bin" --track non-iid --h-submitter 0.8 --seed 1 -q \
  -o "$work/b.json" --html "$work/b.html" --strict
rc=$?
[ $rc -eq 4 ] || { echo "FAILED: without restart data exit $rc, expected 4"; fail=1; }
python3 "$here/../tools/check_source_report.py" "$work/b.json" "$work/b.html" --no-restart || fail=1
"$exe" source trng-2 "$samples/truerand_1bit.bin" --track non-iid --restart-data "$samples/ringOsc-nist.bin" --seed 1 -q \
  -o "$work/e.json" --html "$work/e.html"
python3 "$here/../tools/check_source_report.py" "$work/e.json" "$work/e.html" || fail=1
grep -q '"passed": false' "$work/e.json" && grep -q '"forCompliance": true' "$work/e.json" ||
  { echo "FAILED: e.json is not a compliant failure"; fail=1; }
# The health tests' cutoffs at --health-alpha 2^-30 for a 4-bit source (the checker recomputes them).
"$exe" source rand-4 "$samples/rand4_short.bin" --track non-iid --health-alpha 2^-30 -q -o "$work/f.json" --html "$work/f.html"
python3 "$here/../tools/check_source_report.py" "$work/f.json" "$work/f.html" --no-restart --health-alpha-log2 -30 || fail=1
"$exe" source trng-1 "$samples/truerand_1bit.bin" --track non-iid --restart-data "$samples/truerand_1bit.bin" \
  --conditioning non-vetted --n-in 64 --n-out 32 --nw 64 --h-prime 0.9 --seed 1 -q --html "$work/g.html" -o "$work/g.json"
python3 "$here/../tools/check_source_report.py" "$work/g.json" "$work/g.html" --h-prime 0.9 || fail=1
"$exe" source trng-1 "$samples/truerand_1bit.bin" --track non-iid --h-prime 0.9 --conditioning non-vetted --n-in 64 \
  --n-out 32 --nw 64 --seed 1 -q --html "$work/h.html"
grep -q "No JSON report was written" "$work/h.html" || { echo "FAILED: h.html claims a JSON report"; fail=1; }
"$exe" source trng-1 "$samples/truerand_1bit.bin" --restart-data "$work/missing.bin" -o "$work/c.json" 2>"$work/c.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAILED: a missing restart file exit $rc, expected 2"; fail=1; }
grep -q '"errorLevel": -1' "$work/c.json" && grep -q 'missing.bin' "$work/c.json" ||
  { echo "FAILED: c.json does not record the error"; fail=1; }
# Bad arguments write nothing.
"$exe" source trng-1 "$samples/truerand_1bit.bin" --track non-iid --iterations 200 -o "$work/d.json" 2>"$work/d.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$work/d.json" ] || { echo "FAILED: --track non-iid --iterations: exit $rc"; fail=1; }
grep -q "missing.bin" "$work/c.err" || { echo "FAILED: the error does not name the file"; cat "$work/c.err"; fail=1; }
"$validate" "$schema" "$work/a.json" "$work/b.json" "$work/c.json" "$work/e.json" "$work/g.json" | tail -1 | grep -q " 0 invalid" ||
  { echo "FAILED: the reports do not follow the schema"; "$validate" "$schema" "$work"/*.json | tail -5; fail=1; }
# A not-IID source (a ramp fails chi-square): its permutation tests do not run (--until-decided,
# source's default), and the page says "not run", never "failed" for tests that never ran.
for i in $(seq 0 199); do printf '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f'; done >"$work/ramp.bin"
"$exe" source ramp "$work/ramp.bin" --seed 1 -q -o "$work/e.json" --html "$work/e.html" 2>"$work/e.err" ||
  { echo "FAILED: the ramp source"; cat "$work/e.err"; fail=1; }
grep -q "permutation tests</th><td>not run: chi-square" "$work/e.html" && ! grep -q "<b>failed</b>: ;" "$work/e.html" ||
  { echo "FAILED: the page of a source whose permutation tests did not run"; grep -o "permutation tests</th><td>[^<]*" "$work/e.html"; fail=1; }
[ $fail -eq 0 ] && echo "source report: all passed"
exit $fail
