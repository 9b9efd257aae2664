#!/usr/bin/env bash
# Device run CY (H100 named): issue 15's one-GPU overhead at HEAD: spx bench --multi 2 and 4 on
# lap3d7:128 and R-MAT 20 (ef 16, sym), resident and host vectors, against one part.
O=$OUT/cy; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cy.tar.gz cy; exit 1; }
echo "built at ${SECONDS}s"
for m in gen:lap3d7:128 gen:rmat:scale=20,ef=16,sym=1; do
  for n in 2 4; do
    f=$O/$(echo $m | tr ':=,' '___')-$n.txt
    timeout 150 build-gpu/spx bench $m --multi $n --device cuda --calls 50 > $f 2>&1; echo "$m $n parts rc=$? at ${SECONDS}s"
    grep -A6 "^kind   halo_ms" $f | cut -c1-150
  done
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf cy.tar.gz cy && rm -rf cy
