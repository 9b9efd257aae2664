#!/usr/bin/env bash
# Device run AQ (1 GPU), HEAD after cf09be7: GPU ctest (every CUDA entry, the matrix and gateway
# changes touch device matrices); SpGEMM device to device with the defaults (gpu-rows, AUTO,
# cuSPARSE) on the 12 products and R-MAT 16; ncu SpeedOfLight of cuSPARSE's SpMV on R-MAT 20.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/aq; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b && SPX_TEST_QUICK=1 timeout 200 ctest -j4 --output-on-failure -R 'test_gpu|conformance_cuda$|test_spgemm|test_iso|test_dasp|cli_.*cuda|example' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|Not Run|Timeout" $O/ctest.log | head -20
for m in delaunay_n16 cage11 bfly TSOPF_RS_b39_c30 bcsstk28 cavity19 NotreDame_www c-62 sinc18 xenon1 gen:lap3d27:40 gen:banded:n=100000,bw=25 gen:rmat:scale=16; do
  ((SECONDS > 470)) && { echo "skipped $m"; continue; }
  f=$m; [[ $m == gen:* ]] || f=$SPX_MATRICES/$m.mtx
  n=$(echo $m | tr -c 'a-zA-Z0-9_\n-' '_')
  timeout 90 b/spx bench $f --op spgemm --device cuda --precision f64 --peers --format gpu-rows,auto,peer-cusparse-spgemm --resident --batches 5 > $O/b-$n.txt 2>&1; echo "$n rc=$? at ${SECONDS}s"
  awk '$2=="cuda"{print $1, $7, $10}' $O/b-$n.txt
done
timeout 60 ncu --section SpeedOfLight -c 8 b/spx bench gen:rmat:scale=20,ef=16,sym=1 --device cuda --precision f64 --peers --format peer-cusparse-csr --batches 1 --calls 2 > $O/ncu-cusparse-rmat20.txt 2>&1; echo "ncu rc=$? at ${SECONDS}s"
grep -E "^  [a-zA-Z_].*\(|Duration|L1/TEX Cache|L2 Cache Throughput|DRAM Throughput" $O/ncu-cusparse-rmat20.txt | head -30
echo "end at ${SECONDS}s"
cd $OUT && tar czf aq.tar.gz aq && rm -rf aq
