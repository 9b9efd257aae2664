#!/usr/bin/env bash
# Device run CT (H100 named): where reorder=degree's plan time goes on R-MAT 20 and 21
# (bench/experiments/gpu-reorder/order_timer.c: ordering, P A P^T, dasp plans with and without).
O=$OUT/ct; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt; nproc
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_BUILD_EXPERIMENTS=ON && cmake --build build-gpu -j16 --target order_timer; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ct.tar.gz ct; exit 1; }
echo "built at ${SECONDS}s"
B=$(find build-gpu -name order_timer -type f | head -1)
timeout 200 $B dasp cuda rmat:scale=20,ef=16,sym=1 rmat:scale=21,ef=16,sym=1 2>&1 | tee $O/order_timer.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf ct.tar.gz ct && rm -rf ct
