# The inputs of the AXT experiments (sourced by axt-cuda/run.sh and
# axt-cpu16/run.sh): MAT, the shared matrices' folder ($SPX_MATRICES, or
# .matrices/matrices.tar.xz extracted into /tmp); shared_big, the shared
# matrices with >= 100k nonzeros after symmetric expansion (as
# scripts/gpu-check.sh counts them); scaled NAME C..., scale-ups of one.
MAT=${SPX_MATRICES:-}
if [[ -z "$MAT" && -f .matrices/matrices.tar.xz ]]; then
    mkdir -p /tmp/spx-matrices
    tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz && MAT=/tmp/spx-matrices/matrices
fi
shared_big() {
    for f in "$MAT"/*.mtx; do
        [[ -f "$f" ]] || continue
        awk 'NR == 1 { sym = ($0 ~ /symmetric|hermitian/) } /^%/ { next }
             { n = $3; if (sym) n = 2 * n - $1; if (n >= 100000) print FILENAME; exit }' "$f"
    done
}
scaled() {
    local f=$MAT/$1.mtx
    shift
    [[ -f "$f" ]] && for c in "$@"; do echo "gen:scale:file=$f,copies=$c"; done
}
