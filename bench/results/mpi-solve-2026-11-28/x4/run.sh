#!/usr/bin/env bash
# MPI solvers on 4 GPUs: the example on GPUs, then strong scaling 1/2/4 ranks against one GPU.
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; nvidia-smi topo -m; } > $R/gpu.txt
t0=$(date +%s)
{ cmake -S . -B bf -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=ON -DSPX_BUILD_EXPERIMENTS=ON \
  && cmake --build bf -j64 --target dist_solve example_mpi_cg mpi_test_dist_solve; } > $R/build.log 2>&1 || { echo build failed; tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a $R/gpu.txt
(cd bf && timeout 200 ctest --output-on-failure -R "example_mpi_cg|mpi_test_dist_solve") > $R/tests.txt 2>&1
grep -E "tests passed|Passed|Failed|Skipped" $R/tests.txt
B=$(find bf -name dist_solve -type f -perm -u+x | head -1)
{
for m in lap3d7:300 lap3d7:200; do
  for np in 4 2 1; do
    timeout 120 mpirun -np $np --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi 0 --stream 1
  done
  timeout 120 mpirun -np 4 --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi 1 --stream 1
done
} > $R/bench.txt 2>&1
grep -E "^lap|ranks \(|one GPU|one /" $R/bench.txt
