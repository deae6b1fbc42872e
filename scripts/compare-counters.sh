#!/usr/bin/env bash
# Runs two ea_iid builds on every sample file with the same options and compares what a
# refactor must not change: the derived seed, the 19 tests' counters, the verdict and the
# assessed min-entropy. Prints one line per file and "N files: all equal" or the
# differences; exits 1 on any difference.
# usage: scripts/compare-counters.sh OLD_EA_IID NEW_EA_IID OUT_DIR [ea_iid options...]
#        (default options: --seed 1 -q; the sample files are testdata/samples/*.bin)
set -euo pipefail
old=$1 new=$2 out=$3
shift 3
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(--seed 1 -q)
mkdir -p "$out"
cd "$(dirname "$0")/.."
status=0 n=0
summary() {  # the fields compared, one line
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
p = j["permutation"]
print(p["seed"], [(t["name"], t["C0"], t["C1"], t["C2"]) for t in p["tests"]], j["verdict"]["result"], j["assessedMinEntropy"])
' "$1"
}
for f in testdata/samples/*.bin; do
  name=$(basename "$f" .bin)
  "$old" "${opts[@]}" -o "$out/$name.old.json" "$f" >/dev/null 2>"$out/$name.old.err" || true
  "$new" "${opts[@]}" -o "$out/$name.new.json" "$f" >/dev/null 2>"$out/$name.new.err" || true
  n=$((n + 1))
  a=$(summary "$out/$name.old.json" 2>&1 || true)
  b=$(summary "$out/$name.new.json" 2>&1 || true)
  if [ "$a" = "$b" ]; then
    echo "equal  $name: seed $(echo "$b" | cut -d' ' -f1), $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["verdict"]["result"], "in", round(j["timings"]["total"], 2), "s")' "$out/$name.new.json")"
  else
    echo "DIFFER $name:"; echo "  old: $a"; echo "  new: $b"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "$n files: all equal" || echo "$n files: differences above"
exit "$status"
