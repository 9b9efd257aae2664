#!/usr/bin/env bash
# Device run GC (H100 named), issue 14, diagnosis for the next step: where do R-MAT 20's gathers
# hit once AUTO has ordered it by degree? ncu on dasp (AUTO's pick) and csr, both on P A P^T
# (reorder=degree), and cuSPARSE CSR: time, L1 hit rate of global loads, L2 sectors, L2 and DRAM
# throughput, occupancy. A kernel keeping the hottest columns' x in shared memory would pay only
# if L1 misses them now.
O=$OUT/gc; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf gc.tar.gz gc; exit 1; }
echo "built at ${SECONDS}s"
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
R=gen:rmat:scale=20,ef=16,sym=1,values=random
timeout 240 ncu --metrics $M --csv -k regex:'dasp_main|dasp_finish|csr_warp|csr_stream|csrmv|gather' --launch-count 40 \
  $B/spx bench $R --device cuda --peers --precision f64 --format dasp,csr,peer-cusparse-csr --param "reorder=degree;reorder=none" --calls 1 --batches 1 > $O/ncu.csv 2> $O/ncu.err
echo "ncu rc=$? at ${SECONDS}s"; tail -3 $O/ncu.err
python3 - $O/ncu.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = {n: i for i, n in enumerate(h)}
seen = collections.OrderedDict()
for r in rows[1:]:
    seen.setdefault((r[k["ID"]], r[k["Kernel Name"]][:40]), {})[r[k["Metric Name"]]] = r[k["Metric Value"]]
for (i, n), m in seen.items():
    print(i, n, " ".join(f"{a.split('__')[1][:28]}={b}" for a, b in m.items()))
PY
echo "end at ${SECONDS}s"
cd $OUT && tar czf gc.tar.gz gc && rm -rf gc
