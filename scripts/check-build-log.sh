#!/usr/bin/env bash
# CI's warnings check on the README's own build (.ci/run keeps that command's output in
# LOG): fails on any compiler warning in it (GCC's "file:line:col: warning:", nvcc's
# "file(line): warning #...", ptxas's and nvlink's), and, where nvcc is present, unless the build compiled every
# .cu source of the repository (so that a build without the CUDA backend cannot pass it).
# Replaces compiling the CUDA objects a second time with -Werror (scripts/cuda-werror.sh,
# 163 of CI's 1,798 s on 2 cores, session 27); the host sources are compiled with warnings
# as errors by the sanitizer job too.
# Not counted: lto-wrapper's note on serial LTRANS jobs (not a diagnostic of our code) and
# -Wmaybe-uninitialized (GCC bug 105562's false positive inside <regex>: EA_IID_WERROR keeps
# it a warning too).
#
# usage: scripts/check-build-log.sh LOG
set -euo pipefail
cd "$(dirname "$0")/.."
log=${1:?usage: scripts/check-build-log.sh LOG}
[ -s "$log" ] || { echo "check-build-log.sh: $log is missing or empty" >&2; exit 1; }
warnings=$(grep -E '(: warning:|: warning #|\): warning|^(ptxas|nvlink) warning)' "$log" \
  | grep -v -E '^lto-wrapper: warning: using serial compilation|\[-Wmaybe-uninitialized\]' || true)
if [ -n "$warnings" ]; then
  echo "check-build-log.sh: the build printed compiler warnings:" >&2
  echo "$warnings" >&2
  exit 1
fi
if command -v nvcc >/dev/null 2>&1; then
  missing=0 count=0
  while IFS= read -r src; do
    count=$((count + 1))
    rel=${src#tests/}  # (tests/ is a CMake directory of its own: its objects drop the prefix)
    if ! grep -q -E "Building CUDA object .*\.dir/${rel//./\\.}\\.o\$" "$log"; then
      echo "check-build-log.sh: the build did not compile $src with nvcc" >&2
      missing=1
    fi
  done < <(git ls-files '*.cu')
  [ "$missing" -eq 0 ] || exit 1
  echo "check-build-log.sh: no compiler warnings; all $count .cu sources compiled by nvcc"
else
  echo "check-build-log.sh: no compiler warnings (no nvcc here: CUDA sources not built)"
fi
