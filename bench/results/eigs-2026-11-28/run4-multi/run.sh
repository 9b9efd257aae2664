#!/bin/bash
# spx_multi_eigsh on 2 H200s: test_eigs (CPU and CUDA parts, the multi test's
# 3 parts round robin over the GPUs), memcheck of the CUDA part, the Python
# tests, then eigsh on one GPU against a MultiPlan over both in one process.
ROOT=$PWD; R=$OUT/eigs4; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
{ cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/b -j32 --target test_eigs; } > $R/build.log 2>&1 || tail -20 $R/build.log
{ cmake -S python -B /tmp/bp -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/bp -j32; } > $R/build_py.log 2>&1 || tail -20 $R/build_py.log
echo "built at ${SECONDS}s"
(cd tests && SPX_TEST_PART=all /tmp/b/tests/test_eigs > $R/test_eigs.txt 2>&1); echo "test_eigs: $(tail -n 1 $R/test_eigs.txt)"; grep "multi" $R/test_eigs.txt
(cd tests && SPX_TEST_PART=cuda timeout 240 compute-sanitizer --tool memcheck --leak-check full /tmp/b/tests/test_eigs > $R/memcheck_eigs.txt 2>&1); tail -n 2 $R/memcheck_eigs.txt; echo "at ${SECONDS}s"
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp /tmp/bp/_core*.so /tmp/pyspx/spx/
cd /tmp/pyspx
timeout 120 python3 -m pytest -q -rs $ROOT/python/tests/test_eigs.py > $R/pytest.txt 2>&1; echo "pytest: $(tail -n 1 $R/pytest.txt)"
export PYTHONPATH=/tmp/pyspx
timeout $((540-SECONDS)) python3 -W ignore $ROOT/bench/experiments/eigs/eigs_multi.py --which LA --skip-copies 1 gen:rmat:scale=21,sym=1,values=random gen:lap3d7:160 gen:lap3d7:100 > $R/multi.txt 2>&1; echo "bench rc=$? at ${SECONDS}s"
cat $R/multi.txt
