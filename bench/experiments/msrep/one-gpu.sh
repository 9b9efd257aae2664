#!/usr/bin/env bash
# Issue 15, one criterion: N parts on ONE GPU (streams standing in for
# devices) against one part, at 10M+ nonzeros: `spx bench M --multi N
# --device cuda --calls 50` for N = 2 and 4 on lap3d7:128 (14.6M nonzeros)
# and R-MAT scale 20 (31.4M nonzeros symmetrized). Each run prints the host-
# vector rows and the resident rows (x and y on the GPU; halo, SpMV, merge,
# call, against the same kind as one part) of every partition kind; the
# criterion reads the resident call_x column (overhead = 1/call_x - 1).
# About 1-2 minutes on one H100 (each run 15-35 s, mostly making plans);
# every run is cut at 80 s so that the whole stays under 3 minutes.
#
# Usage, from the repository root after a CUDA build in directory b
# (cmake -S . -B b -DSPX_CUDA=ON -DCMAKE_BUILD_TYPE=Release && cmake --build b -j16):
#   bench/experiments/msrep/one-gpu.sh b
# Writes $OUT/msrep-1gpu/ (./msrep-1gpu/ when OUT is unset): one file a run
# and all.txt with every run after the GPU's name and the commit.
set -euo pipefail
build=${1:?usage: one-gpu.sh BUILD_DIR}
out="${OUT:-.}/msrep-1gpu"
mkdir -p "$out"
{
  echo "# spx bench M --multi N --device cuda --calls 50, all parts on GPU 0: $(date -u +%FT%TZ)," \
       "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
} > "$out/all.txt"
for m in gen:lap3d7:128 "gen:rmat:scale=20,ef=16,sym=1"; do
  for n in 2 4; do
    name="$(echo "${m#gen:}" | tr -c 'a-z0-9\n' '-')-n$n"
    echo "## $build/spx bench $m --multi $n --device cuda --calls 50" | tee -a "$out/all.txt"
    timeout 80 "$build/spx" bench "$m" --multi "$n" --device cuda --calls 50 2>&1 |
      tee "$out/$name.txt" | tee -a "$out/all.txt" || echo "(exit ${PIPESTATUS[0]})" | tee -a "$out/all.txt"
  done
done
