#!/usr/bin/env bash
# Device run CF (H100 named, after CE): spgemm-device/run.sh NUMERIC=1 SET=all: gpu-rows and AUTO,
# whole product and spx_spgemm_numeric, against cusparseSpGEMM and cusparseSpGEMMreuse_compute,
# f64, the 13 products, R-MAT 18 (ef 4) and cage11 x8.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/cf; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cf.tar.gz cf; exit 1; }
echo "built at ${SECONDS}s"
left=$((585 - SECONDS))
SPX=b/spx OUT=$O/dev NUMERIC=1 SET=all BUDGET_S=$((left - 20)) PER_S=150 bash bench/experiments/spgemm-device/run.sh > $O/dev.log 2>&1
echo "spgemm-device at ${SECONDS}s"; cat $O/dev/summary.md; cat $O/dev/skipped.txt 2>/dev/null
echo "end at ${SECONDS}s"
cd $OUT && tar czf cf.tar.gz cf && rm -rf cf
