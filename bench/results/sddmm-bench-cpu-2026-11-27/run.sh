#!/bin/sh
# spx bench --op sddmm --peers on the 2-core VM (CPU only), commit a3ee5b8: full1, full2, full4.txt
# are three runs of this script (full2 with the lap3d7 case last); the VM was noisy
# throughout (csr and auto:csr, one kernel, differ by up to 1.6x in a run).
cd /work/main
for spec in "gen:lap3d7:64 32" "gen:powerlaw:n=500000,avg=16,alpha=2.1 8" "gen:powerlaw:n=500000,avg=16,alpha=2.1 64"; do  # full2.txt ran the powerlaw ones first
  set -- $spec
  echo "## uptime before: $(uptime)"
  echo "## build/spx bench $1 --op sddmm --k $2 --peers --device cpu --precision f64,f32"
  build/spx bench "$1" --op sddmm --k "$2" --peers --device cpu --precision f64,f32
  echo "## exit $?"
  echo "## uptime after: $(uptime)"
done
