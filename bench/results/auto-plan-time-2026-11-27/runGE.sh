#!/usr/bin/env bash
# Device run GE (one GPU), issue 14: AUTO's plan time and picks on the H100 host with the
# sampled hot share (c9c4c1f, 32f65b1), in one process per matrix: auto, csr, dasp and cuSPARSE
# CSR, fp64, on the power-law generator (500k, 2M rows) and R-MAT 20 (random values).
O=$OUT/ge; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli test_auto_dasp; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ge.tar.gz ge; exit 1; }
echo "built at ${SECONDS}s"
$B/tests/test_auto_dasp > $O/test_auto_dasp.txt 2>&1; echo "test_auto_dasp rc=$? $(tail -1 $O/test_auto_dasp.txt)"
i=0
for m in gen:powerlaw:n=500000,avg=16,alpha=2.1 gen:powerlaw:n=2000000,avg=16,alpha=2.1 gen:rmat:scale=20,ef=16,sym=1,values=random; do
  i=$((i+1))
  timeout 150 $B/spx bench $m --device cuda --peers --precision f64 --format auto,dasp,csr,peer-cusparse-csr > $O/b$i.txt 2>&1
  echo "$m rc=$? at ${SECONDS}s"
  grep -E "^\S+ +(auto|dasp|csr|peer)" $O/b$i.txt | awk '{print $2, $6, $13}' | tr '\n' ';'; echo
  grep -i "auto" $O/b$i.txt | grep -iv "^bench" | head -3
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf ge.tar.gz ge && rm -rf ge
