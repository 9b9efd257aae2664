#!/usr/bin/env bash
# Device run BB (1 GPU), HEAD afeb0e4+: AUTO for a device A (tsparse from 40 a tile) checked by
# test_gpu_spgemm_device and the band; the hot-column split experiment (issues 14/20; memcheck on
# a small R-MAT first); spgemm-device SET=large (R-MAT 18 ef 4, cage11 x8).
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/bb; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_BUILD_EXPERIMENTS=ON && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device hot_split; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
timeout 120 b/tests/test_gpu_spgemm_device > $O/test_gpu_spgemm_device.log 2>&1; echo "test rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_spgemm_device.log
timeout 60 b/spx bench gen:banded:n=100000,bw=25 --op spgemm --device cuda --precision f64 --peers --format gpu-rows,tsparse,auto,peer-cusparse-spgemm --resident-only --batches 5 > $O/banded.txt 2>&1; echo "banded rc=$? at ${SECONDS}s"; grep -E "resident|peer" $O/banded.txt | cut -c1-120
timeout 60 compute-sanitizer --error-exitcode 9 b/bench/experiments/hot_split gen:rmat:scale=14,ef=16,sym=1 --k 0,512,2048 --calls 3 > $O/hot-memcheck.log 2>&1; echo "hot memcheck rc=$? at ${SECONDS}s"; tail -2 $O/hot-memcheck.log
OUT_DIR=$O/hot DEADLINE=130 bash bench/experiments/hot-split/run.sh b/bench/experiments/hot_split > $O/hot.log 2>&1; echo "hot-split rc=$? at ${SECONDS}s"
cat $O/hot/log.txt | tail -12
for f in $O/hot/rmat20.txt $O/hot/notredame-x32.txt; do grep -v "^RESULT" $f | tail -40; done
left=$((580 - SECONDS))
SPX=b/spx OUT=$O/dev SET=large BUDGET_S=$((left - 10)) PER_S=$((left / 2)) bash bench/experiments/spgemm-device/run.sh > $O/dev.log 2>&1
echo "spgemm-device large at ${SECONDS}s"; cat $O/dev/summary.md; cat $O/dev/skipped.txt 2>/dev/null
echo "end at ${SECONDS}s"
cd $OUT && tar czf bb.tar.gz bb && rm -rf bb
