#!/usr/bin/env bash
# Configures (once) and builds the CUDA build in build-gpu/ on the GPU machine. Prints the
# build's errors and warnings, and fails when the build fails (an old binary never passes).
# usage: source .device/setup.sh; scripts/gpu-build.sh [BUILD_DIR]
set -euo pipefail
dir=${1:-build-gpu}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DEA_IID_CUDA=ON -DEA_IID_GPU_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
log="$dir/build.log"
if ! cmake --build "$dir" -j"$(nproc)" >"$log" 2>&1; then
  grep -E "error|Error" "$log" | head -40 >&2 || true
  echo "gpu-build.sh: the build failed; the whole log is $log" >&2
  exit 1
fi
grep -E "warning" "$log" || true
test -x "$dir/ea_iid"
