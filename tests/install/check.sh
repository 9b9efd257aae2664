#!/usr/bin/env bash
# Install SpX from BUILD into a scratch prefix, then build a small program
# against it twice: through find_package(SpX) and through pkg-config.
set -euo pipefail
build=$1; src=$2
prefix=$build/install-check/prefix
rm -rf "$build/install-check"
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/tests/install" -B "$build/install-check/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build/install-check/cmake" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:${LD_LIBRARY_PATH:-}" "$build/install-check/cmake/use_spx"
if ! command -v pkg-config >/dev/null; then
  echo "install check passed (find_package); pkg-config not installed: its check skipped"
  exit 0
fi
pcdir=$(dirname "$(find "$prefix" -name spx.pc | head -n 1)")
cc "$src/tests/install/use_spx.c" -o "$build/install-check/use_spx_pc" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs spx)
LD_LIBRARY_PATH="$prefix/lib:${LD_LIBRARY_PATH:-}" "$build/install-check/use_spx_pc"
echo "install check passed"
