#!/usr/bin/env bash
# Device run GG (one GPU), issue 14: csr's variants in fp16 with x in half on the
# random-column generators, against cuSPARSE with x in half, one process a matrix.
O=$OUT/gg; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf gg.tar.gz gg; exit 1; }
echo "built at ${SECONDS}s"
S="xtype=half;xtype=half,kernel=warp;xtype=half,kernel=stream;xtype=half,blocknnz=1024;xtype=half,seq=64;xtype=half,ctas=2;xtype=half,long=1024;xtype=half,kernel=vector,group=16"
i=0
for m in gen:powerlaw:n=500000,avg=16,alpha=2.1 gen:powerlaw:n=2000000,avg=16,alpha=2.1 gen:circuit:n=2000000,avg=5,long=20,longlen=200000; do
  i=$((i+1))
  timeout 150 $B/spx bench $m --device cuda --peers --precision f16 --format csr,peer-cusparse-csr-h --param "$S" --batches 6 > $O/b$i.txt 2>&1
  echo "$m at ${SECONDS}s"; grep -E "^\S+ +(csr|peer)" $O/b$i.txt | awk '{print "   ", $2, $6}'
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf gg.tar.gz gg && rm -rf gg
