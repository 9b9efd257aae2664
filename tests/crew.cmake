# The multi solvers' crew (src/multi/crew.c: a thread per GPU issuing its
# parts' vector operations) runs only across GPUs by default: here it is
# forced onto the CPU parts of test_multi_solve, so that its posting,
# waiting and dot sums run in every build.
spx_add_test(test_multi_solve _crew SPX_MULTI_CREW=1)
