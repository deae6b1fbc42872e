#!/usr/bin/env bash
# Shows that a refactored ea_iid gives the same outputs as a previous release: runs both
# executables on every sample file of testdata/ (single-file cases per sample, batch, shard,
# merge, restart, exit-code and error cases) with identical arguments, from the repository
# root, each writing into its own temp folder, then compares per case the exit status,
# stdout, stderr and every output file (JSON, JSONL, CSV, HTML) after normalising what
# legitimately differs between two runs or builds (each normalisation is listed below, above
# NORM_PY).
# usage: scripts/compare-release.sh OLD_EXE NEW_EXE [OUT_DIR]
#   env: DEVICE=cpu|gpu|auto (default cpu); FULL=1 runs the single-file, restart and
#        --strict cases with the default 10,000 permutations (default: --iterations 200).
# Prints "ok NAME" or "DIFF NAME" plus the first 40 lines of a unified diff per case, then
# "N ok, M differ"; exits 1 when any case differs (2 on a usage error).
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 OLD_EXE NEW_EXE [OUT_DIR]" >&2
  exit 2
fi
for e in "$1" "$2"; do
  if ! [ -f "$e" ] || ! [ -x "$e" ]; then
    echo "$0: $e: not an executable file" >&2
    exit 2
  fi
done
OLD_GIVEN=$1 NEW_GIVEN=$2
OLD=$(realpath "$1") NEW=$(realpath "$2")
OUT=$(realpath -m "${3:-$(mktemp -d /tmp/compare-release.XXXXXX)}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEVICE=${DEVICE:-cpu}
FULL=${FULL:-0}
export LC_ALL=C  # same glob order and messages for both runs

cd "$ROOT"  # every path given to the executables is relative to the repository root
# Only the folders this script makes are replaced; anything else in OUT_DIR is left alone.
rm -rf "$OUT/old" "$OUT/new" "$OUT/norm"
mkdir -p "$OUT/old" "$OUT/new" "$OUT/norm/old" "$OUT/norm/new"

ITER=(--iterations 200)
if [ "$FULL" = 1 ]; then ITER=(); fi
COMMON=(--seed 1 --device "$DEVICE")
SAMPLES=(testdata/samples/*.bin)
RESTART_FILE=testdata/restart/restart_carryover_8bit.bin

# The normalisation, per file, by name (python3, json module; key order kept):
#  every file: the per-executable temp folder ($OUT/old or $OUT/new) becomes <TMP>, the
#    executable's path (absolute and as given) becomes <EXE>.
#  *.json (-o): keys dateTimeStamp, toolVersion, build, timings, commandline dropped at
#    any depth (restart runs nest whole assessments in rows/columns), and device,
#    compressionDevice, threads, workerThreads (added after 0d371cd: the CPU share a worker used) inside any "permutation" object; numbers keep their exact
#    text (no float re-formatting); re-indented with 2 spaces. In batch rows' "run", list and
#    userSeed (added after 0d371cd: the list digest and the seed of every row) are dropped.
#  *.jsonl: each line as a .json file, lines ordered by run.item (with several --jobs they
#    are appended as items finish); a missing final newline is marked.
#  *.csv: the "seconds" column (found by its header) dropped; every other field keeps its
#    raw text, quoting and line end (CRLF).
#  *.html: the command-line paragraph (the <p> right after <h1>ea_iid report</h1>)
#    emptied; a summary-table column headed seconds/time/elapsed dropped (none today);
#    decimal durations ("1.23 s", "4.5 seconds", "12.0 ms") become <T>.
#  STEP.stdout, STEP.stderr: the summary table's last column (seconds) cut off, from the
#    header's offset of "seconds" on every row; then lines containing Timing, seconds or
#    elapsed dropped; the -v progress lines of unfinished rounds ("PHASE: D/N permutations,
#    K tests undecided" with D < N and K > 0: printed at most once a second, so how many
#    depends on speed) dropped, the final one of each phase kept; a batch log line's
#    "(1.23 s)" becomes "(<T> s)"; where the permutation/compression tests ran (the text
#    forms of permutation.device and .compressionDevice: "Permutation tests on X, PRNG",
#    "Compression test on X", "Permutation testing: compression test on X", a restart
#    part's "(seed S, N permutations, X)", "using X for the permutation tests") becomes
#    <DEVICE>. For batch
#    steps (marked STEP.unordered) the stderr's "[k/N]" finish counter becomes "[#/N]" and
#    its lines are sorted: with several jobs they come in finishing order (stdout keeps its
#    order: the summary table is in list order).
#  STEP.rc (exit status) and other files: only the path replacements.
read -r -d '' NORM_PY <<'PY' || true
import json, os, re, sys

src, dst, tmp = sys.argv[1:4]
exes = sorted(set(sys.argv[4:]), key=len, reverse=True)
DROP = {"dateTimeStamp", "toolVersion", "build", "timings", "commandline"}
PERM_DROP = {"device", "compressionDevice", "threads", "workerThreads"}
RUN_DROP = {"list", "userSeed"}  # added to batch rows' "run" after 0d371cd
NUM = "\x00NUM:"  # floats are kept as the text the tool wrote


def paths(s):
    s = s.replace(tmp, "<TMP>")
    for e in exes:
        s = s.replace(e, "<EXE>")
    return s


def strip(v, key=None):
    if isinstance(v, dict):
        return {k: strip(x, k) for k, x in v.items()
                if k not in DROP and not (key == "permutation" and k in PERM_DROP)
                and not (key == "run" and k in RUN_DROP)}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def load(s):
    return json.loads(s, parse_float=lambda t: NUM + t)


def dump(v):
    s = json.dumps(v, indent=2, ensure_ascii=False)
    return re.sub(r'"\\u0000NUM:([^"]*)"', r"\1", s)


def norm_json(s):
    try:
        return dump(strip(load(s))) + "\n"
    except ValueError as e:
        return "[not JSON: %s]\n%s" % (e, s)


def norm_jsonl(s):
    lines = s.split("\n")
    last_newline = lines[-1] == ""
    if last_newline:
        lines.pop()
    recs = []
    for i, line in enumerate(lines):
        try:
            v = load(line)
            item = v.get("run", {}).get("item") if isinstance(v, dict) and isinstance(v.get("run"), dict) else None
            recs.append((item if isinstance(item, int) else float("inf"), i, "line (run.item %s)\n%s\n" % (item, dump(strip(v)))))
        except ValueError as e:
            recs.append((float("inf"), i, "line [not JSON: %s]\n%s\n" % (e, line)))
    out = "".join(r[2] for r in sorted(recs, key=lambda r: (r[0], r[1])))
    return out + ("" if last_newline or not lines else "[no newline at the end]\n")


def csv_records(text):  # RFC 4180 fields with their raw text (quotes kept), and line ends
    recs, fields, cur, q, i = [], [], "", False, 0
    while i < len(text):
        c = text[i]
        if q:
            cur += c
            if c == '"':
                if text[i + 1:i + 2] == '"':
                    cur += '"'
                    i += 1
                else:
                    q = False
        elif c == '"':
            q = True
            cur += c
        elif c == ",":
            fields.append(cur)
            cur = ""
        elif c == "\n" or (c == "\r" and text[i + 1:i + 2] == "\n"):
            fields.append(cur)
            recs.append((fields, "\r\n" if c == "\r" else "\n"))
            fields, cur = [], ""
            if c == "\r":
                i += 1
        else:
            cur += c
        i += 1
    if cur or fields:
        fields.append(cur)
        recs.append((fields, ""))
    return recs


def norm_csv(s):
    recs = csv_records(s)
    if not recs:
        return s
    header = [f.strip('"') for f in recs[0][0]]
    drop = header.index("seconds") if "seconds" in header else -1
    return "".join(",".join(f for k, f in enumerate(fields) if k != drop) + end for fields, end in recs)


def norm_html(s):
    s = re.sub(r"(<h1>ea_iid report</h1>)<p>.*?</p>", r"\1<p>[command line removed]</p>", s, count=1, flags=re.S)
    m = re.search(r"<thead><tr>(.*?)</tr></thead>", s, flags=re.S)
    if m:
        heads = re.findall(r"<th>(.*?)</th>", m.group(1), flags=re.S)
        drop = [k for k, h in enumerate(heads) if h.strip().lower() in ("seconds", "time", "elapsed")]
        if drop:
            def cut_row(r, tag):
                cells = re.findall(r"<%s[^>]*>.*?</%s>" % (tag, tag), r.group(2), flags=re.S)
                return r.group(1) + "".join(c for k, c in enumerate(cells) if k not in drop) + r.group(3)
            s = re.sub(r"(<thead><tr>)(.*?)(</tr></thead>)", lambda r: cut_row(r, "th"), s, flags=re.S)
            s = re.sub(r"(<tr class=\"item[^\"]*\">)(.*?)(</tr>)", lambda r: cut_row(r, "td"), s, flags=re.S)
    return re.sub(r"\b\d+\.\d+ ?(s|seconds|ms)\b", "<T>", s)


DEVICE_PATTERNS = [
    (re.compile(r"^(\s*Permutation tests on ).*?(, PRNG )"), r"\1<DEVICE>\2"),
    (re.compile(r"^(\s*Compression test on ).*$"), r"\1<DEVICE>"),
    (re.compile(r"^(\s*Permutation testing: compression test on ).*$"), r"\1<DEVICE>"),
    (re.compile(r"(\(seed \d+, \d+ permutations, ).*\)$"), r"\1<DEVICE>)"),
    (re.compile(r"(using ).*( for the permutation tests)"), r"\1<DEVICE>\2"),
]


PROGRESS = re.compile(r": (\d+)/(\d+) permutations, (\d+) tests? undecided$")


def norm_text(s, unordered):
    out, cut = [], None
    for line in s.split("\n"):
        if cut is not None:  # a row of the summary table: cut at the seconds column
            if len(line) >= cut and line[cut - 2:cut] == "  ":
                out.append(line[:cut].rstrip())
                continue
            cut = None
        if re.match(r"file +block +samples +.*  seconds *$", line):
            cut = line.rindex("seconds")
            out.append(line[:cut].rstrip() + "  [seconds column removed]")
            continue
        if re.search(r"Timing|seconds|elapsed", line):
            continue
        m = PROGRESS.search(line)
        if m and int(m.group(1)) < int(m.group(2)) and int(m.group(3)) > 0:
            continue
        line = re.sub(r"\(\d+(\.\d+)? s\)$", "(<T> s)", line)
        for p, r in DEVICE_PATTERNS:
            line = p.sub(r, line)
        if unordered:
            line = re.sub(r"\[\d+/(\d+)\]", r"[#/\1]", line)
        out.append(line)
    if unordered:
        last = out.pop() if out and out[-1] == "" else None
        out.sort()
        if last is not None:
            out.append(last)
    return "\n".join(out)


for dirpath, dirnames, files in os.walk(src):
    dirnames.sort()
    rel = os.path.relpath(dirpath, src)
    os.makedirs(os.path.join(dst, rel), exist_ok=True)
    for f in sorted(files):
        p = os.path.join(dirpath, f)
        with open(p, encoding="utf-8", errors="surrogateescape", newline="") as h:
            s = h.read()
        if f.endswith(".unordered"):
            pass
        elif f.endswith(".jsonl"):
            s = norm_jsonl(s)
        elif f.endswith(".json"):
            s = norm_json(s)
        elif f.endswith(".csv"):
            s = norm_csv(s)
        elif f.endswith(".html"):
            s = norm_html(s)
        elif f.endswith(".stdout") or f.endswith(".stderr"):
            s = norm_text(s, f.endswith(".stderr") and os.path.exists(p.rsplit(".", 1)[0] + ".unordered"))
        with open(os.path.join(dst, rel, f), "w", encoding="utf-8", errors="surrogateescape", newline="") as h:
            h.write(paths(s))
PY

side='' exe='' given='' dir=''  # set per run: old|new, its executable, the case's folder
# step LABEL [--unordered] ARGS...: runs the executable with ARGS ("@OUT@" is the case's
# output folder); LABEL.stdout, LABEL.stderr, LABEL.rc record it.
step() {
  local label=$1 a
  shift
  local args=()
  if [ "${1-}" = --unordered ]; then
    : >"$dir/$label.unordered"
    shift
  fi
  for a in "$@"; do args+=("${a//@OUT@/$dir/out}"); done
  local rc=0
  "$exe" "${args[@]}" >"$dir/$label.stdout" 2>"$dir/$label.stderr" </dev/null || rc=$?
  echo "$rc" >"$dir/$label.rc"
}

n_ok=0 n_diff=0
# run_case NAME FUNCTION ARGS...: FUNCTION ARGS... runs with each executable, then compares.
run_case() {
  local name=$1
  shift
  for side in old new; do
    if [ "$side" = old ]; then exe=$OLD given=$OLD_GIVEN; else exe=$NEW given=$NEW_GIVEN; fi
    dir=$OUT/$side/$name
    mkdir -p "$dir/out"
    "$@"
    python3 -c "$NORM_PY" "$dir" "$OUT/norm/$side/$name" "$OUT/$side" "$exe" "$given"
  done
  if diff -r "$OUT/norm/old/$name" "$OUT/norm/new/$name" >/dev/null 2>&1; then
    echo "ok $name"
    n_ok=$((n_ok + 1))
  else
    echo "DIFF $name"
    (cd "$OUT/norm" && diff -ru "old/$name" "new/$name" | head -n 40) || true
    n_diff=$((n_diff + 1))
  fi
}

single() { step run "${COMMON[@]}" "$@"; }
batch() {
  step run --unordered "${COMMON[@]}" --iterations 200 --blocks 100000 "$@" \
    --jsonl @OUT@/r.jsonl --csv @OUT@/r.csv --html @OUT@/r.html "${SAMPLES[@]}"
}
# The shares 0/3 and 2/3 (JSONL only), the 1/3 share of case "shard", and their merge.
merge_case() {
  local k
  for k in 0 2; do
    step "shard$k" --unordered "${COMMON[@]}" --iterations 200 --blocks 100000 --shard "$k/3" \
      --jsonl "@OUT@/p$k.jsonl" "${SAMPLES[@]}"
  done
  cp "$OUT/$side/shard/out/r.jsonl" "$dir/out/p1.jsonl"
  step run merge @OUT@/all.jsonl @OUT@/p0.jsonl @OUT@/p1.jsonl @OUT@/p2.jsonl
}

start=$SECONDS
echo "old: $OLD_GIVEN ($("$OLD" --version 2>&1 | head -n 1 || true))"
echo "new: $NEW_GIVEN ($("$NEW" --version 2>&1 | head -n 1 || true))"
echo "device $DEVICE, ${ITER[*]:-default iterations} (single-file, restart, --strict cases), outputs in $OUT"

for f in "${SAMPLES[@]}"; do
  b=$(basename "$f" .bin)
  run_case "vvv-$b" single ${ITER[@]+"${ITER[@]}"} -v -v -v -o @OUT@/r.json "$f"
  run_case "nist-$b" single ${ITER[@]+"${ITER[@]}"} --format nist -v -v "$f"
  run_case "ct-$b" single ${ITER[@]+"${ITER[@]}"} -c -t -o @OUT@/r.json "$f"
done
run_case batch batch
run_case shard batch --shard 1/3
run_case merge merge_case
# --restart H_I FILE BITS, as README's example (1,000 restarts x 1,000 samples).
run_case restart single ${ITER[@]+"${ITER[@]}"} --restart 7.5 -v -o @OUT@/r.json "$RESTART_FILE" 8
run_case restart-nist single ${ITER[@]+"${ITER[@]}"} --format nist --restart 7.5 "$RESTART_FILE" 8
# Exit codes. Without FULL=1 --strict exits 4 (exploratory --iterations, or a short file);
# --exit-code gives 1 for the not-IID file either way.
run_case strict-rand8_short single ${ITER[@]+"${ITER[@]}"} --strict -o @OUT@/r.json testdata/samples/rand8_short.bin
run_case strict-ringOsc single ${ITER[@]+"${ITER[@]}"} --strict -o @OUT@/r.json testdata/samples/ringOsc-nist.bin
run_case exit-code-ringOsc single ${ITER[@]+"${ITER[@]}"} --exit-code -q testdata/samples/ringOsc-nist.bin
# Errors (exit 2; with -o, an input error is written to the JSON, a usage error is not).
run_case error-missing single -o @OUT@/r.json testdata/samples/no-such-file.bin
# rand8_short.bin has 10,000 samples: block 10 of 1,000 starts at its end.
run_case error-range single -l 10,1000 -o @OUT@/r.json testdata/samples/rand8_short.bin
run_case error-directory single -o @OUT@/r.json testdata/samples
run_case error-prng single --prng nosuch -o @OUT@/r.json testdata/samples/rand8_short.bin

echo "elapsed: $((SECONDS - start)) s"
echo "$n_ok ok, $n_diff differ"
[ "$n_diff" -eq 0 ]
