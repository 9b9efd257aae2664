#!/usr/bin/env bash
# Install SpX from BUILD into a scratch prefix, then build tests/install/use_spx.c
# against it four ways and run each without LD_LIBRARY_PATH:
#   pkg-config shared    cc ... $(pkg-config --cflags --libs spx) -Wl,-rpath,LIBDIR
#   pkg-config static    cc ... $(pkg-config --static --cflags --libs spx), in a copy
#                        of the prefix without libspx.so (so -lspx takes libspx.a)
#   CMake SpX::spx       find_package(SpX) (tests/install/CMakeLists.txt)
#   CMake SpX::spx_static
# A shared link must need libspx.so, a static one must not. The installed spx
# program must run from the prefix (its RPATH finds the library).
set -euo pipefail
build=$1; src=$2
work=$build/install-check
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$prefix" >/dev/null
unset LD_LIBRARY_PATH

# run NAME PROGRAM shared|static: runs it and checks how it links libspx.
run() {
  local name=$1 prog=$2 kind=$3 needs=0
  readelf -d "$prog" | grep -q 'NEEDED.*libspx\.so' && needs=1
  if [[ $kind == shared && $needs == 0 ]] || [[ $kind == static && $needs == 1 ]]; then
    echo "install check failed: $name: expected a $kind link of libspx"; exit 1
  fi
  "$prog" >/dev/null || { echo "install check failed: $name: the program failed"; exit 1; }
  echo "$name: ok ($kind)"
}

"$prefix/bin/spx" formats >/dev/null || { echo "install check failed: installed spx does not run"; exit 1; }
echo "installed spx: ok"

cmake -S "$src/tests/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
run "CMake SpX::spx" "$work/cmake/use_spx" shared
run "CMake SpX::spx_static" "$work/cmake/use_spx_static" static

if ! command -v pkg-config >/dev/null; then
  echo "install check passed (CMake); pkg-config not installed: its checks skipped"
  exit 0
fi
pcdir=$(dirname "$(find "$prefix" -name spx.pc | head -n 1)")
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir spx)
cc "$src/tests/install/use_spx.c" -o "$work/use_spx_pc" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs spx) -Wl,-rpath,"$libdir"
run "pkg-config" "$work/use_spx_pc" shared

cp -a "$prefix" "$work/prefix-static"
rm -f "$work/prefix-static"/lib*/libspx.so*
spcdir=$(dirname "$(find "$work/prefix-static" -name spx.pc | head -n 1)")
cc "$src/tests/install/use_spx.c" -o "$work/use_spx_pc_static" \
  $(PKG_CONFIG_PATH="$spcdir" pkg-config --static --cflags --libs spx)
run "pkg-config --static" "$work/use_spx_pc_static" static
echo "install check passed"
