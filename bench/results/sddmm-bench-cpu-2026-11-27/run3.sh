#!/bin/sh
# csr and the GraphBLAS peer alone (ref is still the reference, not a row), twice in turn
cd /work/main
for k in 8 64; do for rep in 1 2; do
  echo "## uptime before: $(uptime)"
  echo "## build/spx bench gen:powerlaw:n=500000,avg=16,alpha=2.1 --op sddmm --k $k --peers --device cpu --precision f64,f32 --format csr,peer-graphblas-sddmm"
  build/spx bench gen:powerlaw:n=500000,avg=16,alpha=2.1 --op sddmm --k $k --peers --device cpu --precision f64,f32 --format csr,peer-graphblas-sddmm
  echo "## exit $?"
done; done
echo "## uptime after: $(uptime)"
