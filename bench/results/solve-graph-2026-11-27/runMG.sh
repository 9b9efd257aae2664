#!/usr/bin/env bash
# Device run MG (2 GPUs): solver workspaces kept on the plan (keep_workspace 1, the default)
# against made and freed by every solve (--keep 0), the same binary alternated; tests, memcheck;
# spx.cg against CuPy from Python.
O=$OUT/mg; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
{ cmake -S . -B build-mg $CF && cmake --build build-mg -j24 --target multi_cg test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j8; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-50) / $(tail -1 $O/build-py.log | cut -c1-50)"
(cd tests && timeout 90 ../build-mg/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_solve.txt)"; grep -E "FAIL|kept" $O/test_gpu_solve.txt | head -5
timeout 150 build-mg/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|kept|replayed" $O/test_gpu_multi.txt | head -8
EN=$(find build-mg -name multi_cg -type f | head -1)
for s in cg bicgstab; do timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $EN lap3d7:32 --iters 20 --rounds 2 --ab 1 --solver $s > $O/memcheck-$s.txt 2>&1; echo "memcheck $s rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck-$s.txt)"; done
for round in 1 2; do
for run in "cg lap3d7:64 100" "cg lap3d7:100 100" "cg lap3d7:200 100" "cg lap3d27:128 100" "bicgstab lap3d7:200 50" "bicgstab lap3d7:100 50"; do set -- $run
  echo "== $1 $2 round $round at ${SECONDS}s"
  for keep in 0 1; do F=$O/$1-${2/:/-}-keep$keep-$round.txt
    timeout 90 $EN $2 --solver $1 --iters $3 --rounds 5 --keep $keep > $F 2>&1
    echo "keep $keep rc=$? $(grep -E '^(one GPU |multi |speedup)' $F | sed 's/ms a solve.*\]//;s/residual.*replayed/replayed/;s/ms an iteration//' | tr -s ' ' | tr '\n' ';')"
  done; done; done
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/ && cp python/bench/solve.py /tmp/pyspx/ && cp -r python/tests /tmp/pyspx/
for m in 64 128 200; do (cd /tmp/pyspx && timeout 60 python3 solve.py $m --gpu-only) > $O/solve-py-$m.txt 2>&1; echo "solve.py $m rc=$? at ${SECONDS}s"; tail -3 $O/solve-py-$m.txt | cut -c1-200; done
(cd /tmp/pyspx && timeout 150 python3 -m pytest -q tests) > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s: $(tail -1 $O/pytest.txt)"
cd $OUT && tar czf mg.tar.gz mg
