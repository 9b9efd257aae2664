#!/usr/bin/env bash
# Run SI (the H100 machine's 16-core Xeon host): CPU SpMM with X's rows prefetched
# 0 (the default), 8 or 16 nonzeros ahead, built side by side (CPU only) and alternated;
# csr alone, 16 threads.
set -u
lscpu | grep -E "Model name|^CPU\(s\)"
build() { { cmake -S . -B $1 -DSPX_CUDA=OFF -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF \
      -DCMAKE_C_FLAGS="$2" && cmake --build $1 -j8 --target spx_cli; } > /tmp/$1.log 2>&1 || { tail -20 /tmp/$1.log; exit 1; }; }
build c-pf0 "" & build c-pf8 "-DSPX__SPMM_PF=8" & wait
build c-pf16 "-DSPX__SPMM_PF=16"
echo "built at ${SECONDS}s"
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
for v in pf0 pf8 pf16 pf0; do
  for spec in "/tmp/m/matrices/NotreDame_www.mtx@16" "gen:rmat:scale=18,ef=16,sym=1,values=random@32" "gen:lap3d7:96@32" "gen:lap3d27:48@8"; do
    timeout 100 ./c-$v/spx bench "${spec%@*}" --op spmm --k ${spec#*@} --device cpu --precision f64,f32 --format csr --batches 7 > /tmp/c.txt 2>/dev/null
    grep -E "^csr" /tmp/c.txt | sed "s/^/$v $(basename ${spec%@*} | cut -c1-22) k=${spec#*@} /" | tee -a $OUT/pf.txt
  done
  echo "-- $v at ${SECONDS}s"
done
