#!/usr/bin/env bash
# The CPU half of issue 17 on the GPU machine's host (16-core AVX-512 Xeon):
# every AXC / AXT variant (x=live and, as bench variants, x=refresh) and sell
# against csr and the CPU peers librsb, SuiteSparse:GraphBLAS and Eigen, 16
# threads, one `spx bench` process per matrix.
#
# The peers come as the Debian packages in .peers/debs (fetch.sh, carried
# with the tree): unpacked here with dpkg -x into .peers/root (never into /),
# found by CMake through CMAKE_PREFIX_PATH=.peers/root/usr, and at run time
# through LD_LIBRARY_PATH. The build is its own (build-cpu16, CUDA off).
# Matrices: generated stencils, scaled and generated matrices up to 60M
# nonzeros, then the shared ones with >= 100k nonzeros (from $SPX_MATRICES or
# .matrices/matrices.tar.xz). Runs starting after SPX_CPU16_DEADLINE seconds
# (default 480) are skipped. Output: $OUT/axt-cpu16/ or
# bench/results/axt-cpu16-<date>/: r*.json, bench.txt, summary.txt, machine.txt.
set -u -o pipefail
cd "$(dirname "$0")/../../.." || exit 1
ROOT=$PWD/.peers/root
BUILD=build-cpu16
DEADLINE=${SPX_CPU16_DEADLINE:-480}
THREADS=${SPX_CPU16_THREADS:-16}
DIR=${OUT:+$OUT/axt-cpu16}
DIR=${DIR:-bench/results/axt-cpu16-$(date -u +%Y-%m-%d)}
mkdir -p "$DIR"

if [[ ! -d "$ROOT/usr/lib" ]]; then
    ls .peers/debs/*.deb >/dev/null 2>&1 || { echo "no .peers/debs: run fetch.sh and carry .peers"; exit 1; }
    mkdir -p "$ROOT"
    for d in .peers/debs/*.deb; do
        if command -v dpkg-deb >/dev/null; then
            dpkg-deb -x "$d" "$ROOT"
        else # ar and tar alone
            (t=$(mktemp -d) && cd "$t" && ar x "$OLDPWD/$d" && tar -xf data.tar.* -C "$ROOT" && rm -rf "$t")
        fi
    done
fi
export LD_LIBRARY_PATH=$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cmake -S . -B $BUILD -DSPX_CUDA=OFF -DSPX_WERROR=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$ROOT/usr" >"$DIR/configure.txt" 2>&1 &&
    cmake --build $BUILD -j"$(nproc)" --target spx_cli >"$DIR/build.txt" 2>&1 ||
    { tail -30 "$DIR/build.txt"; exit 1; }
grep "bench peer" "$DIR/configure.txt"
PEERS=$(grep -c "bench peer" "$DIR/configure.txt")
((PEERS == 3)) || echo "WARNING: $PEERS of 3 CPU peers found (configure.txt)"

. bench/experiments/axt-cuda/matrices.sh
{ lscpu | grep -E "Model name|^CPU\(s\)|L2|L3|NUMA node\(s\)"; nproc; uptime; git rev-parse --short HEAD
  ldd $BUILD/spx | grep -E "rsb|graphblas|hwloc"; } >"$DIR/machine.txt" 2>&1

FMTS=csr,sell,axc,axt-uh1,axt-uh,axt-ch1,axt-ch,peer-librsb,peer-graphblas,peer-eigen
n=0
for m in gen:lap3d7:100 gen:lap3d27:64 $(scaled xenon1 10) $(scaled NotreDame_www 20) \
         gen:lap3d27:96 gen:rmat:scale=20,ef=16,sym=1 gen:lap3d7:200 \
         gen:circuit:n=2000000,avg=5,long=20,longlen=200000 $(shared_big); do
    n=$((n + 1))
    if ((SECONDS > DEADLINE)); then echo "skipped (past ${DEADLINE}s): $m" | tee -a "$DIR/bench.err"; continue; fi
    echo "== $(date -u +%T) [$SECONDS s] $m" | tee -a "$DIR/bench.txt"
    echo "$m" >"$DIR/r$n.label"
    OMP_PROC_BIND=close OMP_PLACES=cores timeout 150 $BUILD/spx bench "$m" --device cpu \
        --threads "$THREADS" --peers --format "$FMTS" --stream --json "$DIR/r$n.json" \
        >>"$DIR/bench.txt" 2>>"$DIR/bench.err" || echo "run $n ($m) exit $?" | tee -a "$DIR/bench.err"
done

python3 - "$DIR" <<'PY' >"$DIR/summary.txt"
# Per matrix: time of each AXC/AXT variant and sell against csr and the
# fastest peer; geometric means of the best AXT over csr (the paper: +44% on a
# 20-core Xeon) and over the fastest peer; where an AXT variant is the fastest
# SpX format.
import math, os, sys
sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs
axt = ("axc", "axt-uh1", "axt-uh", "axt-ch1", "axt-ch")
over_csr, over_peer = [], []
print("%-34s %-20s %8s %8s %8s" % ("matrix", "format", "ms", "x csr", "x peer"))
for label, recs in load_runs(sys.argv[1]):
    ok = [r for r in recs if r.get("ok") and r.get("median_ms")]
    csr = next((r for r in ok if r["format"] == "csr" and not r.get("params")), None)
    peers = [r for r in ok if r["format"].startswith("peer-")]
    peer = min(peers, key=lambda r: r["median_ms"]) if peers else None
    spx = [r for r in ok if not r["format"].startswith("peer-")]
    if not ok or not csr:
        continue
    m = os.path.basename(ok[0]["matrix"])
    for r in ok:
        if r["format"] in axt or r["format"] in ("sell", "csr") or r is peer:
            label = r["format"] + ("[" + r["params"] + "]" if r.get("params") else "")
            print("%-34s %-20s %8.3f %8.2f %8s" % (m[:34], label, r["median_ms"], csr["median_ms"] / r["median_ms"],
                  "%.2f" % (peer["median_ms"] / r["median_ms"]) if peer else "-"))
    best = min((r for r in ok if r["format"] in axt), key=lambda r: r["median_ms"], default=None)
    fastest = min(spx, key=lambda r: r["median_ms"])
    if best:
        over_csr.append(csr["median_ms"] / best["median_ms"])
        if peer:
            over_peer.append(peer["median_ms"] / best["median_ms"])
        print("%-34s best AXT %s%s; fastest SpX format %s; fastest peer %s" % (m[:34], best["format"],
              "[" + best["params"] + "]" if best.get("params") else "", fastest["format"], peer["format"] if peer else "-"))
    print()
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print("best AXT over csr, geometric mean of %d matrices: %.3fx (paper: 1.443x on a 20-core Xeon Gold 6148)" % (len(over_csr), gm(over_csr)))
print("best AXT over the fastest peer, geometric mean of %d: %.3fx" % (len(over_peer), gm(over_peer)))
PY
cat "$DIR/summary.txt" | tail -3
