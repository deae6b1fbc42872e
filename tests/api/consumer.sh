#!/usr/bin/env bash
# The C++ API as a vendor's project uses it: `cmake --install` of this build into a fresh
# prefix, a separate project found with find_package(ea_iid CONFIG) built against it, run on
# a sample file (file and memory agree; all zeros is a "degenerate" error); the soname; then
# the same program built with pkg-config.
# usage: consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR SAMPLE_FILE [PYTHON]
set -uo pipefail
build=$1 src=$2 work=$3 sample=$4 python=${5:-}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { echo "FAILED: install"; cat "$work/install.log"; exit 1; }
cmake -S "$src/tests/api/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/configure.log" 2>&1 || { echo "FAILED: configure"; cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { echo "FAILED: build"; cat "$work/build.log"; exit 1; }
"$work/build/consumer" "$sample" || { echo "FAILED: the CMake consumer"; exit 1; }
# The soname carries the minor version before 1.0 (each 0.x its own ABI: docs/library.md).
lib=$(find "$work/prefix" -name libea_iid.so | head -1)
ver=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$(find "$work/prefix" -name ea_iidConfigVersion.cmake | head -1)")
command -v readelf >/dev/null || { echo "FAILED: readelf (binutils) is needed to read the soname"; exit 1; }
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
case $ver in 0.*) want=libea_iid.so.${ver%.*} ;; *) want=libea_iid.so.${ver%%.*} ;; esac
[ -n "$ver" ] && [ "$soname" = "$want" ] || { echo "FAILED: soname '$soname' of version '$ver', expected '$want'"; exit 1; }
pc=$(find "$work/prefix" -name ea_iid.pc | head -1)
[ -n "$pc" ] || { echo "FAILED: no ea_iid.pc installed"; exit 1; }
flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs ea_iid) || { echo "FAILED: pkg-config"; exit 1; }
# No rpath of our own: the .pc file's link line must give a binary that starts (issue 44).
c++ -std=c++17 -O1 -o "$work/consumer-pc" "$src/tests/api/consumer/main.cpp" $flags ||
  { echo "FAILED: the pkg-config build"; exit 1; }
"$work/consumer-pc" "$sample" >/dev/null || { echo "FAILED: the pkg-config consumer"; exit 1; }
# The Python module, where the build has it, imported from the installed tree (its rpath).
if [ -n "$python" ]; then
  module=$(find "$work/prefix" -name 'ea_iid*.so' -path '*-packages/*' | head -1)
  [ -n "$module" ] || { echo "FAILED: the Python module was not installed"; exit 1; }
  PYTHONPATH=$(dirname "$module") "$python" -c "import ea_iid; print('python', ea_iid.version())" ||
    { echo "FAILED: the installed Python module does not import"; exit 1; }
fi
echo "consumer: all passed"
