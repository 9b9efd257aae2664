#!/usr/bin/env bash
# MPI solvers, resident on the GPUs: build, tests (ranks spread over the GPUs), memcheck, timings.
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } > $R/gpu.txt
t0=$(date +%s)
{ cmake -S . -B bd -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=ON \
  && cmake --build bd -j32 --target mpi_test_dist_solve spx_cli; } > $R/build.log 2>&1 || { echo build failed; tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a $R/gpu.txt
{ for np in 1 2 3; do timeout 200 mpirun -np $np --oversubscribe bd/tests/mpi_test_dist_solve 2>&1 | tail -3; done; } > $R/test.txt 2>&1
cat $R/test.txt
timeout 200 mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 9 bd/tests/mpi_test_dist_solve > $R/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $R/memcheck.txt
grep -E "ERROR SUMMARY|passed|rc=" $R/memcheck.txt
S=bd/spx
{
for m in gen:lap3d7:200 gen:lap3d27:100 gen:lap3d7:100; do
  for round in 1 2 3; do
    for meth in "cg --jacobi" "gmres --jacobi"; do
      [ "$m" != gen:lap3d7:200 ] || [ "$meth" = "cg --jacobi" ] || continue
      $S solve $m --method $meth --rtol 1e-8 --device cuda
      mpirun -np 1 $S solve $m --method $meth --rtol 1e-8 --device cuda
      mpirun -np 2 $S solve $m --method $meth --rtol 1e-8 --device cuda
    done
  done
done
} > $R/cli.txt 2>&1
grep -v "^spx: " $R/cli.txt | head -80
