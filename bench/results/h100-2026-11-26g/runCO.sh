#!/usr/bin/env bash
# Device run CO (H100 named, after CN: long rows summed in C through ranks): spgemm-device/run.sh
# SET=all: gpu-rows, tsparse and AUTO against cusparseSpGEMM device to device, f64 (and tsparse
# f16 against cuSPARSE f32), the 13 products, R-MAT 18 (ef 4), cage11 x8, R-MAT 19 (ef 2) and
# R-MAT 20 (ef 1).
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/co; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf co.tar.gz co; exit 1; }
echo "built at ${SECONDS}s"
left=$((590 - SECONDS))
SPX=b/spx OUT=$O/dev SET=all BUDGET_S=$((left - 15)) PER_S=120 bash bench/experiments/spgemm-device/run.sh > $O/dev.log 2>&1
echo "spgemm-device at ${SECONDS}s"; cat $O/dev/summary.md; cat $O/dev/skipped.txt 2>/dev/null
echo "end at ${SECONDS}s"
cd $OUT && tar czf co.tar.gz co && rm -rf co
