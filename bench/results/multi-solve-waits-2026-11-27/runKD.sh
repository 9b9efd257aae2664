#!/usr/bin/env bash
# Device run KD: the solvers' dot kernel with 1024 blocks (this tree) against 256 (the same tree,
# the constant changed back), CG 100 iterations on one GPU and across the GPUs (multi_cg),
# alternated; then test_gpu_solve and test_gpu_multi on the new constant.
O=$OUT/kd; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
rm -rf /tmp/b256 && mkdir -p /tmp/b256 && cp -r CMakeLists.txt cmake include src bench tests tools examples python docs scripts /tmp/b256/ 2>/dev/null
sed -i 's/#define SPX__CUDA_DOT_BLOCKS 1024/#define SPX__CUDA_DOT_BLOCKS 256/' /tmp/b256/src/cuda/blas1/blas1.h; grep -n "define SPX__CUDA_DOT_BLOCKS" /tmp/b256/src/cuda/blas1/blas1.h
B=build-kd
{ cmake -S . -B $B $CF && cmake --build $B -j20 --target test_gpu_multi test_gpu_solve multi_cg; } > $O/build.log 2>&1 &
{ cmake -S /tmp/b256 -B /tmp/b256/b $CF && cmake --build /tmp/b256/b -j12 --target multi_cg; } > $O/build-256.log 2>&1 &
wait
echo "built at ${SECONDS}s"; tail -1 $O/build.log $O/build-256.log
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/b256/b -name multi_cg -type f | head -1)
for round in 1 2 3; do for spec in lap3d7:200 lap3d27:128; do
  [ $SECONDS -gt 200 ] && break 2
  for who in 256 1024; do E=$EN; [ $who = 256 ] && E=$EB
    timeout 60 $E $spec --iters 100 --rounds 5 > $O/multi_cg-${spec/:/-}-$who-$round.txt 2>&1; echo "multi_cg $spec blocks=$who rc=$? at ${SECONDS}s"; grep -E "^(one|multi|products)" $O/multi_cg-${spec/:/-}-$who-$round.txt | cut -c1-170
  done; done; done
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_multi.txt
cd $OUT && tar czf kd.tar.gz kd
