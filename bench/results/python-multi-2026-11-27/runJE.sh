#!/usr/bin/env bash
# Device run JE (4 GPUs): the Python package built with CUDA (cmake on python/, the extension put
# beside python/src/spx), its whole pytest suite with CuPy, spx.multi_plan on the GPUs among it.
O=$OUT/je; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
python3 -c "import numpy, scipy, pytest; print(numpy.__version__, scipy.__version__, pytest.__version__)" 2>&1 | tee $O/py.txt
python3 -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tee -a $O/py.txt
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz && export SPX_MATRICES=/tmp/spx-matrices/matrices
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j64; } > $O/build.log 2>&1 || { tail -20 $O/build.log; }
echo "built at ${SECONDS}s"
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
cd /tmp/pyspx && timeout 300 python3 -m pytest -q -rs $OLDPWD/python/tests > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s"; tail -15 $O/pytest.txt
cd $OUT && tar czf je.tar.gz je
