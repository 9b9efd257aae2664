#!/usr/bin/env bash
# Device run LE: racecheck of test_gpu_solve with room to finish (LD's 120 s were not enough),
# and BiCGSTAB's residual after 50 iterations with the dots in 256 blocks as 9820d05 had them
# (build-le256) against the new default (1024) and 9820d05: is the moved residual the dots'
# summation order alone?
O=$OUT/le; mkdir -p $O
B=build-ld
ls $B/tests/test_gpu_solve > /dev/null || exit 3
(cd tests && SPX_TEST_QUICK=1 timeout 420 compute-sanitizer --tool racecheck --error-exitcode 9 ../$B/tests/test_gpu_solve) > $O/racecheck-solve.txt 2>&1 &
RC=$!
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
{ cmake -S . -B build-le256 $CF -DCMAKE_CUDA_FLAGS=-DSPX__CUDA_DOT_BLOCKS=256 && cmake --build build-le256 -j14 --target multi_cg; } > $O/build-256.log 2>&1
echo "built at ${SECONDS}s: $(tail -1 $O/build-256.log | cut -c1-80)"
EN=$(find $B -name multi_cg -type f | head -1); E2=$(find build-le256 -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for spec in lap3d7:64 lap3d7:200; do for who in base new new256; do E=$EN; [ $who = base ] && E=$EB; [ $who = new256 ] && E=$E2
  timeout 60 $E $spec --solver bicgstab --iters 50 --rounds 1 > $O/bicgstab-${spec/:/-}-$who.txt 2>&1; echo "bicgstab $spec $who rc=$? $(grep -E '^one ' $O/bicgstab-${spec/:/-}-$who.txt | grep -o 'residual.*')"
done; done
wait $RC; echo "racecheck test_gpu_solve rc=$? at ${SECONDS}s"; grep "RACECHECK SUMMARY\|passed" $O/racecheck-solve.txt | head -3
cd $OUT && tar czf le.tar.gz le
