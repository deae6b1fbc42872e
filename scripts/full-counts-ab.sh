#!/usr/bin/env bash
# Full counts (every test, every permutation) of two ea_iid builds, alternately, on the GPU
# machine: each run's wall time, the GPU bzip2 model's busy time and stages (--gpu-tuning
# profile=1) and the compression test's counters, which must be equal between the builds.
# Prints one line per run and exits 1 where the counters differ.
#
# usage: scripts/full-counts-ab.sh OLD_EA_IID NEW_EA_IID [RUNS] [FILE...]
#        (default 2 runs; files: GetTickCount_8bit, truerand_8bit, truerand_4bit in testdata/samples)
# env:   TUNING: more --gpu-tuning keys (e.g. bz-chars=134217728); THREADS: --threads (default: all)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 OLD_EA_IID NEW_EA_IID [RUNS] [FILE...]" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
runs=${3:-2}
shift $(( $# >= 3 ? 3 : 2 ))
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$here"/testdata/samples/{GetTickCount_8bit,truerand_8bit,truerand_4bit}.bin)
tuning=profile=1${TUNING:+,$TUNING}
threads=()
[ -z "${THREADS:-}" ] || threads=(--threads "$THREADS")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for ((r = 0; r < runs; ++r)); do
  for f in "${files[@]}"; do
    for which in old new; do
      exe=$old
      [ "$which" = new ] && exe=$new
      s=$(date +%s.%N)
      "$exe" --seed 1 -q --track iid --no-early-exit --all-tests --gpu-tuning "$tuning" "${threads[@]}" \
        -o "$tmp/$which.json" "$f" >/dev/null 2>&1 || { echo "FAILED: $which $f" >&2; exit 1; }
      e=$(date +%s.%N)
      python3 - "$tmp/$which.json" "$which" "$(basename "$f" .bin)" "$s" "$e" >>"$tmp/lines" <<'PY'
import json, re, sys
path, which, name, s, e = sys.argv[1:]
d = json.load(open(path))
c = [t for t in d["permutation"]["tests"] if "ompress" in t["name"]][0]
p = d["timings"].get("deviceProfile", "")
busy = re.search(r"GPU compression: ([0-9.]+) s busy", p)
stages = " ".join(a + " " + v for a, v in re.findall(r"(text|sort|doubling|bwt|mtf|bits) ([0-9.]+) s", p)[:6])
print(f"{name} {which} wall {float(e) - float(s):.2f} s, busy {busy.group(1) if busy else '?'} s | {stages} | "
      f"C {c['C0']}/{c['C1']}/{c['C2']}")
PY
      tail -n 1 "$tmp/lines"
    done
    o=$(tail -n 2 "$tmp/lines" | head -n 1 | sed 's/.*| C //') n=$(tail -n 1 "$tmp/lines" | sed 's/.*| C //')
    if [ "$o" != "$n" ]; then
      echo "DIFFERENT counters for $(basename "$f"): $o against $n"
      status=1
    fi
  done
done
exit $status
