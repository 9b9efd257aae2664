#!/usr/bin/env bash
# Device run MH (2 GPUs): the graph buffer check on this tree, and on a copy with the fix
# reverted (graph-fix.patch, only multi_graph.c and multi.h: the new test must fail there);
# test_gpu_multi, test_gpu_solve, pytest with CUDA.
O=$OUT/mh; mkdir -p $O
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF"
rm -rf /tmp/old && mkdir /tmp/old && cp -r CMakeLists.txt cmake src include tests bench tools examples python scripts /tmp/old/ 2>/dev/null
(cd /tmp/old && patch -R -p1 < "$OLDPWD/.devrun/graph-fix.patch") > $O/revert.log 2>&1; echo "revert rc=$?"
{ cmake -S . -B build-mh $CF && cmake --build build-mh -j16 --target test_gpu_multi test_gpu_solve; } > $O/build.log 2>&1 &
{ cmake -S /tmp/old -B /tmp/old/b $CF && cmake --build /tmp/old/b -j10 --target test_gpu_multi; } > $O/build-old.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j6; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-40) / $(tail -1 $O/build-old.log | cut -c1-40) / $(tail -1 $O/build-py.log | cut -c1-40)"
timeout 150 build-mh/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL" $O/test_gpu_multi.txt | head -5
timeout 150 /tmp/old/b/tests/test_gpu_multi > $O/test_gpu_multi-old.txt 2>&1; echo "test_gpu_multi, fix reverted, rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi-old.txt)"; grep -E "FAIL" $O/test_gpu_multi-old.txt | head -5
(cd tests && timeout 90 ../build-mh/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_solve.txt)"
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/ && cp -r python/tests /tmp/pyspx/
for k in 1 2; do (cd /tmp/pyspx && timeout 150 python3 -m pytest -q tests) > $O/pytest-$k.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s: $(tail -1 $O/pytest-$k.txt)"; grep FAILED $O/pytest-$k.txt | head -3; done
cd $OUT && tar czf mh.tar.gz mh
