#!/usr/bin/env bash
# mpirun -np N spx spmv against spx spmv in one process: the same y file, bit
# for bit (lap2d5's products are small integers, exact in any order); then
# mpirun -np N spx bench and spx bench --multi N end cleanly.
# Usage: cli_spmv.sh SPX MPIEXEC NP [MPIEXEC FLAGS...]
set -euo pipefail
spx=$1 mpiexec=$2 np=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$spx" gen lap2d5:40 --out "$dir/a.mtx" > /dev/null
"$spx" spmv "$dir/a.mtx" --out "$dir/y1.txt"
"$mpiexec" -np "$np" "$@" "$spx" spmv "$dir/a.mtx" --out "$dir/yn.txt"
cmp "$dir/y1.txt" "$dir/yn.txt"
"$mpiexec" -np "$np" "$@" "$spx" spmv gen:lap2d5:40 --out "$dir/yg.txt"
cmp "$dir/y1.txt" "$dir/yg.txt"
"$mpiexec" -np "$np" "$@" "$spx" bench "$dir/a.mtx" --calls 2 --batches 1
"$spx" bench "$dir/a.mtx" --multi "$np" --calls 2 --batches 1
echo "cli spmv under mpirun: same y on $np ranks"
