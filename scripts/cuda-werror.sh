#!/usr/bin/env bash
# Compiles the CUDA code with warnings as errors (EA_IID_WERROR=ON), by hand: configures
# BUILD_DIR with the CUDA backend and compiles only the object files of the .cu sources of
# every target (and tests/cli/test_cli.cpp, whose GPU branches only a CUDA build compiles).
# CI no longer runs it (163 of its 1,798 s, session 27): .ci/run checks the README build's
# own output for warnings instead (scripts/check-build-log.sh), and the sanitizer job
# compiles the host sources with warnings as errors.
#
# usage: scripts/cuda-werror.sh [BUILD_DIR]     (default build-werror; needs nvcc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-werror}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -DEA_IID_CUDA=ON -DEA_IID_GPU_TESTS=ON -DEA_IID_WERROR=ON >/dev/null
# Object targets of the top-level directory (cuda/..., scripts/...) and of tests/.
top=() tests=()
targets_top=$(make -C "$build" help 2>/dev/null | sed -n 's/^\.\.\. //p')
targets_tests=$(make -C "$build/tests" help 2>/dev/null | sed -n 's/^\.\.\. //p')
while IFS= read -r src; do
  obj=${src%.cu}.o
  if grep -qx "$obj" <<<"$targets_top"; then
    top+=("$obj")
  elif grep -qx "${obj#tests/}" <<<"$targets_tests"; then
    tests+=("${obj#tests/}")
  else
    echo "cuda-werror.sh: $src is in no target" >&2
    exit 1
  fi
done < <(git ls-files '*.cu')
tests+=(cli/test_cli.o)
echo "cuda-werror.sh: ${#top[@]} + ${#tests[@]} object files with warnings as errors"
make -C "$build" -j"$jobs" --no-print-directory "${top[@]}" >/dev/null
make -C "$build/tests" -j"$jobs" --no-print-directory "${tests[@]}" >/dev/null
