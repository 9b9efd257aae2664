#!/usr/bin/env bash
# Device run CP (H100 named): racecheck of gpu-rows' long rows (the rank kernel among them,
# SPX_TEST_PART=long); the trace of gpu-rows and AUTO on R-MAT 20 (ef 1) squared in one process
# (run CO had AUTO 55.5 ms against gpu-rows 49.9, cuSPARSE 79.6 against 68.9 in CN); the bench
# twice in a row with the clocks sampled (nvidia-smi every 500 ms).
O=$OUT/cp; mkdir -p $O/dev
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cp.tar.gz cp; exit 1; }
echo "built at ${SECONDS}s"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv -lms 500 > $O/smi.csv 2>&1 &
SMI=$!
SPX_TEST_PART=long SPX_TEST_QUICK=1 timeout 240 compute-sanitizer --tool racecheck b/tests/test_gpu_spgemm > $O/racecheck.log 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; tail -3 $O/racecheck.log
G=gen:rmat:scale=20,ef=1,sym=1
SPX_SPGEMM_TRACE=1 timeout 100 b/spx bench $G --op spgemm --device cuda --precision f64 --format gpu-rows,auto --resident-only --batches 1 --calls 2 > $O/trace.txt 2>&1; echo "trace rc=$? at ${SECONDS}s"
grep -E "spgemm trace: rows: (numeric bin [678]|symbolic, shared|C's offsets|row products|frees)" $O/trace.txt
for n in 1 2; do
  echo "$G" > $O/dev/r$n.label
  timeout 100 b/spx bench $G --op spgemm --device cuda --precision f64 --peers --format gpu-rows,auto,peer-cusparse-spgemm --resident-only --batches 5 --json $O/dev/r$n.json > $O/dev/r$n.txt 2>&1
  echo "bench $n rc=$? at ${SECONDS}s"; grep -E "resident|peer" $O/dev/r$n.txt | grep -v "^bench:" | cut -c1-120
done
kill $SMI
awk -F, 'NR>1 {print $2, $4, $5, $6, $7}' $O/smi.csv | sort | uniq -c | sort -rn | head -12
echo "end at ${SECONDS}s"
cd $OUT && tar czf cp.tar.gz cp && rm -rf cp
