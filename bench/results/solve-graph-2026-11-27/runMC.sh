#!/usr/bin/env bash
# Device run MC (2 GPUs): the solver's product across GPUs without the fork from part 0, the join
# into it and the wait after (spx__multi_queue_solver), against 7409dce (main: replayed, with
# them), two builds alternated in one call; tests, memcheck; then multi-gpu-check.sh's solve step.
O=$OUT/mc; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
mkdir -p /tmp/mb && tar -C /tmp/mb -xzf .devrun/base-mb.tar.gz
{ cmake -S . -B build-mc $CF && cmake --build build-mc -j16 --target multi_cg test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1 &
{ cmake -S /tmp/mb -B /tmp/mb/b $CF && cmake --build /tmp/mb/b -j14 --target multi_cg; } > $O/build-mb.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-50) / $(tail -1 $O/build-mb.log | cut -c1-50)"
timeout 150 build-mc/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|replayed" $O/test_gpu_multi.txt | head -8
EN=$(find build-mc -name multi_cg -type f | head -1); EB=$(find /tmp/mb/b -name multi_cg -type f | head -1)
for s in cg bicgstab; do timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 20 --rounds 1 --ab 1 --solver $s --parts 4 > $O/memcheck-$s.txt 2>&1; echo "memcheck $s 4 parts rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-$s.txt)"; done
for round in 1 2; do
for run in "cg lap3d7:64 100 2" "cg lap3d7:100 100 2" "cg lap3d7:150 100 2" "cg lap3d7:200 100 2" "cg lap3d27:128 100 2" "bicgstab lap3d7:200 50 2" "bicgstab lap3d7:100 50 2" "cg lap3d7:200 100 4"; do set -- $run
  echo "== $1 $2 parts $4 round $round at ${SECONDS}s"
  for b in base new; do E=$([ $b = base ] && echo $EB || echo $EN)
    F=$O/$1-${2/:/-}-p$4-$b-$round.txt
    timeout 90 $E $2 --solver $1 --iters $3 --rounds 5 --parts $4 --ab 1 > $F 2>&1
    echo "$b rc=$? $(grep -E '^(one GPU |multi |multi queued)' $F | sed 's/ms a solve.*\]//;s/residual//;s/ms an iteration//' | tr -s ' ' | tr '\n' ';')"
  done; done; done
cd $OUT && tar czf mc.tar.gz mc
