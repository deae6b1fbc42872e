#!/usr/bin/env bash
# CI's warnings check on the README's own build (.ci/run keeps that command's output in
# LOG): fails on any compiler diagnostic of the warning kind in it, and, where nvcc is
# present, unless the build compiled every .cu source of the repository (so that a build
# without the CUDA backend cannot pass it). Only compiler-shaped lines count: GCC's
# "FILE:LINE[:COL]: warning:" and its drivers' "cc1plus: warning:", nvcc's front end
# "FILE(LINE): warning #...", and "nvcc / ptxas / nvlink / fatbinary ... warning :"; the
# same log holds apt's, CMake's and the example run's lines ("ea_iid: warning: ..."), which
# are not the compiler's. Colour codes are removed first.
# Replaces compiling the CUDA objects a second time with -Werror (scripts/cuda-werror.sh,
# 163 of CI's 1,798 s on 2 cores, session 27); the host sources are compiled with warnings
# as errors by the sanitizer job too.
# Not counted: -Wmaybe-uninitialized inside the system's headers (GCC 12's false positives
# in <functional>, GCC bug 105562; EA_IID_WERROR keeps that one a warning too).
#
# usage: scripts/check-build-log.sh LOG
set -euo pipefail
cd "$(dirname "$0")/.."
log=${1:?usage: scripts/check-build-log.sh LOG}
[ -s "$log" ] || { echo "check-build-log.sh: $log is missing or empty" >&2; exit 1; }
plain=$(sed 's/\x1b\[[0-9;]*[mK]//g' "$log")
compiler='^[^ :]+:[0-9]+(:[0-9]+)?: warning:|^(cc1|cc1plus|lto1|collect2|ld|/usr/bin/ld)(\.[a-z]+)?: warning:'
compiler+='|^[^ ]+\([0-9]+\): warning #|^(nvcc|ptxas|nvlink|fatbinary)\b.*\bwarning *:'
warnings=$(grep -E "$compiler" <<<"$plain" | grep -v -E '^/usr/include/.*\[-Wmaybe-uninitialized\]' || true)
if [ -n "$warnings" ]; then
  echo "check-build-log.sh: the build printed compiler warnings:" >&2
  echo "$warnings" >&2
  exit 1
fi
if command -v nvcc >/dev/null 2>&1; then
  missing=0 count=0
  # The GPU test programs and CUDA benchmarks are built only where a GPU was found (or with
  # -DEA_IID_GPU_TESTS=ON): CMake says which, and then their sources are not expected.
  skip_gpu_tests=0
  grep -q "GPU test programs and CUDA benchmarks OFF" <<<"$plain" && skip_gpu_tests=1
  while IFS= read -r src; do
    if [ "$skip_gpu_tests" -eq 1 ] && [[ $src == tests/gpu/* || $src == scripts/* ]]; then continue; fi
    count=$((count + 1))
    rel=${src#tests/}  # (tests/ is a CMake directory of its own: its objects drop the prefix)
    dir='CMakeFiles/[^/]+\.dir/'
    [ "$rel" != "$src" ] && dir="tests/$dir"
    if ! grep -q -E "Building CUDA object ${dir}${rel//./\\.}\\.o\$" <<<"$plain"; then
      echo "check-build-log.sh: the build did not compile $src with nvcc" >&2
      missing=1
    fi
  done < <(git ls-files '*.cu')
  [ "$missing" -eq 0 ] || exit 1
  what="all $count .cu sources"
  [ "$skip_gpu_tests" -eq 1 ] && what="the $count .cu sources of the library (no GPU test programs or CUDA benchmarks here)"
  echo "check-build-log.sh: no compiler warnings; $what compiled by nvcc"
else
  echo "check-build-log.sh: no compiler warnings (no nvcc here: CUDA sources not built)"
fi
