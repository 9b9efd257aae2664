#!/usr/bin/env bash
# Device run MJ (2 GPUs): test_gpu_multi after the no_wait fix; multi-gpu-check.sh's solve step.
O=$OUT/mj; mkdir -p $O
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF"
{ cmake -S . -B build-mj $CF && cmake --build build-mj -j30 --target test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-40)"
timeout 150 build-mj/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL" $O/test_gpu_multi.txt | head -5
(cd tests && timeout 90 ../build-mj/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_solve.txt)"
SPX_MULTI_STEPS="build solve" SPX_MULTI_JOBS=32 timeout 300 bash scripts/multi-gpu-check.sh > $O/check.txt 2>&1; echo "multi-gpu-check rc=$? at ${SECONDS}s"
cp bench/results/msrep-2gpu-h200-*.txt bench/results/msrep-2gpu-h100-*-2026-11-27*.txt $O/ 2>/dev/null; grep -E "^(one GPU|multi|speedup|products)" bench/results/msrep-2gpu-*2026-11-27.txt | cut -c1-200
cd $OUT && tar czf mj.tar.gz mj
