#!/usr/bin/env bash
# mpirun -np N spx solve against spx solve in one process: the same
# iterations and x within 1e-9 of it (CG, and GMRES with Jacobi, on a 2D
# Laplacian read from a file); --max-iters too small is exit 3 on every
# rank, as in one process; mpirun spx eigs: the same steps and eigenvalues
# as spx eigs, and exit 3 when --max-steps passes first.
# Usage: cli_solve.sh SPX MPIEXEC NP [MPIEXEC FLAGS...]
set -euo pipefail
spx=$1 mpiexec=$2 np=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$spx" gen lap2d5:40 --out "$dir/a.mtx" > /dev/null
iters() { sed -n 's/.*: \([0-9]*\) iterations.*/\1/p' "$1"; }
for m in "cg" "gmres --jacobi"; do
    "$spx" solve "$dir/a.mtx" --method $m --rtol 1e-12 --out "$dir/x1.txt" > "$dir/one.txt"
    "$mpiexec" -np "$np" "$@" "$spx" solve "$dir/a.mtx" --method $m --rtol 1e-12 \
        --out "$dir/xn.txt" > "$dir/many.txt"
    cat "$dir/many.txt"
    grep -q "over $np ranks" "$dir/many.txt"
    [[ $(iters "$dir/one.txt") == $(iters "$dir/many.txt") ]]
    paste "$dir/x1.txt" "$dir/xn.txt" |
        awk '{d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d} END {print "max |x1 - xn|", m; exit !(NR == 1600 && m < 1e-9)}'
done
rc=0
"$mpiexec" -np "$np" "$@" "$spx" solve "$dir/a.mtx" --max-iters 3 > /dev/null 2>&1 || rc=$?
[[ $rc == 3 ]]
# eigs: the same steps and eigenvalues within 1e-12 (relative) of one process
steps() { sed -n 's/.*: \([0-9]*\) steps.*/\1/p' "$1"; }
"$spx" eigs "$dir/a.mtx" --k 3 --which smallest > "$dir/e1.txt"
"$mpiexec" -np "$np" "$@" "$spx" eigs "$dir/a.mtx" --k 3 --which smallest > "$dir/en.txt"
cat "$dir/en.txt"
[[ $(steps "$dir/e1.txt") == $(steps "$dir/en.txt") ]]
paste <(tail -3 "$dir/e1.txt") <(tail -3 "$dir/en.txt") |
    awk '{d = ($1 - $2) / $1; if (d < 0) d = -d; if (d > m) m = d} END {print "max rel diff", m; exit !(NR == 3 && m < 1e-12)}'
rc=0
"$mpiexec" -np "$np" "$@" "$spx" eigs "$dir/a.mtx" --k 3 --max-steps 5 > /dev/null 2>&1 || rc=$?
[[ $rc == 3 ]]
echo "cli solve and eigs under mpirun: same iterations, x and eigenvalues on $np ranks"
