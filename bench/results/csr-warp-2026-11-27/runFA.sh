#!/usr/bin/env bash
# Device run FA (H100 named), issue 14, HEAD 28b43da:
# (1) alignment A/B: spx of HEAD ("new") against the same tree with 28b43da's csr change
#     reversed ("old": chunks at any nonzero, warp segments of up to 256 from the row start),
#     alternated new/old/new/old in separate processes, csr kernel=warp and kernel=stream and
#     cuSPARSE CSR in each process, f64 and f32;
# (2) AUTO against cuSPARSE CSR on the irregular set (HEAD), f64 (f32, f16 on the generators);
# (3) R-MAT 17-19: dasp and auto with and without reorder=degree (the size floor of AUTO's
#     ordering, AUTO_ORDER_MIN_NNZ 10M).
O=$OUT/fa; mkdir -p $O/ab $O/auto $O/order
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
mkdir -p /tmp/spx-matrices && tar xJf .matrices/matrices.tar.xz -C /tmp/spx-matrices
M=/tmp/spx-matrices/matrices
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf fa.tar.gz fa; exit 1; }
mkdir -p /tmp/new /tmp/old && cp -a $B/spx $B/libspx.so* /tmp/new/
patch -p1 < .devrun/unalign.patch > $O/patch.log && cmake --build $B -j16 --target spx_cli >> $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf fa.tar.gz fa; exit 1; }
cp -a $B/spx $B/libspx.so* /tmp/old/
patch -R -p1 < .devrun/unalign.patch >> $O/patch.log
echo "built both at ${SECONDS}s"; LD_LIBRARY_PATH=/tmp/old ldd /tmp/old/spx | grep libspx
spx() { local v=$1; shift; LD_LIBRARY_PATH=/tmp/$v timeout 120 /tmp/$v/spx "$@"; }
PL=gen:powerlaw:n=2000000,avg=16,alpha=2.1
CI=gen:circuit:n=2000000,avg=5,long=20,longlen=200000
R18=gen:rmat:scale=18,ef=16,sym=1,values=random
R20=gen:rmat:scale=20,ef=16,sym=1,values=random
ND11=gen:scale:file=$M/NotreDame_www.mtx,copies=11
i=0
for m in $PL $R20 $CI $ND11 $R18; do
  i=$((i+1))
  for rep in 1 2; do for v in new old; do
    spx $v bench $m --device cuda --peers --precision f64,f32 --format csr,peer-cusparse-csr \
      --param "kernel=warp;kernel=stream" > $O/ab/m$i-$v-$rep.txt 2>&1
    echo "$m $v $rep rc=$? at ${SECONDS}s"
  done; done
  [ $SECONDS -gt 330 ] && { echo "A/B stopped after $m"; break; }
done
i=0
for m in $R20 gen:rmat:scale=21,ef=16,sym=1,values=random $PL gen:powerlaw:n=500000,avg=16,alpha=2.1 $CI; do
  i=$((i+1)); [ $SECONDS -gt 470 ] && break
  spx new bench $m --device cuda --peers --precision f64,f32,f16 --format auto,peer-cusparse-csr,peer-cusparse-csr-h > $O/auto/g$i.txt 2>&1
  echo "auto $m rc=$? at ${SECONDS}s"
done
i=0
for m in $ND11 gen:scale:file=$M/c-62.mtx,copies=10 gen:scale:file=$M/rajat01.mtx,copies=100 $M/NotreDame_www.mtx; do
  i=$((i+1)); [ $SECONDS -gt 510 ] && break
  spx new bench $m --device cuda --peers --precision f64 --format auto,peer-cusparse-csr > $O/auto/s$i.txt 2>&1
  echo "auto $m rc=$? at ${SECONDS}s"
done
i=0
for s in 17 18 19; do
  i=$((i+1)); [ $SECONDS -gt 550 ] && break
  spx new bench gen:rmat:scale=$s,ef=16,sym=1,values=random --device cuda --peers --precision f64 \
    --format dasp,peer-cusparse-csr --param "reorder=none;reorder=degree" > $O/order/r$s.txt 2>&1
  echo "order rmat $s rc=$? at ${SECONDS}s"
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf fa.tar.gz fa && rm -rf fa
