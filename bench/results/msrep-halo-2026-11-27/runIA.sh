#!/usr/bin/env bash
# Device run IA (4 GPUs), issues 15/16: the threaded executor's halo read by each GPU's threads
# from its peers (pull) and row parts multiplying their own columns while it arrives (overlap).
# (1) build; test_gpu_multi (4 GPUs: row kinds with and without overlap, 8/12 parts round robin,
# graphs over 4 GPUs), again quick with SPX_MULTI_PULL=0 (copy engines);
# (2) A/B/C in separate processes, alternated: new (default), noov (--no-overlap: pull only),
# old (SPX_MULTI_PULL=0 --no-overlap: copy engines, halo then SpMV, as before this change):
# spx bench M --multi 4 --device cuda --spread on lap3d7:250, R-MAT 22, lap3d27:160;
# (3) memcheck of test_gpu_multi (quick); ctest of the MPI tests and examples on the GPUs.
O=$OUT/ia; mkdir -p $O/ab
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
nvidia-smi topo -m > $O/topo.txt 2>&1
B=build-ia
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $B -j64; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ia.tar.gz ia; exit 1; }
echo "built at ${SECONDS}s"
timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1
echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "GPU|graphs|passed|failed|error" $O/test_gpu_multi.txt | tail -8
SPX_MULTI_PULL=0 SPX_TEST_QUICK=1 timeout 100 $B/tests/test_gpu_multi > $O/test_gpu_multi_copy.txt 2>&1
echo "test_gpu_multi SPX_MULTI_PULL=0 quick rc=$? at ${SECONDS}s"; tail -2 $O/test_gpu_multi_copy.txt
run() { # $1 new|noov|old $2 matrix $3 tag $4 rep
  local env="" flag=""
  [[ $1 == noov ]] && flag=--no-overlap
  [[ $1 == old ]] && { env=SPX_MULTI_PULL=0; flag=--no-overlap; }
  env $env timeout 100 $B/spx bench $2 --multi 4 --device cuda --spread --calls 20 --batches 5 $flag > $O/ab/$3-$1-$4.txt 2>&1
  echo "$2 $1 $4 rc=$? at ${SECONDS}s"; grep -A5 "^kind   halo_ms" $O/ab/$3-$1-$4.txt | grep -E "^(pcsr|pcsc|pcoo|rows) " | cut -c1-110
}
for rep in 1 2; do for v in new noov old; do [ $SECONDS -gt 330 ] && break; run $v gen:lap3d7:250 lap7 $rep; done; done
for v in new noov old; do [ $SECONDS -gt 400 ] && break; run $v gen:rmat:scale=22,ef=16,sym=1 rmat22 1; done
echo "bench end at ${SECONDS}s"
SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_multi > $O/memcheck.txt 2>&1
echo "memcheck rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck.txt; tail -1 $O/memcheck.txt
if [ $SECONDS -lt 530 ]; then
(cd $B && OMP_NUM_THREADS=1 timeout $((580-SECONDS)) ctest --output-on-failure -R 'mpi_|example_mpi') > $O/ctest-mpi.txt 2>&1
echo "ctest mpi rc=$? at ${SECONDS}s"; grep -E "Test +#|tests passed|Failed|Skipped" $O/ctest-mpi.txt
fi
echo "end at ${SECONDS}s"
cd $OUT && tar czf ia.tar.gz ia && rm -rf ia
