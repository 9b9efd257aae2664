#!/usr/bin/env bash
# Device run DA (H100 named): (1) ncu of csr against cuSPARSE CSR on issue 14's power-law
# generator (fp64, random values); (2) issue 15: R-MAT 20 --multi 4 with csr and sell parts, and
# larger matrices with AUTO parts, against one part.
O=$OUT/da; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf da.tar.gz da; exit 1; }
echo "built at ${SECONDS}s"
PL=gen:powerlaw:n=2000000,avg=16,alpha=2.1
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
timeout 200 ncu --metrics $M --csv -k regex:'[Cc]sr' --launch-count 12 build-gpu/spx bench $PL --device cuda --peers --precision f64 --format csr,peer-cusparse-csr --calls 2 --batches 1 > $O/ncu-powerlaw.csv 2> $O/ncu-powerlaw.err
echo "ncu rc=$? at ${SECONDS}s"
grep -c '"' $O/ncu-powerlaw.csv
for f in csr sell; do
  timeout 100 build-gpu/spx bench gen:rmat:scale=20,ef=16,sym=1 --multi 4 --device cuda --format $f --calls 50 > $O/rmat20-4-$f.txt 2>&1
  echo "rmat20 4 parts $f rc=$? at ${SECONDS}s"; grep -A6 "^kind   halo_ms" $O/rmat20-4-$f.txt | cut -c1-150
done
for m in gen:rmat:scale=21,ef=16,sym=1 gen:lap3d7:200; do
  f=$O/$(echo $m | tr ':=,' '___')-4.txt
  timeout 150 build-gpu/spx bench $m --multi 4 --device cuda --calls 50 > $f 2>&1; echo "$m 4 parts rc=$? at ${SECONDS}s"
  grep -A6 "^kind   halo_ms" $f | cut -c1-150
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf da.tar.gz da && rm -rf da
