#!/usr/bin/env bash
# Device run AR (1 GPU): racecheck of test_gpu_spgemm (quick; the filled-slot compaction's shared
# memory), the 2^31-crossing product
# (SPX_TEST_LARGE=1: banded n=250000 bw=50, 2.5e9 intermediate products, every CUDA format
# against the CPU reference), and R-MAT 18 SpGEMM device to device against cuSPARSE.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/ar; mkdir -p $O/small
for m in west0067 pores_1 rajat01; do cp $SPX_MATRICES/$m.mtx $O/small/; done
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm test_gpu_spgemm_device; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
R=gen:rmat:scale=18,ef=16,sym=1
timeout 120 b/spx bench $R --op spgemm --device cuda --precision f64 --peers --format gpu-rows,peer-cusparse-spgemm --resident --batches 3 > $O/b-rmat18.txt 2>&1; echo "rmat18 rc=$? at ${SECONDS}s"
awk '$2=="cuda"{print $1, $7, $10}' $O/b-rmat18.txt
t=test_gpu_spgemm
( cd b/tests && SPX_TEST_QUICK=1 SPX_MATRICES=$O/small timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 ./$t > $O/racecheck-$t.log 2>&1; echo "racecheck $t rc=$? at ${SECONDS}s" >> $O/san.txt ) &
( cd b/tests && SPX_TEST_LARGE=1 SPX_MATRICES=$O/small timeout 300 ./test_gpu_spgemm > $O/large.txt 2>&1; echo "large rc=$? at ${SECONDS}s" >> $O/san.txt ) &
wait; cat $O/san.txt; for f in $O/racecheck-*.log; do tail -2 $f; done; grep -E "^large|banded:n=250000|passed," $O/large.txt
echo "end at ${SECONDS}s"
rm -rf $O/small; cd $OUT && tar czf ar.tar.gz ar && rm -rf ar
