#!/usr/bin/env bash
# CPU SpGEMM against the CPU peers that have one (issue 13's last goal: best
# SpX at least 1.3x the best peer on the 2-core machine): C = A*A with SpX's
# gustavson and auto beside librsb, SuiteSparse:GraphBLAS (GrB_mxm) and Eigen,
# `spx bench M --op spgemm --device cpu --peers`, one process per matrix, on
# the shared matrices of 100k+ nonzeros and generated ones (3D 27-point
# stencil, R-MAT, banded with mean row > 42, a scaled real matrix). Every C is
# checked against the bench's reference product. From the repository root
# after a build in $B (default build): bench/experiments/spgemm-cpu/run.sh.
# Results: $OUT (default bench/results/spgemm-cpu-<date>): r<n>.json,
# r<n>.label, bench.txt, summary.txt (per matrix: SpX's best, the best peer,
# their ratio; the geometric mean and the lowest).
set -u -o pipefail
cd "$(dirname "$0")/../../.." || exit 1
B=${B:-build}
DIR=${OUT:-bench/results/spgemm-cpu-$(date -u +%Y-%m-%d)}
THREADS=${THREADS:-2}
mkdir -p "$DIR"
. bench/experiments/axt-cuda/matrices.sh
{ lscpu | grep -E "Model name|^CPU\(s\)|L2|L3"; uptime; git rev-parse --short HEAD; } >"$DIR/machine.txt" 2>&1
n=0
for m in $(shared_big) gen:lap3d27:40 gen:banded:n=100000,bw=25 gen:rmat:scale=16,ef=16,sym=1 \
         $(scaled cage11 8); do
    n=$((n + 1))
    echo "$m" >"$DIR/r$n.label"
    echo "== $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $m" >>"$DIR/bench.txt"
    timeout 300 "$B/spx" bench "$m" --op spgemm --device cpu --threads "$THREADS" --peers \
        --format gustavson,auto,peer-librsb-spgemm,peer-graphblas-spgemm,peer-eigen-spgemm \
        --batches 3 --json "$DIR/r$n.json" >>"$DIR/bench.txt" 2>>"$DIR/bench.err" ||
        echo "run $n ($m) exit $?" | tee -a "$DIR/bench.err"
done
python3 - "$DIR" <<'PY' >"$DIR/summary.txt"
# run_ms: the product on a prepared plan; whole_ms: plan + product, as one
# call of a user. Per matrix the fastest SpX format and the fastest peer by
# each measure, and their ratio (peer time / SpX time).
import math, sys
sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
ratios = {"run_ms": [], "whole_ms": []}
print("%-30s %11s %-7s %-22s %8s %8s %6s %8s %8s %6s" % ("matrix", "products", "spx",
      "best peer (run)", "spx run", "peer run", "ratio", "spx all", "peer all", "ratio"))
for label, recs in load_runs(sys.argv[1]):
    ok = [r for r in recs if r.get("ok") and r.get("run_ms")]
    spx = [r for r in ok if not r["format"].startswith("peer-")]
    peers = [r for r in ok if r["format"].startswith("peer-")]
    if not spx or not peers:
        print("%-30s incomplete" % label.split("/")[-1][:30])
        continue
    row = []
    for key in ("run_ms", "whole_ms"):
        s = min(spx, key=lambda r: r[key])
        p = min(peers, key=lambda r: r[key])
        ratios[key].append(p[key] / s[key])
        row.append((s, p, ratios[key][-1]))
    (s, p, q), (s2, p2, q2) = row
    print("%-30s %11d %-7s %-22s %8.2f %8.2f %6.2f %8.2f %8.2f %6.2f" % (
        label.split("/")[-1][:30], s.get("products", 0), s["format"][:7], p["format"][5:],
        s["run_ms"], p["run_ms"], q, s2["whole_ms"], p2["whole_ms"], q2))
for key, v in ratios.items():
    if v:
        print("best SpX over the best peer by %s: geometric mean %.2fx over %d matrices, lowest "
              "%.2fx" % (key, gm(v), len(v), min(v)))
PY
cat "$DIR/summary.txt"
