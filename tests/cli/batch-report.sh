#!/usr/bin/env bash
# The batch's HTML report as an evaluator gets it: 75 blocks of three files, two IID sources
# and a ring oscillator whose every block fails (--iterations 200, exploratory), checked
# against the run's JSONL by tests/tools/check_batch_report.py (each file judged on its own
# count, file names in the table); then the same report from ea_iid merge; then, where
# Chromium is installed, rendered headless (a screenshot, and the DOM after its script ran:
# "75 of 75 shown", and "25 of 75 shown" filtered by a file's name).
# usage: batch-report.sh EA_IID SAMPLES_DIR WORK_DIR
set -uo pipefail
exe=$1 samples=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail=0
"$exe" -q --seed 1 --iterations 200 --blocks 40000 --device cpu --jsonl "$work/r.jsonl" --html "$work/r.html" \
  "$samples/truerand_1bit.bin" "$samples/truerand_4bit.bin" "$samples/ringOsc-nist.bin" 2>"$work/r.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAILED: exit $rc"; cat "$work/r.err"; fail=1; }
python3 "$here/../tools/check_batch_report.py" "$work/r.jsonl" "$work/r.html" || fail=1
# The README's resume of that command replaces its own report (never refused as "not ours").
"$exe" -q --iterations 200 --blocks 40000 --device cpu --resume --jsonl "$work/r.jsonl" --html "$work/r.html" \
  "$samples/truerand_1bit.bin" "$samples/truerand_4bit.bin" "$samples/ringOsc-nist.bin" 2>"$work/resume.err" ||
  { echo "FAILED: --resume with the same --html"; cat "$work/resume.err"; fail=1; }
"$exe" merge -q --html "$work/m.html" "$work/m.jsonl" "$work/r.jsonl" || { echo "FAILED: merge --html"; fail=1; }
python3 "$here/../tools/check_batch_report.py" "$work/r.jsonl" "$work/m.html" || fail=1
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$chrome" ]; then
  flags="--headless=new --no-sandbox --disable-gpu --hide-scrollbars"
  timeout 120 "$chrome" $flags --window-size=1280,2400 --screenshot="$work/r.png" "file://$work/r.html" >/dev/null 2>&1
  [ -s "$work/r.png" ] || { echo "FAILED: no screenshot"; fail=1; }
  timeout 120 "$chrome" $flags --dump-dom "file://$work/r.html" 2>/dev/null >"$work/dom.html"
  grep -q '75 of 75 shown' "$work/dom.html" || { echo "FAILED: the page's script did not run"; fail=1; }
  timeout 120 "$chrome" $flags --dump-dom "file://$work/r.html#q=ringOsc-nist" 2>/dev/null >"$work/dom-q.html"
  grep -q '25 of 75 shown' "$work/dom-q.html" || { echo "FAILED: the filter does not find a file's name"; fail=1; }
  timeout 120 "$chrome" $flags --no-pdf-header-footer --print-to-pdf="$work/r.pdf" "file://$work/r.html" >/dev/null 2>&1
  [ -s "$work/r.pdf" ] || { echo "FAILED: no PDF"; fail=1; }
else
  echo "Chromium not found: the rendering was not checked"
fi
[ $fail -eq 0 ] && echo "batch report: all passed"
exit $fail
