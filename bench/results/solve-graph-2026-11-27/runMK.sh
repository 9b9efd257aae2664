#!/usr/bin/env bash
# Device run MK (one GPU or two): the final tree's GPU tests and pytest with CUDA.
O=$OUT/mk; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF"
{ cmake -S . -B build-mk $CF && cmake --build build-mk -j24 --target test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j8; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-40) / $(tail -1 $O/build-py.log | cut -c1-40)"
(cd tests && timeout 90 ../build-mk/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_solve.txt)"
timeout 120 build-mk/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL" $O/test_gpu_multi.txt | head -5
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/ && cp -r python/tests /tmp/pyspx/
(cd /tmp/pyspx && timeout 100 python3 -m pytest -q tests) > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s: $(tail -1 $O/pytest.txt)"; grep FAILED $O/pytest.txt | head -3
cd $OUT && tar czf mk.tar.gz mk
