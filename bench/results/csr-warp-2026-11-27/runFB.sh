#!/usr/bin/env bash
# Device run FB (H100 named), issue 14: dasp's hot-column condition (AUTO picks csr, not dasp, on
# the power-law generator). (1) tests: test_gpu, test_auto_dasp, test_auto_order (+ shared part);
# (2) in one process per matrix: auto, dasp, csr and cuSPARSE CSR (fp16: also csr-h, x in half)
# on the power-law generator at 500k, 1M (mean 20) and 2M rows and R-MAT 18 and 20 (random values).
O=$OUT/fb; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
mkdir -p /tmp/spx-matrices && tar xJf .matrices/matrices.tar.xz -C /tmp/spx-matrices
export SPX_MATRICES=/tmp/spx-matrices/matrices
B=build-gpu
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli test_gpu test_auto_dasp test_auto_order; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf fb.tar.gz fb; exit 1; }
echo "built at ${SECONDS}s"
for t in test_auto_dasp test_auto_order; do $B/tests/$t > $O/$t.txt 2>&1; echo "$t rc=$? $(tail -1 $O/$t.txt)"; done
SPX_TEST_PART=shared $B/tests/test_auto_order > $O/test_auto_order_shared.txt 2>&1; echo "test_auto_order shared rc=$? $(tail -1 $O/test_auto_order_shared.txt)"
i=0
for m in gen:powerlaw:n=500000,avg=16,alpha=2.1 gen:powerlaw:n=1000000,avg=20,alpha=2.1 gen:powerlaw:n=2000000,avg=16,alpha=2.1 \
         gen:rmat:scale=18,ef=16,sym=1,values=random gen:rmat:scale=20,ef=16,sym=1,values=random; do
  i=$((i+1))
  timeout 150 $B/spx bench $m --device cuda --peers --precision f64,f16 --format auto,dasp,csr,peer-cusparse-csr,peer-cusparse-csr-h > $O/b$i.txt 2>&1
  echo "$m rc=$? at ${SECONDS}s"
  grep -E "^\S+ +(auto|dasp|csr|peer)" $O/b$i.txt | awk '{print $2, $4, $6}' | tr '\n' ';'; echo
done
timeout 240 $B/tests/test_gpu > $O/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(tail -1 $O/test_gpu.txt) at ${SECONDS}s"
echo "end at ${SECONDS}s"
cd $OUT && tar czf fb.tar.gz fb && rm -rf fb
