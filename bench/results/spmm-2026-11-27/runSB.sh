#!/usr/bin/env bash
# Run SB (H100): CUDA SpMM. Build, test_spmm's cuda part, the conformance suite's
# cuda part (SpMV and SpMM formats), compute-sanitizer memcheck and racecheck on
# test_spmm's cuda part, then spx bench --op spmm against cuSPARSE SpMM.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF &&
  cmake --build build-gpu -j16 --target spx_cli test_spmm test_conformance; } > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at ${SECONDS}s"
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
cd build-gpu/tests
SPX_TEST_PART=cuda timeout 150 ./test_spmm > $OUT/test_spmm_cuda.txt 2>&1; echo "test_spmm cuda rc=$? at ${SECONDS}s"; tail -4 $OUT/test_spmm_cuda.txt
SPX_TEST_PART=cuda timeout 240 ./test_conformance > $OUT/conformance_cuda.txt 2>&1; echo "conformance cuda rc=$? at ${SECONDS}s"; grep -E "spmm|passed|FAIL" $OUT/conformance_cuda.txt | head -20
SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_spmm > $OUT/memcheck_test_spmm.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -2 $OUT/memcheck_test_spmm.txt
SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 ./test_spmm > $OUT/racecheck_test_spmm.txt 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; tail -2 $OUT/racecheck_test_spmm.txt
cd ../..
B() { # name, spec, k, precisions
  echo "== $1 k=$3 $4 at ${SECONDS}s"
  timeout 120 ./build-gpu/spx bench "$2" --op spmm --k "$3" --device cuda --precision "$4" --peers --batches 5 \
     --json /tmp/j.json > /tmp/b.txt 2> /tmp/b.err
  cat /tmp/b.txt >> $OUT/bench.txt; cat /tmp/j.json >> $OUT/bench.jsonl
  grep -E "^(csr|auto|peer)" /tmp/b.txt; grep -E "alg=" /tmp/b.err | head -3
}
B lap3d7-128 gen:lap3d7:128 32 f64,f32,f16
B lap3d7-128 gen:lap3d7:128 8 f64
B lap3d7-64 gen:lap3d7:64 128 f64,f32
B rmat20r "gen:rmat:scale=20,ef=16,sym=1,values=random" 32 f64,f32
B rmat20 "gen:rmat:scale=20,ef=16,sym=1" 32 f64
B powerlaw1m "gen:powerlaw:n=1000000,avg=16,alpha=2.1" 32 f64,f32
B powerlaw1m "gen:powerlaw:n=1000000,avg=16,alpha=2.1" 8 f64
B notredame /tmp/m/matrices/NotreDame_www.mtx 32 f64,f32
B lap3d27-64 gen:lap3d27:64 16 f64
echo "done at ${SECONDS}s"
