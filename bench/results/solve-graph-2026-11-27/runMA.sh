#!/usr/bin/env bash
# Device run MA (2 GPUs): solver iterations replayed from one recorded CUDA graph (branch
# solve-graph) against the same solves queued (SPX_SOLVE_GRAPH=0), alternated in one process
# (multi_cg --ab 1), one GPU on a stream of its own (--stream 1); tests; memcheck.
O=$OUT/ma; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-ma
{ cmake -S . -B $B $CF && cmake --build $B -j30 --target multi_cg test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-60)"; grep -m3 -E "error" $O/build.log
(cd tests && timeout 90 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_solve.txt)"; grep -E "FAIL|replayed:|differ" $O/test_gpu_solve.txt | head -14
timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|replayed" $O/test_gpu_multi.txt | head -8
EN=$(find $B -name multi_cg -type f | head -1)
timeout 60 $EN lap3d7:64 --iters 100 --rounds 3 --ab 1 --stream 1 > $O/quick.txt 2>&1; echo "quick rc=$?"; cat $O/quick.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 20 --rounds 1 --stream 1 > $O/memcheck-cg.txt 2>&1; echo "memcheck cg rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-cg.txt) $(grep replayed $O/memcheck-cg.txt | tr -s ' ' | cut -c1-200 | tr '\n' ' ')"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 20 --rounds 1 --stream 1 --solver bicgstab > $O/memcheck-bicgstab.txt 2>&1; echo "memcheck bicgstab rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-bicgstab.txt)"
for run in "cg lap3d7:64 100" "cg lap3d7:100 100" "cg lap3d7:200 100" "cg lap3d27:128 100" "bicgstab lap3d7:200 50" "bicgstab lap3d7:64 50"; do set -- $run
  timeout 90 $EN $2 --solver $1 --iters $3 --rounds 5 --ab 1 --stream 1 > $O/$1-${2/:/-}.txt 2>&1; echo "== $1 $2 rc=$? at ${SECONDS}s"; grep -E '^(one|multi|replayed|speedup)' $O/$1-${2/:/-}.txt | sed 's/ms a solve.*\]//' | tr -s ' '
done
cd $OUT && tar czf ma.tar.gz ma
