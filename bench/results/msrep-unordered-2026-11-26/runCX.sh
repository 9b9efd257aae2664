#!/usr/bin/env bash
# Device run CX (H100 named): multi-device and distributed part plans keep AUTO's degree ordering
# off (reorder=none in their params): test_gpu_multi, and the MSREP bench on R-MAT 20 (2 parts
# against one, resident and host vectors) after the change.
O=$OUT/cx; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli test_gpu_multi; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cx.tar.gz cx; exit 1; }
echo "built at ${SECONDS}s"
timeout 240 build-gpu/tests/test_gpu_multi > $O/test_gpu_multi.log 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_multi.log; grep -m5 FAIL $O/test_gpu_multi.log
timeout 200 build-gpu/spx bench gen:rmat:scale=20,ef=16,sym=1 --multi 2 --device cuda --calls 20 > $O/multi2.txt 2>&1; echo "multi rc=$? at ${SECONDS}s"
tail -25 $O/multi2.txt | cut -c1-160
echo "end at ${SECONDS}s"
cd $OUT && tar czf cx.tar.gz cx && rm -rf cx
