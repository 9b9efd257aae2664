#!/usr/bin/env bash
# Run SL (H100): SpMM of a device matrix (cupyx arrays in place): test_gpu_device_matrix
# (with test_spmm) under memcheck, test_gpu_spmm, and the Python package's cupyx tests.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF &&
  cmake --build build-gpu -j16 --target test_gpu_device_matrix test_gpu_spmm; } > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j16; } > /tmp/pybuild.log 2>&1 || tail -20 /tmp/pybuild.log
echo "built at ${SECONDS}s"
(cd build-gpu/tests
 timeout 200 ./test_gpu_device_matrix > $OUT/tests.txt 2>&1; echo "test_gpu_device_matrix rc=$?"; tail -2 $OUT/tests.txt
 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_device_matrix > /tmp/s.txt 2>&1; echo "memcheck rc=$?"; tail -2 /tmp/s.txt; cat /tmp/s.txt >> $OUT/tests.txt
 timeout 100 ./test_gpu_spmm > /tmp/s.txt 2>&1; echo "test_gpu_spmm rc=$?"; tail -1 /tmp/s.txt)
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
(cd /tmp/pyspx && timeout 200 python3 -m pytest -q -rs $OLDPWD/python/tests -k "cupyx or spmm" > $OUT/pytest.txt 2>&1; echo "pytest rc=$?"; tail -4 $OUT/pytest.txt)
echo "done at ${SECONDS}s"
