#!/usr/bin/env bash
# The device runs of bench/results/gpu-csr-pipe-2026-11-22.md (one call each,
# from the repository root, .matrices carried): scripts/gpu-check.sh builds;
# ctest -R gpu and compute-sanitizer memcheck and racecheck on test_gpu
# (SPX_TEST_QUICK=1, three small shared matrices) into $OUT/tests.log;
# gpu-check's copy bandwidth and bench (csr with the param sets of $SETS,
# cuSPARSE CSR and its half-x fp16 kernel, fp64 and fp16) on seven matrices
# until BENCH_BY seconds; then, while time is left, Nsight Compute on one call
# of each csr kernel on lap3d27:96 fp16 (NCU=0: none).
set -u -o pipefail
START=$(date +%s)
left() { (($(date +%s) - START < $1)); }
SETS=${SETS:-"blocknnz=2048;pipe=1,blocknnz=2048;pipe=2,blocknnz=2048;pipe=2,blocknnz=1024"}
F=csr,peer-cusparse-csr,peer-cusparse-csr-h
M=/tmp/spx-matrices/matrices
SPX_GPU_STEPS=build bash scripts/gpu-check.sh | tail -2
S=/tmp/spx-pipe-small
mkdir -p $S && echo small >$S/README.md && cp $M/west0067.mtx $M/pores_1.mtx $M/rajat01.mtx $S/
T=$OUT/tests.log
(cd build-gpu && SPX_MATRICES=$M timeout 100 ctest --output-on-failure -R gpu) >$T 2>&1
tail -3 $T
for tool in memcheck racecheck; do
    SPX_TEST_QUICK=1 SPX_MATRICES=$S timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 \
        build-gpu/tests/test_gpu >/tmp/$tool.log 2>&1
    echo "$tool rc=$?" | tee -a $T
    head -c 200000 /tmp/$tool.log >>$T
    tail -2 /tmp/$tool.log
done
B=""
for m in gen:lap3d27:96 gen:lap3d7:200 gen:rmat:scale=20,ef=16,sym=1 \
    gen:circuit:n=2000000,avg=5,long=20,longlen=200000 $M/xenon1.mtx $M/cage11.mtx $M/NotreDame_www.mtx; do
    B="$B $m@f64,f16@$SETS@$F"
done
SPX_GPU_STEPS="copy bench" SPX_GPU_BENCH="$B" SPX_GPU_DEADLINE=$((${BENCH_BY:-200} - $(date +%s) + START)) \
    bash scripts/gpu-check.sh >/tmp/bench.out 2>&1
grep -E "skipped|FAILED|failed steps" /tmp/bench.out
rm -f $OUT/build.log
for k in "csr_stream_kernel@blocknnz=2048" "csr_pipe_kernel@pipe=2,blocknnz=2048"; do
    [[ "${NCU:-1}" == 1 ]] && left ${NCU_BY:-235} || { echo "ncu $k skipped"; continue; }
    timeout 40 ncu --clock-control none -k "regex:${k%@*}" --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats \
        build-gpu/spx bench gen:lap3d27:96 --device cuda --precision f16 --format csr \
        --param "${k#*@}" --calls 5 2>&1 | grep -E "^  [a-z]|Duration|Throughput|Occupancy|Stall|Warp Cycles|Issued|Registers|Block Limit" |
        grep -v "^  *-" | head -40
done
echo "total $(($(date +%s) - START)) s"
