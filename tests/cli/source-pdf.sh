#!/usr/bin/env bash
# ea_iid source --pdf: the report as PDF, printed by a headless browser (cli/pdf.cpp).
# Mode stand-in (the default; no browser needed, stand-in scripts as --browser): no browser
# on PATH (exit 2 before any work, naming --pdf and what to install), --browser that is not a
# program, --browser without --pdf, a browser that fails (its exit and last words named), one
# that prints no PDF, one whose output is not a whole PDF, and one that hangs until SIGINT
# (exit 130, the browser's process group killed); the arguments the browser gets (no shell: a name with
# spaces and quotes, a percent-encoded file:// URL, a private profile beside the PDF that is
# removed afterwards); the output rules: --pdf onto the input, onto a link, onto the --html
# file, onto a file that is not a PDF (refused, exit 2, nothing changed) and onto standard
# output; a manifest's --pdf (DIR/NAME.pdf, needs -o DIR/).
# Mode chromium (exit 77, skipped with a message, when no browser is on PATH): a source's PDF
# checked by tests/tools/check_pdf.py (whole, pages, selectable text through /ToUnicode maps,
# the figures' bars as filled paths, no image), and a manifest run's DIR/NAME.pdf.
# usage: source-pdf.sh EA_IID SAMPLES_DIR WORK_DIR [stand-in|chromium]
set -uo pipefail
exe=$1 samples=$2 work=$3 mode=${4:-stand-in}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail=0
if [ "$mode" = chromium ]; then
  chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  if [ -z "$chrome" ]; then
    echo "SKIP: no browser on PATH (chromium, chromium-browser, google-chrome): the PDFs were not printed"
    exit 77
  fi
  "$exe" source trng-1 "$samples/truerand_1bit.bin" --track non-iid --restart-data "$samples/truerand_1bit.bin" --seed 1 -q \
    -o "$work/r.json" --html "$work/r.html" --pdf "$work/r.pdf" 2>"$work/r.err"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAILED: the source's PDF: exit $rc"; cat "$work/r.err"; fail=1; }
  python3 "$here/../tools/check_pdf.py" "$work/r.pdf" --min-pages 2 \
    --text "SP 800-90B entropy assessment of the noise source trng-1" --text "Restart tests (3.1.4)" \
    --text "mostCommonValue (literal)" --text "bits per sample (bitstring estimates x 1)" \
    --fill-color 1f5fbf --fill-color c62828 || fail=1
  cp "$samples/rand8_short.bin" "$work/in.bin"
  cat >"$work/m.json" <<'EOF'
{"sources": [{"primaryNoiseSource": "one", "rawNoisePath": "in.bin", "iidClaim": false},
             {"primaryNoiseSource": "two", "rawNoisePath": "in.bin", "iidClaim": false}]}
EOF
  "$exe" source --manifest "$work/m.json" -q -o "$work/mc/" --pdf 2>"$work/mc.err"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAILED: the manifest's PDFs: exit $rc"; cat "$work/mc.err"; fail=1; }
  python3 "$here/../tools/check_pdf.py" "$work/mc/two.pdf" --text "the noise source two" || fail=1
  ls -A "$work" "$work/mc" | grep -q '^\.' && { echo "FAILED: a temporary folder was left"; fail=1; }
  [ $fail -eq 0 ] && echo "source pdf (chromium): all passed"
  exit $fail
fi

src=$work/in.bin
cp "$samples/rand8_short.bin" "$src"
quick=(--track non-iid -q)

# Stand-in browsers.
cat >"$work/fail.sh" <<'EOF'
#!/bin/sh
echo "stand-in: cannot open the display" >&2
exit 3
EOF
cat >"$work/silent.sh" <<'EOF'
#!/bin/sh
exit 0
EOF
cat >"$work/garbage.sh" <<'EOF'
#!/bin/sh
for a in "$@"; do case "$a" in --print-to-pdf=*) printf 'not a PDF' >"${a#--print-to-pdf=}" ;; esac; done
EOF
cat >"$work/hang.sh" <<EOF
#!/bin/sh
echo \$\$ >"$work/hang.pid"
exec sleep 1000
EOF
# Records its arguments one per line, and the profile folder it was given, then prints a PDF.
cat >"$work/args.sh" <<EOF
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >"$work/args.txt"
for a in "\$@"; do case "\$a" in
  --user-data-dir=*) d=\${a#--user-data-dir=}; mkdir -p "\$d" && echo x >"\$d/state" && printf '%s' "\$d" >"$work/profile.txt" ;;
  --print-to-pdf=*) printf '%%PDF-1.4\n%% stand-in\n%%%%EOF\n' >"\${a#--print-to-pdf=}" ;;
esac; done
EOF
chmod +x "$work"/*.sh

# No browser on PATH: refused before any work, naming --pdf and the remedy.
PATH=/nonexistent "$exe" source s "$src" "${quick[@]}" -o "$work/n.json" --pdf "$work/n.pdf" 2>"$work/n.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$work/n.json" ] && [ ! -e "$work/n.pdf" ] || { echo "FAILED: no browser: exit $rc or files written"; fail=1; }
grep -q -- "--pdf: no browser found (chromium, chromium-browser, google-chrome): install Debian's chromium or give --browser PATH" \
  "$work/n.err" || { echo "FAILED: no browser message"; cat "$work/n.err"; fail=1; }
"$exe" source s "$src" "${quick[@]}" --pdf "$work/n.pdf" --browser "$work/missing" 2>"$work/n2.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--browser $work/missing" "$work/n2.err" || { echo "FAILED: --browser missing: exit $rc"; cat "$work/n2.err"; fail=1; }
"$exe" source s "$src" "${quick[@]}" --browser "$work/args.sh" 2>"$work/n3.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--browser applies to --pdf" "$work/n3.err" || { echo "FAILED: --browser alone: exit $rc"; fail=1; }

# Browsers that fail: exit 2, nothing written (the PDF is made first), no temporary folder left.
for b in fail silent garbage; do
  "$exe" source s "$src" "${quick[@]}" -o "$work/$b.json" --pdf "$work/$b.pdf" --browser "$work/$b.sh" 2>"$work/$b.err"
  rc=$?
  [ $rc -eq 2 ] && [ ! -e "$work/$b.pdf" ] && [ ! -e "$work/$b.json" ] || { echo "FAILED: browser $b: exit $rc or a file written"; fail=1; }
done
grep -q "failed (exit 3; its last words: stand-in: cannot open the display); nothing was written" "$work/fail.err" ||
  { echo "FAILED: the failing browser's message"; cat "$work/fail.err"; fail=1; }
grep -q "printed no PDF" "$work/silent.err" || { echo "FAILED: the silent browser's message"; cat "$work/silent.err"; fail=1; }
grep -q "is not a whole PDF" "$work/garbage.err" || { echo "FAILED: the garbage message"; cat "$work/garbage.err"; fail=1; }
ls -A "$work" | grep -q '^\.' && { echo "FAILED: a temporary folder was left:"; ls -A "$work"; fail=1; }

# The arguments: no shell between (a name with spaces and quotes), a private profile beside
# the PDF, removed afterwards; the page by a percent-encoded file:// URL; the stand-in's PDF kept.
mkdir -p "$work/a b"
"$exe" source "it's \"mine\"" "$src" "${quick[@]}" --pdf "$work/a b/r.pdf" --browser "$work/args.sh" 2>"$work/args.err"
rc=$?
[ $rc -eq 0 ] && head -c 5 "$work/a b/r.pdf" | grep -q '%PDF-' || { echo "FAILED: stand-in PDF: exit $rc"; cat "$work/args.err"; fail=1; }
grep -qx -- "--headless" "$work/args.txt" && grep -qx -- "--no-pdf-header-footer" "$work/args.txt" &&
  grep -q "^file://$work/a%20b/\.r\.pdf\.[A-Za-z0-9]*/page\.html$" "$work/args.txt" ||
  { echo "FAILED: the browser's arguments"; cat "$work/args.txt"; fail=1; }
profile=$(cat "$work/profile.txt" 2>/dev/null)
case "$profile" in "$work/a b/.r.pdf."*) ;; *) echo "FAILED: the profile $profile is not beside the PDF"; fail=1 ;; esac
[ -n "$profile" ] && [ ! -e "$profile" ] && [ -z "$(ls -A "$work/a b" | grep -v '^r.pdf$')" ] ||
  { echo "FAILED: the profile folder was not removed"; ls -A "$work/a b"; fail=1; }

# A hanging browser and SIGINT: exit 130, the browser killed, nothing written.
"$exe" source s "$src" "${quick[@]}" -o "$work/h.json" --pdf "$work/h.pdf" --browser "$work/hang.sh" 2>"$work/h.err" &
pid=$!
for _ in $(seq 600); do [ -s "$work/hang.pid" ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
hang=$(cat "$work/hang.pid" 2>/dev/null)
[ $rc -eq 130 ] && [ ! -e "$work/h.pdf" ] && [ ! -e "$work/h.json" ] || { echo "FAILED: SIGINT while the browser runs: exit $rc"; cat "$work/h.err"; fail=1; }
[ -n "$hang" ] && ! kill -0 "$hang" 2>/dev/null || { echo "FAILED: the browser $hang still runs"; kill "$hang" 2>/dev/null; fail=1; }

# The output rules, before any work (exit 2, nothing changed).
sum=$(sha256sum <"$src")
"$exe" source s "$src" "${quick[@]}" -o "$work/o1.json" --pdf "$src" --browser "$work/args.sh" 2>"$work/o1.err"
rc=$?
[ $rc -eq 2 ] && [ "$(sha256sum <"$src")" = "$sum" ] && [ ! -e "$work/o1.json" ] && grep -q -- "--pdf $src: is the input file" "$work/o1.err" ||
  { echo "FAILED: --pdf onto the input: exit $rc"; cat "$work/o1.err"; fail=1; }
ln -s "$work/target.pdf" "$work/link.pdf"
"$exe" source s "$src" "${quick[@]}" --pdf "$work/link.pdf" --browser "$work/args.sh" 2>"$work/o2.err"
rc=$?
[ $rc -eq 2 ] && [ -L "$work/link.pdf" ] && [ ! -e "$work/target.pdf" ] && grep -q -- "--pdf $work/link.pdf: is a symbolic link" "$work/o2.err" ||
  { echo "FAILED: --pdf onto a link: exit $rc"; cat "$work/o2.err"; fail=1; }
ln -s "$src" "$work/in-link.pdf"
"$exe" source s "$src" "${quick[@]}" --pdf "$work/in-link.pdf" --browser "$work/args.sh" 2>"$work/o3.err"
rc=$?
[ $rc -eq 2 ] && [ "$(sha256sum <"$src")" = "$sum" ] || { echo "FAILED: --pdf onto a link to the input: exit $rc"; fail=1; }
"$exe" source s "$src" "${quick[@]}" --html "$work/same" --pdf "$work/same" --browser "$work/args.sh" 2>"$work/o4.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$work/same" ] && grep -q "name the same file" "$work/o4.err" || { echo "FAILED: --pdf onto --html: exit $rc"; fail=1; }
printf 'notes, not a PDF\n' >"$work/notes.pdf"
"$exe" source s "$src" "${quick[@]}" --pdf "$work/notes.pdf" --browser "$work/args.sh" 2>"$work/o5.err"
rc=$?
[ $rc -eq 2 ] && grep -q "notes, not a PDF" "$work/notes.pdf" && grep -q "is not a PDF (17 bytes); nothing was written. Pass --force" "$work/o5.err" ||
  { echo "FAILED: --pdf onto a file that is not a PDF: exit $rc"; cat "$work/o5.err"; fail=1; }
"$exe" source s "$src" "${quick[@]}" --pdf "$work/notes.pdf" --browser "$work/args.sh" --force 2>"$work/o6.err"
rc=$?
[ $rc -eq 0 ] && head -c 5 "$work/notes.pdf" | grep -q '%PDF-' || { echo "FAILED: --force: exit $rc"; cat "$work/o6.err"; fail=1; }
"$exe" source s "$src" "${quick[@]}" --pdf - --browser "$work/args.sh" >/dev/null 2>"$work/o7.err"
rc=$?
[ $rc -eq 2 ] && grep -q "the PDF is written to a file" "$work/o7.err" || { echo "FAILED: --pdf -: exit $rc"; cat "$work/o7.err"; fail=1; }

# A manifest: --pdf writes DIR/NAME.pdf beside DIR/NAME.html, and needs -o DIR/.
cat >"$work/m.json" <<'EOF'
{"sources": [{"primaryNoiseSource": "one", "rawNoisePath": "in.bin", "iidClaim": false},
             {"primaryNoiseSource": "two", "rawNoisePath": "in.bin", "iidClaim": false}]}
EOF
"$exe" source --manifest "$work/m.json" -q --pdf --browser "$work/args.sh" 2>"$work/m1.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--pdf with --manifest writes DIR/NAME.pdf beside each source's page: give -o DIR/" "$work/m1.err" ||
  { echo "FAILED: a manifest's --pdf without -o: exit $rc"; cat "$work/m1.err"; fail=1; }
"$exe" source --manifest "$work/m.json" -q -o "$work/m/" --pdf --browser "$work/args.sh" 2>"$work/m2.err"
rc=$?
[ $rc -eq 0 ] && [ -f "$work/m/one.html" ] && head -c 5 "$work/m/one.pdf" | grep -q '%PDF-' && head -c 5 "$work/m/two.pdf" | grep -q '%PDF-' ||
  { echo "FAILED: a manifest's --pdf: exit $rc"; ls -A "$work/m"; cat "$work/m2.err"; fail=1; }

[ $fail -eq 0 ] && echo "source pdf: all passed"
exit $fail
