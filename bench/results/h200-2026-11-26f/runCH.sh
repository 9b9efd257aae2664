#!/usr/bin/env bash
# Device run CH (1 GPU): racecheck of test_gpu_spgemm_device's tsparse part alone
# (SPX_TEST_PART=tsparse, quick): tsparse with device operands, AUTO's device pick, the declines.
O=$OUT/ch; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target test_gpu_spgemm_device; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ch.tar.gz ch; exit 1; }
echo "built at ${SECONDS}s"
for part in rows tsparse numeric; do SPX_TEST_PART=$part SPX_TEST_QUICK=1 timeout 60 b/tests/test_gpu_spgemm_device > $O/plain-$part.log 2>&1; echo "plain $part rc=$? at ${SECONDS}s"; tail -1 $O/plain-$part.log; done
SPX_TEST_PART=tsparse SPX_TEST_QUICK=1 timeout 480 compute-sanitizer --tool racecheck --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/racecheck-tsparse.log 2>&1; echo "racecheck tsparse rc=$? at ${SECONDS}s"; tail -3 $O/racecheck-tsparse.log
echo "end at ${SECONDS}s"
cd $OUT && tar czf ch.tar.gz ch && rm -rf ch
