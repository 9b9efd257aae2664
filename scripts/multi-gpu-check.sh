#!/usr/bin/env bash
# MSREP on a host of several GPUs (issue 16), one call of the device tool:
#   build    for sm_90 with MPI when mpicc is there;
#   test     the multi-device tests (test_multi*, test_gpu_multi, the MPI
#            tests), then compute-sanitizer memcheck on test_gpu_multi and
#            on the MPI test with 2 ranks;
#   scale    `spx bench M --multi N --device cuda --spread --overlap off` for
#            N = 2, 4, 8 (as many as the host has): pcsr, pcsc, pcoo and the
#            equal-rows baseline, partition, distribution, SpMV and merge
#            times apart, with host vectors and with resident vectors, against
#            one part on one GPU in the same run; then the defaults (the halo
#            overlapped with the SpMV where it is large) on every GPU;
#   mpi      `mpirun -np G spx bench M --device cuda` (one rank per GPU) beside
#            the threaded runs, when MPI was built: host vectors and vectors
#            resident on the ranks' GPUs (exchanged device to device, CUDA
#            IPC), and pcsr again with SPX_DIST_IPC=0 (through the host) and
#            with SPX_DIST_PULL=0 (same-host receives by one copy a peer, not
#            read by the GPUs' threads);
#   solve    CG (100 iterations) and BiCGSTAB (50) on one GPU against every
#            GPU, and the products alone (bench/experiments/msrep/multi_cg.c:
#            spx_multi_cg, spx_multi_bicgstab, a host thread per GPU); from 3
#            GPUs on CG again with SPX_MULTI_BARRIER=events (the GPUs meet by
#            events between devices, not the default barrier of flags);
#   barrier  what a meeting of every GPU costs inside a CUDA graph, by events
#            and by flags (bench/experiments/msrep/graph_barrier.cu);
#   oversize a 7-point stencil sized to 1.2x one GPU's memory (fp64 csr):
#            one GPU must refuse it with SPX_ERR_OOM, all the GPUs multiply it
#            (bench/experiments/msrep/oversize.c, checked on the host).
# Matrices (SPX_MULTI_MATRICES): 3D 7- and 27-point stencils and R-MAT of
# 100M+ nonzeros, sized to the GPUs' memory by default.
# Results: bench/results/msrep-<N>gpu-<gpu>-<date>.txt and its log, copied to
# $OUT when set. Exit 0 when every step passed.
#
# Environment: SPX_MULTI_STEPS (default "build test scale mpi solve barrier oversize"),
# SPX_MULTI_DEADLINE
# (seconds after which further bench runs are skipped, default 480),
# SPX_MULTI_CALLS (calls a batch, default 20), SPX_MULTI_JOBS (build jobs, 32),
# SPX_MULTI_PARTS (GPU counts to scale to, default 2 4 8 up to the host's).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1

STEPS=${SPX_MULTI_STEPS:-"build test scale mpi solve barrier oversize"}
DEADLINE=${SPX_MULTI_DEADLINE:-480}
CALLS=${SPX_MULTI_CALLS:-20}
JOBS=${SPX_MULTI_JOBS:-32}
BUILD=build-multi-gpu
failed=""
say() { echo "== $(date -u +%H:%M:%S) $*"; }
step() { [[ " $STEPS " == *" $1 "* ]]; }
fail() { failed="$failed $1"; say "FAILED: $1"; }

NGPU=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
TAG=$(echo "${GPU:-unknown}" | tr 'A-Z' 'a-z' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/-$//')
mkdir -p bench/results
BASE=bench/results/msrep-${NGPU}gpu-$TAG-$(date -u +%Y-%m-%d)
LOG=$BASE-log.txt
: >"$LOG"
say "$NGPU x $GPU; results $BASE.txt" | tee -a "$LOG"
nvidia-smi topo -m >>"$LOG" 2>&1

if step build; then
    say build | tee -a "$LOG"
    { cmake -S . -B $BUILD -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release \
          -DSPX_WERROR=OFF -DSPX_MPI=AUTO && cmake --build $BUILD -j"$JOBS"; } >"$BASE-build.log" 2>&1 ||
        fail build
    grep -E "SpX (CUDA|MPI)" "$BASE-build.log" >>"$LOG"
fi

if step test; then
    say "tests" | tee -a "$LOG"
    (cd $BUILD && timeout 300 ctest --output-on-failure -R 'multi|mpi_') >>"$LOG" 2>&1 || fail test
    SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
        $BUILD/tests/test_gpu_multi >"$BASE-memcheck.log" 2>&1 || fail memcheck
    tail -2 "$BASE-memcheck.log" >>"$LOG"
    if [[ -x $BUILD/tests/mpi_test_dist ]]; then # the MPI executor's GPU ranks, 2 of them
        (cd $BUILD/tests && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 \
            timeout 300 mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck \
            --error-exitcode 9 ./mpi_test_dist) >"$BASE-mpi-memcheck.log" 2>&1 || fail "mpi memcheck"
        grep -E "ERROR SUMMARY|passed" "$BASE-mpi-memcheck.log" >>"$LOG"
        # same-host receives by one copy a peer (SPX_DIST_PULL=0, not the default), on every GPU
        (cd $BUILD/tests && SPX_DIST_PULL=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            OMP_NUM_THREADS=1 timeout 300 mpirun -x SPX_DIST_PULL -np "$NGPU" --oversubscribe \
            ./mpi_test_dist) >"$BASE-mpi-copy.log" 2>&1 || fail "mpi SPX_DIST_PULL=0"
        tail -1 "$BASE-mpi-copy.log" >>"$LOG"
    fi
fi

# Matrices of 100M+ nonzeros that fit one GPU (the one-part baseline needs it):
# lap3d7:250 (109M), lap3d27:160 (108M), R-MAT scale 22 (~130M symmetrized).
MATS=${SPX_MULTI_MATRICES:-"gen:lap3d7:250 gen:lap3d27:160 gen:rmat:scale=22,ef=16,sym=1"}
# One part on one GPU is the baseline inside every run (host and resident tables).
PARTS=""
for n in ${SPX_MULTI_PARTS:-2 4 8}; do ((n <= NGPU)) && PARTS="$PARTS $n"; done

if step scale; then
    {
        echo "# MSREP strong scaling on $NGPU x $GPU, $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "# $BUILD/spx bench M --multi N --device cuda --spread --calls $CALLS"
        echo "# each table: one process; host vectors: speedup = one part on GPU 0 (AUTO's format)"
        echo "# over N parts on N GPUs (part i on GPU i mod $NGPU); resident vectors: spmv_x and"
        echo "# call_x = the same kind as one part on GPU 0 over N parts; times in ms"
    } >"$BASE.txt"
    for m in $MATS; do
        for n in $PARTS; do
            if ((SECONDS > DEADLINE)); then
                say "skipped $m x$n: past the deadline" | tee -a "$LOG" "$BASE.txt"
                continue
            fi
            say "scale $m on $n GPUs" | tee -a "$LOG"
            echo >>"$BASE.txt"
            echo "## --overlap off: spmv_x is the SpMV alone" >>"$BASE.txt"
            timeout 240 $BUILD/spx bench "$m" --multi "$n" --device cuda --spread --calls "$CALLS" \
                --overlap off >>"$BASE.txt" 2>>"$LOG" || fail "scale $m x$n"
        done
        # The defaults' call times (a large halo overlapped with the SpMV: then a part's spmv_ms
        # runs from the call's start), on every GPU.
        if ((SECONDS <= DEADLINE)) && [[ -n "$PARTS" ]]; then
            n=${PARTS##* }
            say "defaults $m on $n GPUs" | tee -a "$LOG"
            echo -e "\n## defaults (--overlap auto): call_x" >>"$BASE.txt"
            timeout 240 $BUILD/spx bench "$m" --multi "$n" --device cuda --spread --calls "$CALLS" \
                >>"$BASE.txt" 2>>"$LOG" || fail "defaults $m x$n"
        fi
    done
fi

if step mpi && [[ -x $BUILD/spx ]] && grep -q "SpX MPI.*ON" "$BASE-build.log" 2>/dev/null; then
    for m in $MATS; do
        if ((SECONDS > DEADLINE)); then continue; fi
        say "mpi $m, $NGPU ranks" | tee -a "$LOG"
        echo >>"$BASE.txt"
        echo "## mpirun -np $NGPU spx bench $m --device cuda (one rank per GPU)" >>"$BASE.txt"
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 240 \
            mpirun -np "$NGPU" --oversubscribe $BUILD/spx bench "$m" --device cuda \
            >>"$BASE.txt" 2>>"$LOG" || fail "mpi $m"
        # the same with the ranks' exchanges through pinned host memory instead of CUDA IPC
        echo "## SPX_DIST_IPC=0 mpirun -np $NGPU spx bench $m --device cuda --kind pcsr" >>"$BASE.txt"
        SPX_DIST_IPC=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
            mpirun -x SPX_DIST_IPC -np "$NGPU" --oversubscribe $BUILD/spx bench "$m" --device cuda \
            --kind pcsr >>"$BASE.txt" 2>>"$LOG" || fail "mpi $m without IPC"
        # and with the same-host receives by one copy a peer (SPX_DIST_PULL=0)
        echo "## SPX_DIST_PULL=0 mpirun -np $NGPU spx bench $m --device cuda --kind pcsr" >>"$BASE.txt"
        SPX_DIST_PULL=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
            mpirun -x SPX_DIST_PULL -np "$NGPU" --oversubscribe $BUILD/spx bench "$m" --device cuda \
            --kind pcsr >>"$BASE.txt" 2>>"$LOG" || fail "mpi $m with SPX_DIST_PULL=0"
    done
fi

# A harness of bench/experiments/msrep built against the static library: $BUILD/msrep_NAME.
build_harness() {
    local cuda_lib cuda_inc
    cuda_lib=$(dirname "$(sed -n 's/^CUDA_cudart_LIBRARY:FILEPATH=//p' $BUILD/CMakeCache.txt)")
    cuda_inc=$(dirname "$(command -v nvcc)")/../include
    cc -O2 -fopenmp -Iinclude -Isrc -I"$cuda_inc" bench/experiments/msrep/"$1".c $BUILD/libspx.a \
        -L"$cuda_lib" -Wl,-rpath,"$cuda_lib" -lcudart -lstdc++ -lm -lz -o $BUILD/msrep_"$1"
}

if step solve && ((NGPU >= 2)) && [[ -f $BUILD/libspx.a ]]; then
    say "solvers on 1 and $NGPU GPUs" | tee -a "$LOG"
    {
        echo
        echo "## solvers: one GPU against $NGPU (multi_cg; ms an iteration)"
        build_harness multi_cg &&
            for run in "lap3d7:200 --iters 100" "lap3d27:128 --iters 100" \
                "lap3d7:200 --iters 50 --solver bicgstab"; do
                ((SECONDS > DEADLINE)) && { echo "skipped past the deadline: $run"; continue; }
                # shellcheck disable=SC2086 # the run's words are its arguments
                timeout 120 $BUILD/msrep_multi_cg $run --rounds 5
            done &&
            if ((NGPU >= 3 && SECONDS <= DEADLINE)); then
                echo "## the same CG lap3d7:200 with SPX_MULTI_BARRIER=events"
                SPX_MULTI_BARRIER=events timeout 120 $BUILD/msrep_multi_cg lap3d7:200 --iters 100 \
                    --rounds 5
            fi
    } >>"$BASE.txt" 2>>"$LOG" || fail solve
fi

if step barrier && ((NGPU >= 2)); then
    say "barriers between $NGPU GPUs" | tee -a "$LOG"
    {
        echo
        echo "## a meeting of every GPU inside a CUDA graph (graph_barrier, us a step)"
        nvcc -O2 -arch=sm_90 bench/experiments/msrep/graph_barrier.cu -o $BUILD/graph_barrier &&
            timeout 120 $BUILD/graph_barrier 100 20
    } >>"$BASE.txt" 2>>"$LOG" || fail barrier
fi

# One GPU holds 108 bytes a row of lap3d7 in fp64 csr: 8 of row offset, 7
# nonzeros of 12 (column, value), x and y 16. N^3 rows = 1.2 x one GPU's
# memory / 108; the host holds the matrix (92 a row), x, y and y's check
# (24 a row): 116 N^3 must stay under 80% of its memory.
if step oversize && ((NGPU >= 2)) && [[ ! -f $BUILD/libspx.a ]]; then
    fail "oversize: no $BUILD/libspx.a"
elif step oversize && ((NGPU >= 2)); then
    say "oversize on $NGPU GPUs" | tee -a "$LOG"
    mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0)
    host=$(awk '/MemTotal/ {print $2 * 1024}' /proc/meminfo)
    N=$(python3 -c "print(int((1.2 * $mib * 2**20 / 108) ** (1 / 3)) + 1)")
    {
        echo
        echo "## oversize: lap3d7:$N (one GPU ${mib} MiB, host $((host >> 30)) GiB)"
        if python3 -c "import sys; sys.exit(0 if 116 * $N**3 < 0.8 * $host else 1)"; then
            build_harness oversize &&
                timeout 420 $BUILD/msrep_oversize lap3d7:$N --gpus "$NGPU" --calls 10 --batches 5
        else
            echo "skipped: 116 x $N^3 bytes exceed 80% of the host's memory"
        fi
    } >>"$BASE.txt" 2>>"$LOG" || fail oversize
fi

say "failed steps:${failed:- none}" | tee -a "$LOG"
if [[ -n "${OUT:-}" ]]; then
    cp "$BASE.txt" "$LOG" "$BASE-memcheck.log" "$BASE-mpi-memcheck.log" "$OUT"/ 2>/dev/null
fi
[[ -z "$failed" ]]
