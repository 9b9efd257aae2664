#!/usr/bin/env bash
# SDDMM on the GPU: build (library, tests, CLI, Python), the SDDMM tests and
# the CUDA conformance part, pytest of test_sddmm with CuPy, then spx bench
# --op sddmm against cuSPARSE SDDMM in one process per matrix and k, and the
# Python bench against CuPy. Everything under $OUT/b.
set -u
B=/tmp/b; O=$OUT/b; mkdir -p $O
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_MPI=OFF"
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
{ cmake -S . -B $B $CF && cmake --build $B -j24; } > $O/build.log 2>&1 &
PB=$!
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j8; } > $O/build-py.log 2>&1 &
PP=$!
wait $PB; echo "build rc=$? at ${SECONDS}s"; wait $PP; echo "build-py rc=$? at ${SECONDS}s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/machine.txt
SPX=$B/spx
(cd tests && timeout 120 $B/tests/test_gpu_sddmm) > $O/test_gpu_sddmm.txt 2>&1; echo "test_gpu_sddmm rc=$? $(tail -1 $O/test_gpu_sddmm.txt)"
(cd tests && SPX_TEST_PART=cuda timeout 200 $B/tests/test_conformance) > $O/conf_cuda.txt 2>&1; echo "conformance cuda rc=$? $(tail -1 $O/conf_cuda.txt)"; grep sddmm $O/conf_cuda.txt
(cd $B && SPX_MATRICES=/tmp/m/matrices timeout 120 ctest -R "sddmm" 2>&1 | tail -4) | tee $O/ctest.txt
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
(cd /tmp/pyspx && timeout 120 python3 -m pytest -q -rs $OLDPWD/python/tests/test_sddmm.py) > $O/pytest.txt 2>&1; echo "pytest rc=$? $(tail -1 $O/pytest.txt)"
run() { # NAME SPEC K PRECS
  timeout 100 $SPX bench "$2" --op sddmm --k $3 --device cuda --peers --precision $4 --batches 5 > $O/bench-$1-k$3.txt 2> $O/bench-$1-k$3.err
  echo "bench $1 k=$3 rc=$? at ${SECONDS}s"; grep -E "^(csr|auto|peer)" $O/bench-$1-k$3.txt | cut -c1-100
}
for k in 32 8 128; do
  run lap3d7-128 gen:lap3d7:128 $k f64,f32
  run rmat20 gen:rmat:scale=20,ef=16,sym=1 $k f64,f32
  run powerlaw1m gen:powerlaw:n=1000000,avg=20,alpha=2.1 $k f64,f32
  [ $k = 32 ] && run notredame /tmp/m/matrices/NotreDame_www.mtx $k f64,f32
  [ $k = 32 ] && run circuit gen:circuit:n=2000000,avg=5,long=20,longlen=200000 $k f64,f32
  [ $SECONDS -gt 470 ] && break
done
[ $SECONDS -lt 520 ] && (cd python/bench && PYTHONPATH=/tmp/pyspx timeout $((580-SECONDS)) python3 sddmm.py --k 32,128 gen:lap3d7:100 gen:rmat:scale=18,ef=16,sym=1) > $O/pybench.txt 2>&1; echo "pybench rc=$?"; tail -25 $O/pybench.txt
