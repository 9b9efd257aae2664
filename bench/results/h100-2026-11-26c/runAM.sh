#!/usr/bin/env bash
# Device run AM (1 GPU), HEAD: gpu-rows wide=on|off|dense (numeric bins of few rows of many
# products) in one process against cuSPARSE, device to device and host to host; wide=on again last.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/am; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
for m in bcsstk28 cavity19 TSOPF_RS_b39_c30 sinc18 c-62 xenon1 bfly delaunay_n16 cage11 NotreDame_www; do
  ((SECONDS > 400)) && { echo "skipped $m"; continue; }
  timeout 70 b/spx bench $SPX_MATRICES/$m.mtx --op spgemm --device cuda --precision f64 --peers --format gpu-rows,peer-cusparse-spgemm --resident --param "wide=on;wide=off;wide=dense;wide=on" --batches 5 > $O/wide-$m.txt 2>&1; echo "$m rc=$? at ${SECONDS}s"
  grep -E "^(gpu-rows|peer)" $O/wide-$m.txt | cut -c1-80
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf am.tar.gz am && rm -rf am
