#!/usr/bin/env bash
# SDDMM run D, after the per-G unroll (2 for G = 32): the tests, memcheck and
# racecheck of test_gpu_sddmm, the CUDA conformance part, then spx bench
# --op sddmm against cuSPARSE at k = 64 and 128 (the G = 32 cases) and k = 32
# (unchanged kernels, as a check of the run-to-run level). Tarred to $OUT.
set -u
B=/tmp/b; O=$OUT/d; mkdir -p $O
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_MPI=OFF &&
  cmake --build $B -j24 --target spx_cli test_gpu_sddmm test_conformance; } > $O/build.log 2>&1
echo "build rc=$? at ${SECONDS}s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/machine.txt
cd tests
timeout 120 $B/tests/test_gpu_sddmm > $O/test_gpu_sddmm.txt 2>&1; echo "test_gpu_sddmm rc=$? $(tail -1 $O/test_gpu_sddmm.txt)"
SPX_TEST_PART=cuda timeout 200 $B/tests/test_conformance > $O/conf_cuda.txt 2>&1; echo "conformance cuda rc=$? $(tail -1 $O/conf_cuda.txt)"; grep sddmm $O/conf_cuda.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_sddmm > $O/memcheck.txt 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $O/memcheck.txt)"
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/test_gpu_sddmm > $O/racecheck.txt 2>&1; echo "racecheck rc=$? $(grep 'RACECHECK SUMMARY' $O/racecheck.txt)"
cd ..
run() { # NAME SPEC K PRECS
  timeout 100 $B/spx bench "$2" --op sddmm --k $3 --device cuda --peers --precision $4 --batches 5 > $O/bench-$1-k$3.txt 2> $O/bench-$1-k$3.err
  echo "bench $1 k=$3 rc=$? at ${SECONDS}s"; grep -E "^(csr|peer)" $O/bench-$1-k$3.txt | cut -c1-100
}
for k in 128 64 32; do
  run lap3d7-128 gen:lap3d7:128 $k f64,f32
  run powerlaw1m gen:powerlaw:n=1000000,avg=20,alpha=2.1 $k f64,f32
  run rmat20 gen:rmat:scale=20,ef=16,sym=1 $k f64,f32
  [ $SECONDS -gt 430 ] && break
done
cd $OUT && tar czf d.tar.gz d && rm -rf d
