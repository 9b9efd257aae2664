#!/usr/bin/env bash
# Device run LG: host vectors (spx_cg_host, spx_bicgstab_host, the device check of spx_cg's
# vectors), `spx solve` on the GPU, spx.cg with NumPy vectors on a CUDA plan; memcheck.
O=$OUT/lg; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF"
B=build-lg
{ cmake -S . -B $B $CF && cmake --build $B -j10 --target test_gpu_solve test_solve spx_cli; } > $O/build.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j6; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-80) / $(tail -1 $O/build-py.log | cut -c1-80)"
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"; grep -E "FAIL|host vectors" $O/test_gpu_solve.txt | head
(cd $B && timeout 120 ctest -R "cli_(solve|help)" --output-on-failure) > $O/ctest-cli.txt 2>&1; echo "ctest cli rc=$? $(grep 'tests passed' $O/ctest-cli.txt)"; grep -E "Failed|SKIP" $O/ctest-cli.txt | head
$B/spx solve gen:lap3d7:128 --device cuda 2>&1 | tee $O/spx-solve-cuda.txt
$B/spx solve gen:lap3d7:128 --device cuda --method bicgstab --jacobi 2>&1 | tee -a $O/spx-solve-cuda.txt
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/ && cp -r python/tests /tmp/pyspx/
(cd /tmp/pyspx && timeout 150 python3 -m pytest -q tests) > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s: $(tail -1 $O/pytest.txt)"
(cd tests && SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../$B/tests/test_gpu_solve) > $O/memcheck-solve.txt 2>&1; echo "memcheck test_gpu_solve rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck-solve.txt | head -2
cd $OUT && tar czf lg.tar.gz lg
