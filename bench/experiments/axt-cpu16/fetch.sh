#!/usr/bin/env bash
# On the development machine (Debian bookworm, root): download the CPU peers'
# Debian packages into the ignored folder .peers/debs, to be carried to the
# GPU machine (which installs no packages). About 26 MB, librsb 1.3.0.2,
# SuiteSparse:GraphBLAS 7.4.0, Eigen 3.4.0 and librsb's libhwloc15. Nothing
# is installed here.
set -eu
cd "$(dirname "$0")/../../.."
mkdir -p .peers/debs
cd .peers/debs
apt-get download librsb-dev librsb0 libgraphblas-dev libgraphblas7 libeigen3-dev libhwloc15
du -sh .
