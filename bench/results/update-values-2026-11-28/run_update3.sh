#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
B=/tmp/b
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $R/steps.txt; }
el build
cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON \
    -DCMAKE_BUILD_TYPE=Release > $R/build.log 2>&1 && cmake --build $B -j24 >> $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
el "test_update_values cuda"
(cd tests && SPX_TEST_PART=cuda timeout 200 $B/tests/test_update_values > $R/upd_cuda.txt 2>&1; echo "rc=$?" >> $R/upd_cuda.txt)
tail -2 $R/upd_cuda.txt
(cd tests && timeout 100 $B/tests/test_reorder > $R/reorder.txt 2>&1; echo "rc=$?" >> $R/reorder.txt; SPX_TEST_PART=cuda timeout 100 $B/tests/test_reorder >> $R/reorder.txt 2>&1; echo "rc=$?" >> $R/reorder.txt)
tail -4 $R/reorder.txt
el "update bench"
for p in f64 f16; do
  timeout 90 $B/bench/experiments/update_values gen:rmat:scale=20,ef=16,sym=1,values=random cuda $p csr,dasp,auto 10 >> $R/bench.txt 2>&1
done
timeout 90 $B/bench/experiments/update_values gen:lap3d7:100 cuda f64 csr,auto 10 >> $R/bench.txt 2>&1
cat $R/bench.txt
el "memcheck"
(cd tests && SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_update_values > $R/memcheck.txt 2>&1; echo "rc=$?" >> $R/memcheck.txt)
tail -3 $R/memcheck.txt
el done
tar czf $OUT/results.tgz -C $OUT r
