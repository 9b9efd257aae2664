#!/usr/bin/env bash
# Device run JB (4 GPUs; the fp16 part on GPU 0 alone), thirteenth session.
# (1) The overlap rule's threshold (issue 15/16): R-MAT of 105-123M nonzeros whose parts' halo
# (x entries of their column span that other GPUs own) is 1/21, 1/39 and 1/70 of their nonzeros
# (R-MAT 22: 1/10 and lap3d7:250: 1/220 were measured), and small stencils, lap3d7:24 (which the
# rule overlaps) and lap3d7:64: spx bench M --multi 4 --device cuda --spread --kind pcsr with
# --overlap on and off, separate processes alternated on, off, on, off.
# (2) fp16 csr kernel=warp against kernel=lean where csr's default picks warp (R-MAT 18-21, power
# law 500k; 47-64% of nonzeros in rows over 256), x float and x half, with cuSPARSE, GPU 0.
O=$OUT/jb; mkdir -p $O/ov $O/f16
B=build-j
[ -x $B/spx ] || { cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $B -j64; } > $O/build.log 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 > $O/gpu.txt; echo "ready at ${SECONDS}s"
f16() { # $1 matrix $2 tag $3 peer $4 params
  CUDA_VISIBLE_DEVICES=0 timeout 80 $B/spx bench $1 --device cuda --peers --precision f16 --format csr,$3 --param "$4" --batches 6 > $O/f16/$2.txt 2>&1
  echo "f16 $2 rc=$? at ${SECONDS}s"; grep -E "^ *(csr|peer)" $O/f16/$2.txt | cut -c1-120 | head -6
}
for s in 18 19 20 21; do
  f16 gen:rmat:scale=$s,ef=16,sym=1 rmat$s-xfloat peer-cusparse-csr "kernel=warp;kernel=lean"
  f16 gen:rmat:scale=$s,ef=16,sym=1 rmat$s-xhalf peer-cusparse-csr-h "xtype=half,kernel=warp;xtype=half,kernel=lean"
done
f16 gen:powerlaw:n=500000,avg=16,alpha=2.1 pl500k-xfloat peer-cusparse-csr "kernel=warp;kernel=lean"
ov() { # $1 on|off $2 matrix $3 tag $4 rep
  timeout 100 $B/spx bench $2 --multi 4 --device cuda --spread --calls 20 --batches 5 --kind pcsr --overlap $1 > $O/ov/$3-$1-$4.txt 2>&1
  echo "$3 $1 $4 rc=$? at ${SECONDS}s"; grep -A3 "^kind   halo_ms" $O/ov/$3-$1-$4.txt | grep -E "^pcsr " | cut -c1-150
}
for m in "rmat:scale=21,ef=32,sym=1 r21e32" "rmat:scale=20,ef=64,sym=1 r20e64" "rmat:scale=19,ef=128,sym=1 r19e128" "lap3d7:24 lap24" "lap3d7:64 lap64"; do
  set -- $m
  for rep in 1 2; do for v in on off; do [ $SECONDS -gt 540 ] && break; ov $v gen:$1 $2 $rep; done; done
done
echo "end at ${SECONDS}s"
cd $OUT && tar czf jb.tar.gz jb && rm -rf jb
