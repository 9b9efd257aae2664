#!/usr/bin/env bash
# AXC and the four AXT variants on CUDA against SpX's csr, sell and dasp and
# cuSPARSE CSR (issue 17), on the lent Hopper machine, from the repository
# root after
#   cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-gpu -j16
# (shared matrices under $SPX_MATRICES, or .matrices/matrices.tar.xz carried).
#
# Runs, in this order, each one `spx bench` process (ratios within a process):
#   1. fp64, formats csr,sell,dasp,axc,axt-uh1,axt-uh,axt-ch1,axt-ch and the
#      peers peer-cusparse-csr, peer-cusparse-csr2 (defaults: x=live,
#      combine=ordered) on generated stencils and scaled or generated matrices
#      of 3M-60M nonzeros, then on the shared matrices with >= 100k nonzeros;
#   2. what the ordered combine costs: --param "combine=ordered;combine=atomic"
#      on the four AXT variants, and the paper's layout: --param
#      "x=live;x=refresh" on all five (csr, run by the bench in every process,
#      takes neither key: its row fails with SPX_ERR_BAD_PARAM, as expected);
#   3. sweeps of th (axt-uh, axt-ch; 9 and 27 fit lap3d27's rows of 27 without
#      padding) and bs (axt-ch1) on two matrices;
#   4. fp32 on two stencils.
# Runs that would start after SPX_AXT_DEADLINE seconds (default 210) are
# skipped, so the whole stays under 4 minutes on an H100.
# Output: $OUT/axt-cuda/ when OUT is set, else bench/results/axt-cuda-<date>/:
# one JSON per run, bench.txt (the tables), bench.err, summary.txt (per
# matrix: GFLOP/s, x cuSPARSE CSR, stored bytes per nonzero of each format;
# the geometric mean of the best AXT variant over cuSPARSE CSR; ordered
# against atomic, refresh against live).
set -u -o pipefail
cd "$(dirname "$0")/../../.." || exit 1

BUILD=${SPX_BUILD:-build-gpu}
SPX=$BUILD/spx
DEADLINE=${SPX_AXT_DEADLINE:-210}
DATE=$(date -u +%Y-%m-%d)
DIR=${OUT:+$OUT/axt-cuda}
DIR=${DIR:-bench/results/axt-cuda-$DATE}
mkdir -p "$DIR"
FMTS=csr,sell,dasp,axc,axt-uh1,axt-uh,axt-ch1,axt-ch,peer-cusparse-csr,peer-cusparse-csr2
AXT4=axt-uh1,axt-uh,axt-ch1,axt-ch
AXT5=axc,$AXT4

. bench/experiments/axt-cuda/matrices.sh
[[ -x "$SPX" ]] || { echo "no $SPX: build first (see the top of this file)"; exit 1; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  git rev-parse --short HEAD; date -u; } >"$DIR/machine.txt" 2>&1

n=0
run() { # label input precision formats [params]
    n=$((n + 1))
    if ((SECONDS > DEADLINE)); then
        echo "skipped (past ${DEADLINE}s): $*" | tee -a "$DIR/bench.err"
        return
    fi
    echo "== $(date -u +%T) [$SECONDS s] $*" | tee -a "$DIR/bench.txt"
    echo "$1" >"$DIR/r$n.label"
    timeout 100 "$SPX" bench "$2" --device cuda --peers --precision "$3" --format "$4" \
        ${5:+--param "$5"} --json "$DIR/r$n.json" >>"$DIR/bench.txt" 2>>"$DIR/bench.err"
    local rc=$? params=${5:-}
    # rc 1 in --param runs: csr's row refuses the AXT keys (expected)
    ((rc == 0 || (rc == 1 && ${#params} > 0))) || echo "run $n ($*) exit $rc" | tee -a "$DIR/bench.err"
}

LARGE="gen:lap3d7:100 gen:lap3d27:64 gen:lap3d27:96 gen:lap3d7:200
       $(scaled xenon1 10) $(scaled NotreDame_www 20)
       gen:rmat:scale=20,ef=16,sym=1 gen:circuit:n=2000000,avg=5,long=20,longlen=200000"
for m in $LARGE; do run main "$m" f64 "$FMTS"; done
for f in $(shared_big); do run main "$f" f64 "$FMTS"; done
for m in gen:lap3d27:96 gen:rmat:scale=20,ef=16,sym=1 $(scaled xenon1 10) \
         "$MAT/xenon1.mtx" "$MAT/NotreDame_www.mtx"; do
    [[ "$m" == gen:* || -f "$m" ]] || continue
    run combine "$m" f64 "$AXT4" "combine=ordered;combine=atomic"
    run xmode "$m" f64 "$AXT5" "x=live;x=refresh"
done
for m in gen:lap3d27:96 gen:rmat:scale=20,ef=16,sym=1; do
    run th "$m" f64 axt-uh,axt-ch "th=2;th=4;th=8;th=9;th=16;th=27"
    run bs "$m" f64 axt-ch1 "bs=128;bs=256;bs=512;bs=1024"
done
for m in gen:lap3d7:200 gen:lap3d27:96; do run f32 "$m" f32 "$FMTS"; done

python3 - "$DIR" <<'PY' >"$DIR/summary.txt"
# Per run: each format's GFLOP/s, its ratio to peer-cusparse-csr and its
# stored bytes per nonzero; the best AXT variant over cuSPARSE CSR (geometric
# mean over the main runs); ordered/atomic and refresh/live time ratios.
import math, os, sys
sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs
d = sys.argv[1]
axt = ["axc", "axt-uh1", "axt-uh", "axt-ch1", "axt-ch"]
runs = load_runs(d)
def name(r):
    return r["format"] + ("[" + r["params"] + "]" if r.get("params") else "")
best_axt, wins = [], {}
for label, recs in runs:
    ok = [r for r in recs if r.get("ok") and r.get("median_ms")]
    if not ok:
        continue
    m, nnz = ok[0]["matrix"], ok[0]["nnz"]
    peer = next((r for r in ok if r["format"] == "peer-cusparse-csr"), None)
    print("## %s  %s  (%s, nnz %d)" % (label, os.path.basename(m), ok[0]["precision"], nnz))
    print("  %-34s %9s %8s %7s %9s" % ("format", "ms", "GFLOP/s", "x cusp", "B/nnz"))
    for r in ok:
        x = peer["median_ms"] / r["median_ms"] if peer else float("nan")
        bpn = (r.get("bytes") or 0) / nnz if nnz else 0
        print("  %-34s %9.4f %8.1f %7.2f %9.2f" % (name(r), r["median_ms"], r["gflops"], x, bpn))
    if label == "main" and peer:
        a = [r for r in ok if r["format"] in axt]
        if a:
            b = min(a, key=lambda r: r["median_ms"])
            best_axt.append(peer["median_ms"] / b["median_ms"])
            fastest = min(ok, key=lambda r: r["median_ms"])
            wins[os.path.basename(m)] = (b["format"], fastest["format"])
    if label in ("combine", "xmode"):
        for f in axt:
            t = {r.get("params", ""): r["median_ms"] for r in ok if r["format"] == f}
            if label == "combine" and "combine=ordered" in t and "combine=atomic" in t:
                print("  %s: ordered / atomic time %.3f" % (f, t["combine=ordered"] / t["combine=atomic"]))
            if label == "xmode" and "x=live" in t and "x=refresh" in t:
                print("  %s: refresh / live time %.3f" % (f, t["x=refresh"] / t["x=live"]))
    print()
if best_axt:
    g = math.exp(sum(math.log(v) for v in best_axt) / len(best_axt))
    print("best AXT variant over peer-cusparse-csr, geometric mean of %d main runs: %.3fx" % (len(best_axt), g))
    for m, (b, f) in wins.items():
        print("  %-40s best AXT %-8s fastest overall %s" % (m, b, f))
PY
echo "results in $DIR (summary.txt)"
