#!/usr/bin/env bash
# The device run behind gpu-dasp-prep-2026-11-22.md, from the repository root on
# the lent GPU machine (the shared matrices carried as .matrices/matrices.tar.xz):
# build the library, the tests and the prep timer; test_dasp; ctest on the dasp,
# gpu and conformance tests; the timer (dasp prep=host against prep=gpu against
# csr, one process); compute-sanitizer memcheck on test_dasp with
# SPX_TEST_QUICK=1 and three small shared matrices.
# Logs under $OUT (or /tmp/dasp-prep). STEPS picks steps (default all).
set -u -o pipefail
OUT=${OUT:-/tmp/dasp-prep}
STEPS=${STEPS:-"build test ctest timer memcheck"}
mkdir -p "$OUT" /tmp/m /tmp/small/matrices
step() { [[ " $STEPS " == *" $1 "* ]]; }
tar -C /tmp/m -xJf .matrices/matrices.tar.xz
M=/tmp/m/matrices
for f in cage11 west0067 bfly README.md; do cp "$M/$f" /tmp/small/matrices/ 2>/dev/null ||
    cp "$M/$f.mtx" /tmp/small/matrices/; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if step build; then
    SECONDS=0
    { cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release \
          -DSPX_WERROR=OFF -DSPX_TEST_MATRICES=$M &&
      cmake --build build-gpu -j16; } >"$OUT/build.log" 2>&1 ||
        { tail -40 "$OUT/build.log"; exit 1; }
    grep -E "warning" "$OUT/build.log" | head
    gcc -O2 -Wall -Iinclude -Isrc bench/results/gpu-dasp-prep-timer.c -Lbuild-gpu -lspx \
        -Wl,-rpath,"$PWD/build-gpu" -o /tmp/prep-timer || exit 1
    echo "build ${SECONDS}s"
fi
if step test; then
    SECONDS=0
    SPX_MATRICES=$M timeout 150 build-gpu/tests/test_dasp >"$OUT/test.log" 2>&1
    echo "test_dasp rc $? ${SECONDS}s"
    grep -vE "^ *$" "$OUT/test.log" | grep -iE "fail|differ|error|passed" | head -20
fi
if step ctest; then
    SECONDS=0
    (cd build-gpu && SPX_MATRICES=$M timeout 150 ctest -j8 --timeout 140 -R "dasp|gpu|conformance" \
        >"$OUT/ctest.log" 2>&1)
    echo "ctest rc $? ${SECONDS}s"
    grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest.log" | head
fi
if step timer; then
    SECONDS=0
    timeout 200 /tmp/prep-timer f64,f16 gen:lap3d27:96 gen:rmat:scale=20,ef=16,sym=1 \
        gen:lap3d7:200 $M/xenon1.mtx 2>&1 | tee "$OUT/timer.txt"
    echo "timer ${SECONDS}s"
fi
if step memcheck; then
    SECONDS=0
    SPX_TEST_QUICK=1 SPX_MATRICES=/tmp/small/matrices timeout 150 compute-sanitizer \
        --tool memcheck --leak-check full --error-exitcode 9 build-gpu/tests/test_dasp \
        >"$OUT/memcheck.log" 2>&1
    echo "memcheck rc $? ${SECONDS}s"
    grep -E "ERROR SUMMARY|LEAK SUMMARY|passed" "$OUT/memcheck.log" | tail -5
fi
