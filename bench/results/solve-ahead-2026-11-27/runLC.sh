#!/usr/bin/env bash
# Device run LC: the blocks of CG's one-pass step (512, 1024, 2048) and of the dot kernel (256,
# 1024), against 1186bb5 (registers, queued ahead, no one-pass step) with the same harness,
# one GPU, alternated.
O=$OUT/lc; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base-lb.tar.gz
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
declare -A FL=([s512]="-DSPX__CG_STEP_BLOCKS=512" [s1024]="-DSPX__CG_STEP_BLOCKS=1024" [s2048]="-DSPX__CG_STEP_BLOCKS=2048" [s1024d1024]="-DSPX__CG_STEP_BLOCKS=1024 -DSPX__CUDA_DOT_BLOCKS=1024")
for v in s512 s1024 s2048 s1024d1024; do
  { cmake -S . -B build-lc-$v $CF "-DCMAKE_CUDA_FLAGS=${FL[$v]}" && cmake --build build-lc-$v -j3 --target multi_cg; } > $O/build-$v.log 2>&1 &
done
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j3 --target multi_cg; } > $O/build-base.log 2>&1 &
wait
echo "built at ${SECONDS}s"; for f in $O/build*.log; do echo "$f: $(tail -1 $f | cut -c1-100)"; done
for round in 1 2; do for spec in lap3d7:200 lap3d7:128 lap3d7:64 lap3d27:128; do
  for v in base s512 s1024 s2048 s1024d1024; do E=$(find build-lc-$v -name multi_cg -type f | head -1); [ $v = base ] && E=$(find /tmp/base/b -name multi_cg -type f | head -1)
    timeout 60 $E $spec --iters 100 --rounds 5 > $O/cg-${spec/:/-}-$v-$round.txt 2>&1; echo "cg $spec $v rc=$? $(grep -E '^one' $O/cg-${spec/:/-}-$v-$round.txt | cut -c1-120)"
  done; done; done
cd $OUT && tar czf lc.tar.gz lc
