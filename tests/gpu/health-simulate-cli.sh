#!/usr/bin/env bash
# ea_iid health-tests --simulate on the GPU from the command line (cuda/health_simulate.cu
# through cuda/api/gpu_health.hpp): 10^9 samples of a binary source of H = 1 at alpha = 2^-8
# with --device gpu record device "gpu" and rates within their 99% intervals of the exact
# ones; at 10^8 samples the GPU's failure counts equal --device cpu's for the same seed, for a
# binary and an 8-bit source (independent Philox runs: the device changes nothing but the
# time); every record validates against the schema. Exit 77 (ctest: skipped) when no GPU is
# usable.
# usage: health-simulate-cli.sh EA_IID GPU_PROBE WORK_DIR VALIDATE_JSON SCHEMA
set -uo pipefail
exe=$1 probe=$2 work=$3 validate=$4 schema=$5
"$probe" --probe >/dev/null || exit 77
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
"$exe" health-tests 1 --bits 1 --alpha 2^-8 --simulate 1e9 --seed 1 --device gpu -o gpu-1e9.json >gpu-1e9.txt 2>&1 \
  || bad "--device gpu, 1e9 samples: exit $? ($(cat gpu-1e9.txt))"
[ "$(field gpu-1e9.json "r['simulation']['device']")" = gpu ] || bad "1e9: the record's device is not gpu"
[ "$(field gpu-1e9.json "r['simulation']['samples']")" = 1000000512 ] || bad "1e9: not 1000000512 samples"
for t in rct apt; do
  [ "$(field gpu-1e9.json "r['simulation']['$t']['within']")" = True ] || bad "1e9: the $t rate is outside its 99% interval"
done
grep -q "^Monte Carlo check (GPU [0-9]*: " gpu-1e9.txt || bad "1e9: the text does not name the GPU"
# The same counts on either device.
for c in "1 1" "2 8"; do
  set -- $c
  for d in gpu cpu; do
    "$exe" health-tests "$1" --bits "$2" --alpha 2^-8 --simulate 1e8 --seed 1 --device $d -q -o "h$1-$d.json" \
      || bad "H = $1, --bits $2, --device $d: exit $?"
  done
  [ "$(field "h$1-gpu.json" "r['simulation']['device']")" = gpu ] || bad "H = $1: the GPU run's device is not gpu"
  [ "$(field "h$1-cpu.json" "r['simulation']['device']")" = cpu ] || bad "H = $1: the CPU run's device is not cpu"
  for t in rct apt; do
    g=$(field "h$1-gpu.json" "r['simulation']['$t']['failures']")
    p=$(field "h$1-cpu.json" "r['simulation']['$t']['failures']")
    [ -n "$g" ] && [ "$g" = "$p" ] || bad "H = $1, --bits $2: $t failures $g on the GPU, $p on the CPU"
  done
  echo "H = $1, --bits $2, 1e8 samples: RCT $(field "h$1-gpu.json" "r['simulation']['rct']['failures']"), APT" \
       "$(field "h$1-gpu.json" "r['simulation']['apt']['failures']") failures on either device"
done
"$validate" "$schema" gpu-1e9.json h1-gpu.json h1-cpu.json h2-gpu.json h2-cpu.json >validate.out 2>&1 \
  || bad "schema: $(cat validate.out)"
[ $fail = 0 ] && echo "health simulation from the CLI on the GPU: all passed"
