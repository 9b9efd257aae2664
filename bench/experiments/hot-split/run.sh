#!/usr/bin/env bash
# Hot columns in shared memory (hot_split.cu): cuSPARSE CSR, SpX's auto, csr
# and dasp, and the column split (SpX plans of both parts; the own hot-column
# kernel with x_hot in shared memory or through L1, then SpX's plan of the
# cold part) on R-MAT 20 and 21, NotreDame_www and its 32 diagonal copies, the
# power-law generator and one regular control (lap3d7:128), fp64; then R-MAT
# 20 in fp32 and with all values 1. One process a matrix. Builds nothing: from
# the repository root, after
#   cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release \
#         -DSPX_BUILD_EXPERIMENTS=ON && cmake --build build-gpu -j16 --target hot_split
#   bench/experiments/hot-split/run.sh [BINARY]
# BINARY: default build-gpu/bench/experiments/hot_split (experiments land in
# bench/experiments/ of the build, not in a folder per topic).
# OUT_DIR (default bench/results/hot-split-pending): one NAME.txt a run,
# results.txt (every RESULT line), log.txt. SPX_MATRICES: the shared .mtx
# folder (else .matrices/matrices.tar.xz is unpacked to /tmp). DEADLINE
# (seconds, default 200) skips runs that would start after it, so that the
# whole script stays under 4 minutes on one H100; each run is cut at 100 s.
set -u -o pipefail
cd "$(dirname "$0")/../../.." || exit 1
BIN=${1:-build-gpu/bench/experiments/hot_split}
OUT_DIR=${OUT_DIR:-bench/results/hot-split-pending}
DEADLINE=${DEADLINE:-200}
mkdir -p "$OUT_DIR"
LOG=$OUT_DIR/log.txt
[[ -x $BIN ]] || { echo "run.sh: no binary $BIN (build the target hot_split)" | tee "$LOG"; exit 1; }
M=${SPX_MATRICES:-/tmp/spx-matrices/matrices}
if [[ ! -d $M && -f .matrices/matrices.tar.xz ]]; then
    mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz
fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  git rev-parse --short HEAD; } >"$LOG" 2>&1
SECONDS=0

# NAME|MATRIX|ARGS. R-MAT is the symmetric one of the ncu measurement
# (31.4M nonzeros at scale 20; sym=0 would give half as many).
RMAT20=gen:rmat:scale=20,ef=16,sym=1
RUNS=(
    "rmat20|$RMAT20|--calls 200 --k 0,1024,4096,8192,16384,24576"
    "rmat21|gen:rmat:scale=21,ef=16,sym=1|--calls 100 --k 0,4096,8192,16384,24576"
    "powerlaw2m|gen:powerlaw:n=2e6,avg=16,alpha=2.1|--calls 150"
    "lap3d7-128|gen:lap3d7:128|--calls 150 --k 0,1024,16384"
    "rmat20-f32|$RMAT20|--calls 200 --precision f32 --k 0,8192,16384,32768"
    "rmat20-iso|$RMAT20|--calls 200 --values iso --k 0,8192,16384,24576"
)
if [[ -f $M/NotreDame_www.mtx ]]; then
    RUNS=("${RUNS[@]:0:2}"
          "notredame|$M/NotreDame_www.mtx|--calls 300"
          "notredame-x32|gen:scale:file=$M/NotreDame_www.mtx,mode=blockdiag,copies=32|--calls 150"
          "${RUNS[@]:2}")
else
    echo "no $M/NotreDame_www.mtx: NotreDame runs left out" | tee -a "$LOG"
fi

: >"$OUT_DIR/results.txt"
fail=0
for run in "${RUNS[@]}"; do
    IFS='|' read -r name matrix args <<<"$run"
    if ((SECONDS > DEADLINE)); then echo "skipped (deadline): $name" | tee -a "$LOG"; continue; fi
    # shellcheck disable=SC2086 # args are words
    timeout 100 "$BIN" "$matrix" $args >"$OUT_DIR/$name.txt" 2>>"$LOG"
    rc=$?
    ((rc == 0)) || fail=1
    grep '^RESULT ' "$OUT_DIR/$name.txt" >>"$OUT_DIR/results.txt"
    echo "$name rc $rc at ${SECONDS}s" | tee -a "$LOG"
done
echo "done in ${SECONDS}s" | tee -a "$LOG"
exit $fail
