#!/usr/bin/env bash
# SDDMM with X and Y in half (fp16 plans, xtype=half): tests, memcheck, and
# spx bench with --precision f32,f16 --param xtype=half --peers (cuSPARSE
# SDDMM f32 and SpX f16-half rows in one process; SpX's f32 rows refuse
# xtype=half by design), then SpX f32 alone in the next process for context.
set -u
B=/tmp/b; O=$OUT/g; mkdir -p $O
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_MPI=OFF &&
  cmake --build $B -j24 --target spx_cli test_gpu_sddmm test_conformance; } > $O/build.log 2>&1
echo "build rc=$? at ${SECONDS}s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/machine.txt
cd tests
timeout 120 $B/tests/test_gpu_sddmm > $O/test_gpu_sddmm.txt 2>&1; echo "test_gpu_sddmm rc=$? $(tail -1 $O/test_gpu_sddmm.txt)"; grep -i "half\|FAIL" $O/test_gpu_sddmm.txt | head -5
SPX_TEST_PART=cuda timeout 200 $B/tests/test_conformance > $O/conf_cuda.txt 2>&1; echo "conformance cuda rc=$? $(tail -1 $O/conf_cuda.txt)"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_sddmm > $O/memcheck.txt 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $O/memcheck.txt)"
cd ..
for mk in "lap3d7-128 gen:lap3d7:128" "rmat20 gen:rmat:scale=20,ef=16,sym=1" "powerlaw1m gen:powerlaw:n=1000000,avg=20,alpha=2.1"; do
  set -- $mk
  for k in 32 128; do
    timeout 100 $B/spx bench "$2" --op sddmm --k $k --device cuda --peers --precision f32,f16 --param xtype=half --batches 5 > $O/half-$1-k$k.txt 2> $O/half-$1-k$k.err
    echo "half $1 k=$k rc=$? at ${SECONDS}s"; grep -E "^(csr|auto|peer)" $O/half-$1-k$k.txt | cut -c1-100
    timeout 100 $B/spx bench "$2" --op sddmm --k $k --device cuda --format csr --precision f32 --batches 5 > $O/f32-$1-k$k.txt 2>&1
    echo "f32 alone: $(grep -E '^csr' $O/f32-$1-k$k.txt | cut -c1-100)"
  done
  [ $SECONDS -gt 450 ] && break
done
cd $OUT && tar czf g.tar.gz g && rm -rf g
