#!/usr/bin/env bash
# Second call: old (bfcf044) and new builds side by side; SpMV times of the
# two in alternating processes (no regression from the update work); the
# update tests again; the whole ctest; memcheck of test_dasp's GPU part; the
# update bench again (AUTO's plan time with the entry map recorded while ordering).
set -u
R=$OUT/r; mkdir -p $R
B=/tmp/b; O=/tmp/old
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a $R/steps.txt; }
el build
(cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON \
    -DCMAKE_BUILD_TYPE=Release > $R/build.log 2>&1 && cmake --build $B -j16 >> $R/build.log 2>&1; echo "new rc=$?" >> $R/build.log) &
PN=$!
(cmake -S .devrun/old -B $O -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release > $R/build_old.log 2>&1 && cmake --build $O -j12 --target spx_cli >> $R/build_old.log 2>&1; echo "old rc=$?" >> $R/build_old.log) &
PO=$!
wait $PN; wait $PO
tail -1 $R/build.log; tail -1 $R/build_old.log
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
el "test_update_values cuda"
(cd tests && SPX_TEST_PART=cuda timeout 300 $B/tests/test_update_values > $R/upd_cuda.txt 2>&1; echo "rc=$?" >> $R/upd_cuda.txt)
tail -3 $R/upd_cuda.txt
el "spmv old/new"
F=csr,sell,dasp,hbp,axt-uh,auto,peer-cusparse-csr
for spec in gen:lap3d7:100 gen:rmat:scale=20,ef=16,sym=1,values=random gen:powerlaw:n=1000000,avg=16,alpha=2.1 gen:circuit:n=2000000,avg=5,long=20,longlen=200000; do
  for v in old new 2old 2new; do
    bin=$B/spx; [ "${v#2}" = old ] && bin=$O/spx
    echo "## $spec $v" >> $R/spmv_ab.txt
    timeout 60 $bin bench $spec --device cuda --peers --precision f64 --format $F --batches 5 >> $R/spmv_ab.txt 2>&1
  done
done
for spec in gen:rmat:scale=20,ef=16,sym=1,values=random gen:lap3d7:100; do
  for v in old new; do
    bin=$B/spx; [ $v = old ] && bin=$O/spx
    echo "## $spec f16 $v" >> $R/spmv_ab.txt
    timeout 60 $bin bench $spec --device cuda --peers --precision f16 --format csr,dasp,hbp,auto,peer-cusparse-csr --batches 5 >> $R/spmv_ab.txt 2>&1
  done
done
el "update bench"
for spec in gen:rmat:scale=20,ef=16,sym=1,values=random gen:lap3d7:100; do
  for p in f64 f16; do
    timeout 90 $B/bench/experiments/update_values $spec cuda $p csr,sell,dasp,hbp,auto 10 >> $R/bench.txt 2>&1
  done
done
cat $R/bench.txt
el "ctest"
(cd $B && timeout 330 ctest -j8 --timeout 300 --output-on-failure > $R/ctest.log 2>&1; echo "rc=$?" >> $R/ctest.log)
grep -E "tests passed|\(Failed\)|Timeout|rc=" $R/ctest.log | tail -12
(cd $B && timeout 60 ctest -R test_gpu_spgemm_device_rows --output-on-failure > $R/ctest_rows.log 2>&1; echo "rc=$?" >> $R/ctest_rows.log)
tail -2 $R/ctest_rows.log
el "memcheck test_dasp cuda"
(cd tests && SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_dasp > $R/memcheck_dasp.txt 2>&1; echo "rc=$?" >> $R/memcheck_dasp.txt)
tail -3 $R/memcheck_dasp.txt
el done
tar czf $OUT/results.tgz -C $OUT r
