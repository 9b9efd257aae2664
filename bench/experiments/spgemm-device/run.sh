#!/usr/bin/env bash
# GPU SpGEMM with A, B and C on the device (issue 13): AUTO, gpu-rows and
# tsparse (device operands, `--resident-only`: no host-boundary rows; tsparse
# also in f16 against cuSPARSE f32) against cuSPARSE's cusparseSpGEMM with its
# operands on the device (ALG1; ALG3 where ALG1 runs out of memory), one
# process per matrix, every C checked against the bench's long-double
# reference. Matrices: the shared ones with nnz >= 100k, lap3d27:40, a band
# of mean row 51, R-MAT 16 (ef 16), R-MAT 18 (ef 4: 868M products, 495M
# entries of C), cage11 scaled 8 times, R-MAT 19 (ef 2: 640M products) and
# R-MAT 20 (ef 1: 448M): up to about 10^9 products.
# The run stops starting matrices after BUDGET_S seconds (default 480) and
# gives each at most PER_S (default 150).
#
# From the repository root, after the GPU build:
#   cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-gpu -j16 --target spx_cli
#   bench/experiments/spgemm-device/run.sh     # writes to $OUT (or /tmp/spgemm-device)
# Environment: SPX (default build-gpu/spx), SPX_MATRICES (default
# ../shared/matrices), OUT, BUDGET_S, PER_S, BATCHES (default 5), SET (all,
# small: without the four largest, large: those four alone), NUMERIC=1 (f64
# alone, gpu-rows and AUTO with rows F[numeric] too: spx_spgemm_numeric,
# repeated products with one pattern, against peer-cusparse-spgemm-reuse).
# summary.md (summary.py): per matrix cuSPARSE's run_ms, each SpX format's
# (resident) and their ratios; geometric means and the lowest.
set -u
cd "$(dirname "$0")/../../.."
SPX=${SPX:-build-gpu/spx}
MATRICES=${SPX_MATRICES:-../shared/matrices}
OUTDIR=${OUT:-/tmp/spgemm-device}
BATCHES=${BATCHES:-5}
PER_S=${PER_S:-150}
deadline=$((SECONDS + ${BUDGET_S:-480}))
mkdir -p "$OUTDIR"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
    git rev-parse HEAD
} > "$OUTDIR/machine.txt"

inputs=()
for m in NotreDame_www TSOPF_RS_b39_c30 bcsstk28 bfly c-62 cage11 cavity19 delaunay_n16 \
         sinc18 xenon1; do
    inputs+=("$MATRICES/$m.mtx")
done
inputs+=(gen:lap3d27:40 gen:banded:n=100000,bw=25 gen:rmat:scale=16)
large=(gen:rmat:scale=18,ef=4,sym=1 "gen:scale:file=$MATRICES/cage11.mtx,copies=8"
       gen:rmat:scale=19,ef=2,sym=1 gen:rmat:scale=20,ef=1,sym=1)
case "${SET:-all}" in
small) ;;
large) inputs=("${large[@]}") ;;
*) inputs+=("${large[@]}") ;;
esac

n=0
for src in "${inputs[@]}"; do
    n=$((n + 1))
    left=$((deadline - SECONDS))
    if [ "$left" -le 0 ]; then
        echo "$src: not run (time budget)" | tee -a "$OUTDIR/skipped.txt"
        continue
    fi
    [ "$left" -gt "$PER_S" ] && left=$PER_S
    echo "$src" > "$OUTDIR/r$n.label"
    # tsparse (f64, and f16 against cuSPARSE f32) on the products of up to
    # 10^8; the four largest in f64 with gpu-rows and AUTO alone
    formats=gpu-rows,tsparse,auto,peer-cusparse-spgemm precisions=f64,f32,f16
    case "$src" in
    *scale=18*|*scale=19*|*scale=20*|*copies=8*) formats=gpu-rows,auto,peer-cusparse-spgemm precisions=f64 ;;
    esac
    numeric=()
    if [ "${NUMERIC:-0}" = 1 ]; then
        formats=gpu-rows,auto,peer-cusparse-spgemm,peer-cusparse-spgemm-reuse precisions=f64
        numeric=(--numeric)
    fi
    timeout "$left" "$SPX" bench "$src" --op spgemm --device cuda --precision "$precisions" \
        --peers --format "$formats" --resident-only "${numeric[@]}" --batches "$BATCHES" \
        --json "$OUTDIR/r$n.json" > "$OUTDIR/r$n.txt" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || echo "$src: spx bench exit $rc (124: past $left s; 3: a check failed)" |
        tee -a "$OUTDIR/skipped.txt"
done

python3 bench/experiments/spgemm-device/summary.py "$OUTDIR" | tee "$OUTDIR/summary.md"
