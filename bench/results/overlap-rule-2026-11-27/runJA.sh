#!/usr/bin/env bash
# Device run JA (4 GPUs), thirteenth session, issues 15/16: the items left unrun.
# (1) build with MPI; test_gpu_multi (4 GPUs; its check of spx_multi_part_info.overlapped runs
# for the first time); memcheck of test_gpu_multi (quick) on the final pull/overlap code;
# (2) the MPI executor's same-host receives read by the GPUs' threads (SPX_DIST_PULL=1, opt-in,
# never run): mpi_test_dist np 4 and np 2 with it, memcheck np 2 with it;
# (3) A/B: mpirun -np 4 spx bench M --device cuda --kind pcsr with SPX_DIST_PULL=0 and =1
# alternated (pull, copy, pull, copy) on R-MAT 22 and lap3d7:250.
O=$OUT/ja; mkdir -p $O/ab
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
git log --oneline -1 > $O/head.txt; git status --short >> $O/head.txt
B=build-j
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $B -j64; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ja.tar.gz ja; exit 1; }
grep -E "SpX (CUDA|MPI)" $O/build.log; echo "built at ${SECONDS}s"
timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1
echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "GPU|graphs|passed|failed|FAIL" $O/test_gpu_multi.txt | tail -8
T=$B/tests
(cd $T && SPX_DIST_PULL=1 timeout 100 mpirun -x SPX_DIST_PULL -np 4 --oversubscribe ./mpi_test_dist) > $O/mpi-pull-np4.txt 2>&1
echo "mpi_test_dist pull np4 rc=$? $(tail -1 $O/mpi-pull-np4.txt) at ${SECONDS}s"
(cd $T && SPX_DIST_PULL=1 timeout 100 mpirun -x SPX_DIST_PULL -np 2 --oversubscribe ./mpi_test_dist) > $O/mpi-pull-np2.txt 2>&1
echo "mpi_test_dist pull np2 rc=$? $(tail -1 $O/mpi-pull-np2.txt) at ${SECONDS}s"
(cd $T && SPX_DIST_PULL=1 timeout 150 mpirun -x SPX_DIST_PULL -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 9 ./mpi_test_dist) > $O/mpi-pull-memcheck-np2.txt 2>&1
echo "memcheck pull np2 rc=$? $(grep -E 'ERROR SUMMARY|passed' $O/mpi-pull-memcheck-np2.txt | tr '\n' ' ') at ${SECONDS}s"
run() { # $1 pull|copy $2 matrix
  local e=0; [[ $1 == pull ]] && e=1
  echo "## $1: SPX_DIST_PULL=$e mpirun -np 4 spx bench $2 --device cuda --kind pcsr"
  SPX_DIST_PULL=$e timeout 100 mpirun -x SPX_DIST_PULL -np 4 --oversubscribe $B/spx bench $2 --device cuda --kind pcsr 2>&1 | grep -v generating
}
for m in gen:rmat:scale=22,ef=16,sym=1 gen:lap3d7:250; do
  for v in pull copy pull copy; do [ $SECONDS -gt 400 ] && break; run $v $m; echo "  ($v $m at ${SECONDS}s)" >&2; done
done > $O/ab/mpi-pull.txt
grep -E "^##|^pcsr|phase|own|halo" $O/ab/mpi-pull.txt | cut -c1-150
SPX_TEST_QUICK=1 timeout $((570-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $T/test_gpu_multi > $O/memcheck-multi.txt 2>&1
echo "memcheck test_gpu_multi rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck-multi.txt; tail -1 $O/memcheck-multi.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf ja.tar.gz ja && rm -rf ja
