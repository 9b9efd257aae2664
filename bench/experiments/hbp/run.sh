#!/usr/bin/env bash
# hbp (issue 14) on the GPU machine, from the repository root, with the build
# in build-gpu (cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90
# -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j16; built here if
# absent). About 4 minutes on an H100:
#   bench     spx bench --device cuda --peers, fp64 and fp16, formats csr,
#             sell, dasp, hbp, auto and cuSPARSE CSR (half-x too), on the
#             issue's set: R-MAT scale 18-21, the circuit-like generator with
#             rows to 2*10^5 and to 10^6 (and one of 12M rows, whose x does not
#             fit a quarter of the L2: column blocks and the owner combine),
#             power-law rows, NotreDame_www, c-62, delaunay_n16, rajat01, and
#             rajat01 and c-62 scaled to 11M nonzeros;
#   variants  bench/experiments/hbp/hbp_variants.c: hbp's parameter sets
#             against csr in one process per matrix (prep hash/sort/host with
#             their device phases, tile, cols and the owner/paper combine,
#             rows, fixed share, pdl) and hbp's describe (blocks, hash a b c
#             d, per-group row-length spread before -> after hashing, fixed
#             and competitive tiles).
# Results: $OUT (default bench/results/hbp-<date>): bench.txt, bench-*.json,
# variants.txt, log.txt. SPX_MATRICES: the shared .mtx folder (default:
# extract .matrices/matrices.tar.xz into /tmp). STEPS picks steps (default
# "bench variants"); DEADLINE (seconds, default 230) skips what would start
# after it.
set -u -o pipefail
cd "$(dirname "$0")/../../.." || exit 1
B=build-gpu
OUT=${OUT:-bench/results/hbp-$(date -u +%Y-%m-%d)}
STEPS=${STEPS:-"bench variants"}
DEADLINE=${DEADLINE:-230}
mkdir -p "$OUT"
LOG=$OUT/log.txt
step() { [[ " $STEPS " == *" $1 "* ]]; }
late() { ((SECONDS > DEADLINE)) && { echo "skipped (deadline): $*" | tee -a "$LOG"; return 0; }; return 1; }

M=${SPX_MATRICES:-}
if [[ -z "$M" && -f .matrices/matrices.tar.xz ]]; then
    mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz &&
        M=/tmp/spx-matrices/matrices
fi
M=${M:-/nonexistent}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >"$LOG" 2>&1
if [[ ! -x $B/spx ]]; then
    { cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF &&
      cmake --build $B -j16; } >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
gcc -O2 -Wall -Iinclude -Isrc bench/experiments/hbp/hbp_variants.c -L$B -lspx \
    -Wl,-rpath,"$PWD/$B" -lm -o /tmp/hbp-variants || exit 1
echo "build done ${SECONDS}s" | tee -a "$LOG"

RMAT="gen:rmat:scale=18,ef=16,sym=1 gen:rmat:scale=19,ef=16,sym=1 gen:rmat:scale=20,ef=16,sym=1
      gen:rmat:scale=21,ef=16,sym=1"
CIRCUIT="gen:circuit:n=2000000,avg=5,long=20,longlen=200000
         gen:circuit:n=4000000,avg=4,long=12,longlen=1000000
         gen:circuit:n=12000000,avg=4,long=16,longlen=1000000"
OTHER="gen:powerlaw:n=2000000,avg=16,alpha=2.1 $M/NotreDame_www.mtx $M/c-62.mtx
       $M/delaunay_n16.mtx $M/rajat01.mtx gen:scale:file=$M/rajat01.mtx,copies=256
       gen:scale:file=$M/c-62.mtx,copies=20"
FORMATS=csr,sell,dasp,hbp,auto,peer-cusparse-csr,peer-cusparse-csr-h

if step bench; then
    i=0
    for m in $RMAT $CIRCUIT $OTHER; do
        late "bench $m" && continue
        i=$((i + 1))
        timeout 120 $B/spx bench "$m" --device cuda --peers --precision f64,f16 --format $FORMATS \
            --json "$OUT/bench-$i.json" >>"$OUT/bench.txt" 2>>"$LOG"
        echo "bench $m rc $? ${SECONDS}s" | tee -a "$LOG"
    done
fi

# The full list of variants on mid-size matrices; on the largest, no host prep.
SMALL="gen:rmat:scale=18,ef=16,sym=1 gen:rmat:scale=20,ef=16,sym=1
       gen:circuit:n=2000000,avg=5,long=20,longlen=200000 gen:powerlaw:n=2000000,avg=16,alpha=2.1
       $M/NotreDame_www.mtx $M/c-62.mtx gen:scale:file=$M/rajat01.mtx,copies=256"
LARGE="gen:rmat:scale=21,ef=16,sym=1 gen:circuit:n=4000000,avg=4,long=12,longlen=1000000
       gen:circuit:n=12000000,avg=4,long=16,longlen=1000000"
if step variants; then
    for m in $SMALL; do
        late "variants $m" && continue
        timeout 90 /tmp/hbp-variants f64,f16 "$m" >>"$OUT/variants.txt" 2>>"$LOG"
        echo "variants $m rc $? ${SECONDS}s" | tee -a "$LOG"
    done
    for m in $LARGE; do
        late "variants $m" && continue
        HBP_VARIANTS="-;prep=sort;tile=0;cols=65536;cols=4096,combine=paper;rows=2048;fixed=0" \
            timeout 90 /tmp/hbp-variants f64 "$m" >>"$OUT/variants.txt" 2>>"$LOG"
        echo "variants $m rc $? ${SECONDS}s" | tee -a "$LOG"
    done
fi
echo "done ${SECONDS}s; results in $OUT" | tee -a "$LOG"
