#!/usr/bin/env bash
# Device run GA (4 GPUs), issue 16: pcsc's merge across GPUs as one owner_sum launch per owner
# (partials read in place through peer access) instead of a scale and an add per part.
# (1) build; test_gpu_multi (4 GPUs: 8 and 12 parts round robin, pcsc spans over 40 parts, graphs
# over 4 GPUs), test_multi, cli_bench_multi*; memcheck of a 4-GPU pcsc bench run;
# (2) A/B in separate processes, new (HEAD + this change) against old (unfuse.patch), alternated:
# spx bench M --multi 4 --device cuda --spread --calls 20 on lap3d7:250, lap3d27:160, R-MAT 22.
O=$OUT/ga; mkdir -p $O/ab
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
nvidia-smi topo -m > $O/topo.txt 2>&1
B=build-ga
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j64; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ga.tar.gz ga; exit 1; }
echo "built at ${SECONDS}s"
timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1
echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "GPU|graphs|passed|failed" $O/test_gpu_multi.txt | tail -5
(cd $B && timeout 120 ctest --output-on-failure -R 'test_multi$|cli_bench_multi') > $O/ctest.txt 2>&1
echo "ctest rc=$? at ${SECONDS}s"; grep -E "Test +#|tests passed|Failed" $O/ctest.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/spx bench gen:lap3d7:40 --multi 4 --device cuda --spread --calls 2 --batches 1 > $O/memcheck-bench.txt 2>&1
echo "memcheck rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck-bench.txt; grep -A5 "^kind   halo_ms" $O/memcheck-bench.txt | cut -c1-120
mkdir -p /tmp/new /tmp/old && cp -a $B/spx $B/libspx.so* /tmp/new/
patch -p1 < .devrun/unfuse.patch > /dev/null && cmake --build $B -j64 --target spx_cli > $O/build-old.log 2>&1 && cp -a $B/spx $B/libspx.so* /tmp/old/
patch -R -p1 < .devrun/unfuse.patch > /dev/null
echo "old built at ${SECONDS}s"
run() { LD_LIBRARY_PATH=/tmp/$1 timeout 100 /tmp/$1/spx bench $2 --multi 4 --device cuda --spread --calls 20 > $O/ab/$3-$1-$4.txt 2>&1; echo "$2 $1 $4 rc=$? at ${SECONDS}s"; grep -A5 "^kind   halo_ms" $O/ab/$3-$1-$4.txt | grep -E "^(pcsr|pcsc) " | cut -c1-130; }
for rep in 1 2; do for v in new old; do
  [ $SECONDS -gt 470 ] && break
  run $v gen:lap3d7:250 lap7 $rep
  run $v gen:lap3d27:160 lap27 $rep
done; done
for v in new old; do [ $SECONDS -gt 520 ] && break; run $v gen:rmat:scale=22,ef=16,sym=1 rmat22 1; done
echo "end at ${SECONDS}s"
cd $OUT && tar czf ga.tar.gz ga && rm -rf ga
