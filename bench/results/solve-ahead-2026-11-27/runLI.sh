#!/usr/bin/env bash
# Device run LI (2 GPUs): the multi solvers with their registers on the GPUs, queued ahead
# (multi_solve_ahead.c), against the same build with SPX_MULTI_AHEAD=0 (registers on the host),
# alternated; test_gpu_multi both ways; test_gpu_solve; memcheck of a small multi solve.
O=$OUT/li; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-li
{ cmake -S . -B $B $CF && cmake --build $B -j30 --target multi_cg test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-60)"; grep -m3 -E "error" $O/build.log
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|iterations \(CPU" $O/test_gpu_multi.txt | head -8
SPX_MULTI_AHEAD=0 timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi-host.txt 2>&1; echo "test_gpu_multi (registers on the host) rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi-host.txt)"
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt)"
EN=$(find $B -name multi_cg -type f | head -1)
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 10 --rounds 1 > $O/memcheck-multi_cg.txt 2>&1; echo "memcheck multi_cg rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-multi_cg.txt)"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 10 --rounds 1 --solver bicgstab > $O/memcheck-multi_bicgstab.txt 2>&1; echo "memcheck multi_cg bicgstab rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-multi_bicgstab.txt)"
for round in 1 2; do for run in "cg lap3d7:200 100" "cg lap3d27:128 100" "cg lap3d7:100 100" "bicgstab lap3d7:200 50"; do set -- $run
  for mode in host gpu; do
    env $([ $mode = host ] && echo SPX_MULTI_AHEAD=0) timeout 60 $EN $2 --solver $1 --iters $3 --rounds 5 > $O/$1-${2/:/-}-$mode-$round.txt 2>&1; echo "$1 $2 registers on $mode rc=$? $(grep -E '^(one|multi) ' $O/$1-${2/:/-}-$mode-$round.txt | sed 's/ms a solve.*\]//' | tr -s ' ' | tr '\n' ' ')"
  done; done; done
cd $OUT && tar czf li.tar.gz li
