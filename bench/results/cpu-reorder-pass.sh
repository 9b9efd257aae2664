#!/bin/bash
# usage: pass.sh TAG SETS MATRIX...   (waits up to 120 s for a 1-min load below 1.2 before each matrix)
tag=$1; sets=$2; shift 2
cd /work/main
for m in "$@"; do
  name=$(basename "$m" .mtx | tr ':=,' '___')
  for i in $(seq 60); do awk '{exit !($1 < 1.2)}' /proc/loadavg && break; sleep 2; done
  echo "== $m pass $tag start $(date -u +%T) $(uptime | sed 's/.*load/load/') busy: $(ps -eo pcpu,comm --sort=-pcpu | awk 'NR>1 && $1>20 {printf "%s(%s) ", $2, $1}')"
  ./build-reorder/spx bench "$m" --format csr,sell --param "$sets" --stream --gather --json /tmp/reorder-runs/$tag-$name.json 2>/dev/null
  echo "== end $(date -u +%T) $(uptime | sed 's/.*load/load/') busy: $(ps -eo pcpu,comm --sort=-pcpu | awk 'NR>1 && $1>20 {printf "%s(%s) ", $2, $1}')"
done
