#!/usr/bin/env bash
# CPU/GPU parity: for every sample file, `--device gpu` with two round sizes, with every
# round split in two on GPU 0 (`--gpu 0,0`), with the one-thread-per-permutation shuffle
# instead of a block per permutation, with the statistics by a block per permutation in
# full rounds too (by default only rounds of up to 4,096), with two blocks per SM of the
# shuffle by reservations (`--gpu-tuning reservations=2`), with its rows in global memory
# where they would fit in shared memory (`resident=0`), with the
# non-binary statistics by the block kernel instead of the fused one (`fused-statistics=0`),
# with rows in global memory wholly there, not their lowest places in shared memory
# (`low-shared=0`), and, on a machine with several GPUs, split
# across all of them (`--gpu all`), gives exactly the counters of `--device cpu` for one
# seed; and the GPU verdicts on the files with a known answer. Exit 77 (ctest: skipped)
# when no GPU is usable.
# usage: parity.sh EA_IID GPU_PROBE SAMPLES_DIR WORK_DIR
# By hand, on a subset: PARITY_FILES="a b" limits the per-file parts to those sample names;
# PARITY_CONFIGS="TEXT" keeps the GPU configurations whose name contains TEXT (e.g. "--gpu all");
# PARITY_PRNGS="a b" limits the prngs part to those generators;
# PARITY_GPU_OPTS="..." adds options to the compression part's GPU runs (ctest's
# compression-one-lane: `--gpu-tuning bz-lanes=1`, the backend's own stream() of one phase);
# PARITY_REQUIRE_ONE_PHASE=1 fails a non-binary file whose full counts did not run one phase;
# PARITY_PARTS="files compression prngs restart non-iid verify" (default: all) picks the parts
# (ctest runs them as tests gpu/cpu_gpu_parity/PART, restart, non-iid and verify together, and
# prngs as one test a generator, gpu/cpu_gpu_parity/prngs-NAME).
set -uo pipefail
exe=$1 probe=$2 samples=$3 work=$4
"$probe" --probe >/dev/null || exit 77
mkdir -p "$work"
seed=20261122
fail=0
counters() { grep "^Permutation testing: counters" "$1"; }
# GPU configurations: name and options.
configs=("round size 1000|--round-size 1000" "round size 4096|--round-size 4096" "--gpu 0,0|--gpu 0,0"
         "one thread per permutation|--gpu-tuning parallel-shuffle=0"
         "block statistics in every round|--gpu-tuning block-statistics=10000"
         "two shuffle blocks per SM|--gpu-tuning reservations=2"
         "rows in global memory|--gpu-tuning resident=0"
         "statistics not fused|--gpu-tuning fused-statistics=0"
         "no low places in shared memory|--gpu-tuning low-shared=0")
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
[ "${gpus:-0}" -ge 2 ] && configs+=("--gpu all ($gpus GPUs)|--gpu all")
if [ -n "${PARITY_CONFIGS:-}" ]; then
  kept=()
  for c in "${configs[@]}"; do [[ "${c%%|*}" == *"$PARITY_CONFIGS"* ]] && kept+=("$c"); done
  configs=("${kept[@]}")
  [ ${#configs[@]} -gt 0 ] || { echo "FAIL PARITY_CONFIGS='$PARITY_CONFIGS' matches no configuration"; exit 1; }
fi
parts=" ${PARITY_PARTS:-files compression prngs restart non-iid verify} "
part() { [[ "$parts" == *" $1 "* ]]; }
# The generators (ctest runs the prngs part as one test a generator: PARITY_PRNGS names it,
# and PARITY_PRNG_SET, CMake's list of them, must be --list-prngs' whole list).
listed=$("$exe" --list-prngs | sed -n 's/^\([a-z0-9-]*\)\( (default)\)\{0,1\}: .*/\1/p' | tr '\n' ' ')
[ -n "$listed" ] || { echo "FAIL --list-prngs names no generator"; fail=1; }
for prng in ${PARITY_PRNGS:-}; do
  [[ " $listed" == *" $prng "* ]] || { echo "FAIL PARITY_PRNGS: '$prng' is not a generator of --list-prngs ($listed)"; fail=1; }
done
if [ -n "${PARITY_PRNG_SET:-}" ] && [ "${listed% }" != "$PARITY_PRNG_SET" ]; then
  echo "FAIL the generators of --list-prngs ($listed) are not ctest's one test each (tests/CMakeLists.txt: $PARITY_PRNG_SET)"; fail=1
fi
for path in "$samples"/*.bin; do
  part files || break
  f=$(basename "$path" .bin)
  if [ -n "${PARITY_FILES:-}" ] && [[ " $PARITY_FILES " != *" $f "* ]]; then continue; fi
  # (--track iid: the non-IID estimates of not-IID files are CPU work the counters do not need)
  # (--cpu-compression: libbz2 itself on the CPU, against the GPU's bzip2 size model)
  "$exe" -v -v -v --track iid --device cpu --cpu-compression --seed $seed "$path" >"$work/$f.cpu" 2>"$work/$f.cpu.err" || { echo "FAIL $f: cpu run"; fail=1; continue; }
  for k in "${!configs[@]}"; do
    name=${configs[$k]%%|*}
    read -r -a opts <<<"${configs[$k]#*|}"
    out="$work/$f.gpu$k"
    if ! "$exe" -v -v -v --track iid --device gpu "${opts[@]}" --seed $seed "$path" >"$out" 2>"$out.err"; then
      echo "FAIL $f: gpu run ($name): $(cat "$out.err")"
      fail=1
      continue
    fi
    if diff <(counters "$work/$f.cpu") <(counters "$out") >"$out.diff"; then
      echo "ok   $f: $name: counters identical to the CPU"
    else
      echo "FAIL $f: $name: counters differ"; cat "$out.diff"; fail=1
    fi
  done
  last="$work/$f.gpu$((${#configs[@]} - 1))"
  verdict=$(grep "^Verdict" "$last" | cut -d';' -f1)
  case $f in
    truerand_*) want="Verdict: IID" ;;
    GetTickCount_1bit|GetTickCount_8bit) want="Verdict: not IID" ;;
    *) want="" ;;
  esac
  # IID data: the compression test must have run on the GPU (the bzip2 size model).
  case $f in
    truerand_*)
      # (split over several GPU entries: "on 2 devices: gpu 0 (...) + gpu 0 (...)")
      if grep -Eq "^Permutation testing: compression test on ([0-9]+ (devices|lanes): )?gpu" "$last"; then
        echo "ok   $f: compression test ran on the GPU"
      else
        echo "FAIL $f: compression test did not run on the GPU: $(grep -i compression "$last.err" | head -n 1)"; fail=1
      fi ;;
  esac
  if [ -n "$want" ]; then
    case "$verdict" in
      "$want"*) echo "ok   $f: $verdict" ;;
      *) echo "FAIL $f: $verdict (expected $want)"; fail=1 ;;
    esac
  fi
done
# The bzip2 size model on data of every kind (IID or not, 1-8 bits, biased, short): with
# --all-tests the compression test runs on the GPU whatever the other tests say; its
# counters over 300 permutations (no early exit) must equal libbz2's on the CPU
# (--cpu-compression: without it the CPU runs the same model). Such full counts of
# non-binary data take the 18 statistical tests from the compression test's rows
# (bz-statistics): every test's counters must equal the CPU's.
for path in "$samples"/*.bin; do
  part compression || break
  f=$(basename "$path" .bin)
  if [ -n "${PARITY_FILES:-}" ] && [[ " $PARITY_FILES " != *" $f "* ]]; then continue; fi
  opts=(--all-tests --no-early-exit --iterations 300 --seed 11)
  "$exe" -v -v -v --device cpu --cpu-compression "${opts[@]}" "$path" >"$work/$f.all.cpu" 2>&1 &&
    "$exe" -v -v -v --device gpu "${opts[@]}" ${PARITY_GPU_OPTS:-} -o "$work/$f.all.gpu.json" "$path" >"$work/$f.all.gpu" 2>&1 ||
    { echo "FAIL $f --all-tests: run failed"; fail=1; continue; }
  if ! grep -Eq "^Permutation testing: compression test on ([0-9]+ (devices|lanes): )?gpu" "$work/$f.all.gpu"; then
    echo "FAIL $f --all-tests: compression test not on the GPU"; fail=1
  elif diff <(grep "counters compression" "$work/$f.all.cpu") <(grep "counters compression" "$work/$f.all.gpu") >/dev/null; then
    echo "ok   $f: GPU bzip2 model = libbz2 over 300 permutations ($(grep 'counters compression' "$work/$f.all.gpu" | cut -d: -f3))"
  else
    echo "FAIL $f --all-tests: compression counters differ"; fail=1
  fi
  if diff <(grep "counters " "$work/$f.all.cpu") <(grep "counters " "$work/$f.all.gpu") >/dev/null; then
    echo "ok   $f: every test's counters of the full counts equal the CPU's"
  else
    echo "FAIL $f --all-tests: the counters of other tests differ"; fail=1
  fi
  if ! grep -q "^Binary = true" "$work/$f.all.gpu" && ! grep -q '"device": "[^"]*; one phase: ' "$work/$f.all.gpu.json"; then
    if [ -n "${PARITY_REQUIRE_ONE_PHASE:-}" ]; then
      echo "FAIL $f --all-tests: no one phase (PARITY_REQUIRE_ONE_PHASE): $(grep -o '"device": "[^"]*' "$work/$f.all.gpu.json")"; fail=1
    else
      echo "note $f --all-tests: the statistical tests did not come from the compression test's permutations (one phase declined: rows that do not fit this GPU, or no room)"
    fi
  fi
done
# Every shuffling generator: the same counters on the GPU (a block per permutation, the
# targets of all but Philox drawn ahead: rows in global memory for 8-bit data, packed in
# shared memory for binary data; every permutation of a not-IID file) as on the CPU, for
# one seed.
for prng in $listed; do
  if [ -n "${PARITY_PRNGS:-}" ] && [[ " $PARITY_PRNGS " != *" $prng "* ]]; then continue; fi
  for f in truerand_8bit truerand_1bit GetTickCount_4bit; do
    part prngs || break 2
    "$exe" -v -v -v --track iid --device cpu --prng "$prng" --seed 7 "$samples/$f.bin" >"$work/$f.$prng.cpu" 2>&1 &&
      "$exe" -v -v -v --track iid --device gpu --prng "$prng" --seed 7 "$samples/$f.bin" >"$work/$f.$prng.gpu" 2>&1 ||
      { echo "FAIL $prng $f: run failed: $(tail -n 1 "$work/$f.$prng.cpu" "$work/$f.$prng.gpu")"; fail=1; continue; }
    if diff <(counters "$work/$f.$prng.cpu") <(counters "$work/$f.$prng.gpu") >"$work/$f.$prng.diff"; then
      echo "ok   --prng $prng $f: counters identical on the GPU and the CPU ($(grep '^Verdict' "$work/$f.$prng.gpu" | cut -d';' -f1))"
    else
      echo "FAIL --prng $prng $f: counters differ"; head -n 6 "$work/$f.$prng.diff"; fail=1
    fi
  done
done
# --shuffle fisher-yates: the literal Fisher-Yates on non-binary rows above 1,024 samples (where
# the default is the bucket shuffle): Philox's rows by reservations or resident rows, the
# others' targets drawn ahead; the same counters as the CPU's, and the JSON says so.
for prng in philox xoshiro256ss xorwow mrg31k3p mrg32k3a; do
  if [ -n "${PARITY_PRNGS:-}" ] && [[ " $PARITY_PRNGS " != *" $prng "* ]]; then continue; fi
  for f in truerand_8bit GetTickCount_4bit; do
    part prngs || break 2
    fy=(--track iid --prng "$prng" --shuffle fisher-yates --seed 7)
    "$exe" -v -v -v --device cpu "${fy[@]}" "$samples/$f.bin" >"$work/$f.$prng.fy.cpu" 2>&1 &&
      "$exe" -v -v -v --device gpu "${fy[@]}" -o "$work/$f.$prng.fy.json" "$samples/$f.bin" >"$work/$f.$prng.fy.gpu" 2>&1 ||
      { echo "FAIL $prng $f --shuffle fisher-yates: run failed: $(tail -q -n 1 "$work/$f.$prng.fy.cpu" "$work/$f.$prng.fy.gpu" 2>/dev/null)"; fail=1; continue; }
    if ! grep -q '"shuffle": *"Fisher-Yates, Lemire bounded draws"' "$work/$f.$prng.fy.json"; then
      echo "FAIL --prng $prng $f --shuffle fisher-yates: the JSON does not name Fisher-Yates"; fail=1
    elif diff <(counters "$work/$f.$prng.fy.cpu") <(counters "$work/$f.$prng.fy.gpu") >"$work/$f.$prng.fy.diff"; then
      echo "ok   --prng $prng --shuffle fisher-yates $f: counters identical on the GPU and the CPU"
    else
      echo "FAIL --prng $prng --shuffle fisher-yates $f: counters differ"; head -n 6 "$work/$f.$prng.fy.diff"; fail=1
    fi
  done
done
# Under a memory limit (`--gpu-tuning target-rows`), the same counters as the CPU's runs
# above, and --timing names the plan taken (GetTickCount_4bit, not IID, runs full rounds
# from the start; IID-looking data may be decided in its first rounds, which fit: its plan
# is checked only where nothing fits):
# - Fisher-Yates targets (--shuffle fisher-yates; by default these generators' non-binary
#   rows take bucket plans since session 38, which this loop had looked for targets in until
#   session 39): a round of 10^6 samples drawn in two halves (one drawn while the other is
#   shuffled), a slice at a time, or below one slice the one-thread-per-permutation shuffle;
# - the bucket plans (the default): in slices down to 32 rows (a round of 10,000 within 1,000
#   rows: two halves of 500), or below 32 one thread per column (session 38's many-jobs
#   defect was in this path; run39c: all identical).
for prng in xoshiro256ss mrg32k3a; do
  if [ -n "${PARITY_PRNGS:-}" ] && [[ " $PARITY_PRNGS " != *" $prng "* ]]; then continue; fi
  for f in truerand_8bit GetTickCount_4bit; do
    for spec in "fy|4096|[1-9][0-9]* in two halves" "fy|2048|[1-9][0-9]* a slice at a time" \
                "fy|1000|no room for one slice" "plans|1000|[1-9][0-9]* in two halves" "plans|16|no room for one slice"; do
      part prngs || break 3
      kind=${spec%%|*} rest=${spec#*|}
      rows=${rest%%|*} plan=${rest#*|}
      [[ $f == truerand_* && $plan != "no room"* ]] && plan=""
      if [ "$kind" = fy ]; then
        ref="$work/$f.$prng.fy.cpu" what="targets" opts=(--shuffle fisher-yates)
      else
        ref="$work/$f.$prng.cpu" what="bucket plans" opts=()
      fi
      out="$work/$f.$prng.$kind$rows" name="--prng $prng $f $what, target-rows=$rows"
      [ -f "$ref" ] || continue
      if ! "$exe" -v -v -v --timing --track iid --device gpu --prng "$prng" "${opts[@]}" --seed 7 \
        --gpu-tuning target-rows=$rows "$samples/$f.bin" >"$out" 2>&1; then
        echo "FAIL $name: run failed: $(tail -n 1 "$out")"; fail=1; continue
      fi
      if ! diff <(counters "$ref") <(counters "$out") >"$out.diff"; then
        echo "FAIL $name: counters differ"; head -n 6 "$out.diff"; fail=1
      elif ! grep -Eq "; $what drawn ahead: .*$plan" "$out"; then
        echo "FAIL $name: not the plan '$plan': $(grep -o 'drawn ahead[^;]*' "$out")"; fail=1
      else
        echo "ok   $name: counters identical ($(grep -o "$what drawn ahead[^;]*" "$out"))"
      fi
    done
  done
done
# --restart: rows and columns on the GPU give NIST's text with exactly the CPU's counters
# (the text has no device line, so the whole output must be equal).
for spec in "truerand_8bit 8 7.8" "restart_carryover_8bit 8 7.8" "truerand_1bit 1 0.99"; do
  part restart || break
  read -r f bits h <<<"$spec"
  path="$samples/$f.bin"
  [ -f "$path" ] || path="$samples/../restart/$f.bin"
  "$exe" --restart "$h" --format nist -v -v -v --seed 5 --device cpu "$path" "$bits" >"$work/$f.restart.cpu" 2>&1 &&
    "$exe" --restart "$h" --format nist -v -v -v --seed 5 --device gpu "$path" "$bits" >"$work/$f.restart.gpu" 2>&1 ||
    { echo "FAIL --restart $f: run failed: $(tail -n 1 "$work/$f.restart.gpu")"; fail=1; continue; }
  if diff "$work/$f.restart.cpu" "$work/$f.restart.gpu" >"$work/$f.restart.diff"; then
    echo "ok   --restart $h $f: rows and columns, GPU == CPU ($(grep '^IID permutation tests' "$work/$f.restart.gpu"))"
  else
    echo "FAIL --restart $f: CPU and GPU differ"; head -n 20 "$work/$f.restart.diff"; fail=1
  fi
done
# The default track on data whose chi-square or LRS test fails: the verdict is "not IID"
# before the permutation tests, so the non-IID estimates run on the CPU beside the GPU's
# permutation tests; the report must equal the CPU-only run's (the counters too, at -v -v -v).
for f in rand8_short GetTickCount_1bit GetTickCount_8bit; do
  part non-iid || break
  if ! "$exe" -v -v -v --seed 5 --device cpu "$samples/$f.bin" >"$work/$f.auto.cpu" 2>"$work/$f.auto.cpu.err"; then
    echo "FAIL default track $f: cpu run failed: $(tail -n 1 "$work/$f.auto.cpu.err")"; fail=1; continue
  fi
  if ! "$exe" -v -v -v --seed 5 --device gpu "$samples/$f.bin" >"$work/$f.auto.gpu" 2>"$work/$f.auto.gpu.err"; then
    echo "FAIL default track $f: gpu run failed: $(tail -n 1 "$work/$f.auto.gpu.err")"; fail=1; continue
  fi
  # (the lines that name the device differ)
  strip() { grep -v -E "^(Permutation testing: (device|compression test on)|Device|Timing)" "$1"; }
  if ! grep -q "the non-IID estimates run beside the permutation tests" "$work/$f.auto.gpu.err"; then
    echo "FAIL default track $f: the non-IID estimates did not run beside the permutation tests: $(grep -i 'non-IID' "$work/$f.auto.gpu.err" | head -n 1)"; fail=1
  elif diff <(strip "$work/$f.auto.cpu") <(strip "$work/$f.auto.gpu") >"$work/$f.auto.diff"; then
    echo "ok   default track $f: non-IID estimates beside the GPU's permutation tests, report = the CPU's ($(grep '^Assessed min-entropy' "$work/$f.auto.gpu"))"
  else
    echo "FAIL default track $f: the GPU run's report differs from the CPU's"; head -n 12 "$work/$f.auto.diff"; fail=1
  fi
done
# --verify recomputes sampled GPU permutations on the CPU while the compression test runs
# beside them (it once raced with it): it must find no difference.
if ! part verify; then
  :
elif "$exe" --device gpu --verify --seed 3 --iterations 2000 "$samples/truerand_4bit.bin" >"$work/verify.out" 2>&1; then
  echo "ok   --verify: no difference"
else
  echo "FAIL --verify: $(tail -n 1 "$work/verify.out")"; fail=1
fi
exit $fail
