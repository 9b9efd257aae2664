#!/usr/bin/env bash
# Device run LF: 9820d05 and the new tree (dots in 256 blocks as 9820d05's) both built with
# -fmad=false: with no multiply-add contraction in either, does BiCGSTAB reach the same
# residual after 50 iterations (the same arithmetic, contracted differently in the fused
# kernels)?
O=$OUT/lf; mkdir -p $O
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
rm -rf /tmp/basef && mkdir -p /tmp/basef && tar -C /tmp/basef -xzf .devrun/base-la.tar.gz
{ cmake -S . -B build-lf $CF "-DCMAKE_CUDA_FLAGS=-DSPX__CUDA_DOT_BLOCKS=256 -fmad=false" && cmake --build build-lf -j8 --target multi_cg; } > $O/build-new.log 2>&1 &
{ cmake -S /tmp/basef -B /tmp/basef/b $CF "-DCMAKE_CUDA_FLAGS=-fmad=false" && cmake --build /tmp/basef/b -j8 --target multi_cg; } > $O/build-base.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build-new.log | cut -c1-60) / $(tail -1 $O/build-base.log | cut -c1-60)"
EN=$(find build-lf -name multi_cg -type f | head -1); EB=$(find /tmp/basef/b -name multi_cg -type f | head -1)
for solver in bicgstab cg; do for spec in lap3d7:64 lap3d7:200; do for who in base new; do E=$EN; [ $who = base ] && E=$EB
  timeout 60 $E $spec --solver $solver --iters 50 --rounds 1 > $O/$solver-${spec/:/-}-$who.txt 2>&1; echo "$solver $spec $who rc=$? $(grep -E '^one ' $O/$solver-${spec/:/-}-$who.txt | grep -o 'residual.*')"
done; done; done
cd $OUT && tar czf lf.tar.gz lf
