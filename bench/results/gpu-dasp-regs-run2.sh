#!/bin/sh
# The second device call behind gpu-dasp-regs-2026-11-22.md, after the rule
# of regs=auto was narrowed to 48 registers (from the first call,
# gpu-dasp-regs-run.sh): build, test_dasp_mma, memcheck of it
# (SPX_TEST_QUICK=1), then the defaults (dasp, csr, cuSPARSE CSR) and
# regs=auto|54|48 in one process, three rounds in rotating order, on the
# L2-resident shared matrices and the tiny lap2d5:20. Writes under $OUT.
set -u
OUT=${OUT:-$PWD/out-regs2}
mkdir -p "$OUT/json"
T0=$(date +%s)
left() { echo $(( ${1:-290} - ($(date +%s) - T0) )); }
log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/log.txt"; }
export PATH=$PATH:/usr/local/cuda/bin
M=/tmp/regs-mtx
mkdir -p $M && tar -C $M -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=$M/matrices
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$OUT/log.txt" 2>&1
B=build-regs
log build
cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_WERROR=OFF \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1
cmake --build $B -j16 --target spx_cli test_dasp_mma >>"$OUT/build.txt" 2>&1 ||
    { log build failed; tail -30 "$OUT/build.txt"; exit 1; }
(cd $B && timeout 100 ./tests/test_dasp_mma) >"$OUT/test.txt" 2>&1
log "test rc=$? $(tail -1 "$OUT/test.txt")"
(cd $B && SPX_TEST_QUICK=1 timeout 100 compute-sanitizer --tool memcheck \
    --error-exitcode 9 ./tests/test_dasp_mma) >"$OUT/memcheck.txt" 2>&1
log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt")"
SMALL="xenon1 TSOPF_RS_b39_c30 cage11 NotreDame_www sinc18 c-62 delaunay_n16"
for m in $SMALL; do ./$B/spx convert "$SPX_MATRICES/$m.mtx" $M/$m.spx >/dev/null 2>&1; done
./$B/spx convert gen:lap2d5:20 $M/lap2d5_20.spx >/dev/null 2>&1
bench() { # file label params...
    f=$1 l=$2; shift 2
    ./$B/spx bench "$f" --device cuda --precision f64 --peers --calls 2000 "$@" \
        --json "$OUT/json/$l.json" >>"$OUT/bench.txt" 2>&1
}
for r in 1 2 3; do
    case $r in 1) S="regs=auto;regs=54;regs=48" ;; 2) S="regs=54;regs=48;regs=auto" ;;
        *) S="regs=48;regs=auto;regs=54" ;; esac
    log "bench round $r"
    for m in $SMALL lap2d5_20; do
        [ "$(left 270)" -gt 0 ] || break 2
        bench $M/$m.spx "$m@default$r" --format dasp,csr,peer-cusparse-csr
        bench $M/$m.spx "$m@sets$r" --format dasp,peer-cusparse-csr --param "$S"
    done
done
log done
tar -C "$OUT" -czf "$OUT/json.tar.gz" json && rm -rf "$OUT/json"
