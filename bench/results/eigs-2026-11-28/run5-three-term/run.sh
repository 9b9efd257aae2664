#!/bin/bash
# spx_eigsh with three-term steps (two Gram-Schmidt passes) and restarts by
# one combination kernel, on the H200: test_eigs (CPU and CUDA parts),
# memcheck of its CUDA part, the Python tests, then spx.eigsh against CuPy's
# eigsh as in run3 (with and without the search for copies).
ROOT=$PWD; R=$OUT/eigs5; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz; M=/tmp/m/matrices
{ cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/b -j16 --target test_eigs test_gs; } > $R/build.log 2>&1 || tail -20 $R/build.log
{ cmake -S python -B /tmp/bp -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/bp -j16; } > $R/build_py.log 2>&1 || tail -20 $R/build_py.log
echo "built at ${SECONDS}s"
(cd tests && SPX_TEST_PART=all /tmp/b/tests/test_eigs > $R/test_eigs.txt 2>&1); echo "test_eigs: $(tail -n 1 $R/test_eigs.txt)"
(cd tests && SPX_TEST_PART=all /tmp/b/tests/test_gs > $R/test_gs.txt 2>&1); echo "test_gs: $(tail -n 1 $R/test_gs.txt)"
(cd tests && SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool memcheck --leak-check full /tmp/b/tests/test_eigs > $R/memcheck_eigs.txt 2>&1); tail -n 2 $R/memcheck_eigs.txt; echo "at ${SECONDS}s"
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp /tmp/bp/_core*.so /tmp/pyspx/spx/
cd /tmp/pyspx
timeout 120 python3 -m pytest -q -rs $ROOT/python/tests/test_eigs.py > $R/pytest.txt 2>&1; echo "pytest: $(tail -n 1 $R/pytest.txt)"
B=$ROOT/bench/experiments/eigs/eigs_vs_peer.py
export PYTHONPATH=/tmp/pyspx
timeout $((380-SECONDS)) python3 -W ignore $B --device cuda --rounds 3 gen:lap3d7:64 gen:lap3d27:40 gen:lap2d5:300 $M/delaunay_n16.mtx > $R/vs_cupy.txt 2>&1; echo "gpu bench rc=$? at ${SECONDS}s"
timeout $((420-SECONDS)) python3 -W ignore $B --device cuda --rounds 3 --which LA $M/bcsstk28.mtx $M/1138_bus.mtx >> $R/vs_cupy.txt 2>&1; echo "gpu bench rc=$? at ${SECONDS}s"
timeout $((490-SECONDS)) python3 -W ignore $B --device cuda --rounds 3 --skip-copies 1 gen:lap3d7:64 gen:lap3d27:40 gen:lap2d5:300 $M/delaunay_n16.mtx > $R/vs_cupy_skip.txt 2>&1; echo "gpu skip bench rc=$? at ${SECONDS}s"
cut -c1-300 $R/vs_cupy.txt $R/vs_cupy_skip.txt
