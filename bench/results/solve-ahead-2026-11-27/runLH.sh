#!/usr/bin/env bash
# Device run LH (2 GPUs): the multi-device solvers after the registers (their scalars on the host,
# the same arithmetic as before), against 9820d05 with the same harness, one GPU and both GPUs,
# alternated; test_gpu_multi (multi solves over both GPUs, with and without the crew).
O=$OUT/lh; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base-la.tar.gz
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-lh
{ cmake -S . -B $B $CF && cmake --build $B -j20 --target multi_cg test_gpu_multi; } > $O/build.log 2>&1 &
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j12 --target multi_cg; } > $O/build-base.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-60) / $(tail -1 $O/build-base.log | cut -c1-60)"
timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL" $O/test_gpu_multi.txt | head -5
SPX_MULTI_CREW=0 timeout 150 $B/tests/test_gpu_multi > $O/test_gpu_multi-nocrew.txt 2>&1; echo "test_gpu_multi (crew off) rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi-nocrew.txt)"
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for run in "cg lap3d7:200 100" "cg lap3d27:128 100" "bicgstab lap3d7:200 50"; do set -- $run
  for who in base new; do E=$EN; [ $who = base ] && E=$EB
    timeout 60 $E $2 --solver $1 --iters $3 --rounds 5 > $O/$1-${2/:/-}-$who.txt 2>&1; echo "$1 $2 $who rc=$?"; grep -E "^(one|multi|speedup)" $O/$1-${2/:/-}-$who.txt | cut -c1-110
  done; done
cd $OUT && tar czf lh.tar.gz lh
