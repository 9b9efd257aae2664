# The MPI executor's tests (tests/mpi/test_*.c): each program runs under
# mpirun with 1, 2, 3 and 4 ranks (oversubscribed on a small machine), one
# OpenMP thread a rank; the TIMEOUT proves that a failing case ends instead
# of hanging. Not added when MPI is not found. As root, OpenMPI needs its
# two OMPI_ALLOW_RUN_AS_ROOT variables; under the sanitizers, leaks inside
# OpenMPI itself are suppressed (tests/mpi/lsan.supp, matched on the whole
# stack: its components are unloaded before the leak check), SpX's are not.
if(NOT TARGET spx_mpi)
  message(STATUS "SpX MPI tests: not added (MPI not found, or SPX_MPI=OFF)")
  return()
endif()
set(SPX_MPIEXEC_FLAGS "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE spx_mpiexec_version
  ERROR_QUIET RESULT_VARIABLE spx_mpiexec_rc)
if(spx_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(SPX_MPIEXEC_FLAGS --oversubscribe)
endif()
set(SPX_MPI_TEST_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1;SPX_TEST_DATA=${CMAKE_CURRENT_SOURCE_DIR}")
if(SPX_SANITIZE) # full stacks, so that a leak inside OpenMPI shows one of its libraries
  list(APPEND SPX_MPI_TEST_ENV
    "ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:fast_unwind_on_malloc=0"
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/mpi/lsan.supp:print_suppressions=0")
endif()
file(GLOB SPX_MPI_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_*.c)
foreach(src ${SPX_MPI_TEST_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(mpi_${name} ${src})
  target_link_libraries(mpi_${name} PRIVATE spx_mpi spx_testlib)
  spx_target_flags(mpi_${name})
  foreach(np 1 2 3 4)
    add_test(NAME mpi_${name}_np${np}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${SPX_MPIEXEC_FLAGS}
              ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_${name}> ${MPIEXEC_POSTFLAGS}
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(mpi_${name}_np${np} PROPERTIES ENVIRONMENT "${SPX_MPI_TEST_ENV}"
      TIMEOUT 300 SKIP_RETURN_CODE 77 PROCESSORS ${np})
  endforeach()
endforeach()
# The spx program under mpirun (tools/cmd_mpi.c), against itself in one process.
if(TARGET spx_cli)
  foreach(np 2 3)
    add_test(NAME mpi_cli_spmv_np${np}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli_spmv.sh $<TARGET_FILE:spx_cli>
              ${MPIEXEC_EXECUTABLE} ${np} ${SPX_MPIEXEC_FLAGS})
    set_tests_properties(mpi_cli_spmv_np${np} PROPERTIES ENVIRONMENT "${SPX_MPI_TEST_ENV}"
      TIMEOUT 300 PROCESSORS ${np})
    add_test(NAME mpi_cli_solve_np${np}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli_solve.sh $<TARGET_FILE:spx_cli>
              ${MPIEXEC_EXECUTABLE} ${np} ${SPX_MPIEXEC_FLAGS})
    set_tests_properties(mpi_cli_solve_np${np} PROPERTIES ENVIRONMENT "${SPX_MPI_TEST_ENV}"
      TIMEOUT 300 PROCESSORS ${np})
  endforeach()
endif()
