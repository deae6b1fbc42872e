#!/usr/bin/env bash
# Configures (once) and builds the CUDA build in build-gpu/ on the GPU machine.
# usage: source .device/setup.sh; scripts/gpu-build.sh [BUILD_DIR]
set -euo pipefail
dir=${1:-build-gpu}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DEA_IID_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$dir" -j"$(nproc)" 2>&1 | grep -E "error|warning" || true
test -x "$dir/ea_iid"
