#!/usr/bin/env bash
# Device run GF (one GPU), issue 14: fp16 on the irregular generators with x in
# float (the default) and x in half (--param xtype=half), against cuSPARSE with x
# in float (peer-cusparse-csr) and in half (peer-cusparse-csr-h), one process a
# matrix and x type, random values.
O=$OUT/gf; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf gf.tar.gz gf; exit 1; }
echo "built at ${SECONDS}s"
i=0
for m in gen:rmat:scale=20,ef=16,sym=1,values=random gen:rmat:scale=21,ef=16,sym=1,values=random \
         gen:powerlaw:n=500000,avg=16,alpha=2.1 gen:powerlaw:n=2000000,avg=16,alpha=2.1 \
         gen:circuit:n=2000000,avg=5,long=20,longlen=200000; do
  i=$((i+1))
  timeout 100 $B/spx bench $m --device cuda --peers --precision f16 --format auto,csr,dasp,peer-cusparse-csr,peer-cusparse-csr-h > $O/b$i-xf.txt 2>&1
  timeout 100 $B/spx bench $m --device cuda --peers --precision f16 --param xtype=half --format auto,csr,dasp,peer-cusparse-csr-h > $O/b$i-xh.txt 2>&1
  echo "$m at ${SECONDS}s"
  for f in $O/b$i-xf.txt $O/b$i-xh.txt; do grep -E "^\S+ +(auto|dasp|csr|peer)" $f | grep -v "values=stored" | awk '{print $2, $6}' | tr '\n' ';'; echo; done
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf gf.tar.gz gf && rm -rf gf
