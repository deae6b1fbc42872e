#!/usr/bin/env bash
# ea_iid source --manifest end to end over 8 small sources (the IID tests deciding, IID and
# non-IID claims, with and without restart data, vetted and non-vetted conditioning, h' given
# and from a file): the rows of the whole run, of --jobs 2, of 4 shares (one of them empty:
# the restart files outweigh the rest) joined by ea_iid merge, and of a run interrupted by
# SIGINT (with --jobs 2) and resumed all equal the records of per-source `ea_iid source` runs
# (minus the date, command line, timings and the GPU's text); --jobs 3 writes the rows of --jobs 1 (the whole
# run), "run" included, line for line, and shows its progress readably (one line for the run on
# a terminal, plain lines naming the source without one); the lab
# CSV and page of merged shares are the whole run's; merge refuses shares of another manifest,
# seed or options, a share twice and a missing one.
# usage: manifest-shards.sh EA_IID SAMPLES_DIR WORK_DIR
set -uo pipefail
exe=$1 samples=$2 work=$3
rm -rf "$work" && mkdir -p "$work/data"
fail=0
for f in rand8_short.bin rand4_short.bin rand1_short.bin truerand_1bit.bin truerand_8bit.bin; do cp "$samples/$f" "$work/data/"; done
head -c 300000 "$samples/truerand_4bit.bin" >"$work/data/slow4.bin"  # seconds of non-IID estimates
d=$work/data
cat >"$work/m.json" <<'EOF'
{"sources": [
  {"primaryNoiseSource": "iid-8", "rawNoisePath": "data/rand8_short.bin", "bitsPerSample": 8},
  {"primaryNoiseSource": "non-iid-1 restart", "rawNoisePath": "data/rand1_short.bin", "iidClaim": false,
   "restartTestPath": "data/truerand_1bit.bin"},
  {"primaryNoiseSource": "claim-8 restart", "rawNoisePath": "data/rand8_short.bin", "iidClaim": true,
   "restartTestPath": "data/truerand_8bit.bin"},
  {"primaryNoiseSource": "vetted-4", "rawNoisePath": "data/rand4_short.bin", "iidClaim": false,
   "conditioningComponent": [{"sequencePosition": 1, "vetted": true, "minNin": 64, "nOut": 32, "nw": 64}]},
  {"primaryNoiseSource": "h-prime-1", "rawNoisePath": "data/rand1_short.bin", "iidClaim": false, "hminEstimate": 0.5,
   "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.9}]},
  {"primaryNoiseSource": "conditioned-8", "rawNoisePath": "data/rand8_short.bin",
   "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64,
                              "unvettedConditionedPaths": "data/rand1_short.bin"}]},
  {"primaryNoiseSource": "non-iid-4", "rawNoisePath": "data/rand4_short.bin", "iidClaim": false},
  {"primaryNoiseSource": "auto-4", "rawNoisePath": "data/rand4_short.bin", "bitsPerSample": 4, "hminEstimate": 3}
]}
EOF
opts=(--seed 7 --iterations 100 -q)
run() {  # WHAT EXPECTED-EXIT ARGS...
  local what=$1 want=$2
  shift 2
  "$exe" source --manifest "$work/m.json" "${opts[@]}" "$@" 2>"$work/$what.err"
  local rc=$?
  [ $rc -eq "$want" ] || { echo "FAILED: $what: exit $rc, expected $want"; cat "$work/$what.err"; fail=1; }
}
run whole 0 --jsonl "$work/whole.jsonl"
run jobs 0 --jsonl "$work/jobs.jsonl" --jobs 2
run jobs3 0 --jsonl "$work/jobs3.jsonl" --jobs 3
for k in 0 1 2 3; do run "s$k" 0 --jsonl "$work/s$k.jsonl" --shard "$k/4"; done
"$exe" merge "$work/merged.jsonl" "$work"/s[0-3].jsonl --csv "$work/merged.csv" >"$work/merge.out" 2>&1 ||
  { echo "FAILED: merge of 4 shares: exit $?"; cat "$work/merge.out"; fail=1; }
grep -q "^8 sources from 4 shares" "$work/merge.out" || { echo "FAILED: merge's table"; cat "$work/merge.out"; fail=1; }
# Each source alone, as ea_iid source runs it.
alone() {  # K NAME FILE ARGS...
  local k=$1
  shift
  "$exe" source "$@" --seed 7 -q -o "$work/alone-$k.json" 2>"$work/alone-$k.err" ||
    { echo "FAILED: ea_iid source $2"; cat "$work/alone-$k.err"; fail=1; }
}
alone 0 iid-8 "$d/rand8_short.bin" --bits 8 --iterations 100
alone 1 "non-iid-1 restart" "$d/rand1_short.bin" --track non-iid --restart-data "$d/truerand_1bit.bin"
alone 2 "claim-8 restart" "$d/rand8_short.bin" --restart-data "$d/truerand_8bit.bin" --iterations 100
alone 3 vetted-4 "$d/rand4_short.bin" --track non-iid --conditioning vetted --n-in 64 --n-out 32 --nw 64
alone 4 h-prime-1 "$d/rand1_short.bin" --track non-iid --h-submitter 0.5 --conditioning non-vetted --n-in 64 \
  --n-out 32 --nw 64 --h-prime 0.9
alone 5 conditioned-8 "$d/rand8_short.bin" --conditioning non-vetted --n-in 64 --n-out 32 --nw 64 \
  --conditioned "$d/rand1_short.bin" --iterations 100
alone 6 non-iid-4 "$d/rand4_short.bin" --track non-iid
alone 7 auto-4 "$d/rand4_short.bin" --bits 4 --h-submitter 3 --iterations 100

# SIGINT with --jobs 2 after the first rows (a slow source last), then --resume (--jobs 1).
python3 - "$work" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1] + "/m.json"))
m["sources"].append({"primaryNoiseSource": "slow", "rawNoisePath": "data/slow4.bin", "iidClaim": False})
json.dump(m, open(sys.argv[1] + "/i.json", "w"))
EOF
"$exe" source --manifest "$work/i.json" "${opts[@]}" --jobs 2 --jsonl "$work/i.jsonl" 2>"$work/i.err" &
pid=$!
while [ ! -s "$work/i.jsonl" ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 130 ] || { echo "FAILED: SIGINT: exit $rc, expected 130"; cat "$work/i.err"; fail=1; }
kept=$(wc -l <"$work/i.jsonl")
[ "$kept" -ge 1 ] && [ "$kept" -lt 9 ] || { echo "FAILED: SIGINT kept $kept rows"; fail=1; }
grep -q "^Incomplete: interrupted by SIGINT after $kept of 9 sources" "$work/i.err" ||
  { echo "FAILED: no Incomplete line for $kept rows"; cat "$work/i.err"; fail=1; }
"$exe" source --manifest "$work/i.json" --iterations 100 -q --jsonl "$work/i.jsonl" --resume 2>"$work/r.err" ||
  { echo "FAILED: --resume: exit $?"; cat "$work/r.err"; fail=1; }

python3 - "$work" <<'EOF' || fail=1
import json, sys
work = sys.argv[1]
# What differs between two runs of the same assessment: the date, the command, the timings, and
# on a GPU the device's text (its free memory and the round size it allows vary with the other
# work on the GPU; the counters do not: docs/design.md "Determinism contract").
VOLATILE = ("dateTimeStamp", "commandline", "timings", "device", "compressionDevice")
def norm(j):
    if isinstance(j, dict):
        return {k: norm(v) for k, v in j.items() if k not in VOLATILE + ("run",)}
    if isinstance(j, list):
        return [norm(x) for x in j]
    return j
alone = [norm(json.load(open("%s/alone-%d.json" % (work, k)))) for k in range(8)]
ok = True
def check(name, path, n=8, items=8, shares=None):
    global ok
    rows = [json.loads(l) for l in open(path)]
    rows.sort(key=lambda r: r["run"]["item"])
    if [r["run"]["item"] for r in rows] != list(range(n)) or any(r["run"]["items"] != items for r in rows):
        print("FAILED: %s: items %s" % (name, [r["run"]["item"] for r in rows])); ok = False; return
    for k in range(min(n, 8)):
        if norm(rows[k]) != alone[k]:
            print("FAILED: %s: row %d differs from ea_iid source's record" % (name, k)); ok = False
        if shares is not None and rows[k]["run"]["shard"] is not None and rows[k]["run"]["shard"]["count"] != shares:
            print("FAILED: %s: row %d's shard" % (name, k)); ok = False
        if rows[k]["run"]["userSeed"] != "7":
            print("FAILED: %s: row %d's seed" % (name, k)); ok = False
    return rows
check("whole", work + "/whole.jsonl")
check("--jobs 2", work + "/jobs.jsonl")
check("4 shares merged", work + "/merged.jsonl", shares=4)
rows = check("interrupted and resumed", work + "/i.jsonl", n=9, items=9)
if rows and rows[8]["type"] != "Source":
    print("FAILED: the slow source has no result"); ok = False
whole = [l.rstrip("\n") for l in open(work + "/whole.jsonl")]
jobs = [l.rstrip("\n") for l in open(work + "/jobs.jsonl")]
if [json.loads(l)["run"]["item"] for l in jobs] != list(range(8)):
    print("FAILED: --jobs 2 did not write the rows in manifest order"); ok = False
# --jobs 1 (the whole run) and --jobs 3: the same rows, "run" included, line for line.
def timeless(j):
    if isinstance(j, dict):
        return {k: timeless(v) for k, v in j.items() if k not in VOLATILE}
    if isinstance(j, list):
        return [timeless(x) for x in j]
    return j
jobs3 = [timeless(json.loads(l)) for l in open(work + "/jobs3.jsonl")]
if jobs3 != [timeless(json.loads(l)) for l in whole]:
    print("FAILED: --jobs 3 wrote other rows or another order than --jobs 1: items %s" % [r["run"]["item"] for r in jobs3])
    ok = False
shares = [[json.loads(l)["run"]["item"] for l in open("%s/s%d.jsonl" % (work, k))] for k in range(4)]
if sum(shares, []) != list(range(8)) or not all(shares[k] for k in (0, 2, 3)):
    print("FAILED: the 4 shares hold %s" % shares); ok = False
csv = open(work + "/merged.csv").read().splitlines()
if len(csv) != 9 or not csv[0].startswith("source,track,"):
    print("FAILED: merge --csv has %d lines" % len(csv)); ok = False
sys.exit(0 if ok else 1)
EOF

# The lab summary of merged shares is the whole run's (CSV equal, HTML equal but for the run's
# date and command): each source's page linked, an IID claim the tests did not confirm noted, a
# source in error named by its name. Three sources: an IID claim on a ramp (not IID), an empty
# file (an error row: exit 2), an IID claim on random bytes; every run writes -o lab-pages/.
python3 -c 'import sys; sys.stdout.buffer.write(bytes(k % 256 for k in range(20000)))' >"$d/ramp.bin"
: >"$d/empty.bin"
cat >"$work/lab.json" <<'EOF2'
{"sources": [
  {"primaryNoiseSource": "ramp claim", "rawNoisePath": "data/ramp.bin", "iidClaim": true},
  {"primaryNoiseSource": "empty", "rawNoisePath": "data/empty.bin", "iidClaim": false},
  {"primaryNoiseSource": "rand8 claim", "rawNoisePath": "data/rand8_short.bin", "iidClaim": true}
]}
EOF2
lab_run() {  # WHAT EXPECTED-EXIT ARGS... (2: with the empty source)
  local what=$1 want=$2
  shift 2
  "$exe" source --manifest "$work/lab.json" "${opts[@]}" -o "$work/lab-pages/" "$@" 2>"$work/$what.err"
  local rc=$?
  [ $rc -eq "$want" ] || { echo "FAILED: $what: exit $rc, expected $want"; cat "$work/$what.err"; fail=1; }
}
lab_run lab-whole 2 --jsonl "$work/lab-whole.jsonl" --html "$work/lab-whole.html" --csv "$work/lab-whole.csv"
lab_run lab-s0 0 --jsonl "$work/lab-s0.jsonl" --shard 0/2  # the ramp (its bytes outweigh the rest)
lab_run lab-s1 2 --jsonl "$work/lab-s1.jsonl" --shard 1/2
"$exe" merge "$work/lab-merged.jsonl" "$work/lab-s0.jsonl" "$work/lab-s1.jsonl" --html "$work/lab-merged.html" \
  --csv "$work/lab-merged.csv" -q 2>"$work/lab-merge.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAILED: lab merge: exit $rc, expected 2 (the empty source)"; cat "$work/lab-merge.err"; fail=1; }
cmp -s "$work/lab-whole.csv" "$work/lab-merged.csv" ||
  { echo "FAILED: merge's lab CSV differs from the whole run's"; diff "$work/lab-whole.csv" "$work/lab-merged.csv"; fail=1; }
page() { grep -v -e '^<tr><th>date</th>' -e '^<tr><th>command</th>' "$1"; }  # the run's own date and command aside
diff <(page "$work/lab-whole.html") <(page "$work/lab-merged.html") >"$work/lab-html.diff" ||
  { echo "FAILED: merge's lab page differs from the whole run's"; cat "$work/lab-html.diff"; fail=1; }
for want in 'href="lab-pages/ramp_claim.html"' 'IID claim not confirmed' '<td>empty</td>'; do
  grep -qF "$want" "$work/lab-merged.html" || { echo "FAILED: merge's lab page lacks $want"; fail=1; }
done
grep -qF 'lab-pages/empty.html' "$work/lab-whole.html" && { echo "FAILED: the lab page links a page never written"; fail=1; }

# The progress of --jobs 2: on a terminal (a pseudo-terminal of 40 columns) one line for the
# whole run redrawn in place and cut to the width, never a source's own permutation line drawn
# over another's; without a terminal (-v: each phase's last line), plain lines naming the source.
python3 - "$exe" "$work" <<'EOF' || fail=1
import fcntl, json, os, pty, struct, subprocess, sys, termios, tty
exe, work = sys.argv[1], sys.argv[2]
args = [exe, "source", "--manifest", work + "/m.json", "--seed", "7", "--iterations", "100", "--jobs", "2"]
master, slave = pty.openpty()
tty.setraw(slave)  # the bytes as written (no \n -> \r\n)
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
got = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    got += chunk
ok = p.wait() == 0
text = got.decode("utf-8", "replace")
drawn = [s for s in text.split("\r\x1b[K") if s and not s.endswith("\n")]  # what stays on the line
if not drawn or any(" sources done" not in s or len(s) > 39 for s in drawn):
    print("FAILED: --jobs 2 on a terminal drew %s" % drawn[:6]); ok = False
if text.count("\r") != text.count("\r\x1b[K") or "permutations, " in text:
    print("FAILED: --jobs 2 on a terminal drew other lines in place: %r" % text[:400]); ok = False
plain = subprocess.run(args + ["-v"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
names = [s["primaryNoiseSource"] for s in json.load(open(work + "/m.json"))["sources"]]
lines = [l for l in plain.splitlines() if " permutations, " in l]
if "\r" in plain or not lines or not all(any(l.startswith("ea_iid: info: %s: " % n) for n in names) for l in lines):
    print("FAILED: --jobs 2 without a terminal: progress lines %s" % lines[:4]); ok = False
if "ea_iid: info: 8/8 sources done" not in plain:
    print("FAILED: --jobs 2 without a terminal does not count the sources done"); ok = False
sys.exit(0 if ok else 1)
EOF

# merge refuses shares that are not of one run: nothing written, exit 2.
refused() {  # WHAT EXPECTED FILES...
  local what=$1 want=$2
  shift 2
  "$exe" merge "$work/$what.jsonl" "$@" 2>"$work/$what.err" >/dev/null
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$want" "$work/$what.err" && [ ! -s "$work/$what.jsonl" ] ||
    { echo "FAILED: merge $what: exit $rc, expected 2 saying '$want'"; cat "$work/$what.err"; fail=1; }
}
share0() {  # NAME MANIFEST ARGS...: share 0 of 4 (two cheap sources) of another run
  local name=$1 manifest=$2
  shift 2
  "$exe" source --manifest "$manifest" -q --jsonl "$work/$name.jsonl" --shard 0/4 "$@" 2>/dev/null
}
share0 o-seed "$work/m.json" --seed 8 --iterations 100
refused m-seed "the seed (run.userSeed) 7 differs from the first line's 8" "$work/o-seed.jsonl" "$work"/s[1-3].jsonl
share0 o-iter "$work/m.json" --seed 7 --iterations 200
refused m-iter "permutation.iterations (--iterations) is 100 where $work/o-iter.jsonl:1 has 200" "$work/o-iter.jsonl" "$work"/s[1-3].jsonl
cp "$work/m.json" "$work/m2.json" && echo " " >>"$work/m2.json"
share0 o-list "$work/m2.json" --seed 7 --iterations 100
refused m-list "the manifest's SHA-256 (run.list)" "$work/o-list.jsonl" "$work"/s[1-3].jsonl
refused m-twice "is in $work/s0.jsonl:1 too" "$work"/s[0-3].jsonl "$work/s0.jsonl"
refused m-missing "no line from share(s) 1, 2 of 4" "$work/s0.jsonl" "$work/s1.jsonl" "$work/s3.jsonl"
run half-share 0 --jsonl "$work/w2.jsonl" --shard 0/2
refused m-shares "the number of shares 2 differs from the first line's 4" "$work/s3.jsonl" "$work/w2.jsonl"
# --resume of a share: rows of another share refused.
cp "$work/s0.jsonl" "$work/r-other.jsonl"
run resume-other 2 --jsonl "$work/r-other.jsonl" --shard 3/4 --resume
grep -q "a row of another share" "$work/resume-other.err" || { echo "FAILED: --resume of another share"; fail=1; }
[ $fail -eq 0 ] && echo "manifest shards: all passed"
exit $fail
