#!/bin/bash
# spx_eigsh on the H200: test_eigs (CPU and CUDA parts), memcheck of its CUDA
# part, the CLI on CUDA, the Python tests with CuPy, then spx.eigsh against
# cupyx.scipy.sparse.linalg.eigsh in one process.
R=$OUT/eigs; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz; M=/tmp/m/matrices
{ cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/b -j16 --target spx_cli test_eigs; } > $R/build.log 2>&1 || tail -20 $R/build.log
{ cmake -S python -B /tmp/bp -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/bp -j16; } > $R/build_py.log 2>&1 || tail -20 $R/build_py.log
echo "built at ${SECONDS}s"
(cd tests && SPX_TEST_PART=all /tmp/b/tests/test_eigs > $R/test_eigs.txt 2>&1); echo "test_eigs: $(tail -n 1 $R/test_eigs.txt)"; grep -E "lap1d" $R/test_eigs.txt
(cd tests && SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool memcheck --leak-check full /tmp/b/tests/test_eigs > $R/memcheck_eigs.txt 2>&1); tail -n 2 $R/memcheck_eigs.txt
/tmp/b/spx eigs gen:lap3d7:40 --k 3 --which smallest --device cuda 2>&1 | tee $R/cli.txt
/tmp/b/spx eigs gen:lap3d7:40 --k 3 --which smallest 2>&1 | tee -a $R/cli.txt
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp /tmp/bp/_core*.so /tmp/pyspx/spx/
(cd /tmp/pyspx && timeout 200 python3 -m pytest -q -rs $OLDPWD/python/tests/test_eigs.py > $R/pytest.txt 2>&1); echo "pytest: $(tail -n 1 $R/pytest.txt)"
cd /tmp/pyspx && timeout $((560-SECONDS)) python3 $OLDPWD/bench/experiments/eigs/eigs_vs_cupy.py --k 5 --tol 1e-8 --rounds 3 --max-steps 400 gen:lap3d7:64 gen:lap3d27:40 $M/delaunay_n16.mtx $M/bcsstk28.mtx $M/1138_bus.mtx > $R/vs_cupy.txt 2>&1; echo "bench rc=$? at ${SECONDS}s"; cat $R/vs_cupy.txt | cut -c1-250
cd $OUT && tar czf eigs.tgz eigs
