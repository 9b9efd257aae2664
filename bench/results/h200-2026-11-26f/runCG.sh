#!/usr/bin/env bash
# Device run CG (1 GPU): racecheck of spx_spgemm_numeric's cases alone (SPX_TEST_PART=numeric,
# quick): the memo build (CUB's sort), the memo's sums, the pattern hash (its block sum in
# shared memory), memo=off's numeric phase, the whole-product path.
O=$OUT/cg; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target test_gpu_spgemm_device; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cg.tar.gz cg; exit 1; }
echo "built at ${SECONDS}s"
SPX_TEST_PART=numeric SPX_TEST_QUICK=1 timeout 60 b/tests/test_gpu_spgemm_device > $O/plain.log 2>&1; echo "plain rc=$? at ${SECONDS}s"; tail -1 $O/plain.log
SPX_TEST_PART=numeric SPX_TEST_QUICK=1 timeout 480 compute-sanitizer --tool racecheck --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/racecheck.log 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; tail -4 $O/racecheck.log
echo "end at ${SECONDS}s"
cd $OUT && tar czf cg.tar.gz cg && rm -rf cg
