#!/bin/sh
# The device call behind gpu-pdl-2026-11-22.md: build; test_gpu (with the
# back-to-back chain, pdl on against off) and test_dasp; memcheck of test_gpu
# (SPX_TEST_QUICK=1); gpu-pdl-stress.c (20 chains of 40 calls per set, pdl=on
# against pdl=off, bit for bit); the order of x's loads and the wait (ACQBULK)
# in the SASS of csr's stream kernel; then csr and dasp with pdl=on and pdl=off in one process
# beside cuSPARSE, two rounds in swapped order, on the shared matrices of
# 100k+ nonzeros (fp64; fp16 where the values fit half), the tiny lap2d5:20
# (the per-call floor) and lap3d27:96 (HBM-bound). Writes under $OUT.
set -u
OUT=${OUT:-$PWD/out-pdl}
mkdir -p "$OUT/json"
T0=$(date +%s)
log() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$OUT/log.txt"; }
export PATH=$PATH:/usr/local/cuda/bin
M=/tmp/pdl-mtx
mkdir -p $M && tar -C $M -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=$M/matrices
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$OUT/log.txt" 2>&1
B=build-pdl-dev
log build
cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_WERROR=OFF \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1
cmake --build $B -j16 --target spx_cli spx_static test_gpu test_dasp >>"$OUT/build.txt" 2>&1 ||
    { log build failed; tail -30 "$OUT/build.txt"; exit 1; }
gcc -O2 -fopenmp -Iinclude -Isrc bench/results/gpu-pdl-stress.c $B/libspx.a \
    -L/usr/local/cuda/lib64 -lcudart -lz -lm -lstdc++ -o $B/stress >>"$OUT/build.txt" 2>&1
(./$B/stress 20000 20 && ./$B/stress 3000 20) >"$OUT/stress.txt" 2>&1
log "stress rc=$?"
cat "$OUT/stress.txt" >>"$OUT/log.txt"
cuobjdump -sass "$(find $B -name csr_spmv.cu.o | head -1)" 2>/dev/null |
    awk '/Function : _Z17csr_stream_kernelIddLi1024/ {p = 1; next} /Function : / {p = 0} p' |
    grep -E "LDG|LD\.|ACQBULK|BAR\.SYNC|EXIT" >"$OUT/sass-stream-f64-1024.txt"
log "sass: $(grep -c . "$OUT/sass-stream-f64-1024.txt") lines of loads, waits and barriers"
(cd $B && timeout 150 ./tests/test_gpu) >"$OUT/test.txt" 2>&1
log "test_gpu rc=$? $(tail -1 "$OUT/test.txt")"
(cd $B && timeout 120 ./tests/test_dasp) >>"$OUT/test.txt" 2>&1
log "test_dasp rc=$? $(tail -1 "$OUT/test.txt")"
(cd $B && SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck \
    --error-exitcode 9 ./tests/test_gpu) >"$OUT/memcheck.txt" 2>&1
log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt")"
bench() { # input precision formats sets label
    timeout 60 ./$B/spx bench "$1" --device cuda --precision "$2" --peers --format "$3" \
        --param "$4" --json "$OUT/json/$5.json" >>"$OUT/bench.txt" 2>>"$OUT/bench.err" ||
        log "bench $5 failed"
}
F64="csr,dasp,peer-cusparse-csr"
F16="csr,dasp,peer-cusparse-csr-h"
SHARED="bcsstk28 bfly c-62 cage11 cavity19 delaunay_n16 NotreDame_www sinc18
        TSOPF_RS_b39_c30 xenon1"
HALF="TSOPF_RS_b39_c30 cage11 NotreDame_www bfly cavity19 delaunay_n16"
bench gen:lap2d5:20 f64 "$F64" "pdl=on;pdl=off" tiny-f64
for r in 1 2; do
    [ $r = 1 ] && S="pdl=on;pdl=off" || S="pdl=off;pdl=on"
    for m in $SHARED; do
        log "f64 $m round $r"
        bench "$M/matrices/$m.mtx" f64 "$F64" "$S" "$m-f64-$r"
    done
done
for m in $HALF; do
    log "f16 $m"
    bench "$M/matrices/$m.mtx" f16 "$F16" "pdl=on;pdl=off" "$m-f16"
done
bench gen:lap3d27:96 f64 "$F64" "pdl=on;pdl=off" lap3d27-f64
log done
