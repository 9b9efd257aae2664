#!/usr/bin/env bash
# Device run GH (one GPU), issue 14: ncu of SpX's csr in fp16 with x in half against
# cuSPARSE with x in half on the power-law generator (n=2M), one kernel at a time.
O=$OUT/gh; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf gh.tar.gz gh; exit 1; }
echo "built at ${SECONDS}s"
PL=gen:powerlaw:n=2000000,avg=16,alpha=2.1
M=gpu__time_duration.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,dram__bytes_read.sum
timeout 200 ncu --metrics $M --csv -k regex:'[Cc]sr' --launch-count 8 $B/spx bench $PL --device cuda --peers --precision f16 --param xtype=half --format csr,peer-cusparse-csr-h --calls 2 --batches 1 > $O/ncu.csv 2> $O/ncu.err
echo "ncu rc=$? at ${SECONDS}s"; tail -3 $O/ncu.err
python3 - $O/ncu.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; ki = head.index("Kernel Name"); mi = head.index("Metric Name"); vi = head.index("Metric Value"); ii = head.index("ID")
seen = {}
for r in rows[1:]:
    seen.setdefault((r[ii], r[ki][:40]), {})[r[mi]] = r[vi]
for (i, k), m in list(seen.items())[:8]:
    print(i, k, {a.split("__")[1][:30] + a[-12:]: v for a, v in m.items()})
PY
echo "end at ${SECONDS}s"
cd $OUT && tar czf gh.tar.gz gh && rm -rf gh
