#!/usr/bin/env bash
# Device run IC (4 GPUs; the fp16 part on GPU 0 alone).
# (1) build; test_gpu_multi (4 GPUs; overlap on, off and auto); test_gpu on GPU 0 with the shared
# matrices (csr fp16 kernel=lean, every matrix and edge case); memcheck of a kernel=lean run;
# (2) fp16, x half, on GPU 0: csr kernel=warp against kernel=lean against cuSPARSE (x half), one
# process per matrix; power law 2M with x float too;
# (3) the threaded executor's defaults (pull 128 blocks a range alone, 32 beside an overlap; overlap
# where a part's halo >= nnz/32) against --overlap off and the copy-engine path
# (SPX_MULTI_PULL=0 --overlap off), every kind, separate processes alternated.
O=$OUT/ic; mkdir -p $O/ab $O/f16
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz && export SPX_MATRICES=/tmp/spx-matrices/matrices
B=build-ic
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j64; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ic.tar.gz ic; exit 1; }
echo "built at ${SECONDS}s"
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1
echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "GPU|graphs|passed|failed|error" $O/test_gpu_multi.txt | tail -6
CUDA_VISIBLE_DEVICES=0 timeout 150 $B/tests/test_gpu > $O/test_gpu.txt 2>&1
echo "test_gpu rc=$? at ${SECONDS}s"; grep -iE "passed|failed|skip|error|lean" $O/test_gpu.txt | tail -8
PL5=gen:powerlaw:n=500000,avg=16,alpha=2.1; PL2=gen:powerlaw:n=2000000,avg=16,alpha=2.1; CI=gen:circuit:n=2000000,avg=5,long=20,longlen=200000
CUDA_VISIBLE_DEVICES=0 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/spx bench gen:powerlaw:n=100000,avg=16,alpha=2.1 --device cuda --precision f16 --format csr --param "xtype=half,kernel=lean;kernel=lean,long=50" --calls 2 --batches 1 > $O/memcheck-lean.txt 2>&1
echo "memcheck lean rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck-lean.txt
f16() { CUDA_VISIBLE_DEVICES=0 timeout 80 $B/spx bench $1 --device cuda --peers --precision f16 --format csr,$3 --param "$4" --batches 6 > $O/f16/$2.txt 2>&1; echo "f16 $2 rc=$? at ${SECONDS}s"; grep -E "csr|cusparse" $O/f16/$2.txt | grep -v "^#" | cut -c1-150 | head -8; }
f16 $PL5 pl500k-xhalf peer-cusparse-csr-h "xtype=half,kernel=warp;xtype=half,kernel=lean"
f16 $PL2 pl2m-xhalf peer-cusparse-csr-h "xtype=half,kernel=warp;xtype=half,kernel=lean"
f16 $CI circuit-xhalf peer-cusparse-csr-h "xtype=half,kernel=warp;xtype=half,kernel=lean"
f16 $PL2 pl2m-xfloat peer-cusparse-csr "kernel=warp;kernel=lean"
run() { # $1 new|off|old $2 matrix $3 tag $4 rep
  local env="" flag=""
  [[ $1 == off ]] && flag="--overlap off"
  [[ $1 == old ]] && { env=SPX_MULTI_PULL=0; flag="--overlap off"; }
  env $env timeout 70 $B/spx bench $2 --multi 4 --device cuda --spread --calls 20 --batches 5 $flag > $O/ab/$3-$1-$4.txt 2>&1
  echo "$3 $1 $4 rc=$? at ${SECONDS}s"; grep -A5 "^kind   halo_ms" $O/ab/$3-$1-$4.txt | grep -E "^(pcsr|pcsc|pcoo|rows) " | cut -c1-110
}
for v in new off old; do [ $SECONDS -gt 470 ] && break; run $v gen:rmat:scale=22,ef=16,sym=1 rmat22 1; done
for v in new off old; do [ $SECONDS -gt 470 ] && break; run $v gen:lap3d7:250 lap7 1; done
for v in new old; do [ $SECONDS -gt 520 ] && break; run $v gen:lap3d27:160 lap27 1; done
echo "end at ${SECONDS}s"
cd $OUT && tar czf ic.tar.gz ic && rm -rf ic
