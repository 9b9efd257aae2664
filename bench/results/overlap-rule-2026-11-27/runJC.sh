#!/usr/bin/env bash
# Device run JC (4 GPUs, warm after JB, same build-j): the overlap rule between halo shares 1/10
# and 1/20: pcsr with --overlap on and off, alternated, on R-MAT 21 and 22 at 16 and 24 nonzeros
# a row (ef). The command as run (one line in the device call):
O=$OUT/jc; mkdir -p $O; B=build-j
ov() { timeout 100 $B/spx bench gen:$2 --multi 4 --device cuda --spread --calls 20 --batches 5 --kind pcsr --overlap $1 > $O/$3-$1-$4.txt 2>&1; echo "$3 $1 $4 rc=$? at ${SECONDS}s"; grep -A3 "^kind   halo_ms" $O/$3-$1-$4.txt | grep -E "^pcsr " | cut -c1-150; }
for m in "rmat:scale=21,ef=16,sym=1 r21e16" "rmat:scale=21,ef=24,sym=1 r21e24" "rmat:scale=22,ef=16,sym=1 r22e16" "rmat:scale=22,ef=24,sym=1 r22e24"; do set -- $m; for rep in 1 2; do for v in on off; do [ $SECONDS -gt 500 ] && break; ov $v $1 $2 $rep; done; done; done
cd $OUT && tar czf jc.tar.gz jc
