#!/usr/bin/env bash
# Device run CV (H100 named): issue 20's few-valued question on the GPU
# (bench/experiments/iso-dict/iso_dict_gpu.cu): CSR SpMV with stored values, a one-byte code into
# a table in shared memory, and no values, on the shared matrices with at most 256 distinct
# values and their scale-ups.
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz
M=/tmp/spx-matrices/matrices
O=$OUT/cv; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_BUILD_EXPERIMENTS=ON && cmake --build build-gpu -j16 --target iso_dict_gpu; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cv.tar.gz cv; exit 1; }
echo "built at ${SECONDS}s"
B=$(find build-gpu -name iso_dict_gpu -type f | head -1)
timeout 300 $B $M/bcsstk21.mtx $M/olm1000.mtx $M/lund_a.mtx gen:scale:file=$M/bcsstk21.mtx,copies=400 \
  gen:scale:file=$M/olm1000.mtx,copies=2500 gen:scale:file=$M/lund_a.mtx,copies=4000 \
  gen:scale:file=$M/bcsstk21.mtx,copies=1600 gen:scale:file=$M/olm1000.mtx,copies=10000 2>&1 | tee $O/iso_dict_gpu.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf cv.tar.gz cv && rm -rf cv
