#!/usr/bin/env bash
# Device run AK (1 GPU), HEAD: where gpu-rows' numeric phase goes on bcsstk28 (0.93 ms for 11.3M
# products, run AD) and delaunay_n16: the trace, then ncu on the binning and hash/dense kernels.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
M=/tmp/m/matrices
O=$OUT/ak; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
for m in bcsstk28 delaunay_n16; do
  SPX_SPGEMM_TRACE=1 timeout 60 b/spx spgemm $M/$m.mtx --device cuda --format gpu-rows --out /tmp/c.mtx > $O/trace-$m.txt 2>&1
  timeout 150 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --section InstructionStats --section MemoryWorkloadAnalysis -k regex:'hash_kernel|dense_kernel|row_products|bin_rows' \
    b/spx spgemm $M/$m.mtx --device cuda --format gpu-rows --out /tmp/c.mtx > $O/ncu-$m.txt 2>&1
  echo "$m done at ${SECONDS}s"; grep -E "hash_kernel|dense_kernel|Duration|Achieved Occupancy|Registers Per|Block Size|Grid Size|Dynamic Shared" $O/ncu-$m.txt | head -60
done
cat $O/trace-*.txt
cd $OUT && tar czf ak.tar.gz ak && rm -rf ak
