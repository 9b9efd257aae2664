#!/usr/bin/env bash
# Device run DD (H100 named): issue 14, the power-law generator: which L2 sectors of SpX's csr
# are not reads (ncu by op and source), for csr's default, long=1024 and blocknnz=1024,
# against cuSPARSE CSR.
O=$OUT/dd; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf dd.tar.gz dd; exit 1; }
echo "built at ${SECONDS}s"
PL=gen:powerlaw:n=2000000,avg=16,alpha=2.1
M=gpu__time_duration.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum
timeout 300 ncu --metrics $M --csv -k regex:'[Cc]sr' --launch-count 14 build-gpu/spx bench $PL --device cuda --peers --precision f64 --format csr,peer-cusparse-csr --param "long=256;long=1024;blocknnz=1024" --calls 1 --batches 1 > $O/ncu.csv 2> $O/ncu.err
echo "ncu rc=$? at ${SECONDS}s"; tail -3 $O/ncu.err
echo "end at ${SECONDS}s"
cd $OUT && tar czf dd.tar.gz dd && rm -rf dd
