#!/usr/bin/env bash
# Device run HD (one GPU): ranks sharing one GPU map each other's buffers
# (CUDA IPC on the same device): the MPI tests on 2, 3 and 4 ranks, with and
# without IPC, memcheck on 2 ranks, and one bench of the two paths.
O=$OUT/hd; mkdir -p $O
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $B -j16 --target spx_cli mpi_test_dist; } > $O/build.log 2>&1 || { echo "build failed"; tail -30 $O/build.log; }
echo "built at ${SECONDS}s"
for np in 2 3 4; do
  (cd $B/tests && timeout 120 mpirun -np $np --oversubscribe ./mpi_test_dist) > $O/test-np$np.txt 2>&1; echo "np$np rc=$? $(tail -n 1 $O/test-np$np.txt)"
done
(cd $B/tests && SPX_DIST_IPC=0 timeout 120 mpirun -x SPX_DIST_IPC -np 2 --oversubscribe ./mpi_test_dist) > $O/test-np2-noipc.txt 2>&1; echo "np2 no IPC rc=$? $(tail -n 1 $O/test-np2-noipc.txt)"
(cd $B/tests && timeout 200 mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 9 ./mpi_test_dist) > $O/memcheck-np2.txt 2>&1; echo "memcheck np2 rc=$? $(grep -E 'ERROR SUMMARY|passed' $O/memcheck-np2.txt | tr '\n' ' ')"
for e in 1 0; do
  echo "## SPX_DIST_IPC=$e mpirun -np 2 spx bench gen:lap3d7:128 --device cuda --kind pcsr"
  SPX_DIST_IPC=$e timeout 100 mpirun -x SPX_DIST_IPC -np 2 --oversubscribe $B/spx bench gen:lap3d7:128 --device cuda --kind pcsr 2>&1 | grep -v generating
done > $O/bench.txt
grep -E "^##|^pcsr" $O/bench.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf hd.tar.gz hd && rm -rf hd
