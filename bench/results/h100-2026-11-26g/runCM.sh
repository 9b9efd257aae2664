#!/usr/bin/env bash
# Device run CM (H100 named): where gpu-rows' numeric phase goes on R-MAT 20 (ef 1) squared:
# the trace per bin, then ncu on the numeric dense kernel (bin 8) and the largest hash bins.
O=$OUT/cm; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cm.tar.gz cm; exit 1; }
echo "built at ${SECONDS}s"
G=gen:rmat:scale=20,ef=1,sym=1
SPX_SPGEMM_TRACE=1 timeout 200 b/spx bench $G --op spgemm --device cuda --precision f64 --format gpu-rows --resident-only --batches 1 --calls 2 > $O/trace.txt 2>&1; echo "rc=$? at ${SECONDS}s"
grep "spgemm trace" $O/trace.txt | tail -20
timeout 300 ncu --kernel-name-base demangled -k regex:'dense_kernel<true|hash_kernel<(256|512|1024), true' --launch-count 4 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  b/spx bench $G --op spgemm --device cuda --precision f64 --format gpu-rows --resident-only --batches 1 --calls 1 > $O/ncu.txt 2>&1; echo "ncu rc=$? at ${SECONDS}s"
grep -E "dense_kernel|hash_kernel|Duration|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Achieved Occupancy|Compute \(SM\)" $O/ncu.txt | head -60
cd $OUT && tar czf cm.tar.gz cm && rm -rf cm
