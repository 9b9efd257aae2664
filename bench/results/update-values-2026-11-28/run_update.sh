#!/usr/bin/env bash
# One device call: build, spx_plan_update_values tests (CUDA part), the GPU
# tests of the formats touched, memcheck, Python with CuPy, and the bench.
set -u
R=$OUT/r; mkdir -p $R
B=/tmp/b
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $R/steps.txt; }
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt
el build
cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON \
    -DCMAKE_BUILD_TYPE=Release > $R/build.log 2>&1
cmake --build $B -j24 >> $R/build.log 2>&1 || { el "BUILD FAILED"; tail -40 $R/build.log; tar czf $OUT/results.tgz -C $OUT r; exit 1; }
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
el "test_update_values cuda"
(cd tests && SPX_TEST_PART=cuda timeout 400 $B/tests/test_update_values > $R/upd_cuda.txt 2>&1; echo "rc=$?" >> $R/upd_cuda.txt)
tail -30 $R/upd_cuda.txt
el "test_update_values cpu (AVX-512 host)"
(cd tests && timeout 200 $B/tests/test_update_values > $R/upd_cpu.txt 2>&1; echo "rc=$?" >> $R/upd_cpu.txt)
tail -3 $R/upd_cpu.txt
el "ctest of the touched formats"
(cd $B && timeout 420 ctest -j8 --timeout 400 -R "gpu|cuda|dasp|hbp|conformance|update|sell|axt|iso|dict|auto" \
    --output-on-failure > $R/ctest.log 2>&1; echo "rc=$?" >> $R/ctest.log)
grep -E "tests passed|Failed|\*\*\*|rc=" $R/ctest.log | tail -15
el "bench"
for spec in gen:lap3d7:100 gen:rmat:scale=20,ef=16,sym=1,values=random gen:powerlaw:n=1000000,avg=16,alpha=2.1; do
  for p in f64 f32 f16; do
    timeout 120 $B/bench/experiments/update_values $spec cuda $p csr,sell,dasp,hbp,axc,axt-uh,axt-ch1,auto 10 >> $R/bench.txt 2>&1
  done
done
timeout 60 $B/bench/experiments/update_values gen:lap3d7:100 cpu f64 csr,sell,axc,axt-uh,axt-ch,auto 10 >> $R/bench.txt 2>&1
cat $R/bench.txt | head -80
el "memcheck test_update_values cuda"
(cd tests && SPX_TEST_PART=cuda timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_update_values > $R/memcheck.txt 2>&1; echo "rc=$?" >> $R/memcheck.txt)
tail -5 $R/memcheck.txt
el "python"
(cmake -S python -B /tmp/bp -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release > $R/py.log 2>&1 && cmake --build /tmp/bp -j24 >> $R/py.log 2>&1) || el "python build failed"
mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp /tmp/bp/_core*.so /tmp/pyspx/spx/
(cd python/tests && PYTHONPATH=/tmp/pyspx timeout 200 python3 -m pytest -q test_update_values.py test_spx.py test_sddmm.py >> $R/py.log 2>&1; echo "rc=$?" >> $R/py.log)
tail -5 $R/py.log
el done
tar czf $OUT/results.tgz -C $OUT r
