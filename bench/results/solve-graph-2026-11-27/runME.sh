#!/usr/bin/env bash
# Device run ME (MD again with the solve phases timed) (2 GPUs): where a replayed multi iteration's time goes: host time of the graph
# launch and of the whole replay, and the host's wait for each iteration's registers
# (exp-times2.patch, not committed); nsys if present.
O=$OUT/me; mkdir -p $O
git apply .devrun/exp-times2.patch || exit 1
which nsys > $O/nsys.txt 2>&1; ls /usr/local/cuda/bin >> $O/nsys.txt 2>&1; echo "nsys: $(head -1 $O/nsys.txt)"
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
{ cmake -S . -B build-me $CF && cmake --build build-me -j30 --target multi_cg; } > $O/build.log 2>&1
echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-50)"; grep -m3 error $O/build.log
EN=$(find build-me -name multi_cg -type f | head -1)
for run in "cg lap3d7:64 100" "cg lap3d7:100 100" "cg lap3d7:200 100" "bicgstab lap3d7:100 50"; do set -- $run
  SPX_EXP_TIMES=1 timeout 90 $EN $2 --solver $1 --iters $3 --rounds 3 > $O/$1-${2/:/-}.txt 2>&1
  echo "== $1 $2: $(grep -E '^(one GPU |multi )' $O/$1-${2/:/-}.txt | sed 's/ms a solve.*\]//;s/residual.*//' | tr -s ' ' | tr '\n' ';')"; grep exp: $O/$1-${2/:/-}.txt | tail -2
done
cd $OUT && tar czf me.tar.gz me
