#!/usr/bin/env bash
# reorder= on CUDA plans against cuSPARSE CSR (issues 14 and 20): SpX's
# csr, dasp and auto with reorder=none, degree and rcm (gather of x and
# scatter of y inside every timed call), cuSPARSE CSR in the same process, on
# the irregular matrices of issue 14 (R-MAT scale 18-21, the circuit-like and
# power-law generators, NotreDame_www, c-62, delaunay_n16, scaled rajat01 and
# c-62), fp64, then fp16 on two of them. From the repository root, after
#   cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-gpu -j16
# Results: $OUT/gpu-reorder (default bench/results/gpu-reorder-<date>):
# r<n>.json and r<n>.label per run, bench.txt, log.txt, summary.txt (per
# matrix: each format and ordering against cuSPARSE, the best ordering's
# gain, plan time). SPX_MATRICES: the shared .mtx folder. DEADLINE (seconds,
# default 300) skips runs that would start after it.
set -u -o pipefail
cd "$(dirname "$0")/../../.." || exit 1
B=${B:-build-gpu}
DIR=${OUT:+$OUT/gpu-reorder}
DIR=${DIR:-bench/results/gpu-reorder-$(date -u +%Y-%m-%d)}
DEADLINE=${DEADLINE:-300}
mkdir -p "$DIR"
LOG=$DIR/log.txt
M=${SPX_MATRICES:-/tmp/spx-matrices/matrices}
[[ -d $M ]] || { mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz; } \
    2>>"$LOG"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >"$LOG" 2>&1
git rev-parse --short HEAD >>"$LOG" 2>&1
SECONDS=0

RUNS="gen:rmat:scale=20,ef=16,sym=1@f64 gen:circuit:n=2000000,avg=5,long=20,longlen=200000@f64
      $M/NotreDame_www.mtx@f64 gen:rmat:scale=18,ef=16,sym=1@f64
      gen:powerlaw:n=2000000,avg=16,alpha=2.1@f64 $M/c-62.mtx@f64 $M/delaunay_n16.mtx@f64
      gen:scale:file=$M/rajat01.mtx,copies=256@f64 gen:scale:file=$M/NotreDame_www.mtx,copies=32@f64
      gen:rmat:scale=21,ef=16,sym=1@f64 gen:circuit:n=4000000,avg=4,long=12,longlen=1000000@f64
      gen:scale:file=$M/c-62.mtx,copies=20@f64
      gen:rmat:scale=20,ef=16,sym=1@f16 gen:circuit:n=2000000,avg=5,long=20,longlen=200000@f16"
n=0
for run in $RUNS; do
    m=${run%@*}
    p=${run##*@}
    if ((SECONDS > DEADLINE)); then echo "skipped (deadline): $run" | tee -a "$LOG"; continue; fi
    n=$((n + 1))
    echo "$m $p" >"$DIR/r$n.label"
    echo "== [$SECONDS s] $m $p" >>"$DIR/bench.txt"
    timeout 120 $B/spx bench "$m" --device cuda --peers --precision "$p" \
        --format csr,dasp,auto,peer-cusparse-csr --param "reorder=none;reorder=degree;reorder=rcm" \
        --batches 6 --json "$DIR/r$n.json" >>"$DIR/bench.txt" 2>>"$LOG"
    echo "run $n $m $p rc $? ${SECONDS}s" | tee -a "$LOG"
done

python3 - "$DIR" <<'PY' >"$DIR/summary.txt"
# Per matrix: median ms of each format and ordering, its ratio over cuSPARSE
# CSR (same process), and the plan time; the geometric mean over cuSPARSE of
# auto without an ordering and of the best of auto's orderings.
import math, sys
sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs
plain, best = [], []
print("%-44s %-4s %-22s %9s %7s %9s" % ("matrix", "prec", "format[set]", "ms", "x cusp", "prep_ms"))
for label, recs in load_runs(sys.argv[1]):
    ok = [r for r in recs if r.get("ok") and r.get("median_ms")]
    peer = next((r for r in ok if r["format"] == "peer-cusparse-csr"), None)
    if not peer:
        print("%-44s no cuSPARSE record" % label[:44])
        continue
    auto = {}
    for r in ok:
        if r is peer:
            continue
        ratio = peer["median_ms"] / r["median_ms"]
        name = "%s[%s]" % (r["format"], r.get("params", ""))
        print("%-44s %-4s %-22s %9.4f %7.2f %9.1f" % (label.split()[0][-44:], r["precision"],
              name[:22], r["median_ms"], ratio, r.get("prep_ms", 0)))
        if r["format"] == "auto":
            auto[r.get("params", "")] = ratio
    if "f64" in label and auto:
        plain.append(auto.get("reorder=none", min(auto.values())))
        best.append(max(auto.values()))
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print("fp64 auto over cuSPARSE, %d matrices: reorder=none %.2fx (lowest %.2fx); best ordering "
      "%.2fx (lowest %.2fx)" % (len(plain), gm(plain), min(plain or [0]), gm(best), min(best or [0])))
PY
cat "$DIR/summary.txt"
