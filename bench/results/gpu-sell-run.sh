#!/usr/bin/env bash
# sell: base broadcast per step beside the entry (packed fp16 word); u16 vs u32; stencils 3M-56M.
B=build-s4
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j16 --target spx_cli; } >/tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
for m in gen:lap3d7:200 gen:lap3d27:96 gen:lap3d7:100 gen:lap3d27:64 gen:lap3d27:50 gen:lap3d7:80; do
  ./$B/spx bench $m --device cuda --peers --precision f64,f16 --format csr,sell,peer-cusparse-csr,peer-cusparse-csr-h 2>/dev/null | grep -E " cuda " | awk '{print $1,$2,$4,$6,$7,$9,$14}'
  ./$B/spx bench $m --device cuda --precision f64,f16 --format sell --param index=u32 2>/dev/null | grep -E " cuda " | awk '{print $1,$2"(u32)",$4,$6,$7,$9,$14}'
done
