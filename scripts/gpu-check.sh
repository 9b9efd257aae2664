#!/usr/bin/env bash
# The GPU machine's one script, run from the repository root on a Hopper GPU:
#   build for sm_90; the device-to-device copy bandwidth and L2 size (`spx bench
#   --copy`); `spx bench --device cuda --peers` on the shared matrices with >= 100k
#   nonzeros (fp64 and fp16; fp16 declines those with values beyond half's range),
#   generated ones of 10M-100M nonzeros and, in fp64 with every CUDA SpMV format,
#   auto and cuSPARSE CSR only, scaled and generated ones of 3M-12M nonzeros (checks
#   of AUTO's rules between those two sizes); `spx bench --op spgemm --device cuda
#   --peers` on a few matrices (step spgemm); `spx bench --op spmm --k 32 --device
#   cuda --peers` on three (step spmm, its table in the log); `spx bench --op sddmm --k 32
#   --device cuda --peers` on three (step sddmm, its table in the log); `spx solve --rhs K --compare
#   --device cuda` on four (step many: spx_cg_many against K spx_cg); `spx bench --device cpu` of SpX's CPU
#   formats on the host's CPU (step cpu); ctest (the GPU tests run because a GPU is
#   present); compute-sanitizer memcheck and racecheck on every GPU test program
#   (small matrices, SPX_TEST_QUICK=1).
# Formats and peers come from the build itself (`spx formats`, `spx bench
# --list-peers`), so a new format is benchmarked, and its tests/test_NAME*.c
# sanitized, without editing this script.
# With the default formats each bench run has `auto` (AUTO's pick as a row of
# its own; the table names the format it picked) and, in fp16,
# two cuSPARSE rows: peer-cusparse-csr (float x and y converted to half in each
# call, counted) and peer-cusparse-csr-h (x in half once, cusparseSpMV alone).
# Each fp16 input runs once more with --param xtype=half (SpX's plans read x
# in half too) with the CUDA formats that have fp16, against peer-cusparse-csr-h.
# Results: bench/results/gpu-<gpu>-<date>.{txt,json,csv} (scripts/gpu_report.py)
# and -log.txt, and bench/results/cpu-<cpu>-<date>.txt, copied to $OUT when it is
# set (8 files with the build, ctest and sanitizer logs). Exit status: 0 when
# every step passed, else 1 (all steps run regardless, so one failure still
# leaves the other results).
#
# Environment:
#   SPX_MATRICES        folder of the shared .mtx files; default: extract
#                       .matrices/matrices.tar.xz into /tmp
#   SPX_GPU_QUICK=1     a small subset (3 shared matrices, 1 generated, f64 only;
#                       steps spgemm and cpu: 1 matrix each)
#   SPX_GPU_STEPS       steps to run (default "build copy bench spgemm spmm sddmm many cpu test
#                       sanitize")
#   SPX_GPU_BENCH       bench runs "input@precisions[@params[@formats]]", space
#                       separated (input a file or gen:SPEC, precisions as for spx
#                       bench: f64,f32,f16; params for --param, formats for --format,
#                       both comma separated), instead of the shared matrices in f64
#                       and the generated and 3M-12M lists below
#   SPX_GPU_SPGEMM      SpGEMM inputs (files or gen:SPEC), space separated
#   SPX_GPU_SPMM        SpMM inputs (files or gen:SPEC), space separated
#   SPX_GPU_SDDMM       SDDMM inputs (files or gen:SPEC), space separated
#   SPX_GPU_FORMATS     formats and peers for spx bench --format (default: every
#                       format and peer)
#   SPX_GPU_CTEST       ctest -R regular expression (default: every test)
#   SPX_GPU_SANITIZE_TIMEOUT  seconds a sanitizer run may take (default 300)
#   SPX_GPU_SANITIZE    test programs for compute-sanitizer (default: every
#                       tests/test_gpu*.c, test_dasp*, test_cuda*, the tests named
#                       after a CUDA format, and test_conformance)
#   SPX_GPU_JOBS        build jobs (default 16)
#   SPX_GPU_DEADLINE    seconds after the start past which remaining bench runs are
#                       skipped, leaving time for the tests (default 300)
#   SPX_GPU_SPGEMM_DEADLINE  the same for the spgemm step (default the bench's + 45)
#   SPX_GPU_CPU_DEADLINE  the same for the cpu step's runs (default the spgemm
#                       step's + 60: that step takes about 60 s)
#   SPX_GPU_CPU_THREADS OpenMP threads of the cpu step (default 16)
#   SPX_GPU_CPU_MATRICES  inputs of the cpu step (default: two shared matrices and
#                       three generated ones; with SPX_GPU_QUICK=1 gen:lap3d27:64)
#   SPX_GPU_BUILD       build folder (default build-gpu)
# The copy bandwidth, the tables and the report are programs of the tree:
# `spx bench --copy` (bench/bench_cuda.cu) and scripts/gpu_report.py.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1

STEPS=${SPX_GPU_STEPS:-"build copy bench spgemm spmm sddmm many cpu test sanitize"}
QUICK=${SPX_GPU_QUICK:-0}
JOBS=${SPX_GPU_JOBS:-16}
DEADLINE=${SPX_GPU_DEADLINE:-300}
SPGEMM_DEADLINE=${SPX_GPU_SPGEMM_DEADLINE:-$((DEADLINE + 45))}
CPU_DEADLINE=${SPX_GPU_CPU_DEADLINE:-$((SPGEMM_DEADLINE + 60))}
CPU_THREADS=${SPX_GPU_CPU_THREADS:-16}
FORMATS=${SPX_GPU_FORMATS:-}
CTEST_RE=${SPX_GPU_CTEST:-}
BUILD=${SPX_GPU_BUILD:-build-gpu}
SPX=$BUILD/spx
BASE_PEER=peer-cusparse-csr   # the report's baseline (gpu_report.py)
HALF_PEER=peer-cusparse-csr-h # fp16 with x in half
failed=""

say() { echo "== $(date -u +%H:%M:%S) $*"; }
step() { [[ " $STEPS " == *" $1 "* ]]; }
fail() { failed="$failed $1"; say "FAILED: $1"; }
joined() { paste -sd, -; } # lines -> one comma-separated line

# Formats of the registry computing OP (spmv, spgemm; "" any) on DEVICE, with
# precision PREC when given, in the registry's order: `spx formats` lists
# name, operations, devices and precisions per line (words of known sets, so
# the column widths do not matter), then a blank line.
registry_formats() { # OP DEVICE [PREC]
    "$SPX" formats | awk -v op="$1" -v dev="$2" -v prec="${3:-}" '
        NR == 1 { next }
        NF == 0 { exit }
        { ops = " "; devs = " "; precs = " "
          for (i = 2; i <= NF; i++) {
              if ($i ~ /^(spmv|spgemm|spmm|sddmm)$/) ops = ops $i " "
              else if ($i ~ /^(cpu|cuda)$/) devs = devs $i " "
              else if ($i ~ /^f(64|32|16)$/) precs = precs $i " " }
          if ((op == "" || index(ops, " " op " ")) && index(devs, " " dev " ") &&
              (prec == "" || index(precs, " " prec " ")) && !seen[$1]++) print $1 }'
}
# Peers compiled in for OP on DEVICE (`spx bench --list-peers`: name, operation,
# devices, precisions).
registry_peers() { # OP DEVICE
    "$SPX" bench --list-peers | awk -v op="$1" -v dev="$2" '$2 == op && index("," $3 ",", "," dev ",") { print $1 }'
}
has_peer() { registry_peers spmv cuda | grep -qx "$1"; }

# ---- where things go
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
GPU=${GPU:-unknown-gpu}
TAG=$(echo "$GPU" | tr 'A-Z' 'a-z' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
DATE=$(date -u +%Y-%m-%d)
mkdir -p bench/results
BASE=bench/results/gpu-$TAG-$DATE
LOG=$BASE-log.txt
WORK=$(mktemp -d /tmp/spx-gpu.XXXXXX)
: >"$LOG"
say "GPU: $GPU; results $BASE.*" | tee -a "$LOG"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -2; } >>"$LOG" 2>&1

# ---- matrices
MAT=${SPX_MATRICES:-}
if [[ -z "$MAT" && -f .matrices/matrices.tar.xz ]]; then
    mkdir -p /tmp/spx-matrices
    tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz && MAT=/tmp/spx-matrices/matrices
fi
if [[ -z "$MAT" || ! -d "$MAT" ]]; then
    say "no shared matrices (set SPX_MATRICES or carry .matrices/matrices.tar.xz)" | tee -a "$LOG"
    MAT=/nonexistent
fi

# ---- build
if step build; then
    say "build" | tee -a "$LOG"
    if ! { cmake -S . -B $BUILD -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release \
            -DSPX_WERROR=OFF -DSPX_TEST_MATRICES="$MAT" &&
           cmake --build $BUILD -j"$JOBS"; } >"$WORK/build.log" 2>&1; then
        fail build
    fi
    grep -E "warning|error" "$WORK/build.log" | head -40 >>"$LOG"
    tail -5 "$WORK/build.log" >>"$LOG"
fi
if [[ ! -x "$SPX" ]]; then
    say "no $SPX: nothing else can run" | tee -a "$LOG"
    fail "no spx program"
fi
{ echo "formats:"; "$SPX" formats; echo "peers:"; "$SPX" bench --list-peers; } >>"$LOG" 2>&1

# ---- device-to-device copy bandwidth (bytes read + written), and the L2 size
COPY_GBS=0
L2_MB=0
if step copy; then
    say "copy bandwidth" | tee -a "$LOG"
    line=$("$SPX" bench --copy --device cuda 2>>"$LOG") || fail copy
    echo "$line" >>"$LOG"
    # copy cuda: G GB/s (device-to-device, read + write); L2 M MB; S SMs; NAME
    COPY_GBS=$(sed -n 's/^copy cuda: \([0-9.]*\) GB\/s.*/\1/p' <<<"$line")
    L2_MB=$(sed -n 's/.*; L2 \([0-9.]*\) MB;.*/\1/p' <<<"$line")
    COPY_GBS=${COPY_GBS:-0}
    L2_MB=${L2_MB:-0}
    say "copy: $COPY_GBS GB/s (read + write), L2 $L2_MB MB" | tee -a "$LOG"
fi

# ---- benchmark
shared_big() { # shared matrices with >= 100k nonzeros after symmetric expansion
    for f in "$MAT"/*.mtx; do
        [[ -f "$f" ]] || continue
        awk 'NR == 1 { sym = ($0 ~ /symmetric|hermitian/) } /^%/ { next }
             { n = $3; if (sym) n = 2 * n - $1; if (n >= 100000) print FILENAME; exit }' "$f"
    done
}
shared() { # the named shared matrices that are there
    for m in "$@"; do [[ -f "$MAT/$m.mtx" ]] && echo "$MAT/$m.mtx"; done
}
GEN="gen:lap3d7:200@f64,f16 gen:lap3d27:96@f64,f32,f16 gen:rmat:scale=20,ef=16,sym=1@f64,f32,f16
     gen:circuit:n=2000000,avg=5,long=20,longlen=200000@f64,f16"
# 3M-12M nonzeros, fp64, between the L2-resident shared matrices and the large
# generated ones: AUTO's csr for mean rows of 16..32 without rows over 256
# (xenon1, TSOPF, lap3d27) and its dasp for such rows with them (R-MAT scale
# 17), and c-62 x 10 (rows over 256, mean 13.4: csr).
scaled() { # file copies...: scale-ups of a shared matrix, when it is there
    local f=$MAT/$1.mtx
    shift
    [[ -f "$f" ]] && for c in "$@"; do echo "gen:scale:file=$f,copies=$c"; done
}
CUDA_SPMV=$(registry_formats spmv cuda | joined)
CUDA_SPMV_F16=$(registry_formats spmv cuda f16 | joined)
MID_FORMATS=$CUDA_SPMV,auto$(has_peer $BASE_PEER && echo ",$BASE_PEER")
XHALF_FORMATS=$CUDA_SPMV_F16,auto$(has_peer $HALF_PEER && echo ",$HALF_PEER")
MID="$(scaled xenon1 3 6 10) $(scaled TSOPF_RS_b39_c30 3 6 10) gen:lap3d27:50 gen:lap3d27:64
     gen:rmat:scale=17,ef=16,sym=1 $(scaled c-62 10)"
MID=$(for m in $MID; do echo "$m@f64@@$MID_FORMATS"; done)
if [[ "$QUICK" == 1 ]]; then
    SHARED=$(shared cage11 xenon1 NotreDame_www)
    GEN="gen:lap3d27:96@f64"
else
    SHARED=$(shared_big)
fi
# fp16 with x in half in SpX too (param xtype=half; the cuSPARSE half-x peer
# in the same process): every fp16 input of the runs above, set "xhalf",
# with its own geometric mean.
XHALF=$(for e in $(for m in $SHARED; do echo "$m@f64,f16"; done) $GEN; do
    [[ "${e#*@}" == *f16* ]] && echo "${e%%@*}@f16@xtype=half@$XHALF_FORMATS"
done)
if [[ "$QUICK" == 1 || -n "${SPX_GPU_BENCH:-}" ]]; then
    MID=""
    XHALF=""
fi
n=0
if step bench; then
    say "bench: CUDA SpMV formats $CUDA_SPMV; peers $(registry_peers spmv cuda | joined)" | tee -a "$LOG"
    : >"$WORK/bench.txt"
    run_bench() { # input precision [params [formats [set]]]
        local fmts=${4:-$FORMATS}
        n=$((n + 1))
        if ((SECONDS > DEADLINE)); then
            say "bench $1 $2 skipped: past the ${DEADLINE}s deadline" | tee -a "$LOG"
            return
        fi
        say "bench $1 $2 ${3:-}" | tee -a "$LOG"
        echo "${3:-}" >"$WORK/b$n.params"
        echo "${5:-}" >"$WORK/b$n.set"
        timeout 150 "$SPX" bench "$1" --device cuda --peers --precision "$2" \
            ${fmts:+--format "$fmts"} ${3:+--param "$3"} \
            --json "$WORK/b$n.json" >>"$WORK/bench.txt" 2>>"$WORK/bench.err" || fail "bench $1 $2"
    }
    RUNS=${SPX_GPU_BENCH:-"$(for m in $SHARED; do echo "$m@f64,f16"; done) $GEN"}
    for e in $RUNS; do
        IFS=@ read -r in prec params fmts <<<"$e"
        run_bench "$in" "$prec" "$params" "$fmts"
    done
    for e in $XHALF; do # set "xhalf": a geometric mean of its own
        IFS=@ read -r in prec params fmts <<<"$e"
        run_bench "$in" "$prec" "$params" "$fmts" xhalf
    done
    for e in $MID; do # set "mid": kept out of the geometric means
        IFS=@ read -r in prec params fmts <<<"$e"
        run_bench "$in" "$prec" "$params" "$fmts" mid
    done
    tail -20 "$WORK/bench.err" >>"$LOG"
fi

# ---- SpGEMM: every CUDA SpGEMM format and peer, all precisions, C = A*A
if step spgemm; then
    SPGEMM=${SPX_GPU_SPGEMM:-"$(shared cage11 xenon1 NotreDame_www) gen:lap3d27:32 gen:rmat:scale=16,ef=16,sym=1"}
    [[ "$QUICK" == 1 ]] && SPGEMM=$(echo $SPGEMM | cut -d' ' -f1)
    say "spgemm: CUDA formats $(registry_formats spgemm cuda | joined); peers $(registry_peers spgemm cuda | joined)" |
        tee -a "$LOG"
    : >"$WORK/spgemm.txt"
    g=0
    for m in $SPGEMM; do
        g=$((g + 1))
        if ((SECONDS > SPGEMM_DEADLINE)); then
            say "spgemm $m skipped: past the ${SPGEMM_DEADLINE}s deadline" | tee -a "$LOG"
            continue
        fi
        say "spgemm $m" | tee -a "$LOG"
        timeout 120 "$SPX" bench "$m" --op spgemm --device cuda --peers --precision all --batches 5 \
            --json "$WORK/g$g.json" >>"$WORK/spgemm.txt" 2>>"$WORK/spgemm.err" || fail "spgemm $m"
    done
    tail -10 "$WORK/spgemm.err" >>"$LOG"
fi
# ---- SpMM: every CUDA SpMM format and cuSPARSE SpMM, Y = A*X with X of 32 columns
if step spmm; then
    SPMM=${SPX_GPU_SPMM:-"gen:lap3d7:128 gen:rmat:scale=20,ef=16,sym=1,values=random $(shared NotreDame_www)"}
    [[ "$QUICK" == 1 ]] && SPMM=$(echo $SPMM | cut -d' ' -f1)
    say "spmm: CUDA formats $(registry_formats spmm cuda | joined); peers $(registry_peers spmm cuda | joined)" |
        tee -a "$LOG"
    : >"$WORK/spmm.txt"
    for m in $SPMM; do
        if ((SECONDS > SPGEMM_DEADLINE + 30)); then
            say "spmm $m skipped: past the $((SPGEMM_DEADLINE + 30))s deadline" | tee -a "$LOG"
            continue
        fi
        say "spmm $m" | tee -a "$LOG"
        timeout 120 "$SPX" bench "$m" --op spmm --k 32 --device cuda --peers --precision f64,f32 \
            --batches 5 >>"$WORK/spmm.txt" 2>>"$WORK/spmm.err" || fail "spmm $m"
    done
    grep -E "^SpMM|^(csr|auto|peer)" "$WORK/spmm.txt" >>"$LOG" # its table, into the log
fi
# ---- SDDMM: every CUDA SDDMM format and cuSPARSE SDDMM, X*Y^T at A's entries, 32 columns
if step sddmm; then
    SDDMM=${SPX_GPU_SDDMM:-"gen:lap3d7:128 gen:rmat:scale=20,ef=16,sym=1 $(shared NotreDame_www)"}
    [[ "$QUICK" == 1 ]] && SDDMM=$(echo $SDDMM | cut -d' ' -f1)
    say "sddmm: CUDA formats $(registry_formats sddmm cuda | joined); peers $(registry_peers sddmm cuda | joined)" |
        tee -a "$LOG"
    : >"$WORK/sddmm.txt"
    for m in $SDDMM; do
        say "sddmm $m" | tee -a "$LOG"
        timeout 120 "$SPX" bench "$m" --op sddmm --k 32 --device cuda --peers --precision f64,f32 \
            --batches 5 >>"$WORK/sddmm.txt" 2>>"$WORK/sddmm.err" || fail "sddmm $m"
    done
    grep -E "^SDDMM|^(csr|auto|peer)" "$WORK/sddmm.txt" >>"$LOG" # its table, into the log
fi
# ---- CG of k right-hand sides (spx_cg_many) against k separate spx_cg solves, one process each
if step many; then
    say "many: spx solve --rhs K --compare --device cuda" | tee -a "$LOG"
    for mk in "lap3d7:40 8" "lap3d7:40 32" "lap3d27:64 32" "lap3d7:100 8"; do
        set -- $mk
        [[ "$QUICK" == 1 && "$1" == lap3d7:100 ]] && continue
        { echo "-- $1 k=$2"; timeout 120 "$SPX" solve "gen:$1" --rhs "$2" --compare --device cuda 2>&1 |
            tail -2; } >>"$LOG" || fail "many $1 $2"
    done
fi
if step bench || step spgemm; then
    python3 scripts/gpu_report.py "$WORK" "$BASE" "$GPU" "$COPY_GBS" "$L2_MB" || fail report
    cat "$WORK/bench.txt" "$WORK/spgemm.txt" >>"$BASE.txt" 2>/dev/null
fi

# ---- SpX's CPU formats on this machine's CPU (peers are not installed there)
if step cpu; then
    CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
    CTAG=$(echo "${CPU:-unknown cpu}" | tr 'A-Z' 'a-z' |
        sed -e 's/([a-z]*)//g' -e 's/ cpu / /' -e 's/@.*//' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
    CPUOUT=bench/results/cpu-$CTAG-$DATE.txt
    CPUF=$(registry_formats spmv cpu | grep -vxE 'ref|coo' | joined)
    CPUM="$(shared xenon1 NotreDame_www) gen:lap3d27:64 gen:rmat:scale=18,ef=16,sym=1
          gen:circuit:n=1000000,avg=5,long=20,longlen=100000"
    if [[ "$QUICK" == 1 ]]; then
        CPUM=gen:lap3d27:64
    fi
    CPUM=${SPX_GPU_CPU_MATRICES:-$CPUM}
    BIND=${OMP_PROC_BIND:-close}
    PLACES=${OMP_PLACES:-cores} # for this step's runs only (ctest runs 8 programs at once)
    say "cpu bench: $CPU, $CPU_THREADS threads, formats $CPUF; $CPUOUT" | tee -a "$LOG"
    {
        echo "# SpX CPU formats on the GPU machine's host CPU, $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "#"
        echo "# Written by scripts/gpu-check.sh (step cpu) on the lent GPU machine ($GPU), after"
        echo "# its GPU bench (the steps run one after another: the GPU is idle here). Build:"
        echo "# $BUILD (Release, CUDA on; CPU kernels chosen at run time by the ISA found)."
        echo "# Peers: those compiled in ($(registry_peers spmv cpu | joined); none when librsb,"
        echo "# SuiteSparse:GraphBLAS and Eigen are not installed there: csr is SpX's own, the"
        echo "# baseline of breakeven). Compare ratios within one table (one process)."
        echo "# Command, one process per matrix M:"
        echo "#   OMP_PROC_BIND=$BIND OMP_PLACES=$PLACES $SPX bench M --device cpu \\"
        echo "#       --threads $CPU_THREADS --format $CPUF --stream"
        echo "# %stream = gbs / STREAM triad measured in the same process before the formats."
        echo "#"
        lscpu 2>/dev/null | grep -E "^(Model name|CPU\(s\)|On-line|Thread|Core|Socket|NUMA node\(|L[123])" |
            sed 's/^/# /'
        echo "# AVX-512: $(grep -ow 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
        echo "# nproc: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }');" \
            "cgroup cpu.max: $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo none);" \
            "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "# $(gcc --version | head -1)"
        echo
    } >"$CPUOUT"
    for m in $CPUM; do
        if [[ "$m" != gen:* && ! -f "$m" ]]; then
            say "cpu bench $m skipped: no such file" | tee -a "$LOG" "$CPUOUT"
            continue
        fi
        if ((SECONDS > CPU_DEADLINE)); then
            say "cpu bench $m skipped: past the ${CPU_DEADLINE}s deadline" | tee -a "$LOG" "$CPUOUT"
            continue
        fi
        say "cpu bench $m" | tee -a "$LOG"
        echo "## $m" >>"$CPUOUT"
        OMP_PROC_BIND=$BIND OMP_PLACES=$PLACES timeout 40 "$SPX" bench "$m" --device cpu \
            --threads "$CPU_THREADS" --format "$CPUF" --stream >>"$CPUOUT" 2>>"$WORK/cpu.err" ||
            fail "cpu bench $m"
        echo >>"$CPUOUT"
    done
    tail -5 "$WORK/cpu.err" >>"$LOG"
fi

# ---- tests
if step test; then
    say "ctest" | tee -a "$LOG"
    (cd $BUILD && SPX_MATRICES="$MAT" timeout 170 ctest --output-on-failure -j8 --timeout 160 ${CTEST_RE:+-R "$CTEST_RE"}) \
        >"$WORK/ctest.log" 2>&1 || fail ctest
    grep -E "tests passed|Failed|\*\*\*|SKIP" "$WORK/ctest.log" >>"$LOG"
    grep -B2 -A20 "Failed\|\*\*\*Timeout\|check failed" "$WORK/ctest.log" | head -150 >>"$LOG"
    grep -A3 "test_gpu\b" "$WORK/ctest.log" | head -20 >>"$LOG"
fi

# ---- compute-sanitizer on every GPU test program, with three small shared matrices
gpu_tests() { # test programs that run CUDA code, built ones only
    local names=""
    for src in tests/test_gpu*.c tests/test_dasp*.c tests/test_cuda*.c; do
        [[ -f "$src" ]] && names="$names $(basename "$src" .c)"
    done
    for f in $(registry_formats "" cuda); do # a CUDA format's own tests that reach CUDA code
        for src in tests/test_"${f//-/_}".c tests/test_"${f//-/_}"_*.c; do
            [[ -f "$src" ]] && grep -q "SPX_DEV_CUDA\|spx__cuda\|\"cuda/" "$src" &&
                names="$names $(basename "$src" .c)"
        done
    done
    for t in $names test_conformance; do
        [[ -x "$BUILD/tests/$t" ]] && echo "$t"
    done | awk '!seen[$0]++'
}
if step sanitize; then
    SMALL=$WORK/small
    mkdir -p "$SMALL"
    echo "small subset for compute-sanitizer" >"$SMALL/README.md"
    for m in west0067 pores_1 rajat01; do
        [[ -f "$MAT/$m.mtx" ]] && cp "$MAT/$m.mtx" "$SMALL/"
    done
    SAN_TESTS=${SPX_GPU_SANITIZE:-$(gpu_tests)}
    SAN_TIMEOUT=${SPX_GPU_SANITIZE_TIMEOUT:-300} # racecheck of test_gpu_hbp alone: 208 s on the H100
    for tool in memcheck racecheck; do # the programs of one tool at once, on the one GPU
        say "compute-sanitizer --tool $tool: $(echo $SAN_TESTS)" | tee -a "$LOG"
        pids=""
        for t in $SAN_TESTS; do
            (cd tests && SPX_TEST_QUICK=1 SPX_MATRICES=$SMALL SPX_TEST_DATA="$PWD" timeout "$SAN_TIMEOUT" \
                compute-sanitizer --tool $tool --error-exitcode 9 "../$BUILD/tests/$t") \
                >"$WORK/$tool-$t.log" 2>&1 &
            pids="$pids $!:$t"
        done
        for p in $pids; do
            wait "${p%%:*}" || fail "sanitizer-$tool ${p#*:}"
            { echo "-- $tool ${p#*:}"; tail -3 "$WORK/$tool-${p#*:}.log"; } >>"$LOG"
        done
    done
fi

say "failed steps:${failed:- none}" | tee -a "$LOG"
if [[ -n "${OUT:-}" ]]; then # at most 8 files come back
    cp "$BASE".txt "$BASE".json "$BASE".csv "$LOG" ${CPUOUT:+"$CPUOUT"} "$OUT"/ 2>/dev/null
    for f in ctest build; do
        [[ -f "$WORK/$f.log" ]] && tail -c 2000000 "$WORK/$f.log" >"$OUT/$f.log"
    done
    for f in "$WORK"/memcheck-*.log "$WORK"/racecheck-*.log; do
        [[ -f "$f" ]] && { echo "==== $(basename "$f" .log)"; tail -c 300000 "$f"; }
    done >"$OUT/sanitize.log"
    [[ -s "$OUT/sanitize.log" ]] || rm -f "$OUT/sanitize.log"
fi
[[ -z "$failed" ]]
