#!/bin/sh
# The one device call behind gpu-dasp-mma-2026-11-22.md: build for sm_90,
# count the DMMA shapes in the SASS of each dasp kernel, run test_dasp_mma,
# then `spx bench` of dasp (each kernel variant), csr and the cuSPARSE CSR
# peer on 8 matrices, then compute-sanitizer memcheck of test_dasp_mma
# (SPX_TEST_QUICK=1). Run from the repository root with the shared matrices
# in .matrices/matrices.tar.xz; writes under $OUT (default ./out-mma).
# As run: the medb=8 and wpb=8 variants were removed after this run (now
# refused as unknown params, so their bench rows would fail).
set -u
OUT=${OUT:-$PWD/out-mma}
mkdir -p "$OUT"
T0=$(date +%s)
left() { echo $(( ${1:-280} - ($(date +%s) - T0) )); }
log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/log.txt"; }

export PATH=$PATH:/usr/local/cuda/bin
M=/tmp/mma-mtx
mkdir -p $M && tar -C $M -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=$M/matrices
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$OUT/gpu.txt" 2>&1

log build
cmake -S . -B build-mma -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_WERROR=OFF \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1
cmake --build build-mma -j16 --target spx_cli test_dasp_mma >>"$OUT/build.txt" 2>&1 ||
    { log build failed; tail -30 "$OUT/build.txt"; exit 1; }

log sass
OBJ=$(find build-mma -name 'dasp_kernels.cu.o' | head -1)
cuobjdump -sass "$OBJ" 2>/dev/null | awk '/Function : /{f=$3} /DMMA/{for(i=1;i<=NF;i++) if($i ~ /^DMMA/) c[f" "$i]++}
    END{for(k in c) print c[k], k}' | sort -k2 >"$OUT/sass-dmma.txt"
cuobjdump -res-usage "$OBJ" 2>/dev/null | grep -A1 dasp_main >"$OUT/res-usage.txt"

log test_dasp_mma
(cd build-mma && timeout 90 ./tests/test_dasp_mma) >"$OUT/test_dasp_mma.txt" 2>&1
log "test rc=$? $(tail -1 "$OUT/test_dasp_mma.txt")"

VARIANTS="default mma=8 mma=16 medb=8 wpb=8 mma=16,medb=8 loop=1 loop=2 loop=4"
SMALL="xenon1 TSOPF_RS_b39_c30 cage11 NotreDame_www sinc18 c-62"
LARGE="lap3d27_96 rmat_20"
log convert
for m in $SMALL; do ./build-mma/spx convert "$SPX_MATRICES/$m.mtx" $M/$m.spx >/dev/null 2>&1; done
./build-mma/spx convert gen:lap3d27:96 $M/lap3d27_96.spx >/dev/null 2>&1
./build-mma/spx convert gen:rmat:scale=20,ef=16,sym=1 $M/rmat_20.spx >/dev/null 2>&1
bench() { # matrix-file variant name calls
    p=""; [ "$2" = default ] || p="--param $2"
    c=""; [ -n "$4" ] && c="--calls $4"
    ./build-mma/spx bench "$1" --device cuda --precision f64 --peers \
        --format dasp,csr,peer-cusparse-csr $p $c --json "$OUT/json/$3@$2.json" \
        >>"$OUT/bench.txt" 2>&1
}
mkdir -p "$OUT/json"
log bench small
for v in $VARIANTS; do
    for m in $SMALL; do
        [ "$(left 250)" -gt 0 ] || break 2
        bench $M/$m.spx "$v" "$m" 2000
    done
done
log bench large
for v in $VARIANTS; do
    for m in $LARGE; do
        [ "$(left 250)" -gt 0 ] || break 2
        bench $M/$m.spx "$v" "$m" ""
    done
done

log memcheck
(cd build-mma && SPX_TEST_QUICK=1 timeout "$(left 290)" compute-sanitizer --tool memcheck \
    --error-exitcode 9 ./tests/test_dasp_mma) >"$OUT/memcheck.txt" 2>&1
log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt")"
