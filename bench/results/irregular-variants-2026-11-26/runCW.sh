#!/usr/bin/env bash
# Device run CW (H100 named): issue 14's two random generators (power law n=2M alpha 2.1, circuit
# n=2M), fp64, stored values: csr variants, dasp, hbp variants against cuSPARSE CSR, one process
# a matrix and a format group.
O=$OUT/cw; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cw.tar.gz cw; exit 1; }
echo "built at ${SECONDS}s"
n=0
for m in gen:powerlaw:n=2000000,avg=16,alpha=2.1 gen:circuit:n=2000000,avg=5,long=20,longlen=200000; do
  n=$((n + 1))
  timeout 120 build-gpu/spx bench $m --device cuda --peers --precision f64 --format csr,peer-cusparse-csr \
    --param "blocknnz=1024;blocknnz=2048;seq=16;seq=32;seq=64" --batches 6 > $O/csr$n.txt 2>&1
  timeout 120 build-gpu/spx bench $m --device cuda --peers --precision f64 --format csr,peer-cusparse-csr \
    --param "long=64;long=1024;kernel=vector,group=16;kernel=vector,group=32;ctas=2" --batches 6 > $O/csrb$n.txt 2>&1
  echo "$m csr"; cat $O/csr$n.txt $O/csrb$n.txt | grep -E "csr" | grep -v "^bench" | awk '{print "   ", $2, $6}'
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf cw.tar.gz cw && rm -rf cw
