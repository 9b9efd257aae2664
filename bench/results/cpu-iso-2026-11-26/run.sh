#!/usr/bin/env bash
# Issue 20's CPU goal again, 2 threads on the 2-core VM (the 2026-11-25 run had to fall back
# to 1 thread under load): csr, sell (each with values=stored beside), AUTO and the CPU peers
# on the shared pattern matrices of 100k+ nonzeros and their scale-ups, one process a matrix.
# From the repository root after a build in build/ (peers found): bash bench/results/cpu-iso-2026-11-26/run.sh
set -u
M=${SPX_MATRICES:-/tmp/spx-matrices/matrices}
D=bench/results/cpu-iso-2026-11-26
: > $D/bench.txt
n=0
for m in $M/NotreDame_www.mtx $M/delaunay_n16.mtx $M/bfly.mtx \
         gen:scale:file=$M/NotreDame_www.mtx,copies=11 gen:scale:file=$M/delaunay_n16.mtx,copies=26 \
         gen:scale:file=$M/bfly.mtx,copies=52 gen:scale:file=$M/NotreDame_www.mtx,copies=48; do
    n=$((n + 1))
    echo "== $(uptime)" >> $D/bench.txt
    timeout 300 build/spx bench "$m" --threads 2 --format csr,sell,auto,peer-graphblas,peer-librsb,peer-eigen \
        --peers --batches 6 --json $D/r$n.json >> $D/bench.txt 2>> $D/bench.err
done
echo "== $(uptime)" >> $D/bench.txt
