#!/bin/sh
# The one device call behind gpu-dasp-regs-2026-11-22.md: build for sm_90,
# registers and spills of the dasp kernels, test_dasp_mma, then `spx bench` of
# dasp with each register cap (regs=54|48|40|auto in one process, against the
# cuSPARSE CSR peer of the same process) and of the defaults (dasp, csr, peer)
# on 7 shared and 3 generated matrices (lap2d5:20: the per-call floor), then
# compute-sanitizer memcheck of test_dasp_mma (SPX_TEST_QUICK=1), then a
# second round of the sets on the L2-resident matrices in the reverse order.
# Run from the repository root with the shared matrices in
# .matrices/matrices.tar.xz; writes at most 8 files under $OUT.
# As run: regs=auto then took 48 or 40 registers wherever a cap saved a wave
# (40 on xenon1); it was narrowed to 48 after this run (gpu-dasp-regs-run2.sh).
set -u
OUT=${OUT:-$PWD/out-regs}
mkdir -p "$OUT"
T0=$(date +%s)
left() { echo $(( ${1:-290} - ($(date +%s) - T0) )); }
log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/log.txt"; }

export PATH=$PATH:/usr/local/cuda/bin
M=/tmp/regs-mtx
mkdir -p $M && tar -C $M -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=$M/matrices
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >>"$OUT/log.txt" 2>&1

log build
B=build-regs
cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_WERROR=OFF \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1
cmake --build $B -j16 --target spx_cli test_dasp_mma >>"$OUT/build.txt" 2>&1 ||
    { log build failed; tail -30 "$OUT/build.txt"; exit 1; }
OBJ=$(find $B -name 'dasp_kernels.cu.o' | head -1)
cuobjdump -res-usage "$OBJ" 2>&1 | grep -A1 dasp_main >"$OUT/res-usage.txt"

log test_dasp_mma
(cd $B && timeout 100 ./tests/test_dasp_mma) >"$OUT/test.txt" 2>&1
log "test rc=$? $(tail -1 "$OUT/test.txt")"

SMALL="xenon1 TSOPF_RS_b39_c30 cage11 NotreDame_www sinc18 c-62 delaunay_n16"
GEN="lap2d5:20 lap3d27:96 rmat:scale=20,ef=16,sym=1"
log convert
for m in $SMALL; do ./$B/spx convert "$SPX_MATRICES/$m.mtx" $M/$m.spx >/dev/null 2>&1; done
for g in $GEN; do ./$B/spx convert "gen:$g" $M/$(echo $g | tr ':,=' '___').spx >/dev/null 2>&1; done
mkdir -p "$OUT/json"
bench() { # file label calls params...
    f=$1 l=$2 c=$3; shift 3
    ./$B/spx bench "$f" --device cuda --precision f64 --peers $c "$@" \
        --json "$OUT/json/$l.json" >>"$OUT/bench.txt" 2>&1
}
calls() { case $1 in lap3d27* | rmat*) echo "" ;; *) echo "--calls 2000" ;; esac; }
SETS="regs=54;regs=48;regs=40;regs=auto"
log bench round 1
for m in $SMALL lap2d5_20 lap3d27_96 rmat_scale_20_ef_16_sym_1; do
    [ "$(left 200)" -gt 0 ] || break
    bench $M/$m.spx "$m@default" "$(calls $m)" --format dasp,csr,peer-cusparse-csr
    bench $M/$m.spx "$m@sets1" "$(calls $m)" --format dasp,peer-cusparse-csr --param "$SETS"
done

log memcheck
(cd $B && SPX_TEST_QUICK=1 timeout "$(left 250)" compute-sanitizer --tool memcheck \
    --error-exitcode 9 ./tests/test_dasp_mma) >"$OUT/memcheck.txt" 2>&1
log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt") $(tail -1 "$OUT/memcheck.txt")"

log bench round 2
for m in $SMALL; do
    [ "$(left 280)" -gt 0 ] || break
    bench $M/$m.spx "$m@sets2" "--calls 2000" --format dasp,peer-cusparse-csr \
        --param "regs=auto;regs=40;regs=48;regs=54"
done
log done
tar -C "$OUT" -czf "$OUT/json.tar.gz" json && rm -rf "$OUT/json"
