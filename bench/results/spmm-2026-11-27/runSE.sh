#!/usr/bin/env bash
# Run SE (H100): CUDA SpMM at the per-type unroll: build, test_gpu_spmm, conformance's
# cuda part, memcheck and racecheck on test_gpu_spmm, then spx bench --op spmm against
# cuSPARSE SpMM, and SpMM on the host CPU (16-core Xeon) against Eigen and librsb.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF &&
  cmake --build build-gpu -j16 --target spx_cli test_gpu_spmm test_conformance; } > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at ${SECONDS}s"
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
(cd build-gpu/tests
 timeout 150 ./test_gpu_spmm > $OUT/tests.txt 2>&1; echo "test_gpu_spmm rc=$? at ${SECONDS}s"; tail -2 $OUT/tests.txt
 SPX_TEST_PART=cuda timeout 240 ./test_conformance > /tmp/c.txt 2>&1; echo "conformance cuda rc=$? at ${SECONDS}s"; grep -E "spmm|passed|FAIL" /tmp/c.txt | head; cat /tmp/c.txt >> $OUT/tests.txt
 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_spmm > /tmp/s.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -2 /tmp/s.txt; cat /tmp/s.txt >> $OUT/tests.txt
 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 ./test_gpu_spmm > /tmp/s.txt 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; tail -2 /tmp/s.txt; cat /tmp/s.txt >> $OUT/tests.txt)
B() { # name, spec, k, precisions
  echo "== $1 k=$3 $4 at ${SECONDS}s"
  timeout 120 ./build-gpu/spx bench "$2" --op spmm --k "$3" --device cuda --precision "$4" --peers --batches 5 \
     --json /tmp/j.json > /tmp/b.txt 2> /tmp/b.err
  cat /tmp/b.txt >> $OUT/bench.txt; cat /tmp/j.json >> $OUT/bench.jsonl
  grep -E "^(csr|peer)" /tmp/b.txt; grep -E "alg=" /tmp/b.err | head -3
}
B powerlaw1m "gen:powerlaw:n=1000000,avg=16,alpha=2.1" 32 f64,f32
B powerlaw1m "gen:powerlaw:n=1000000,avg=16,alpha=2.1" 8 f64,f32
B rmat20r "gen:rmat:scale=20,ef=16,sym=1,values=random" 32 f64,f32
B rmat20r "gen:rmat:scale=20,ef=16,sym=1,values=random" 128 f64
B circuit "gen:circuit:n=2000000,avg=5,long=20,longlen=200000" 32 f64
B lap3d7-128 gen:lap3d7:128 32 f64,f32,f16
B cage11 /tmp/m/matrices/cage11.mtx 64 f64,f32
B xenon1 /tmp/m/matrices/xenon1.mtx 16 f64
echo "== CPU (host) SpMM at ${SECONDS}s"
for spec in "gen:lap3d7:96@32" "gen:rmat:scale=18,ef=16,sym=1,values=random@32" "/tmp/m/matrices/NotreDame_www.mtx@16" "gen:lap3d27:48@8"; do
  timeout 150 ./build-gpu/spx bench "${spec%@*}" --op spmm --k ${spec#*@} --device cpu --precision f64,f32 --peers --batches 5 > /tmp/c.txt 2>/dev/null
  grep -E "^(SpMM|csr|peer|threads)" /tmp/c.txt | tee -a $OUT/cpu.txt
done
echo "done at ${SECONDS}s"
