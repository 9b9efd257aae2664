#!/usr/bin/env bash
# SpMM with one or two lanes a row (new) against four (old, the patch reversed),
# same call: tests and memcheck of the new build; spx bench --op spmm at k = 1,
# 2 and 4 with cuSPARSE SpMM; csr SpMV on the same matrices; spx solve --rhs 1.
set -u
O=$OUT/f; mkdir -p $O
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_MPI=OFF"
rm -rf /tmp/old && mkdir /tmp/old && cp -r src include tools bench tests examples cmake CMakeLists.txt python scripts /tmp/old/ 2>/dev/null
(cd /tmp/old && patch -s -R -p1 < $OLDPWD/.devrun/spmm_g1.patch) && echo "old tree: patch reversed"
{ cmake -S . -B /tmp/new $CF && cmake --build /tmp/new -j16 --target spx_cli test_gpu_spmm test_conformance; } > $O/build-new.log 2>&1 &
p1=$!
{ cmake -S /tmp/old -B /tmp/oldb $CF && cmake --build /tmp/oldb -j16 --target spx_cli; } > $O/build-old.log 2>&1 &
p2=$!
wait $p1; echo "new build rc=$?"; wait $p2; echo "old build rc=$? at ${SECONDS}s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/machine.txt
cd tests
timeout 120 /tmp/new/tests/test_gpu_spmm > $O/test_gpu_spmm.txt 2>&1; echo "test_gpu_spmm rc=$? $(tail -1 $O/test_gpu_spmm.txt)"
SPX_TEST_PART=cuda timeout 200 /tmp/new/tests/test_conformance > $O/conf_cuda.txt 2>&1; echo "conformance cuda rc=$? $(tail -1 $O/conf_cuda.txt)"; grep spmm $O/conf_cuda.txt
SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/new/tests/test_gpu_spmm > $O/memcheck.txt 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $O/memcheck.txt)"
cd ..
for m in lap3d7:100 "powerlaw:n=1000000,avg=20,alpha=2.1" "rmat:scale=20,ef=16,sym=1,values=random"; do
  n=$(echo $m | cut -c1-10 | tr ':,=' '---')
  timeout 60 /tmp/new/spx bench "gen:$m" --device cuda --format csr --precision f64 --batches 5 > $O/spmv-$n.txt 2>&1
  echo "spmv $m: $(grep -E '^csr' $O/spmv-$n.txt | head -1 | cut -c1-90)"
  for k in 1 2 4; do for who in old new; do B=/tmp/new; [ $who = old ] && B=/tmp/oldb
    timeout 60 $B/spx bench "gen:$m" --op spmm --k $k --device cuda --format csr --peers --precision f64 --batches 5 > $O/spmm-$n-k$k-$who.txt 2>&1
    echo "spmm $m k=$k $who rc=$? "; grep -E '^(format|csr|peer)' $O/spmm-$n-k$k-$who.txt | cut -c1-100; echo ""
  done; done
  [ $SECONDS -gt 420 ] && break
done
for who in old new; do B=/tmp/new; [ $who = old ] && B=/tmp/oldb
  timeout 60 $B/spx solve gen:lap3d7:100 --rhs 1 --compare --device cuda > $O/solve-$who.txt 2>&1; echo "solve --rhs 1 $who rc=$?"; tail -2 $O/solve-$who.txt
done
cd $OUT && tar czf f.tar.gz f && rm -rf f
