#!/usr/bin/env bash
# ea_iid esv run again into an earlier package: the lab's files (PublicUseDocument.pdf, NIST's
# client's jsons/ folder, an empty folder) are kept; a file ea_iid wrote and the lab changed
# since (run.json's Certify) is replaced only with --force; files added to the folder of a
# source the manifest no longer has are dropped only with --force. Each refusal exit 2 before
# any work, the package as it was. The report's PDF comes from a stand-in browser (a script
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
# The lab's additions, then the same command again: kept as they were, not listed in SHA256SUMS.
echo "lab document" >pkg/s1/PublicUseDocument.pdf
mkdir -p pkg/s1/jsons pkg/s1/empty && echo "client log" >pkg/s1/jsons/log.txt
"$exe" esv pkg --manifest m.json --device cpu --browser ./browser 2>again.err >again.out
rc=$?
[ $rc -eq 0 ] || { bad "the run again: exit $rc"; cat again.err; }
[ "$(cat pkg/s1/PublicUseDocument.pdf 2>/dev/null)" = "lab document" ] && [ "$(cat pkg/s1/jsons/log.txt 2>/dev/null)" = "client log" ] &&
  [ -d pkg/s1/empty ] || bad "the lab's files were not kept"
grep -q "kept 3 files added to the earlier package: s1/" again.err || { bad "no line naming the kept files"; cat again.err; }
grep -q "PublicUseDocument\|jsons" pkg/SHA256SUMS && bad "SHA256SUMS lists the lab's files"
(cd pkg && sha256sum --quiet -c SHA256SUMS) || bad "SHA256SUMS does not hold"
# run.json changed since written: refused, the change kept; --force replaces it, the lab's files stay.
echo " " >>pkg/s1/run.json
cp pkg/s1/run.json edited-run.json
run 2>edited.err
rc=$?
[ $rc -eq 2 ] && grep -q "holds files changed since ea_iid wrote them (s1/run.json: .*--force to replace them" edited.err &&
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
[ -d pkg/s2 ] && [ ! -e pkg/s1 ] || bad "--force did not replace s1 by s2"
ls -a | grep -q "pkg\.\(partial\|replaced\)-" && bad "a staging folder was left"
[ $fail -eq 0 ] && echo "esv rerun: all passed"
exit $fail
