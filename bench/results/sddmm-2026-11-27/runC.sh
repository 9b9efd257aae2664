#!/usr/bin/env bash
# SDDMM run C: the group's entries in flight (SDDMM_UNROLL 2, 4 = the default,
# 8), three builds of spx, timed on the same matrices in one call, each
# matrix's variants back to back (4, 8, 2, then 4 again); then the Python
# bench against CuPy on a small matrix. Everything under $OUT/c, tarred.
set -u
O=$OUT/c; mkdir -p $O
for u in 4 2 8; do
  B=/tmp/b$u
  { cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_MPI=OFF \
      -DCMAKE_CUDA_FLAGS="-DSDDMM_UNROLL=$u" && cmake --build $B -j16 --target spx_cli; } > $O/build$u.log 2>&1 &
  pids="${pids:-} $!"
done
for p in $pids; do wait $p; done; echo "built at ${SECONDS}s"; for f in $O/build*.log; do tail -n 1 $f; done | cut -c1-120
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/machine.txt
one() { # U NAME SPEC K
  timeout 60 /tmp/b$1/spx bench "$3" --op sddmm --k $4 --device cuda --format csr --precision f64 --batches 5 > $O/u$1-$2-k$4.txt 2>&1
  echo "U=$1 $2 k=$4 rc=$? $(grep -E '^csr' $O/u$1-$2-k$4.txt | awk '{print "gflops", $4, "median_ms", $7, "ok", $NF}')"
}
for mk in "powerlaw1m gen:powerlaw:n=1000000,avg=20,alpha=2.1 8" "powerlaw1m gen:powerlaw:n=1000000,avg=20,alpha=2.1 32" \
          "rmat20 gen:rmat:scale=20,ef=16,sym=1 32" "lap3d7-128 gen:lap3d7:128 32" "lap3d7-128 gen:lap3d7:128 128"; do
  set -- $mk
  for u in 4 8 2 4; do one $u $1 $2 $3; done
  [ $SECONDS -gt 400 ] && break
done

echo "python bench: runC-pybench.txt of the run before"
cd $OUT && tar czf c.tar.gz c && rm -rf c
