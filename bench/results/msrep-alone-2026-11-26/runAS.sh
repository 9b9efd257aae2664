#!/usr/bin/env bash
# Device run AS (1 GPU): pcsc's alone rows (one device: written straight into y, only the other
# lines merged). test_gpu_multi + memcheck; one-GPU overhead of 2 and 4 parts over one part of
# the same kind, same process (`spx bench M --multi N --device cuda --calls 50`).
O=$OUT/as; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_multi test_multi; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b && timeout 200 ctest --output-on-failure -R '^(test_gpu_multi|test_multi)$' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|passed, " $O/ctest.log | head
( cd b/tests && SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_multi > $O/memcheck-test_gpu_multi.log 2>&1; echo "memcheck rc=$?"; tail -n 2 $O/memcheck-test_gpu_multi.log )
echo "memcheck done at ${SECONDS}s"
for m in gen:lap3d7:128 gen:rmat:scale=20,ef=16,sym=1,seed=1 gen:lap3d7:250; do for n in 2 4; do
  ((SECONDS > 500)) && { echo "skipped $m x$n"; continue; }
  echo "## b/spx bench $m --multi $n --device cuda --calls 50" >> $O/one-gpu.txt
  timeout 100 b/spx bench $m --multi $n --device cuda --calls 50 >> $O/one-gpu.txt 2>&1
  echo "$m x$n at ${SECONDS}s"; grep -A6 "^resident" $O/one-gpu.txt | tail -4
done; done
echo "end at ${SECONDS}s"
cd $OUT && tar czf as.tar.gz as && rm -rf as
