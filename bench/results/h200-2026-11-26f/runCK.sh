#!/usr/bin/env bash
# Device run CK (H100 named): where gpu-rows' time goes on R-MAT 20 (ef 1) squared, device to
# device (SPX_SPGEMM_TRACE: each phase waited for and timed), one product after the check.
O=$OUT/ck; mkdir -p $O
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ck.tar.gz ck; exit 1; }
echo "built at ${SECONDS}s"
SPX_SPGEMM_TRACE=1 timeout 200 b/spx bench gen:rmat:scale=20,ef=1,sym=1 --op spgemm --device cuda --precision f64 --format gpu-rows --resident-only --batches 1 --calls 1 > $O/trace.txt 2>&1; echo "rc=$? at ${SECONDS}s"
grep "spgemm trace" $O/trace.txt | tail -14
cd $OUT && tar czf ck.tar.gz ck && rm -rf ck
