#!/usr/bin/env bash
# Device run HB (4 GPUs): pinned exchange buffers against pageable ones (the
# tree with .devrun/pin.patch reversed), MPI one rank per GPU, resident and
# host vectors, the two binaries alternated; the threaded executor beside
# them; whether this OpenMPI is CUDA-aware.
O=$OUT/hb; mkdir -p $O
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
B=build-multi-gpu
build() { cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO >/dev/null && cmake --build $B -j64 --target spx_cli mpi_test_dist >$O/build-$1.log 2>&1; }
build new || { echo "build new failed"; tail -20 $O/build-new.log; }
mkdir -p /tmp/new && cp -a $B/spx $B/libspx.so* /tmp/new/
(cd $B/tests && timeout 120 mpirun -np 4 --oversubscribe ./mpi_test_dist) > $O/test-new.txt 2>&1; tail -1 $O/test-new.txt
patch -R -p1 < .devrun/pin.patch >/dev/null && build old || { echo "build old failed"; tail -20 $O/build-old.log; }
mkdir -p /tmp/old && cp -a $B/spx $B/libspx.so* /tmp/old/
echo "built at ${SECONDS}s"
ompi_info --parsable --all 2>/dev/null | grep -i "cuda_support\|with_cuda\|accelerator" | head -5 > $O/ompi-cuda.txt; cat $O/ompi-cuda.txt
run() { # $1 new|old, $2 matrix, $3.. extra
  local v=$1 m=$2; shift 2
  echo "## $v: mpirun -np 4 spx bench $m --device cuda $*"
  LD_LIBRARY_PATH=/tmp/$v timeout 150 mpirun -np 4 --oversubscribe /tmp/$v/spx bench $m --device cuda "$@" 2>&1 | grep -v "generating"
}
for m in gen:lap3d7:250 gen:lap3d27:160; do
  for v in new old new old; do run $v $m --kind pcsr; done
done >> $O/ab.txt
echo "ab at ${SECONDS}s"
run new gen:lap3d7:250 >> $O/all-new.txt; run new gen:rmat:scale=22,ef=16,sym=1 >> $O/all-new.txt
echo "all at ${SECONDS}s"
for m in gen:lap3d7:250 gen:lap3d27:160; do
  echo "## threaded: spx bench $m --multi 4 --device cuda --spread"
  LD_LIBRARY_PATH=/tmp/new timeout 150 /tmp/new/spx bench $m --multi 4 --device cuda --spread --calls 20 2>&1 | grep -v generating
done > $O/threaded.txt
echo "end at ${SECONDS}s"
grep -E "^##|^(pcsr|pcsc|pcoo|rows) " $O/ab.txt $O/all-new.txt
grep -E "^##|resident|^(pcsr|pcsc|pcoo|rows) " $O/threaded.txt
cd $OUT && tar czf hb.tar.gz hb && rm -rf hb
