#!/usr/bin/env bash
# The GPU machine's one script, run from the repository root on a Hopper GPU:
#   build for sm_90; the device-to-device copy bandwidth; `spx bench --device
#   cuda --peers` on the shared matrices with >= 100k nonzeros (fp64 and fp16;
#   fp16 declines those with values beyond half's range), generated ones
#   of 10M-100M nonzeros and, in fp64 with csr, dasp, auto and cuSPARSE CSR
#   only, scaled and generated ones of 3M-12M nonzeros (checks of AUTO's
#   rule, src/cuda/auto_cuda.c, between those two sizes); `spx bench --device
#   cpu` of SpX's CPU formats on the host's CPU (step cpu); ctest (the GPU tests run because a
#   GPU is present); compute-sanitizer memcheck and racecheck on tests/test_gpu
#   (small matrices). The whole fits one 10-minute call (see SPX_GPU_DEADLINE).
# With the default formats each bench run has `auto` (AUTO's pick as a row of
# its own; the table names the format it picked) and, in fp16,
# two cuSPARSE rows: peer-cusparse-csr (float x and y converted to half in each
# call, counted) and peer-cusparse-csr-h (x in half once, cusparseSpMV alone).
# Each fp16 input runs once more with --param xtype=half (SpX's plans read x
# in half too), against peer-cusparse-csr-h of that process.
# Results: bench/results/gpu-<gpu>-<date>.{txt,json,csv} and -log.txt, and
# bench/results/cpu-<cpu>-<date>.txt, copied to $OUT when it is set (8 files
# with the build, ctest and sanitizer logs). Exit status: 0 when every step
# passed, else 1 (all steps run regardless, so one failure still leaves the
# other results).
#
# Environment:
#   SPX_MATRICES        folder of the shared .mtx files; default: extract
#                       .matrices/matrices.tar.xz into /tmp
#   SPX_GPU_QUICK=1     a small subset (3 shared matrices, 1 generated, f64 only;
#                       step cpu: 1 matrix)
#   SPX_GPU_STEPS       steps to run (default "build copy bench cpu test sanitize")
#   SPX_GPU_BENCH       bench runs "input@precisions[@params[@formats]]", space
#                       separated (input a file or gen:SPEC, precisions as for spx
#                       bench: f64,f32,f16; params for --param, formats for --format,
#                       both comma separated), instead of the shared matrices in f64
#                       and the generated and 3M-12M lists below
#   SPX_GPU_FORMATS     formats and peers for spx bench --format (default: every
#                       format and peer)
#   SPX_GPU_CTEST       ctest -R regular expression (default: every test)
#   SPX_GPU_JOBS        build jobs (default 16)
#   SPX_GPU_DEADLINE    seconds after the start past which remaining bench runs are
#                       skipped, leaving time for the tests (default 330)
#   SPX_GPU_CPU_DEADLINE  the same for the cpu step's runs (default the bench's
#                       deadline + 60: that step takes about 60 s)
#   SPX_GPU_CPU_THREADS OpenMP threads of the cpu step (default 16)
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1

STEPS=${SPX_GPU_STEPS:-"build copy bench cpu test sanitize"}
QUICK=${SPX_GPU_QUICK:-0}
JOBS=${SPX_GPU_JOBS:-16}
DEADLINE=${SPX_GPU_DEADLINE:-330}
CPU_DEADLINE=${SPX_GPU_CPU_DEADLINE:-$((DEADLINE + 60))}
CPU_THREADS=${SPX_GPU_CPU_THREADS:-16}
FORMATS=${SPX_GPU_FORMATS:-}
CTEST_RE=${SPX_GPU_CTEST:-}
BUILD=build-gpu
failed=""

say() { echo "== $(date -u +%H:%M:%S) $*"; }
step() { [[ " $STEPS " == *" $1 "* ]]; }
fail() { failed="$failed $1"; say "FAILED: $1"; }

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

# ---- device-to-device copy bandwidth (bytes read + written), and the L2 size
COPY_GBS=0
L2_MB=0
if step copy; then
    say "copy bandwidth" | tee -a "$LOG"
    cat >"$WORK/copybw.cu" <<'EOF'
// Device-to-device copy bandwidth: median of 20 copies of 1 GiB, bytes read + written.
#include <cstdio>
#include <algorithm>
#include <cuda_runtime.h>
int main()
{
    size_t bytes = (size_t)1 << 30;
    void *a, *b;
    cudaEvent_t e0, e1;
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || cudaMalloc(&a, bytes) != cudaSuccess ||
        cudaMalloc(&b, bytes) != cudaSuccess) return 1;
    cudaMemset(a, 1, bytes);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float t[20];
    for (int i = 0; i < 23; i++) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        if (i >= 3) cudaEventElapsedTime(&t[i - 3], e0, e1);
    }
    std::sort(t, t + 20);
    if (cudaGetLastError() != cudaSuccess) return 1;
    printf("%.1f %.1f %d\n", 2.0 * bytes / (t[10] * 1e-3) / 1e9, p.l2CacheSize / 1048576.0,
           p.multiProcessorCount);
    return 0;
}
EOF
    if nvcc -O2 -arch=sm_90 -o "$WORK/copybw" "$WORK/copybw.cu" >>"$LOG" 2>&1 &&
       read -r COPY_GBS L2_MB SMS < <("$WORK/copybw"); then
        say "copy: $COPY_GBS GB/s (read + write), L2 $L2_MB MB, $SMS SMs" | tee -a "$LOG"
    else
        fail copy
    fi
fi

# ---- benchmark
shared_big() { # shared matrices with >= 100k nonzeros after symmetric expansion
    for f in "$MAT"/*.mtx; do
        [[ -f "$f" ]] || continue
        awk 'NR == 1 { sym = ($0 ~ /symmetric|hermitian/) } /^%/ { next }
             { n = $3; if (sym) n = 2 * n - $1; if (n >= 100000) print FILENAME; exit }' "$f"
    done
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
MID="$(scaled xenon1 3 6 10) $(scaled TSOPF_RS_b39_c30 3 6 10) gen:lap3d27:50 gen:lap3d27:64
     gen:rmat:scale=17,ef=16,sym=1 $(scaled c-62 10)"
MID=$(for m in $MID; do echo "$m@f64@@csr,dasp,sell,auto,peer-cusparse-csr"; done)
if [[ "$QUICK" == 1 ]]; then
    SHARED=$(for m in cage11 xenon1 NotreDame_www; do [[ -f "$MAT/$m.mtx" ]] && echo "$MAT/$m.mtx"; done)
    GEN="gen:lap3d27:96@f64"
else
    SHARED=$(shared_big)
fi
# fp16 with x in half in SpX too (param xtype=half; the cuSPARSE half-x peer
# in the same process): every fp16 input of the runs above, set "xhalf",
# with its own geometric mean.
XHALF=$(for e in $(for m in $SHARED; do echo "$m@f64,f16"; done) $GEN; do
    [[ "${e#*@}" == *f16* ]] && echo "${e%%@*}@f16@xtype=half@csr,dasp,sell,auto,peer-cusparse-csr-h"
done)
if [[ "$QUICK" == 1 || -n "${SPX_GPU_BENCH:-}" ]]; then
    MID=""
    XHALF=""
fi
if step bench; then
    : >"$WORK/bench.txt"
    n=0
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
        timeout 150 $BUILD/spx bench "$1" --device cuda --peers --precision "$2" \
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
    python3 - "$WORK" "$BASE" "$GPU" "$COPY_GBS" "$L2_MB" <<'EOF'
# Join the bench records; write JSON, CSV and a table of each format against cuSPARSE CSR.
import csv, glob, json, os, sys
work, base, gpu, copy_gbs, l2_mb = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
recs = []
for f in sorted(glob.glob(work + "/b*.json"), key=lambda p: int(os.path.basename(p)[1:-5])):
    try:
        d = json.load(open(f))
        d = d if isinstance(d, list) else [d]
        extra = {}
        for key in ("params", "set"):
            pf = f[:-5] + "." + key
            v = open(pf).read().strip() if os.path.exists(pf) else ""
            if v:
                extra[key] = v
        for r in d:  # a record keeps its own set's params (--param a;b labels each pass)
            for k, v in extra.items():
                r.setdefault(k, v)
        recs += d
    except Exception as e:
        print("unreadable", f, e)
meta = {"gpu": gpu, "copy_gbs": copy_gbs, "l2_mb": l2_mb,
        "note": "copy_gbs counts bytes read + written; gbs by the DESIGN.md bytes model"}
json.dump({"meta": meta, "records": recs}, open(base + ".json", "w"), indent=1)
keys = ["matrix", "format", "device", "precision", "nnz", "median_ms", "gflops", "gbs",
        "prep_ms", "bytes", "breakeven_calls", "max_rel_err", "ok"]
with open(base + ".csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(keys)
    for r in recs:
        w.writerow([r.get(k, "") for k in keys])
out = ["GPU: %s; device-to-device copy %.0f GB/s (read + write); L2 %.0f MB" % (gpu, copy_gbs, l2_mb),
       "gflops per format; x = ratio to peer-cusparse-csr in the same process; %bw = gbs / copy",
       "(L2) marks a matrix whose bytes model fits in L2: it measures the cache, not HBM",
       "auto:F: AUTO's pick F (spx_plan_format of the auto plan)",
       "fp16: h = ratio to peer-cusparse-csr-h (x in half once, cusparseSpMV alone timed)",
       "[mid]: the 3M-12M fp64 runs (AUTO's rule between the L2-resident and the large matrices), kept out of the means",
       "[xhalf]: fp16 runs with --param xtype=half (SpX reads x in half, as the peer csr-h does)", ""]
groups = {}
for r in recs:
    if r.get("device", "cuda") != "cuda":
        continue
    groups.setdefault((r["matrix"], r["precision"], r.get("params", ""), r.get("set", "")), []).append(r)

def ok_rec(rs, fmt):
    return next((r for r in rs if r["format"] == fmt and r.get("ok") and r.get("gflops")), None)

def auto_pick(rs):
    a = ok_rec(rs, "auto")
    return a.get("chosen") if a else None

ratios, ratios_h, ratios_xh, sizes = {}, {}, {}, []
for (m, p, params, rset), rs in groups.items():
    base_r = ok_rec(rs, "peer-cusparse-csr")
    half_r = ok_rec(rs, "peer-cusparse-csr-h") if p == "f16" else None
    pick = auto_pick(rs)
    name = os.path.basename(m)
    model_mb = 0
    for r in rs:
        if r.get("gbs") and r.get("median_ms"):
            model_mb = r["gbs"] * r["median_ms"] * 1e-3 * 1e3
            break
    in_l2 = 0 < model_mb < l2_mb
    out.append("%s %s nnz=%s%s%s%s" % (name, p, rs[0].get("nnz"), " (L2)" if in_l2 else "",
                                       " [param %s]" % params if params else "",
                                       " [%s]" % rset if rset else ""))
    for r in sorted(rs, key=lambda r: -(r.get("gflops") or 0)):
        ratio, hratio = "", ""
        if base_r and r.get("gflops"):
            x = r["gflops"] / base_r["gflops"]
            ratio = "%.2fx" % x
            if r.get("ok") and not params and not rset:
                ratios.setdefault((r["format"], p), []).append(x)
        if half_r and r.get("gflops"):
            x = r["gflops"] / half_r["gflops"]
            hratio = " h %.2fx" % x
            if r.get("ok") and not params and not rset:
                ratios_h.setdefault((r["format"], p), []).append(x)
            if r.get("ok") and rset == "xhalf":
                ratios_xh.setdefault((r["format"], p), []).append(x)
        label = "auto:%s" % pick if r["format"] == "auto" and pick else r["format"]
        bw = "%.0f%%bw" % (100 * r["gbs"] / copy_gbs) if copy_gbs and r.get("gbs") else ""
        out.append("  %-20s %8.1f gflops %7s %6s  %8.4f ms  prep %8.1f ms  err %.1e %s%s" % (
            label, r.get("gflops") or 0, ratio, bw, r.get("median_ms") or 0,
            r.get("prep_ms") or 0, r.get("max_rel_err") or 0,
            "ok" if r.get("ok") else "declined" if r.get("status") == "SPX_ERR_UNSUPPORTED" else "FAILED",
            hratio))
    csr, dasp = ok_rec(rs, "csr"), ok_rec(rs, "dasp")
    if p == "f64" and not params and csr and dasp:
        sizes.append((rs[0].get("nnz") or 0, name, in_l2, csr, dasp, pick, base_r))

def means(title, table):
    out.append("")
    out.append(title)
    for (fmt, p), xs in sorted(table.items()):
        g = 1.0
        for x in xs:
            g *= x
        out.append("  %-20s %s %.2fx over %d matrices" % (fmt, p, g ** (1.0 / len(xs)), len(xs)))

means("geometric mean over cuSPARSE CSR (matrices where both ran and passed):", ratios)
if ratios_h:
    means("fp16, geometric mean over peer-cusparse-csr-h (cuSPARSE with x kept in half):", ratios_h)
if ratios_xh:
    means("fp16 with xtype=half (x in half in SpX and cuSPARSE), geometric mean over peer-cusparse-csr-h:",
          ratios_xh)
out.append("")
out.append("fp64 by size: dasp against csr (time csr / time dasp: > 1 dasp faster), AUTO's pick")
out.append("  %-44s %10s %5s %7s %7s %9s %-6s" % ("matrix", "nnz", "", "csr", "dasp", "dasp/csr", "auto"))
for nnz, name, in_l2, csr, dasp, pick, base_r in sorted(sizes, key=lambda t: t[0]):
    rel = lambda r: "%.2fx" % (r["gflops"] / base_r["gflops"]) if base_r else "-"
    best = "dasp" if dasp["gflops"] > csr["gflops"] else "csr"
    out.append("  %-44s %10d %5s %7s %7s %9.2f %-6s%s" % (
        name[:44], nnz, "(L2)" if in_l2 else "", rel(csr), rel(dasp), dasp["gflops"] / csr["gflops"],
        pick or "-", "" if not pick or pick in ("?", best) else "  (best: %s)" % best))
open(base + ".txt", "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
    cat "$WORK/bench.txt" >>"$BASE.txt"
fi

# ---- SpX's CPU formats on this machine's CPU (peers are not installed here)
if step cpu; then
    CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
    CTAG=$(echo "${CPU:-unknown cpu}" | tr 'A-Z' 'a-z' |
        sed -e 's/([a-z]*)//g' -e 's/ cpu / /' -e 's/@.*//' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
    CPUOUT=bench/results/cpu-$CTAG-$DATE.txt
    CPUF=csr,sell,axc,axt-uh1,axt-uh,axt-ch1,axt-ch
    CPUM="$MAT/xenon1.mtx $MAT/NotreDame_www.mtx gen:lap3d27:64 gen:rmat:scale=18,ef=16,sym=1
          gen:circuit:n=1000000,avg=5,long=20,longlen=100000"
    if [[ "$QUICK" == 1 ]]; then
        CPUM=gen:lap3d27:64
    fi
    BIND=${OMP_PROC_BIND:-close}
    PLACES=${OMP_PLACES:-cores} # for this step's runs only (ctest runs 8 programs at once)
    say "cpu bench: $CPU, $CPU_THREADS threads; $CPUOUT" | tee -a "$LOG"
    {
        echo "# SpX CPU formats on the GPU machine's host CPU, $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "#"
        echo "# Written by scripts/gpu-check.sh (step cpu) on the lent GPU machine ($GPU), after"
        echo "# its GPU bench (the steps run one after another: the GPU is idle here). Build:"
        echo "# $BUILD (Release, CUDA on; CPU kernels chosen at run time by the ISA found)."
        echo "# Peers: none. librsb, SuiteSparse:GraphBLAS and Eigen are not installed on that"
        echo "# machine, so each table has SpX's formats only (csr is SpX's own, the baseline"
        echo "# of breakeven; be_peer is '-'). Compare ratios within one table (one process)."
        echo "# Command, one process per matrix M:"
        echo "#   OMP_PROC_BIND=$BIND OMP_PLACES=$PLACES $BUILD/spx bench M --device cpu \\"
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
        OMP_PROC_BIND=$BIND OMP_PLACES=$PLACES timeout 40 $BUILD/spx bench "$m" --device cpu \
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

# ---- compute-sanitizer on the GPU test, with three small shared matrices
if step sanitize; then
    SMALL=$WORK/small
    mkdir -p "$SMALL"
    echo "small subset for compute-sanitizer" >"$SMALL/README.md"
    for m in west0067 pores_1 rajat01; do
        [[ -f "$MAT/$m.mtx" ]] && cp "$MAT/$m.mtx" "$SMALL/"
    done
    for tool in memcheck racecheck; do
        say "compute-sanitizer --tool $tool test_gpu" | tee -a "$LOG"
        SPX_TEST_QUICK=1 SPX_MATRICES=$SMALL timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 \
            $BUILD/tests/test_gpu >"$WORK/$tool.log" 2>&1 || fail "sanitizer-$tool"
        tail -4 "$WORK/$tool.log" >>"$LOG"
    done
fi

say "failed steps:${failed:- none}" | tee -a "$LOG"
if [[ -n "${OUT:-}" ]]; then # at most 8 files come back
    cp "$BASE".txt "$BASE".json "$BASE".csv "$LOG" ${CPUOUT:+"$CPUOUT"} "$OUT"/ 2>/dev/null
    for f in ctest build; do
        [[ -f "$WORK/$f.log" ]] && tail -c 2000000 "$WORK/$f.log" >"$OUT/$f.log"
    done
    for f in memcheck racecheck; do
        [[ -f "$WORK/$f.log" ]] && { echo "==== $f"; tail -c 1000000 "$WORK/$f.log"; }
    done >"$OUT/sanitize.log"
    [[ -s "$OUT/sanitize.log" ]] || rm -f "$OUT/sanitize.log"
fi
[[ -z "$failed" ]]
