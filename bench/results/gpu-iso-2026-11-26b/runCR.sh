#!/usr/bin/env bash
# Device run CR (H100 named): after CQ, the describe buffer fix, sell's parallel build and AUTO's
# short-row rule: test_gpu, test_gpu_iso (+ shared), memcheck of the quick test_gpu_iso and of
# test_gpu's sell part; iso-gpu/run.sh again (AUTO, sell plan times).
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/spx-matrices/matrices
O=$OUT/cr; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli test_gpu_iso test_gpu test_dasp test_gpu_hbp; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cr.tar.gz cr; exit 1; }
echo "built at ${SECONDS}s"
for t in test_gpu_iso test_gpu test_dasp test_gpu_hbp; do
  timeout 150 build-gpu/tests/$t > $O/$t.log 2>&1; echo "$t rc=$? at ${SECONDS}s"; tail -1 $O/$t.log; grep -m5 -i "FAIL\|auto on a short" $O/$t.log
done
SPX_TEST_PART=shared timeout 60 build-gpu/tests/test_gpu_iso > $O/test_gpu_iso_shared.log 2>&1; echo "test_gpu_iso shared rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_iso_shared.log
SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck build-gpu/tests/test_gpu_iso > $O/memcheck-iso.log 2>&1; echo "memcheck iso rc=$? at ${SECONDS}s"; tail -2 $O/memcheck-iso.log
OUT=$O/iso DEADLINE=280 bash bench/experiments/iso-gpu/run.sh > $O/iso.log 2>&1; echo "iso-gpu rc=$? at ${SECONDS}s"
cat $O/iso/summary.txt
grep -E "copies=(11|32)" $O/iso/bench.txt | awk '{print $2, $6, $12}'
echo "end at ${SECONDS}s"
cd $OUT && tar czf cr.tar.gz cr && rm -rf cr
