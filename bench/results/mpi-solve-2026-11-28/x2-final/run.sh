#!/usr/bin/env bash
# Final check: the solver tests on the GPUs after the vector-space change, memcheck, MPI tests, bench.
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } > $R/gpu.txt
t0=$(date +%s)
{ cmake -S . -B bf -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=ON -DSPX_BUILD_EXPERIMENTS=ON \
  && cmake --build bf -j32 --target test_gpu_solve test_gpu_solve_many test_eigs test_gs test_gpu_multi test_multi_solve mpi_test_dist_solve spx_cli dist_solve; } > $R/build.log 2>&1 || { echo build failed; tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a $R/gpu.txt
(cd bf && timeout 300 ctest --output-on-failure -R "gpu_solve|test_eigs|test_gs|gpu_multi|multi_solve|mpi_test_dist_solve|mpi_cli_solve" -E crew) > $R/tests.txt 2>&1
grep -E "tests passed|Failed|Passed|Skipped" $R/tests.txt | tail -30
SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 bf/tests/test_gpu_solve > $R/memcheck-solve.txt 2>&1; echo "memcheck test_gpu_solve rc=$?" | tee -a $R/memcheck-solve.txt
tail -3 $R/memcheck-solve.txt
B=$(find bf -name dist_solve -type f -perm -u+x | head -1)
{
for m in lap3d7:200 lap3d27:100; do
  for np in 1 2; do
    timeout 100 mpirun -np $np --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi 1 --stream 1
    timeout 100 mpirun -np $np --bind-to none $B $m --method cg --iters 200 --rounds 5 --jacobi 0 --stream 1
  done
  timeout 100 mpirun -np 2 --bind-to none $B $m --method gmres --iters 200 --rounds 5 --jacobi 1 --stream 1
  timeout 100 mpirun -np 2 --bind-to none $B $m --method bicgstab --iters 100 --rounds 5 --jacobi 1 --stream 1
done
} > $R/bench.txt 2>&1
grep -E "^lap|one /" $R/bench.txt
