#!/usr/bin/env bash
# The dependency rule of the layers (docs/design.md): each layer includes only its own
# headers and those of the layers below it. The build enforces it with per-target include
# roots; this check also catches relative paths ("../pipeline/assess.hpp").
#   1 src/ (ea_core)  <-  2 cuda/ (ea_gpu; others see cuda/api/ only)  <-  3 pipeline/  <-  4 report/  <-  5 cli/
#   and beside cli/: api/ (the C++ API, up to report/)  <-  python/ (the C++ API's header only)
# usage: scripts/check-layers.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
status=0
# Headers of each layer, by the name they are included by.
layer_of() {  # the layer that owns an included name, or nothing for system/third-party headers
  local name=$1
  if [ -f "src/$name" ] || [[ $name == version.hpp ]]; then echo 1
  elif [ -f "cuda/api/$name" ] || [ -f "cuda/$name" ]; then echo 2
  elif [ -f "pipeline/$name" ]; then echo 3
  elif [ -f "report/$name" ]; then echo 4
  elif [ -f "cli/$name" ]; then echo 5
  fi
}
check() {  # DIR LAYER
  local dir=$1 layer=$2 file name owner
  while IFS= read -r -d '' file; do
    while IFS= read -r name; do
      if [[ $name == *..* ]]; then
        echo "$file: #include \"$name\": no relative paths across folders" >&2
        status=1
        continue
      fi
      owner=$(layer_of "$name")
      if [ -n "$owner" ] && [ "$owner" -gt "$layer" ]; then
        echo "$file: #include \"$name\" (layer $owner) from layer $layer: a layer uses only those below it" >&2
        status=1
      fi
      # Above the GPU layer, only its interface (no CUDA types).
      if [ "$layer" -gt 2 ] && [ -f "cuda/$name" ] && [ ! -f "cuda/api/$name" ]; then
        echo "$file: #include \"$name\": outside cuda/ only cuda/api/ headers may be used" >&2
        status=1
      fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
  done < <(find "$dir" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.in' \) -print0)
}
check src 1
check cuda 2
check pipeline 3
check report 4
check cli 5
# The C++ API (api/) stands beside cli/: it sees up to report/, never cli/.
check api 4
# The Python module (python/) sees the C++ API (include/ea_iid/) alone, no header of the layers.
while IFS= read -r -d '' file; do
  while IFS= read -r name; do
    if [[ $name == *..* ]] || [ -n "$(layer_of "$name")" ]; then
      echo "$file: #include \"$name\": python/ uses only the C++ API's header (include/ea_iid/)" >&2
      status=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find python -type f \( -name '*.hpp' -o -name '*.cpp' \) -print0)
if [ "$status" -eq 0 ]; then
  echo "layers: every #include follows src <- cuda <- pipeline <- report <- cli, api <- python"
fi
exit "$status"
