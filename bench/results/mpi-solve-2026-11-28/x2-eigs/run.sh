#!/usr/bin/env bash
# Final: GPU tests of the solvers and eigsh after the changes, MPI tests with GPU ranks, memcheck.
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; git log --oneline 2>/dev/null | head -1; } > $R/gpu.txt
t0=$(date +%s)
{ cmake -S . -B bf -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=ON \
  && cmake --build bf -j32 --target test_gpu_solve test_eigs test_gs test_gpu_multi test_multi_solve mpi_test_dist_solve spx_cli example_mpi_cg example_mpi_spmv; } > $R/build.log 2>&1 || { echo build failed; tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a $R/gpu.txt
(cd bf && timeout 300 ctest --output-on-failure -R "gpu_solve$|test_eigs|test_gs|gpu_multi|multi_solve$|mpi_test_dist_solve|mpi_cli_solve|example_mpi") > $R/tests.txt 2>&1
grep -E "tests passed|Passed|Failed|Skipped" $R/tests.txt | tail -24
timeout 240 mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 9 bf/tests/mpi_test_dist_solve > $R/memcheck-mpi.txt 2>&1; echo "memcheck mpi rc=$?" | tee -a $R/memcheck-mpi.txt
grep -E "ERROR SUMMARY|passed" $R/memcheck-mpi.txt
SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 bf/tests/test_eigs > $R/memcheck-eigs.txt 2>&1; echo "memcheck eigs rc=$?" | tee -a $R/memcheck-eigs.txt
tail -2 $R/memcheck-eigs.txt
{ for np in 1 2; do mpirun -np $np bf/spx eigs gen:lap3d7:100 --k 5 --which largest --device cuda --skip-copies 2>&1 | grep -v "^[0-9]"; done; bf/spx eigs gen:lap3d7:100 --k 5 --which largest --device cuda --skip-copies 2>&1 | grep -v "^[0-9]"; } > $R/eigs.txt 2>&1
cat $R/eigs.txt
