#!/usr/bin/env bash
# Device run DB (H100 named): issue 15, lap3d7:200 4 parts on one GPU: csr parts against sell
# parts, 2 parts, and ncu of each part's kernel (duration, bytes) against the one-part kernel.
O=$OUT/db; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf db.tar.gz db; exit 1; }
echo "built at ${SECONDS}s"
L=gen:lap3d7:200
for run in "4 csr" "4 sell" "2 sell"; do set -- $run
  timeout 100 build-gpu/spx bench $L --multi $1 --device cuda --format $2 --calls 50 > $O/lap200-$1-$2.txt 2>&1
  echo "$L $1 parts $2 rc=$? at ${SECONDS}s"; grep -A6 "^kind   halo_ms" $O/lap200-$1-$2.txt | cut -c1-150
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 240 ncu --metrics $M --csv -k regex:'sell' --launch-count 400 build-gpu/spx bench $L --multi 4 --device cuda --format sell --calls 1 --batches 1 > $O/ncu-lap200-4.csv 2> $O/ncu-lap200-4.err
echo "ncu rc=$? at ${SECONDS}s"; tail -2 $O/ncu-lap200-4.err
echo "end at ${SECONDS}s"
cd $OUT && tar czf db.tar.gz db && rm -rf db
