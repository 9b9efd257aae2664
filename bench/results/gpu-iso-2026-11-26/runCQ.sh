#!/usr/bin/env bash
# Device run CQ (H100 named): iso paths for dasp and hbp (values=iso, no value array, v folded
# into alpha). GPU tests test_gpu_iso (with the shared part), test_dasp, test_gpu_hbp; memcheck of
# the quick test_gpu_iso; then bench/experiments/iso-gpu/run.sh (csr, sell, dasp, hbp iso against
# their stored path and cuSPARSE CSR in one process per matrix).
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/spx-matrices/matrices
O=$OUT/cq; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli test_gpu_iso test_dasp test_gpu_hbp; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cq.tar.gz cq; exit 1; }
echo "built at ${SECONDS}s"
for t in test_gpu_iso test_dasp test_gpu_hbp; do
  timeout 120 build-gpu/tests/$t > $O/$t.log 2>&1; echo "$t rc=$? at ${SECONDS}s"; tail -1 $O/$t.log; grep -m5 FAIL $O/$t.log
done
SPX_TEST_PART=shared timeout 60 build-gpu/tests/test_gpu_iso > $O/test_gpu_iso_shared.log 2>&1; echo "test_gpu_iso shared rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_iso_shared.log; grep -m5 FAIL $O/test_gpu_iso_shared.log
SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck build-gpu/tests/test_gpu_iso > $O/memcheck.log 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -2 $O/memcheck.log
OUT=$O/iso DEADLINE=300 bash bench/experiments/iso-gpu/run.sh > $O/iso.log 2>&1; echo "iso-gpu rc=$? at ${SECONDS}s"
cat $O/iso/summary.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf cq.tar.gz cq && rm -rf cq
