#!/usr/bin/env bash
# Run SD (H100): CUDA SpMM variants A/B, built side by side and alternated:
#   base  SPMM_UNROLL=4, long rows over 256, chunks of 256 (the defaults)
#   u8    SPMM_UNROLL=8
#   l128  long rows over 128, chunks of 128
# csr alone in each (spx bench --format csr), base again at the end; cuSPARSE SpMM in
# base's first pass for the ratios. Then SpMM on the host CPU (16-core Xeon) with its peers.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
build() { # dir flags
  { cmake -S . -B $1 -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF \
      -DCMAKE_C_FLAGS="$2" -DCMAKE_CUDA_FLAGS="$2" && cmake --build $1 -j16 --target spx_cli; } > /tmp/$1.log 2>&1 || { tail -20 /tmp/$1.log; exit 1; }
}
build b-base "" ; build b-u8 "-DSPMM_UNROLL=8"; build b-l128 "-DSPX__CUDA_SPMM_LONG=128 -DSPX__CUDA_SPMM_CHUNK=128"
echo "built at ${SECONDS}s"
M1="gen:powerlaw:n=1000000,avg=16,alpha=2.1"; M2="gen:rmat:scale=20,ef=16,sym=1,values=random"
M3="gen:lap3d7:128"; M4="gen:circuit:n=2000000,avg=5,long=20,longlen=200000"
R() { # build label matrix k precisions [extra]
  timeout 120 ./$1/spx bench "$3" --op spmm --k $4 --device cuda --precision $5 --batches 5 ${6:---format csr} > /tmp/b.txt 2>/dev/null
  grep -E "^(csr|peer)" /tmp/b.txt | sed "s/^/$2 $(echo $3 | cut -c5-20) k=$4 /" | tee -a $OUT/ab.txt
}
for v in base u8 l128 base; do
  extra="--format csr"; [[ $v == base && ! -f /tmp/peers-done ]] && extra="--peers" 
  for m in "$M1" "$M2"; do R b-$v $v "$m" 32 f64,f32 "$extra"; done
  R b-$v $v "$M1" 8 f64,f32 "$extra"
  R b-$v $v "$M3" 32 f64,f32 "$extra"
  R b-$v $v "$M4" 32 f64 "$extra"
  touch /tmp/peers-done
  echo "-- pass $v done at ${SECONDS}s"
done
echo "== CPU (host) SpMM at ${SECONDS}s"
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
for spec in "gen:lap3d7:96@32" "gen:rmat:scale=18,ef=16,sym=1,values=random@32" "/tmp/m/matrices/NotreDame_www.mtx@16" "gen:lap3d27:48@8"; do
  timeout 150 ./b-base/spx bench "${spec%@*}" --op spmm --k ${spec#*@} --device cpu --precision f64,f32 --peers --batches 5 > /tmp/c.txt 2>/dev/null
  grep -E "^(SpMM|csr|auto|peer|threads)" /tmp/c.txt | tee -a $OUT/cpu.txt
done
echo "done at ${SECONDS}s"
