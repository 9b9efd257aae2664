#!/bin/sh
# One device call for DASP: SASS check, tests, compute-sanitizer, timing
# against cuSPARSE. Expects build-dasp/ (built with -DSPX_CUDA=ON, sm_90, plus
# build-dasp/dasp_vs_cusparse, see its header) and .matrices/matrices.tar.xz;
# logs go to $OUT (or /tmp/dasp-out).
#   sh bench/dasp/run_gpu.sh [test] [conf] [sanitize] [bench] [bench16] [thr=N,loop=N,pass2=N]
OUT=${OUT:-/tmp/dasp-out}
B=$(pwd)/build-dasp
mkdir -p /tmp/mtx "$OUT" && tar -C /tmp/mtx -xJf .matrices/matrices.tar.xz
M=/tmp/mtx/matrices
export SPX_MATRICES=$M
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
echo "SASS: $(cuobjdump -sass "$B/libspx.a" | grep -c DMMA) DMMA, $(cuobjdump -sass "$B/libspx.a" | grep -c HMMA) HMMA"
BIG="$M/xenon1.mtx $M/TSOPF_RS_b39_c30.mtx $M/cage11.mtx $M/NotreDame_www.mtx $M/sinc18.mtx
 $M/c-62.mtx $M/delaunay_n16.mtx $M/bcsstk28.mtx $M/bfly.mtx $M/cavity19.mtx
 lap3d27:96 lap3d7:128 rmat:scale=20,ef=16,sym=1,seed=1 powerlaw:n=1e6,avg=16,alpha=2.1,seed=1
 circuit:n=1e6,avg=4,long=8,longlen=1e5,seed=1"
for step in "$@"; do
    case $step in
    test) (cd tests && timeout 240 "$B/tests/test_dasp") > "$OUT/test_dasp.log" 2>&1
          echo "test_dasp rc=$?"; tail -25 "$OUT/test_dasp.log" ;;
    conf) (cd tests && timeout 240 "$B/tests/test_conformance") > "$OUT/conformance.log" 2>&1
          echo "conformance rc=$?"; grep -i dasp "$OUT/conformance.log" | head; tail -2 "$OUT/conformance.log" ;;
    sanitize) (cd tests && SPX_MATRICES=/none timeout 240 compute-sanitizer --tool memcheck \
              --error-exitcode 3 "$B/tests/test_dasp") > "$OUT/sanitizer.log" 2>&1
          echo "memcheck rc=$?"; tail -6 "$OUT/sanitizer.log" ;;
    bench) timeout 300 "$B/dasp_vs_cusparse" -p f64 -n 200 $BIG 2>&1 | tee "$OUT/bench_f64.log" ;;
    thr=*|loop=*|pass2=*) timeout 300 "$B/dasp_vs_cusparse" -p f64 -n 200 -o "$step" $BIG 2>&1 |
          tee "$OUT/bench_$(echo "$step" | tr '=,' '__').log" ;;
    bench16) timeout 200 "$B/dasp_vs_cusparse" -p f16 -n 200 $BIG 2>&1 | tee "$OUT/bench_f16.log" ;;
    esac
done
