#!/usr/bin/env bash
# Device run CS (H100 named): what a degree ordering gives dasp's iso path on R-MAT 20 and 21
# (pattern, values 1), one process per matrix: dasp and auto with reorder=none|degree against
# cuSPARSE CSR, plan times included; OMP threads of the host: all.
O=$OUT/cs; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt; nproc
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cs.tar.gz cs; exit 1; }
echo "built at ${SECONDS}s"
for m in gen:rmat:scale=20,ef=16,sym=1 gen:rmat:scale=21,ef=16,sym=1; do
  timeout 150 build-gpu/spx bench $m --device cuda --peers --precision f64 --format dasp,csr,peer-cusparse-csr --param "reorder=none;reorder=degree" --batches 6 > $O/$(echo $m | tr ':=,' '___').txt 2>&1
  echo "$m rc=$? at ${SECONDS}s"; grep -E "dasp|csr|peer" $O/$(echo $m | tr ':=,' '___').txt | grep -v "^bench" | awk '{print $2, $6, $12}'
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf cs.tar.gz cs && rm -rf cs
