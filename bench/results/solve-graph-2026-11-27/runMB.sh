#!/usr/bin/env bash
# Device run MB (2 GPUs): three builds alternated in one call: main 3b37225 (registers on the host,
# a crew), 6f1ae54 (registers on the GPUs, iteration replayed, every part waiting for every
# GPU's sum) and this tree (two dot buffers: a part waits for its own GPU's sum). multi_cg --ab 1
# (replayed / queued) on the last two. Tests and memcheck on this tree.
O=$OUT/mb; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
mkdir -p /tmp/main /tmp/ma && tar -C /tmp/main -xzf .devrun/base-main.tar.gz && tar -C /tmp/ma -xzf .devrun/base-ma.tar.gz
T="--target multi_cg test_gpu_multi test_gpu_solve"
{ cmake -S . -B build-mb $CF && cmake --build build-mb -j12 $T; } > $O/build.log 2>&1 &
{ cmake -S /tmp/main -B /tmp/main/b $CF && cmake --build /tmp/main/b -j10 --target multi_cg; } > $O/build-main.log 2>&1 &
{ cmake -S /tmp/ma -B /tmp/ma/b $CF && cmake --build /tmp/ma/b -j10 --target multi_cg; } > $O/build-ma.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-50) / $(tail -1 $O/build-main.log | cut -c1-50) / $(tail -1 $O/build-ma.log | cut -c1-50)"
(cd tests && timeout 90 ../build-mb/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_solve.txt)"
timeout 150 build-mb/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|replayed" $O/test_gpu_multi.txt | head -8
EN=$(find build-mb -name multi_cg -type f | head -1); EM=$(find /tmp/main/b -name multi_cg -type f | head -1); EA=$(find /tmp/ma/b -name multi_cg -type f | head -1)
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 20 --rounds 1 --ab 1 > $O/memcheck-cg.txt 2>&1; echo "memcheck cg rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-cg.txt)"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 20 --rounds 1 --ab 1 --solver bicgstab > $O/memcheck-bicgstab.txt 2>&1; echo "memcheck bicgstab rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-bicgstab.txt)"
for round in 1 2; do
for run in "cg lap3d7:64 100" "cg lap3d7:100 100" "cg lap3d7:200 100" "cg lap3d27:128 100" "bicgstab lap3d7:200 50" "bicgstab lap3d7:100 50"; do set -- $run
  echo "== $1 $2 round $round at ${SECONDS}s"
  for b in main ma new; do E=$([ $b = main ] && echo $EM || ([ $b = ma ] && echo $EA || echo $EN))
    F=$O/$1-${2/:/-}-$b-$round.txt
    timeout 90 $E $2 --solver $1 --iters $3 --rounds 5 $([ $b != main ] && echo --ab 1) > $F 2>&1
    echo "$b rc=$? $(grep -E '^(one GPU |multi )' $F | sed 's/ms a solve.*\]//;s/residual.*replayed/replayed/' | tr -s ' ' | tr '\n' ';')"
    [ $b != main ] && grep -E '^(multi queued|replayed /)' $F | sed 's/ms a solve.*\]//;s/residual.*replayed/replayed/' | tr -s ' '
  done; done; done
cd $OUT && tar czf mb.tar.gz mb
