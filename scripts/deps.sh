#!/usr/bin/env bash
# Install what SpX builds and tests with, from Debian's packages. Safe to rerun:
# it installs only what is missing. CUDA (nvcc, cuSPARSE) is used when present.
set -euo pipefail
# clang, libclang-rt-14-dev (libFuzzer, sanitizers) and libomp-dev: make fuzz.
# python3-dev, python3-venv, python3-pip: the Python package (make check-python).
# libopenmpi-dev, openmpi-bin: the MPI executor (libspx_mpi) and its mpirun tests.
pkgs=(build-essential cmake pkg-config zlib1g-dev librsb-dev libgraphblas-dev libeigen3-dev xz-utils
      clang libclang-rt-14-dev libomp-dev python3-dev python3-venv python3-pip
      libopenmpi-dev openmpi-bin)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "deps: ready"
