#!/usr/bin/env bash
# Device run CJ (H100 named): R-MAT 19 (ef 2: 640M products, 456M entries of C) and R-MAT 20
# (ef 1: 448M products, 371M entries), sym, squared device to device: gpu-rows and AUTO (whole
# product and spx_spgemm_numeric) against cusparseSpGEMM and cusparseSpGEMMreuse_compute, f64,
# each C checked against the long-double reference.
O=$OUT/cj; mkdir -p $O/dev
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cj.tar.gz cj; exit 1; }
echo "built at ${SECONDS}s"
n=0
for src in gen:rmat:scale=19,ef=2,sym=1 gen:rmat:scale=20,ef=1,sym=1; do
  n=$((n + 1)); echo "$src" > $O/dev/r$n.label
  timeout 270 b/spx bench $src --op spgemm --device cuda --precision f64 --peers --format gpu-rows,auto,peer-cusparse-spgemm,peer-cusparse-spgemm-reuse --resident-only --numeric --batches 5 --json $O/dev/r$n.json > $O/dev/r$n.txt 2>&1
  echo "$src rc=$? at ${SECONDS}s"; grep -E "resident|numeric|peer" $O/dev/r$n.txt | grep -v "^bench:" | cut -c1-140
done
python3 bench/experiments/spgemm-device/summary.py $O/dev > $O/dev/summary.md
echo "end at ${SECONDS}s"
cd $OUT && tar czf cj.tar.gz cj && rm -rf cj
