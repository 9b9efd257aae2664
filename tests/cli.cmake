# Tests of the spx program: each runs the built program through
# tests/cli_data/run.cmake, which checks the exit code (0 ok, 1 library error,
# 2 usage error, 3 a result failed its check), the output and the files
# written. The data in
# tests/cli_data/ are small integer matrices whose products are exact:
#   a = [1 0 2; 0 3 0; 4 0 5; 0 6 7]  b = [1 1 0; 0 1 0; 0 0 2]
#   a*[1 2 3] = [7 6 19 33]   2*a'*[1 2 3 4] = [26 60 90]
#   a*b has 9 nonzeros, (a*b)*[1 2 3] = [15 6 42 54]
#   b*b = [1 2 0; 0 1 0; 0 0 4], 4 nonzeros, (b*b)*[1 2 3] = [5 2 12]
set(SPX_CLI_DATA ${CMAKE_CURRENT_SOURCE_DIR}/cli_data)
set(SPX_CLI_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli)
file(MAKE_DIRECTORY ${SPX_CLI_OUT})

# spx_cli_test(NAME RC ARGS a b ... [STDOUT re] [STDOUT_NOT re] [STDERR re]
#              [JSON_KEYS k ...] [OUT_FILE f EXPECT g] [NO_FILE f]
#              [NO_GPU_RC rc NO_GPU_STDERR re] [FORMATS re] [FORMATS_NOT re]
#              [PEERS re] [SETUP fixture] [REQUIRES fixture])
# NO_GPU_*: the expectation instead on a machine without a usable GPU.
# FORMATS (FORMATS_NOT): run only where `spx formats` matches (does not match)
# the regex, else skipped: tests that change when a format is registered.
# PEERS: run only where `spx bench --list-peers` matches the regex, else
# skipped: tests of a peer whose library the build may lack.
function(spx_cli_test name rc)
  cmake_parse_arguments(T "" "STDOUT;STDOUT_NOT;STDERR;OUT_FILE;EXPECT;NO_FILE;NO_GPU_RC;NO_GPU_STDERR;FORMATS;FORMATS_NOT;PEERS;SETUP;REQUIRES"
                        "ARGS;JSON_KEYS" ${ARGN})
  list(JOIN T_ARGS "|" args)
  set(cmd ${CMAKE_COMMAND} -DSPX=$<TARGET_FILE:spx_cli> "-DARGS=${args}" -DRC=${rc})
  if(DEFINED T_STDOUT)
    list(APPEND cmd "-DSTDOUT_RE=${T_STDOUT}")
  endif()
  if(DEFINED T_STDERR)
    list(APPEND cmd "-DSTDERR_RE=${T_STDERR}")
  endif()
  foreach(opt STDOUT_NOT NO_FILE NO_GPU_RC NO_GPU_STDERR FORMATS FORMATS_NOT PEERS)
    if(DEFINED T_${opt})
      string(REGEX REPLACE "^(STDOUT_NOT|NO_GPU_STDERR|FORMATS|FORMATS_NOT|PEERS)$" "\\1_RE" var ${opt})
      list(APPEND cmd "-D${var}=${T_${opt}}")
    endif()
  endforeach()
  if(T_JSON_KEYS)
    list(JOIN T_JSON_KEYS "|" keys)
    list(APPEND cmd "-DJSON_KEYS=${keys}")
  endif()
  if(T_OUT_FILE)
    list(APPEND cmd -DOUT_FILE=${T_OUT_FILE} -DEXPECT=${T_EXPECT})
  endif()
  add_test(NAME cli_${name} COMMAND ${cmd} -P ${SPX_CLI_DATA}/run.cmake)
  set_tests_properties(cli_${name} PROPERTIES TIMEOUT 300 SKIP_REGULAR_EXPRESSION "SKIP: precondition")
  if(T_SETUP)
    set_tests_properties(cli_${name} PROPERTIES FIXTURES_SETUP ${T_SETUP})
  endif()
  if(T_REQUIRES)
    set_tests_properties(cli_${name} PROPERTIES FIXTURES_REQUIRED ${T_REQUIRES})
  endif()
endfunction()

# ---- help and usage errors
spx_cli_test(help 0 ARGS --help STDOUT "Usage: spx COMMAND")
foreach(c info convert gen spmv spgemm solve eigs bench formats)
  spx_cli_test(help_${c} 0 ARGS ${c} --help STDOUT "Usage: spx ${c} ")
endforeach()
spx_cli_test(no_command 2 STDERR "Usage: spx COMMAND")
spx_cli_test(unknown_command 2 ARGS frobnicate STDERR "unknown command 'frobnicate'")
spx_cli_test(unknown_option 2 ARGS info --bogus ${SPX_CLI_DATA}/a.mtx STDERR "unknown option '--bogus'")
spx_cli_test(missing_argument 2 ARGS info STDERR "expected 1 argument")
spx_cli_test(missing_out 2 ARGS spmv ${SPX_CLI_DATA}/a.mtx STDERR "--out")
spx_cli_test(bad_precision 2 ARGS spmv ${SPX_CLI_DATA}/a.mtx --out ${SPX_CLI_OUT}/y.txt --precision f8
             STDERR "unknown precision 'f8'")
spx_cli_test(bad_number 2 ARGS spmv ${SPX_CLI_DATA}/a.mtx --out ${SPX_CLI_OUT}/y.txt --alpha two
             STDERR "--alpha needs a finite number")
# One rule for names: an unknown format is a usage error in every command,
# and the message lists the names the command takes.
spx_cli_test(bench_unknown_format 2 ARGS bench gen:lap2d5:4 --format nosuch STDERR "unknown format 'nosuch'")
spx_cli_test(spmv_unknown_format 2 ARGS spmv ${SPX_CLI_DATA}/a.mtx --out ${SPX_CLI_OUT}/y.txt --format nosuch
             STDERR "unknown format 'nosuch' \\(auto\\|ref\\|csr")
spx_cli_test(spgemm_unknown_format 2 ARGS spgemm ${SPX_CLI_DATA}/b.mtx --out ${SPX_CLI_OUT}/c.mtx --format csr
             STDERR "unknown format 'csr' \\(auto\\|gustavson")
spx_cli_test(bad_device 2 ARGS spgemm ${SPX_CLI_DATA}/b.mtx --out ${SPX_CLI_OUT}/c.mtx --device tpu
             STDERR "unknown device 'tpu'")

# ---- runtime failures: the library's message on stderr, exit 1
spx_cli_test(missing_file 1 ARGS info ${SPX_CLI_OUT}/no_such_file.mtx
             STDERR "SPX_ERR_IO: .*no_such_file.mtx")
spx_cli_test(bad_generator 1 ARGS info gen:nosuch:3 STDERR "spx info: gen:nosuch:3: SPX_ERR_INVALID_ARG: .*nosuch")
spx_cli_test(format_without_kernel 1 ARGS spmv ${SPX_CLI_DATA}/a.mtx --out ${SPX_CLI_OUT}/y.txt --format dasp
             --precision f32 STDERR "spx spmv: SPX_ERR_NO_FORMAT: format 'dasp' has no cpu f32 SpMV kernel"
             NO_FILE ${SPX_CLI_OUT}/y.txt)
spx_cli_test(x_count 1 ARGS spmv ${SPX_CLI_DATA}/a.mtx --x ${SPX_CLI_DATA}/x2.txt --out ${SPX_CLI_OUT}/y.txt
             STDERR "x2.txt has 2 values but the column count of op.A. is 3")
spx_cli_test(x_not_number 1 ARGS spmv ${SPX_CLI_DATA}/a.mtx --x ${SPX_CLI_DATA}/x_bad.txt --out ${SPX_CLI_OUT}/y.txt
             STDERR "x_bad.txt:2: not a number")

# ---- info
spx_cli_test(info_json 0 ARGS info gen:lap3d7:8 --json
             STDOUT "\"rows\": 512,.*\"nnz\": 3200,.*\"symmetric\": true"
             JSON_KEYS rows cols nnz rmin rave rmax rsd rsdp empty_rows rows_len1 rows_len2
                       rows_len3 rows_len4 rows_5_255 rows_256 rows_gt256 tiles8 tile_density symmetric
                       iso iso_value)
spx_cli_test(info_file 0 ARGS info ${SPX_CLI_DATA}/a.mtx STDOUT "nnz +7\n")
spx_cli_test(info_formats 0 ARGS info ${SPX_CLI_DATA}/a.mtx --json --formats
             STDOUT "\"formats\": \\[.*\"name\": \"csr\", \"bytes\": [0-9]+")
spx_cli_test(info_formats_cuda 0 ARGS info gen:lap3d7:12 --formats --device cuda
             STDOUT "\ncsr +[0-9]+ .*\naxt-uh +[0-9]+ +axt-uh .*beta=0[.][0-9]+"
             NO_GPU_RC 1 NO_GPU_STDERR "^spx info: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)")
spx_cli_test(formats 0 ARGS formats STDOUT "csr +spmv spmm sddmm +cpu.*gustavson +spgemm +cpu.*device cpu +available")

# ---- spmv: exact integer results, f64 and f32, op n and t
spx_cli_test(spmv 0 ARGS spmv ${SPX_CLI_DATA}/a.mtx --x ${SPX_CLI_DATA}/x3.txt --out ${SPX_CLI_OUT}/y_ax.txt
             OUT_FILE ${SPX_CLI_OUT}/y_ax.txt EXPECT ${SPX_CLI_DATA}/y_ax.txt)
spx_cli_test(spmv_t_f32 0 ARGS spmv ${SPX_CLI_DATA}/a.mtx --x ${SPX_CLI_DATA}/x4.txt --op t --alpha 2
             --precision f32 --format csr --out ${SPX_CLI_OUT}/y_2atx.txt
             OUT_FILE ${SPX_CLI_OUT}/y_2atx.txt EXPECT ${SPX_CLI_DATA}/y_2atx.txt)

# ---- spgemm, then spmv on the product
spx_cli_test(spgemm 0 ARGS spgemm ${SPX_CLI_DATA}/a.mtx ${SPX_CLI_DATA}/b.mtx --out ${SPX_CLI_OUT}/ab.mtx
             STDOUT "nnz.C. = 9\n" SETUP cli_ab)
spx_cli_test(spgemm_product 0 ARGS spmv ${SPX_CLI_OUT}/ab.mtx --x ${SPX_CLI_DATA}/x3.txt --out ${SPX_CLI_OUT}/y_abx.txt
             OUT_FILE ${SPX_CLI_OUT}/y_abx.txt EXPECT ${SPX_CLI_DATA}/y_abx.txt REQUIRES cli_ab)
spx_cli_test(spgemm_square 0 ARGS spgemm ${SPX_CLI_DATA}/b.mtx --out ${SPX_CLI_OUT}/bb.mtx
             STDOUT "nnz.C. = 4\n" SETUP cli_bb)
spx_cli_test(spgemm_square_product 0 ARGS spmv ${SPX_CLI_OUT}/bb.mtx --x ${SPX_CLI_DATA}/x3.txt --out ${SPX_CLI_OUT}/y_bbx.txt
             OUT_FILE ${SPX_CLI_OUT}/y_bbx.txt EXPECT ${SPX_CLI_DATA}/y_bbx.txt REQUIRES cli_bb)

# ---- convert and gen round trips through files
spx_cli_test(convert 0 ARGS convert ${SPX_CLI_DATA}/a.mtx ${SPX_CLI_OUT}/a.spx STDOUT "4 x 3, nnz 7" SETUP cli_spx)
spx_cli_test(convert_product 0 ARGS spmv ${SPX_CLI_OUT}/a.spx --x ${SPX_CLI_DATA}/x3.txt --out ${SPX_CLI_OUT}/y_ax_spx.txt
             OUT_FILE ${SPX_CLI_OUT}/y_ax_spx.txt EXPECT ${SPX_CLI_DATA}/y_ax.txt REQUIRES cli_spx)
spx_cli_test(gen 0 ARGS gen lap2d5:4 --out ${SPX_CLI_OUT}/lap.mtx STDOUT "rows = 16\ncols = 16\nnnz = 64\n" SETUP cli_gen)
spx_cli_test(gen_info 0 ARGS info ${SPX_CLI_OUT}/lap.mtx --json STDOUT "\"nnz\": 64," REQUIRES cli_gen)

# ---- bench: a small generated matrix, fixed call count, JSON on stdout
spx_cli_test(bench 0 ARGS bench gen:lap2d5:16 --device cpu --precision f64,f32 --calls 3 --json -
             STDOUT "\"format\": \"csr\", \"device\": \"cpu\", \"precision\": \"f32\", \"nnz\": 1216, .*\"ok\": true"
             STDERR "matrix lap2d5:16: 256 x 256, nnz 1216")
# ---- bench: `auto` is a row of its own and names the format AUTO picked
spx_cli_test(bench_auto 0 ARGS bench gen:lap2d5:16 --device cpu --precision f64 --format auto --calls 3 --json -
             STDOUT "\"format\": \"auto\", \"chosen\": \"[a-z0-9-]+\", \"device\": \"cpu\".*\"ok\": true")
# ---- bench --multi: every partition kind, resident rows beside a one-part
# plan of the same kind; exit 3 where a resident y disagrees with the host path's
spx_cli_test(bench_multi 0 ARGS bench gen:lap3d7:12 --multi 3 --device cpu --calls 2 --batches 3
             STDOUT "one part: .*\npcsr .*\npcsc .*\npcoo .*\nrows .*resident vectors.*\npcsr .*x .*x .*\nrows .*x .*x ")
spx_cli_test(bench_multi_cuda 0 ARGS bench gen:lap3d7:12 --multi 3 --device cuda --calls 2 --batches 3
             STDOUT "all on GPU 0, a stream each.*resident vectors.*replayed as a CUDA graph.*\nrows .*x .*x "
             NO_GPU_RC 1 NO_GPU_STDERR "(SPX_ERR_NO_DEVICE|SPX_ERR_NOT_COMPILED)")

# ---- solve: on 2 I, CG's first step and BiCGSTAB's half step give x = b / 2
# exactly, with history [1, 0]; a Laplacian by both methods; the limit
# reached is exit 3 with x still written; usage and library errors
spx_cli_test(solve_cg_exact 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x3.txt
             --out ${SPX_CLI_OUT}/x_cg.txt --history ${SPX_CLI_OUT}/h_cg.txt
             STDOUT "^cg on two_i \\(3 rows, 3 nonzeros\\), cpu [a-z0-9-]+ f64: 1 iterations, relative residual 0,"
             OUT_FILE ${SPX_CLI_OUT}/x_cg.txt EXPECT ${SPX_CLI_DATA}/x_half.txt)
spx_cli_test(solve_history 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x3.txt
             --history ${SPX_CLI_OUT}/h_bicg.txt --method bicgstab --format csr
             OUT_FILE ${SPX_CLI_OUT}/h_bicg.txt EXPECT ${SPX_CLI_DATA}/hist_half.txt)
spx_cli_test(solve_bicgstab_stdout 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x3.txt
             --method bicgstab --precision f32 --out - STDOUT "^0.5\n1\n1.5\n$"
             STDERR "^bicgstab on two_i .* f32: 1 iterations")
spx_cli_test(solve_x0 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x3.txt
             --x0 ${SPX_CLI_DATA}/x_half.txt --out ${SPX_CLI_OUT}/x_x0.txt
             STDOUT ": 0 iterations, relative residual 0,"
             OUT_FILE ${SPX_CLI_OUT}/x_x0.txt EXPECT ${SPX_CLI_DATA}/x_half.txt)
spx_cli_test(solve_laplacian 0 ARGS solve gen:lap2d5:20 --rtol 1e-10 --jacobi
             STDOUT "^cg \\(jacobi\\) on lap2d5:20 \\(400 rows, 1920 nonzeros\\), cpu .*: [1-9][0-9]* iterations, relative residual [0-9.e-]+,")
spx_cli_test(solve_laplacian_bicgstab 0 ARGS solve gen:lap2d5:20 --method bicgstab --format sell
             STDOUT "^bicgstab on lap2d5:20 .* cpu sell f64: [1-9][0-9]* iterations")
spx_cli_test(solve_gmres_stdout 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x3.txt
             --method gmres --out - STDOUT "^0.5\n1\n1.5\n$"
             STDERR "^gmres on two_i .* f64: 1 iterations")
spx_cli_test(solve_laplacian_gmres 0 ARGS solve gen:lap2d5:20 --method gmres --restart 8 --jacobi
             STDOUT "^gmres \\(jacobi\\) on lap2d5:20 .* cpu .*: [1-9][0-9]* iterations")
spx_cli_test(solve_bad_restart 2 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --method gmres --restart -1
             STDERR "--restart")
spx_cli_test(solve_not_converged 3 ARGS solve gen:lap2d5:20 --max-iters 2 --out ${SPX_CLI_OUT}/x_nc.txt
             STDOUT ": 2 iterations" STDERR "spx solve: not converged: cg: relative residual")
spx_cli_test(solve_not_square 1 ARGS solve ${SPX_CLI_DATA}/a.mtx
             STDERR "^spx solve: cg: SPX_ERR_DIM_MISMATCH: a solver needs a square matrix, not 4 x 3")
spx_cli_test(solve_bad_method 2 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --method minres
             STDERR "--method is cg, bicgstab or gmres, not 'minres'")
spx_cli_test(solve_f16 2 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --precision f16 STDERR "f64 or f32")
spx_cli_test(solve_b_count 1 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x4.txt
             STDERR "spx solve: .*x4.txt")
spx_cli_test(solve_cuda 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --b ${SPX_CLI_DATA}/x3.txt --device cuda
             --out ${SPX_CLI_OUT}/x_cuda.txt STDOUT "cuda [a-z0-9-]+ f64: 1 iterations"
             OUT_FILE ${SPX_CLI_OUT}/x_cuda.txt EXPECT ${SPX_CLI_DATA}/x_half.txt
             NO_GPU_RC 1 NO_GPU_STDERR "^spx solve: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)")

# ---- eigs: Lanczos (spx_eigsh_host). 2 I has the one eigenvalue 2 (found
# in one step, its vector the unit start vector; one more step from a fresh
# start finds nothing beyond it); lap2d5:20's smallest is 2 (2 - 2 cos(pi /
# 21)) = 0.0446766951, then (2 - 2 cos(pi / 21)) + (2 - 2 cos(2 pi / 21)) =
# 0.1111927360 twice (found twice, once with --skip-copies)
spx_cli_test(eigs_two_i 0 ARGS eigs ${SPX_CLI_DATA}/two_i.mtx --vectors -
             STDOUT "^-0\\.19361018913672"
             STDERR "eigs \\(1 largest\\) on two_i \\(3 rows, 3 nonzeros\\), cpu [a-z0-9-]+ f64: 2 steps, 0 restarts, 1 fresh starts, 1 of 1 converged.*\n2\n")
spx_cli_test(eigs_copies 0 ARGS eigs gen:lap2d5:20 --k 3 --which smallest --tol 1e-10
             STDOUT "3 of 3 converged.*\n0\\.04467669509948[0-9]*\n0\\.11119273597746[0-9]*\n0\\.11119273597746[0-9]*\n$")
spx_cli_test(eigs_skip_copies 0 ARGS eigs gen:lap2d5:20 --k 3 --which smallest --tol 1e-10 --skip-copies
             STDOUT "0 fresh starts, 3 of 3 converged.*\n0\\.04467669509948[0-9]*\n0\\.11119273597746[0-9]*\n0\\.177708776855")
spx_cli_test(eigs_laplacian 0 ARGS eigs gen:lap2d5:20 --which smallest --tol 1e-10
             STDOUT "1 of 1 converged.*\n0\\.04467669509948")
spx_cli_test(eigs_not_converged 3 ARGS eigs gen:lap2d5:20 --k 2 --max-steps 3
             STDOUT "3 steps, 0 restarts, 0 fresh starts, 0 of 2 converged" STDERR "spx eigs: not converged: eigsh: 0 of 2 pairs")
spx_cli_test(eigs_not_square 1 ARGS eigs ${SPX_CLI_DATA}/a.mtx
             STDERR "^spx eigs: .*a.mtx: SPX_ERR_DIM_MISMATCH: a solver needs a square matrix, not 4 x 3")
spx_cli_test(eigs_bad_which 2 ARGS eigs ${SPX_CLI_DATA}/two_i.mtx --which middle
             STDERR "--which is largest or smallest, not 'middle'")
spx_cli_test(eigs_bad_k 1 ARGS eigs ${SPX_CLI_DATA}/two_i.mtx --k 4
             STDERR "eigsh: k = 4, not 1..3")
spx_cli_test(eigs_cuda 0 ARGS eigs gen:lap2d5:20 --which smallest --tol 1e-10 --device cuda
             STDOUT "cuda [a-z0-9-]+ f64: [0-9]+ steps, [0-9]+ restarts, 1 of 1 converged.*\n0\\.0446766950"
             NO_GPU_RC 1 NO_GPU_STDERR "^spx eigs: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)")

# ---- solve --rhs K: K columns at once (spx_cg_many on an SpMM plan), B
# pseudo-random by default. On 2 I every column is x = b / 2 after one step
# (worst-column history [1, 0]), so the X written, read back as X0 for the
# same B, is already the solution: 0 iterations and the same text out.
# --compare solves each column alone too: the same iterations, x within
# rounding.
spx_cli_test(solve_many 0 ARGS solve gen:lap3d7:8 --rhs 3 --jacobi
             STDOUT "^cg-many \\(jacobi\\) on lap3d7:8 \\(512 rows, 3200 nonzeros\\), cpu [a-z0-9-]+ f64, k = 3: [1-9][0-9]* iterations \\(most of a column\\), relative residual [0-9.e-]+ \\(worst column\\), [0-9.]+ ms \\(plan [0-9.]+ ms, read [0-9.]+ s\\)\n$")
spx_cli_test(solve_many_compare 0 ARGS solve gen:lap3d7:8 --rhs 3 --compare --format csr
             STDOUT "^cg-many on lap3d7:8 .* cpu csr f64, k = 3: [1-9][0-9]* iterations.*\ncg column by column, cpu csr f64 SpMV plan \\(plan [0-9.]+ ms\\): [0-9.]+ ms for 3 solves, cg-many [0-9.]+ ms \\(wall clocks around the solve calls, after a warm-up of each\\): ratio [0-9.]+, iterations differ by at most 0, max \\|x_many - x_single\\| / max \\|x_single\\| (0|[0-9.]+e-[1-9][0-9])\n$")
spx_cli_test(solve_many_out 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --out ${SPX_CLI_OUT}/x_many.txt
             STDOUT "^cg-many on two_i .*, k = 3: 1 iterations \\(most of a column\\), relative residual 0 "
             SETUP cli_many)
spx_cli_test(solve_many_x0 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --x0 ${SPX_CLI_OUT}/x_many.txt
             --out ${SPX_CLI_OUT}/x_many_x0.txt STDOUT ", k = 3: 0 iterations"
             OUT_FILE ${SPX_CLI_OUT}/x_many_x0.txt EXPECT ${SPX_CLI_OUT}/x_many.txt REQUIRES cli_many)
spx_cli_test(solve_many_b_stdout 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --b ${SPX_CLI_OUT}/x_many.txt
             --precision f32 --out - STDOUT "^([-0-9.e]+ [-0-9.e]+ [-0-9.e]+\n)([-0-9.e]+ [-0-9.e]+ [-0-9.e]+\n)([-0-9.e]+ [-0-9.e]+ [-0-9.e]+\n)$"
             STDERR "^cg-many on two_i .* f32, k = 3: 1 iterations" REQUIRES cli_many)
spx_cli_test(solve_many_history 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --history ${SPX_CLI_OUT}/h_many.txt
             OUT_FILE ${SPX_CLI_OUT}/h_many.txt EXPECT ${SPX_CLI_DATA}/hist_half.txt)
spx_cli_test(solve_many_one 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 1 --b ${SPX_CLI_DATA}/x3.txt
             --out ${SPX_CLI_OUT}/x_many1.txt STDOUT ", k = 1: 1 iterations"
             OUT_FILE ${SPX_CLI_OUT}/x_many1.txt EXPECT ${SPX_CLI_DATA}/x_half.txt)
spx_cli_test(solve_many_not_converged 3 ARGS solve gen:lap2d5:20 --rhs 2 --max-iters 2
             STDOUT ", k = 2: 2 iterations" STDERR "spx solve: not converged: cg_many: 2 of 2 columns above rtol")
spx_cli_test(solve_many_b_columns 1 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --b ${SPX_CLI_DATA}/x3.txt
             STDERR "spx solve: .*x3.txt:1: 1 values, not 3")
spx_cli_test(solve_many_bicgstab 2 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --method bicgstab
             STDERR "--rhs solves by cg only")
spx_cli_test(solve_many_zero 2 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 0 STDERR "--rhs needs an integer in \\[1, ")
spx_cli_test(solve_compare_alone 2 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --compare STDERR "--compare needs --rhs")
spx_cli_test(solve_many_cuda 0 ARGS solve ${SPX_CLI_DATA}/two_i.mtx --rhs 3 --device cuda --compare
             --x0 ${SPX_CLI_OUT}/x_many.txt --out ${SPX_CLI_OUT}/x_many_cuda.txt
             STDOUT "^cg-many on two_i .* cuda csr f64, k = 3: 0 iterations.*\ncg column by column, cuda csr f64 SpMV plan .*iterations differ by at most 0, max \\|x_many - x_single\\| / max \\|x_single\\| 0\n$"
             OUT_FILE ${SPX_CLI_OUT}/x_many_cuda.txt EXPECT ${SPX_CLI_OUT}/x_many.txt REQUIRES cli_many
             NO_GPU_RC 1 NO_GPU_STDERR "^spx solve: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)")

# ---- devices and precisions without kernels: said before the matrix is read
# A CUDA SpMV runs where a GPU is; elsewhere the library's reason, exit 1.
spx_cli_test(spmv_cuda 0 ARGS spmv ${SPX_CLI_DATA}/a.mtx --x ${SPX_CLI_DATA}/x3.txt --device cuda
             --out ${SPX_CLI_OUT}/y_ax_cuda.txt
             OUT_FILE ${SPX_CLI_OUT}/y_ax_cuda.txt EXPECT ${SPX_CLI_DATA}/y_ax.txt
             NO_GPU_RC 1 NO_GPU_STDERR "^spx spmv: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)")
spx_cli_test(bench_cuda 0 ARGS bench gen:lap2d5:8 --device cuda --format csr --calls 2
             STDOUT "csr +cuda +f64"
             NO_GPU_RC 1 NO_GPU_STDERR "^spx bench: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)")
# The help offers only the devices with kernels, as the registry lists them,
# and a device without a kernel says so ("not written yet", never "not
# compiled"). Which tests run depends on whether a CUDA SpGEMM format is
# registered (a line "NAME  ...spgemm...  ...cuda" of spx formats).
set(SPX_CUDA_SPGEMM "spgemm[a-z ]* cuda")
spx_cli_test(spgemm_cuda_missing 1 ARGS spgemm ${SPX_CLI_DATA}/b.mtx --device cuda --out ${SPX_CLI_OUT}/c_cuda.mtx
             STDERR "^spx spgemm: SPX_ERR_NO_FORMAT: no format computes SpGEMM on cuda yet\n$"
             NO_FILE ${SPX_CLI_OUT}/c_cuda.mtx FORMATS_NOT "${SPX_CUDA_SPGEMM}")
spx_cli_test(help_spgemm_cpu_only 0 ARGS spgemm --help
             STDOUT "--format F +auto\\|gustavson.*--device D +cpu \\(default cpu\\)" STDOUT_NOT "cuda"
             FORMATS_NOT "${SPX_CUDA_SPGEMM}")
spx_cli_test(spgemm_cuda 0 ARGS spgemm ${SPX_CLI_DATA}/b.mtx --device cuda --out -
             STDOUT "^%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n1 2 2\n2 2 1\n3 3 4\n$"
             NO_GPU_RC 1 NO_GPU_STDERR "^spx spgemm: (SPX_ERR_NO_DEVICE: no CUDA device is available|SPX_ERR_NOT_COMPILED: SpX was built without CUDA)"
             FORMATS "${SPX_CUDA_SPGEMM}")
spx_cli_test(help_spgemm_cuda 0 ARGS spgemm --help STDOUT "--device D +cpu\\|cuda \\(default cpu\\)"
             FORMATS "${SPX_CUDA_SPGEMM}")
spx_cli_test(help_spmv_lists 0 ARGS spmv --help
             STDOUT "--format F +default auto; the formats \\(spx formats\\):\n +auto\\|ref\\|csr.*--precision P +f64 \\(default\\); with kernels on cpu: f64\\|f32")
# f16 has no CPU kernel: spmv fails; bench fails when nothing asked can run,
# and skips (with a line) what cannot when something can.
spx_cli_test(spmv_f16_cpu 1 ARGS spmv ${SPX_CLI_DATA}/a.mtx --precision f16 --out ${SPX_CLI_OUT}/y16.txt
             STDERR "^spx spmv: SPX_ERR_NO_FORMAT: no format computes SpMV on cpu in f16 yet\n$"
             NO_FILE ${SPX_CLI_OUT}/y16.txt)
spx_cli_test(bench_f16_cpu 1 ARGS bench gen:lap2d5:8 --device cpu --precision f16 --calls 2
             STDERR "skipping f16 on cpu.*spx bench: nothing to run" STDOUT_NOT ".")
spx_cli_test(bench_all_precisions_cpu 0 ARGS bench gen:lap2d5:8 --device cpu --precision all --format csr
             --calls 2 --json - STDERR "spx bench: skipping f16 on cpu: no format asked computes it"
             STDOUT "\"precision\": \"f64\".*\"precision\": \"f32\"" STDOUT_NOT "\"f16\"")

# ---- --out - : results on standard output, summaries on stderr, no file "-"
spx_cli_test(spmv_stdout 0 ARGS spmv ${SPX_CLI_DATA}/a.mtx --x ${SPX_CLI_DATA}/x3.txt --out -
             STDOUT "^7\n6\n19\n33\n$" NO_FILE ${CMAKE_CURRENT_BINARY_DIR}/-)
spx_cli_test(convert_stdout 0 ARGS convert ${SPX_CLI_DATA}/a.mtx -
             STDOUT "^%%MatrixMarket matrix coordinate real general\n4 3 7\n1 1 1\n1 3 2\n2 2 3\n3 1 4\n3 3 5\n4 2 6\n4 3 7\n$"
             STDERR "-: 4 x 3, nnz 7" NO_FILE ${CMAKE_CURRENT_BINARY_DIR}/-)
spx_cli_test(gen_stdout 0 ARGS gen lap2d5:2 --out -
             STDOUT "^%%MatrixMarket matrix coordinate real general\n4 4 12\n1 1 4\n"
             STDERR "rows = 4\ncols = 4\nnnz = 12" NO_FILE ${CMAKE_CURRENT_BINARY_DIR}/-)
spx_cli_test(spgemm_stdout 0 ARGS spgemm ${SPX_CLI_DATA}/b.mtx --format gustavson --out -
             STDOUT "^%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n1 2 2\n2 2 1\n3 3 4\n$"
             STDERR "nnz.C. = 4" NO_FILE ${CMAKE_CURRENT_BINARY_DIR}/-)

# ---- bench: the spread of the batches and the first call in each record
# (one record: --param keeps csr's bench variant, values=stored, out of the run)
spx_cli_test(bench_spread 0 ARGS bench gen:lap2d5:16 --device cpu --format csr --param values=stored
             --calls 3 --json -
             STDOUT "\"median_ms\": [0-9.e+-]+, \"min_ms\": [0-9.e+-]+, \"max_ms\": .*\"batches\": 10, \"calls\": 3, \"first_ms\": [0-9]"
             JSON_KEYS matrix format device precision nnz median_ms min_ms max_ms q1_ms q3_ms
                       batches calls first_ms gflops gbs prep_ms bytes max_rel_err ok
                       breakeven_calls breakeven_peer_calls load1)
spx_cli_test(bench_spread_table 0 ARGS bench gen:lap2d5:8 --device cpu --format csr --calls 2 --batches 3
             STDOUT "median_ms +min_ms +max_ms +first_ms")
# ---- bench --op spgemm: C = a*b checked against the reference (9 nonzeros),
# and A*A with every SpGEMM format and peer compiled in
spx_cli_test(bench_spgemm 0 ARGS bench ${SPX_CLI_DATA}/a.mtx --op spgemm --b ${SPX_CLI_DATA}/b.mtx --format gustavson
             --calls 1 --batches 2 --json -
             STDOUT "\"format\": \"gustavson\", \"device\": \"cpu\", \"precision\": \"f64\", \"nnz_a\": 7, \"nnz_b\": 4, \"products\": 9, \"nnz_c\": 9,.*\"dropped\": 0, \"ok\": true"
             JSON_KEYS operation matrix b format device precision nnz_a nnz_b products nnz_c prep_ms
                       first_ms run_ms run_min_ms run_max_ms run_q1_ms run_q3_ms run_batches run_calls
                       whole_ms whole_min_ms whole_max_ms whole_q1_ms whole_q3_ms whole_batches
                       whole_calls gflops gflops_whole bytes max_rel_err dropped ok load1)
spx_cli_test(bench_spgemm_peers 0 ARGS bench gen:lap2d5:8 --op spgemm --device cpu --peers --calls 1 --batches 2
             STDOUT "SpGEMM lap2d5:8: nnz.A. 288, nnz.B. 288, 1320 intermediate products.*gustavson +cpu +f64 +[0-9]+ .* yes")
spx_cli_test(bench_list_peers 0 ARGS bench --list-peers)
spx_cli_test(bench_bad_op 2 ARGS bench gen:lap2d5:4 --op spmx STDERR "unknown operation 'spmx'")
spx_cli_test(bench_b_without_spgemm 2 ARGS bench gen:lap2d5:4 --b gen:lap2d5:4 STDERR "--b needs --op spgemm")
spx_cli_test(bench_k_without_op 2 ARGS bench gen:lap2d5:4 --k 8 STDERR "--k needs --op spmm or --op sddmm")

# ---- bench --op sddmm: Z = X*Y^T at A's entries, checked against `ref`; the
# bytes model before the table and a gbs column; one record's JSON keys; the
# GraphBLAS peer where the build has it (its C's values read back for the check)
spx_cli_test(bench_sddmm 0 ARGS bench gen:lap2d5:16 --op sddmm --k 8 --device cpu --precision f64,f32
             --calls 2 --batches 2
             STDOUT "bytes model \\(SDDMM f64, k = 8\\): .*\nSDDMM lap2d5:16: nnz 1216, k 8 .*gflops +gbs +x +median_ms.*\ncsr +cpu +f64 +[0-9.]+ +[0-9.]+ +- .* yes\n.*\ncsr +cpu +f32 .* yes\n")
spx_cli_test(bench_sddmm_json 0 ARGS bench gen:lap2d5:16 --op sddmm --k 8 --device cpu --format csr
             --calls 2 --batches 2 --json -
             STDOUT "\"operation\": \"sddmm\", .*\"format\": \"csr\", \"device\": \"cpu\", \"precision\": \"f64\", \"nnz\": 1216, \"k\": 8,.*\"ok\": true"
             JSON_KEYS operation matrix format device precision nnz k median_ms min_ms max_ms q1_ms q3_ms
                       batches calls first_ms gflops gbs x_peer prep_ms bytes max_rel_err ok load1)
spx_cli_test(bench_sddmm_peers 0 ARGS bench gen:lap2d5:16 --op sddmm --k 8 --device cpu --peers
             --precision f64,f32 --calls 2 --batches 2
             STDOUT "\ncsr +cpu +f64 +[0-9.]+ +[0-9.]+ +[0-9.]+ .* yes\n.*\npeer-graphblas-sddmm +cpu +f64 +[0-9.]+ +[0-9.]+ +1[.]00 .* yes\n.*\npeer-graphblas-sddmm +cpu +f32 .* yes\n"
             PEERS "peer-graphblas-sddmm +sddmm +cpu")
