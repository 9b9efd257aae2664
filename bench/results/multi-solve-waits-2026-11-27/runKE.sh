#!/usr/bin/env bash
# Device run KE: BiCGSTAB (pairs of dots, one launch each, the crew) against a1bd5c0 with the same
# harness, one GPU and every GPU, alternated; the crew on and off when 4 GPUs came; CG from
# Python against CuPy's (python/bench/solve.py, spx.cg's waits changed); test_multi_solve's time
# on this host (team sizes by work).
O=$OUT/ke; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt; G=$(nvidia-smi -L | wc -l)
lscpu | grep -E "^CPU\(s\)" | tee $O/cpu.txt
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base.tar.gz && cp bench/experiments/msrep/multi_cg.c /tmp/base/bench/experiments/msrep/
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-ke
{ cmake -S . -B $B $CF && cmake --build $B -j16 --target multi_cg test_multi_solve; } > $O/build.log 2>&1 &
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j12 --target multi_cg; } > $O/build-base.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j12; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s"; tail -1 $O/build.log $O/build-base.log $O/build-py.log | cut -c1-120
t0=$SECONDS; timeout 60 $B/tests/test_multi_solve > $O/test_multi_solve.txt 2>&1; echo "test_multi_solve rc=$? $((SECONDS-t0)) s: $(tail -1 $O/test_multi_solve.txt)"
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for round in 1 2; do for spec in lap3d7:200 lap3d27:128; do
  for who in base new; do E=$EN; [ $who = base ] && E=$EB
    timeout 60 $E $spec --solver bicgstab --iters 50 --rounds 5 > $O/bicgstab-${spec/:/-}-$who-$round.txt 2>&1; echo "bicgstab $spec $who rc=$? at ${SECONDS}s"; grep -E "^(one|multi|products)" $O/bicgstab-${spec/:/-}-$who-$round.txt | cut -c1-170
  done; done; done
if [ $G -ge 4 ]; then for round in 1 2; do for spec in lap3d7:200 lap3d27:128; do for crew in 0 default; do
  env $([ $crew = 0 ] && echo SPX_MULTI_CREW=0) timeout 60 $EN $spec --iters 100 --rounds 5 > $O/cg-${spec/:/-}-crew-$crew-$round.txt 2>&1; echo "cg $spec crew=$crew rc=$? at ${SECONDS}s"; grep -E "^(one|multi|speedup|products)" $O/cg-${spec/:/-}-crew-$crew-$round.txt | cut -c1-170
done; done; done; fi
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/ && cp python/bench/solve.py /tmp/pyspx/
for m in 128 200; do [ $SECONDS -gt 420 ] && break; (cd /tmp/pyspx && timeout 120 python3 solve.py $m --gpu-only) > $O/solve-py-$m.txt 2>&1; echo "solve.py $m rc=$? at ${SECONDS}s"; cat $O/solve-py-$m.txt | cut -c1-200; done
cd $OUT && tar czf ke.tar.gz ke
