#!/usr/bin/env bash
# ea_iid esv run again into an earlier package: the lab's files (PublicUseDocument.pdf, NIST's
# client's jsons/ folder, an empty folder) are kept; a file ea_iid wrote and the lab changed
# since (run.json's Certify) is replaced only with --force; files added to the folder of a
# source the manifest no longer has are dropped only with --force; names the new package writes,
# links out of the package and FIFOs are refused. Each refusal exit 2 before
# any work, the package as it was. --force onto a folder holding an input, a source named as a
# package file, and an IID claim the package's IID tests do not confirm are refused too. The report's PDF comes from a stand-in browser (a script
# that writes a small PDF), so that the case runs where no Chromium is installed.
# usage: esv-rerun.sh EA_IID WORK_DIR SAMPLES_DIR
set -uo pipefail
exe=$1 work=$2 samples=$3
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cat >browser <<'SH'
#!/bin/sh
for a in "$@"; do case "$a" in --print-to-pdf=*) printf '%%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%%%EOF\n' >"${a#--print-to-pdf=}";; esac; done
SH
chmod +x browser
manifest() {  # NAME: one source of that name
  printf '{"sources": [{"primaryNoiseSource": "%s", "rawNoisePath": "%s/truerand_8bit.bin", "iidClaim": false, "bitsPerSample": 8, "restartTestPath": "%s/truerand_8bit.bin"}]}\n' \
    "$1" "$samples" "$samples" >m.json
}
run() { "$exe" esv pkg --manifest m.json --device cpu --browser ./browser -q "$@"; }
manifest s1
run 2>first.err || { bad "the first package: exit $?"; cat first.err; }
[ -f pkg/s1/run.json ] || bad "no pkg/s1/run.json"
# The lab's additions (one listed in SHA256SUMS as esv check advises, a folder of its own at the
# top), then the same command again: kept as they were, and listed in the new SHA256SUMS.
echo "%PDF-1.4 lab document" >pkg/s1/PublicUseDocument.pdf
(cd pkg && sha256sum s1/PublicUseDocument.pdf >>SHA256SUMS)
mkdir -p pkg/s1/jsons pkg/s1/empty pkg/docs && echo "client log" >pkg/s1/jsons/log.txt && echo "notes" >pkg/docs/notes.txt
"$exe" esv pkg --manifest m.json --device cpu --browser ./browser 2>again.err >again.out
rc=$?
[ $rc -eq 0 ] || { bad "the run again: exit $rc"; cat again.err; }
[ "$(cat pkg/s1/PublicUseDocument.pdf 2>/dev/null)" = "%PDF-1.4 lab document" ] && [ "$(cat pkg/s1/jsons/log.txt 2>/dev/null)" = "client log" ] &&
  [ -d pkg/s1/empty ] && [ "$(cat pkg/docs/notes.txt 2>/dev/null)" = "notes" ] || bad "the lab's files were not kept"
grep -q "kept 4 files added to the earlier package: docs/notes.txt, s1/PublicUseDocument.pdf, s1/empty, s1/jsons/log.txt" again.err ||
  { bad "no line naming the kept files"; cat again.err; }
grep -q " s1/PublicUseDocument.pdf$" pkg/SHA256SUMS && grep -q " s1/jsons/log.txt$" pkg/SHA256SUMS || bad "SHA256SUMS does not list the lab's files"
grep -q "PublicUseDocument" pkg/ea_iid-package.json && bad "the marker lists the lab's file as ea_iid's"
(cd pkg && sha256sum --quiet -c SHA256SUMS) || bad "SHA256SUMS does not hold"
"$exe" esv check pkg --no-rehearsal >check.out 2>&1 || { bad "esv check after the run again: exit $?"; cat check.out; }
# run.json changed since written, its SHA256SUMS line updated as esv check advises: refused, the
# change kept; --force replaces it, the lab's files stay.
echo " " >>pkg/s1/run.json
(cd pkg && grep -v " s1/run.json$" SHA256SUMS >S && sha256sum s1/run.json >>S && mv S SHA256SUMS)
cp pkg/s1/run.json edited-run.json
run 2>edited.err
rc=$?
[ $rc -eq 2 ] && grep -q "holds files changed since ea_iid wrote them (s1/run.json: their SHA-256 is not the one written).*--force to replace them" edited.err &&
  cmp -s pkg/s1/run.json edited-run.json || { bad "an edited run.json: exit $rc, or changed"; cat edited.err; }
run --force 2>force.err || { bad "--force: exit $?"; cat force.err; }
cmp -s pkg/s1/run.json edited-run.json && bad "--force did not replace the edited run.json"
[ -f pkg/s1/PublicUseDocument.pdf ] || bad "--force lost the lab's file"
# Another source's name: the lab's files of s1 would go with its folder: refused, then --force.
manifest s2
run 2>orphan.err
rc=$?
[ $rc -eq 2 ] && grep -q "added to folders of sources the manifest no longer has (s1/PublicUseDocument.pdf" orphan.err &&
  [ -f pkg/s1/PublicUseDocument.pdf ] && [ ! -e pkg/s2 ] || { bad "files of a source no longer there: exit $rc"; cat orphan.err; }
run --force 2>orphan-force.err || { bad "--force of the renamed source: exit $?"; cat orphan-force.err; }
[ -d pkg/s2 ] && [ ! -e pkg/s1 ] && [ -f pkg/docs/notes.txt ] || bad "--force did not replace s1 by s2 keeping docs/"
# Refused before any work, the package as it was: a lab's file named as the conditioned output
# the source now has (or a folder so named), a link out of the package, a FIFO. --force leaves
# the link and the FIFO out; a link inside the package is kept, a copied file keeps its time.
printf '{"sources": [{"primaryNoiseSource": "s2", "rawNoisePath": "%s/truerand_8bit.bin", "iidClaim": false, "bitsPerSample": 8, "restartTestPath": "%s/truerand_8bit.bin", "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64, "unvettedConditionedPaths": "%s/truerand_8bit.bin"}]}]}\n' \
  "$samples" "$samples" "$samples" >mc.json
echo "lab" >pkg/s2/conditioned-1.bin
"$exe" esv pkg --manifest mc.json --device cpu --browser ./browser -q 2>cond.err
rc=$?
[ $rc -eq 2 ] && grep -q "named as files the new package writes or its folders (s2/conditioned-1.bin); move them out" cond.err &&
  [ "$(cat pkg/s2/conditioned-1.bin)" = "lab" ] || { bad "a lab's conditioned-1.bin: exit $rc"; cat cond.err; }
rm pkg/s2/conditioned-1.bin && mkdir pkg/s2/conditioned-1.bin && echo "lab" >pkg/s2/conditioned-1.bin/a
"$exe" esv pkg --manifest mc.json --device cpu --browser ./browser -q 2>cond-dir.err
rc=$?
[ $rc -eq 2 ] && grep -q "its folders (s2/conditioned-1.bin/a)" cond-dir.err || { bad "a folder named conditioned-1.bin: exit $rc"; cat cond-dir.err; }
rm -r pkg/s2/conditioned-1.bin
ln -s /etc/hostname pkg/docs/host && ln -s notes.txt pkg/docs/inside && mkfifo pkg/docs/fifo
touch -d "2020-01-02 03:04:05" pkg/docs/notes.txt
run 2>link.err
rc=$?
[ $rc -eq 2 ] && grep -q "links that lead out of it or to nothing (docs/host -> /etc/hostname); a package is uploaded" link.err ||
  { bad "a link out of the package: exit $rc"; cat link.err; }
rm pkg/docs/host
run 2>fifo.err
rc=$?
[ $rc -eq 2 ] && grep -q "not files, folders or links (docs/fifo: a FIFO" fifo.err && [ -p pkg/docs/fifo ] || { bad "a FIFO: exit $rc"; cat fifo.err; }
ln -s /etc/hostname pkg/docs/host
run --force 2>left-out.err || { bad "--force with a link out and a FIFO: exit $?"; cat left-out.err; }
[ ! -L pkg/docs/host ] && [ ! -e pkg/docs/fifo ] && [ -L pkg/docs/inside ] && [ "$(cat pkg/docs/inside 2>/dev/null)" = "notes" ] ||
  bad "--force did not leave out the link out and the FIFO, keeping the link inside"
[ "$(stat -c %Y pkg/docs/notes.txt)" = "$(date -d "2020-01-02 03:04:05" +%s)" ] || bad "the lab's file lost its modification time"
"$exe" esv check pkg --no-rehearsal >check-link.out 2>&1 || { bad "esv check with a link inside: exit $?"; cat check-link.out; }
# A lab's file named as one the package writes in a source's folder (simulated: s2/run.json taken
# off the marker's list of ea_iid's files): refused before any work.
marker() { /usr/bin/python3 -c "import json, sys; m = json.load(open('pkg/ea_iid-package.json')); $1; json.dump(m, open('pkg/ea_iid-package.json', 'w'), indent=2)"; }
marker 'del m["files"]["s2/run.json"]'
run 2>clash.err
rc=$?
[ $rc -eq 2 ] && grep -q "named as files the new package writes or its folders (s2/run.json); move them out, or give --force" clash.err ||
  { bad "a clashing name: exit $rc"; cat clash.err; }
# A package of an ea_iid before the marker's list (no files in it): SHA256SUMS's lines of the
# names the package writes are ea_iid's; the lab's PublicUseDocument listed there is kept.
marker 'del m["files"]'
echo "%PDF-1.4 lab document 2" >pkg/s2/PublicUseDocument.pdf
(cd pkg && sha256sum ./s2/PublicUseDocument.pdf >>SHA256SUMS)
run 2>old.err || { bad "a package without the marker's list: exit $?"; cat old.err; }
[ "$(cat pkg/s2/PublicUseDocument.pdf 2>/dev/null)" = "%PDF-1.4 lab document 2" ] ||
  bad "a package without the marker's list lost the lab's listed file"
# An earlier package that lists nothing ea_iid wrote (no files in its marker, no SHA256SUMS):
# refused, then replaced whole with --force.
marker 'del m["files"]'
rm pkg/SHA256SUMS
run 2>none.err
rc=$?
[ $rc -eq 2 ] && grep -q "lists no file ea_iid wrote" none.err || { bad "no list: exit $rc"; cat none.err; }
run --force 2>none-force.err || { bad "no list, --force: exit $?"; cat none-force.err; }
[ -f pkg/SHA256SUMS ] && [ ! -e pkg/docs ] || bad "--force did not replace the unlisted package whole"
ls -a | grep -q "pkg\.\(partial\|replaced\)-" && bad "a staging folder was left"
# --force replaces a folder that is not a package whole: never one holding an input (the
# manifest's data here), and the files that go are counted first.
mkdir -p held && cp "$samples/truerand_8bit.bin" held/raw.bin
printf '{"sources": [{"primaryNoiseSource": "h", "rawNoisePath": "held/raw.bin", "iidClaim": false, "bitsPerSample": 8, "restartTestPath": "held/raw.bin"}]}\n' >held-m.json
"$exe" esv held --manifest held-m.json --device cpu --browser ./browser -q --force 2>held.err
rc=$?
[ $rc -eq 2 ] && grep -q "held holds the input .*raw.bin (as raw.bin); --force may drop what DIR holds, inputs included" held.err &&
  cmp -s held/raw.bin "$samples/truerand_8bit.bin" || { bad "--force onto a folder holding an input: exit $rc"; cat held.err; }
manifest s1
mkdir -p thesis/sub && echo draft >thesis/thesis.tex && echo x >thesis/sub/notes
"$exe" esv thesis --manifest m.json --device cpu --browser ./browser -q --force 2>thesis.err ||
  { bad "--force onto another folder: exit $?"; cat thesis.err; }
grep -q "thesis is not an ea_iid package; its 2 files go when the package takes its place" thesis.err &&
  [ -f thesis/s1/run.json ] && [ ! -e thesis/thesis.tex ] || { bad "--force onto another folder did not say what goes"; cat thesis.err; }
# thesis is a package now: with --force an input inside it is refused too (--force may drop
# files of a package: changed ones, a removed source's folder).
cp "$samples/truerand_8bit.bin" thesis/s1/raw-in.bin
printf '{"sources": [{"primaryNoiseSource": "s2", "rawNoisePath": "thesis/s1/raw-in.bin", "iidClaim": false, "bitsPerSample": 8, "restartTestPath": "thesis/s1/raw-in.bin"}]}\n' >inside-m.json
"$exe" esv thesis --manifest inside-m.json --device cpu --browser ./browser -q --force 2>inside.err
rc=$?
[ $rc -eq 2 ] && grep -q "holds the input .*raw-in.bin .*, or leave --force out" inside.err && [ -f thesis/s1/raw-in.bin ] ||
  { bad "--force onto a package holding an input: exit $rc"; cat inside.err; }
# A source named as one of the package's own files is refused before any work.
manifest readme.TXT
run 2>reserved.err
rc=$?
[ $rc -eq 2 ] && grep -q "primaryNoiseSource: 'readme.TXT' would name its folder README.txt, a file of the package itself" reserved.err ||
  { bad "a source named README.txt: exit $rc"; cat reserved.err; }
# An IID claim that the package's own IID tests do not confirm: no package (esv check refuses it).
printf '{"sources": [{"primaryNoiseSource": "t4", "rawNoisePath": "%s/GetTickCount_4bit.bin", "iidClaim": true, "bitsPerSample": 4, "restartTestPath": "%s/GetTickCount_4bit.bin"}]}\n' \
  "$samples" "$samples" >claim-m.json
"$exe" esv claimed --manifest claim-m.json --device cpu --browser ./browser -q --seed 1 --iterations 100 2>claim.err
rc=$?
[ $rc -eq 2 ] && grep -q "sources\[0\] (t4): iidClaim is true, but the IID tests on the package's files say not IID" claim.err &&
  [ ! -e claimed ] || { bad "an unconfirmed IID claim: exit $rc"; cat claim.err; }
[ $fail -eq 0 ] && echo "esv rerun: all passed"
exit $fail
