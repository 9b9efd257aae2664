#!/usr/bin/env bash
# Run SF (H100): fp32 CUDA SpMM variants, built side by side and alternated (csr alone):
#   base  16-byte loads (4 floats), 4 nonzeros in flight
#   w2    8-byte loads (2 floats): twice the lanes a row
#   w2u8  8-byte loads, 8 in flight
#   u8    16-byte loads, 8 in flight
# cuSPARSE SpMM in base's first pass for the ratios.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
build() { # dir flags
  { cmake -S . -B $1 -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF \
      -DCMAKE_CUDA_FLAGS="$2" && cmake --build $1 -j16 --target spx_cli; } > /tmp/$1.log 2>&1 || { tail -20 /tmp/$1.log; exit 1; }
}
build b-base "" & build b-w2 "-DSPMM_W_F32=2" & wait
build b-w2u8 "-DSPMM_W_F32=2 -DSPMM_UNROLL_F32=8" & build b-u8 "-DSPMM_UNROLL_F32=8" & wait
echo "built at ${SECONDS}s"
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
P="gen:powerlaw:n=1000000,avg=16,alpha=2.1"; R="gen:rmat:scale=20,ef=16,sym=1,values=random"
R1() { # build label matrix k [extra]
  timeout 120 ./$1/spx bench "$3" --op spmm --k $4 --device cuda --precision f32 --batches 5 ${5:---format csr} > /tmp/b.txt 2>/dev/null
  grep -E "^(csr|peer)" /tmp/b.txt | sed "s/^/$2 $(basename $3 | cut -c1-20) k=$4 /" | tee -a $OUT/ab.txt
}
first=1
for v in base w2 w2u8 u8 base; do
  extra="--format csr"; [[ $first == 1 ]] && extra="--peers"; first=0
  R1 b-$v $v "$P" 32 "$extra"; R1 b-$v $v "$P" 8 "$extra"; R1 b-$v $v "$R" 32 "$extra"
  R1 b-$v $v gen:lap3d7:128 32 "$extra"; R1 b-$v $v /tmp/m/matrices/cage11.mtx 64 "$extra"
  echo "-- $v at ${SECONDS}s"
done
