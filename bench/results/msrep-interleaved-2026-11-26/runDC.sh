#!/usr/bin/env bash
# Device run DC (H100 named): issue 15. The small plans of a part (a split part's one-row ghost,
# pcsc's end pieces) on a side stream, against the same tree without it (ed123e1's multi.h and
# multi_part.c), each bench in its own process with its one-part baseline timed in alternating
# batches; test_gpu_multi, its memcheck, the CLI tests of bench --multi.
O=$OUT/dc; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
rm -rf /tmp/old && mkdir /tmp/old && cp -r CMakeLists.txt cmake include src tools tests bench examples python /tmp/old/ 2>/dev/null; cp -r .devrun/old/src/multi/* /tmp/old/src/multi/
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF"
{ cmake -S . -B build-gpu $CF && cmake --build build-gpu -j16 --target spx_cli test_gpu_multi; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf dc.tar.gz dc; exit 1; }
{ cmake -S /tmp/old -B /tmp/old/build $CF && cmake --build /tmp/old/build -j16 --target spx_cli; } > $O/build-old.log 2>&1 || { tail -30 $O/build-old.log; cd $OUT && tar czf dc.tar.gz dc; exit 1; }
echo "built at ${SECONDS}s"
timeout 200 build-gpu/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; tail -2 $O/test_gpu_multi.txt
SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck build-gpu/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -2 $O/memcheck.txt
(cd build-gpu && ctest -R cli_bench_multi > $O/ctest-cli.txt 2>&1; echo "ctest cli rc=$?"; tail -3 $O/ctest-cli.txt)
for run in "gen:lap3d7:200 4" "gen:rmat:scale=20,ef=16,sym=1 4" "gen:lap3d7:128 4" "gen:lap3d7:200 2"; do set -- $run
  for b in old new; do
    bin=build-gpu/spx; [ $b = old ] && bin=/tmp/old/build/spx
    f=$O/$(echo $1 | tr ':=,' '___')-$2-$b.txt
    timeout 120 $bin bench $1 --multi $2 --device cuda --calls 50 > $f 2>&1; echo "$1 $2 parts $b rc=$? at ${SECONDS}s"
    grep -A4 "^kind   halo_ms" $f | tail -4 | awk '{print "   ", $1, $6, $10, $11, $12, $13}'
  done
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf dc.tar.gz dc && rm -rf dc
