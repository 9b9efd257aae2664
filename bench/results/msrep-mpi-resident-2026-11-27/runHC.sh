#!/usr/bin/env bash
# Device run HC (4 GPUs): same-host ranks copy device to device (CUDA IPC) in
# resident calls; the MPI tests (np 2, 4) and memcheck on 2 ranks; then
# `mpirun -np 4 spx bench M --device cuda` with IPC (default) and without
# (SPX_DIST_IPC=0, the pinned host path) alternated in one call; the threaded
# executor beside them.
O=$OUT/hc; mkdir -p $O
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
B=build-multi-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $B -j64 --target spx_cli mpi_test_dist; } > $O/build.log 2>&1 || { echo "build failed"; tail -30 $O/build.log; }
echo "built at ${SECONDS}s"
for np in 2 4; do
  (cd $B/tests && timeout 120 mpirun -np $np --oversubscribe ./mpi_test_dist) > $O/test-np$np.txt 2>&1; echo "mpi_test_dist np$np rc=$? $(tail -1 $O/test-np$np.txt)"
done
(cd $B/tests && SPX_DIST_IPC=0 timeout 120 mpirun -x SPX_DIST_IPC -np 4 --oversubscribe ./mpi_test_dist) > $O/test-np4-noipc.txt 2>&1; echo "np4 without IPC rc=$? $(tail -1 $O/test-np4-noipc.txt)"
(cd $B/tests && timeout 200 mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 9 ./mpi_test_dist) > $O/memcheck-np2.txt 2>&1; echo "memcheck np2 rc=$? $(grep -E 'ERROR SUMMARY|passed' $O/memcheck-np2.txt | tr '\n' ' ')"
echo "tests at ${SECONDS}s"
run() { # $1 ipc|host, $2 matrix, $3.. extra
  local v=$1 m=$2 e=1; shift 2; [[ $v == host ]] && e=0
  echo "## $v: SPX_DIST_IPC=$e mpirun -np 4 spx bench $m --device cuda $*"
  SPX_DIST_IPC=$e timeout 150 mpirun -x SPX_DIST_IPC -np 4 --oversubscribe $B/spx bench $m --device cuda "$@" 2>&1 | grep -v "generating"
}
for m in gen:lap3d7:250 gen:lap3d27:160; do
  for v in ipc host ipc host; do run $v $m --kind pcsr; done
done >> $O/ab.txt
echo "ab at ${SECONDS}s"
run ipc gen:lap3d7:250 >> $O/all-ipc.txt; run ipc gen:rmat:scale=22,ef=16,sym=1 >> $O/all-ipc.txt
echo "all at ${SECONDS}s"
if ((SECONDS < 420)); then
for m in gen:lap3d7:250 gen:rmat:scale=22,ef=16,sym=1; do
  echo "## threaded: spx bench $m --multi 4 --device cuda --spread"
  timeout 120 $B/spx bench $m --multi 4 --device cuda --spread --calls 20 2>&1 | grep -v generating
done > $O/threaded.txt
fi
echo "end at ${SECONDS}s"
grep -E "^##|^(pcsr|pcsc|pcoo|rows) " $O/ab.txt $O/all-ipc.txt
grep -E "^##|resident|^(pcsr|pcsc|pcoo|rows) " $O/threaded.txt
cd $OUT && tar czf hc.tar.gz hc && rm -rf hc
