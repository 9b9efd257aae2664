#!/usr/bin/env bash
# tsparse (fp16 and fp64) against gpu-rows and cuSPARSE's SpGEMM (fp32 and
# fp64, ALG1, ALG3 where ALG1 runs out of memory) on one GPU, in one process
# per matrix: `spx bench --op spgemm --device cuda --peers`, which times the
# whole A*A as a user calls it (whole_ms: plan + product; SpX's times include
# B's upload and C's copy to the host, cuSPARSE's keep A, B and C on the
# device) and the product on a prepared plan (run_ms), and checks every C
# against a long-double product. Before each, `spx spgemm M --stats --json`
# writes tSparse's Table 1 for the matrix (computed on the CPU).
#
# Matrices: the shared ones with nnz >= 100k, and lap3d27:40, a band of mean
# row 51 (100000 rows), R-MAT scale 16. The run stops starting matrices
# after BUDGET_S seconds (default 200) so that it stays under 4 minutes.
#
# From the repository root, after the GPU build:
#   cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-gpu -j16
#   bench/experiments/tsparse/run.sh            # writes to $OUT (or /tmp/tsparse-run)
# Environment: SPX (the spx program, default build-gpu/spx), SPX_MATRICES
# (default ../shared/matrices), OUT, BUDGET_S, BATCHES (timed batches, 5).
set -u
cd "$(dirname "$0")/../../.."
SPX=${SPX:-build-gpu/spx}
MATRICES=${SPX_MATRICES:-../shared/matrices}
OUTDIR=${OUT:-/tmp/tsparse-run}
BATCHES=${BATCHES:-5}
deadline=$((SECONDS + ${BUDGET_S:-200}))
mkdir -p "$OUTDIR"

if ! "$SPX" bench --help | grep -q -- '--op spmv|spgemm'; then
    echo "run.sh: $SPX bench has no --op spgemm" >&2
    exit 1
fi
if ! "$SPX" bench --list-peers | grep -q 'peer-cusparse-spgemm'; then
    echo "run.sh: no cuSPARSE SpGEMM peer in $SPX (a build with CUDA has it)" >&2
    exit 1
fi
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
    git rev-parse HEAD
    "$SPX" formats | grep spgemm
} > "$OUTDIR/machine.txt"

inputs=()
for m in NotreDame_www TSOPF_RS_b39_c30 bcsstk28 bfly c-62 cage11 cavity19 delaunay_n16 \
         sinc18 xenon1; do
    inputs+=("$MATRICES/$m.mtx")
done
inputs+=(gen:lap3d27:40 gen:banded:n=100000,bw=25 gen:rmat:scale=16)

for src in "${inputs[@]}"; do
    name=$(basename "$src" .mtx)
    name=${name#gen:}
    name=${name//[:=,]/_}
    left=$((deadline - SECONDS))
    if [ "$left" -le 0 ]; then
        echo "$name: not run (time budget)" | tee -a "$OUTDIR/skipped.txt"
        continue
    fi
    "$SPX" spgemm "$src" --stats --json > "$OUTDIR/$name.stats.json"
    timeout "$left" "$SPX" bench "$src" --op spgemm --device cuda --precision f64,f32,f16 \
        --peers --batches "$BATCHES" --json "$OUTDIR/$name.json" > "$OUTDIR/$name.txt" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || echo "$name: spx bench exit $rc (3: a check failed; see $name.txt)"
done

python3 bench/experiments/tsparse/summary.py "$OUTDIR" | tee "$OUTDIR/summary.md"
