#!/usr/bin/env bash
# One GPU against MPI ranks on GPUs, same run (bench/experiments/msrep/dist_solve.c).
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } > $R/gpu.txt
t0=$(date +%s)
{ cmake -S . -B bd -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=ON -DSPX_BUILD_EXPERIMENTS=ON \
  && cmake --build bd -j32 --target dist_solve; } > $R/build.log 2>&1 || { echo build failed; tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a $R/gpu.txt
B=$(find bd -name dist_solve -type f -perm -u+x | head -1)
{
for m in lap3d7:300 lap3d7:200 lap3d27:100 lap3d7:100; do
  for np in 2 1; do
    timeout 150 mpirun -np $np --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi 1
    timeout 150 mpirun -np $np --bind-to none $B $m --method gmres --iters 200 --rounds 5 --jacobi 1
  done
done
timeout 150 mpirun -np 2 --bind-to none $B lap3d7:200 --method bicgstab --iters 100 --rounds 5 --jacobi 1
timeout 150 mpirun -np 2 --bind-to none $B lap3d7:200 --method cg --iters 200 --rounds 5 --jacobi 1 --kind pcsc
} > $R/bench.txt 2>&1
cat $R/bench.txt
