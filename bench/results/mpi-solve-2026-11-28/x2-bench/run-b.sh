#!/usr/bin/env bash
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT
{ [ -f bd/CMakeCache.txt ] || cmake -S . -B bd -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=ON -DSPX_BUILD_EXPERIMENTS=ON; cmake --build bd -j32 --target dist_solve; } > $R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
B=$(find bd -name dist_solve -type f -perm -u+x | head -1)
{
for m in lap3d7:200 lap3d27:100; do
  for s in 0 1; do
    for j in 1 0; do
      timeout 100 mpirun -np 1 --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi $j --stream $s
    done
  done
  timeout 100 mpirun -np 2 --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi 1 --stream 1
done
} > $R/bench.txt 2>&1
cat $R/bench.txt
