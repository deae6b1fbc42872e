#!/usr/bin/env bash
# A batch worker's items taking turns at its GPU backends (GpuTuning::slot_items): a batch of
# IID, not-IID, 4-bit, binary and short files with --jobs 2 writes the same rows, in the same
# order, with 1, 2 (the default) and 4 items in flight a worker as --jobs 1 and as the CPU
# alone (the counters, estimates and verdicts; not the timings, threads or device names), and
# the debug log says how many ran at once. Exit 77 (ctest: skipped) when no GPU is usable.
# usage: batch-turns.sh EA_IID GPU_PROBE SAMPLES_DIR WORK_DIR
set -uo pipefail
exe=$1 probe=$2 samples=$3 work=$4
"$probe" --probe >/dev/null || exit 77
rm -rf "$work" && mkdir -p "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
files=()
for name in GetTickCount_8bit truerand_8bit truerand_4bit rand8_short GetTickCount_1bit truerand_8bit rand4_short; do
  files+=("$samples/$name.bin")
done
run() {  # NAME OPTIONS...
  local name=$1
  shift
  "$exe" --seed 11 --iterations 2000 --log-level debug --jsonl "$work/$name.jsonl" "$@" "${files[@]}" \
    >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 1 ] || bad "$name: exit $rc ($(tail -n 3 "$work/$name.err"))"
}
run cpu --device cpu --jobs 1
run one --jobs 1
run turns1 --jobs 2 --gpu-tuning slot-items=1
run turns2 --jobs 2
run turns4 --jobs 2 --gpu-tuning slot-items=4
grep -q "7 assessments, 2 workers, 4 at a time" "$work/turns2.err" || bad "--jobs 2: the log does not say 4 at a time"
grep -q "7 assessments, 2 workers, 2 at a time" "$work/turns1.err" || bad "slot-items=1: the log does not say 2 at a time"
grep -q "7 assessments, 2 workers, 7 at a time" "$work/turns4.err" || bad "slot-items=4: the log does not say 7 at a time"
python3 - "$work" <<'PY' || fail=1
import json, sys
work = sys.argv[1]
def rows(name):
    out = []
    for line in open(f"{work}/{name}.jsonl"):
        r = json.loads(line)
        for k in ("dateTimeStamp", "commandline", "timings"):
            r.pop(k, None)
        for k in ("device", "workerThreads", "threads", "compressionDevice"):
            r.get("permutation", {}).pop(k, None)
        r.get("permutation", {}).get("gpuTuning", {}).pop("slotItems", None)
        out.append(r)
    return out
ref = rows("cpu")
ok = len(ref) == 7
if not ok:
    print(f"FAIL: --device cpu wrote {len(ref)} rows, not 7")
verdicts = [r["verdict"]["result"] for r in ref]
if "IID" not in verdicts or "not IID" not in verdicts:
    print(f"FAIL: the batch should hold IID and not-IID items: {verdicts}"); ok = False
for name in ("one", "turns1", "turns2", "turns4"):
    got = rows(name)
    if got != ref:
        diff = [i for i, (a, b) in enumerate(zip(ref, got)) if a != b]
        print(f"FAIL: {name}: rows differ from --device cpu's (rows {diff}, {len(got)} rows)")
        for i in diff[:1]:
            a, b = ref[i], got[i]
            print("  keys differing:", [k for k in set(a) | set(b) if a.get(k) != b.get(k)])
        ok = False
sys.exit(0 if ok else 1)
PY
[ $fail -eq 0 ] && echo "batch turns on the GPU: all passed"
exit $fail
