#!/usr/bin/env bash
# Device run JD (4 GPUs), thirteenth session: the new defaults checked.
# (1) build with MPI; test_gpu_multi; mpi_test_dist np 4 with the defaults (same-host receives
# read by the GPUs' threads, and it checks spx_dist_info.exchange), np 4 with SPX_DIST_PULL=0,
# np 2 with SPX_DIST_IPC=0; memcheck np 2 with the defaults;
# (2) mpirun -np 4 spx bench M --device cuda --kind pcsr, defaults against SPX_DIST_PULL=0,
# alternated, R-MAT 22 and lap3d7:250 (the exchange column says which path ran);
# (3) the threaded executor's default overlap rule (1/13): spx bench M --multi 4 --spread on
# R-MAT 22 (all kinds; halo 1/10: overlapped) and R-MAT 21 ef 24 (pcsr; 1/15: not).
O=$OUT/jd; mkdir -p $O
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
git log --oneline -1 > $O/head.txt; git status --short >> $O/head.txt
B=build-j
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $B -j64; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf jd.tar.gz jd; exit 1; }
echo "built at ${SECONDS}s"
timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1
echo "test_gpu_multi rc=$? $(tail -1 $O/test_gpu_multi.txt) at ${SECONDS}s"
T=$B/tests
(cd $T && timeout 100 mpirun -np 4 --oversubscribe ./mpi_test_dist) > $O/mpi-np4.txt 2>&1
echo "mpi_test_dist np4 rc=$? $(tail -1 $O/mpi-np4.txt) at ${SECONDS}s"
(cd $T && SPX_DIST_PULL=0 timeout 100 mpirun -x SPX_DIST_PULL -np 4 --oversubscribe ./mpi_test_dist) > $O/mpi-np4-copy.txt 2>&1
echo "mpi_test_dist np4 SPX_DIST_PULL=0 rc=$? $(tail -1 $O/mpi-np4-copy.txt) at ${SECONDS}s"
(cd $T && SPX_DIST_IPC=0 timeout 100 mpirun -x SPX_DIST_IPC -np 2 --oversubscribe ./mpi_test_dist) > $O/mpi-np2-noipc.txt 2>&1
echo "mpi_test_dist np2 SPX_DIST_IPC=0 rc=$? $(tail -1 $O/mpi-np2-noipc.txt) at ${SECONDS}s"
(cd $T && timeout 150 mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 9 ./mpi_test_dist) > $O/mpi-memcheck-np2.txt 2>&1
echo "memcheck np2 rc=$? $(grep -E 'ERROR SUMMARY|passed' $O/mpi-memcheck-np2.txt | tr '\n' ' ') at ${SECONDS}s"
run() { # $1 default|copy $2 matrix
  local e=""; [[ $1 == copy ]] && e=0
  echo "## $1: SPX_DIST_PULL=$e mpirun -np 4 spx bench $2 --device cuda --kind pcsr"
  SPX_DIST_PULL=$e timeout 100 mpirun -x SPX_DIST_PULL -np 4 --oversubscribe $B/spx bench $2 --device cuda --kind pcsr 2>&1 | grep -v generating
}
for m in gen:rmat:scale=22,ef=16,sym=1 gen:lap3d7:250; do
  for v in default copy default copy; do [ $SECONDS -gt 380 ] && break; run $v $m; done
done > $O/mpi-bench.txt
grep -E "^##|^pcsr  device" $O/mpi-bench.txt | cut -c1-30,150-
for m in "rmat:scale=22,ef=16,sym=1 r22e16" "rmat:scale=21,ef=24,sym=1 r21e24 --kind pcsr"; do
  set -- $m; [ $SECONDS -gt 520 ] && break
  timeout 120 $B/spx bench gen:$1 --multi 4 --device cuda --spread --calls 20 --batches 5 ${@:3} > $O/threaded-$2.txt 2>&1
  echo "threaded $2 rc=$? at ${SECONDS}s"; grep -A5 "^kind   halo_ms" $O/threaded-$2.txt | grep -E "^(pcsr|pcsc|pcoo|rows) " | cut -c1-160
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf jd.tar.gz jd && rm -rf jd
