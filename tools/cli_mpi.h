/* The spx program across devices and processes (tools/cmd_mpi.c,
 * tools/cmd_multi.c):
 *   mpirun -np N spx spmv|bench ...   distributed (spx_mpi.h) when this spx
 *                                     was built with MPI;
 *   spx bench M --multi N             the multi-device executor in one process. */
#ifndef SPX_TOOLS_CLI_MPI_H
#define SPX_TOOLS_CLI_MPI_H

/* 1 when started by mpirun (and built with MPI) and argv[0] is spmv or bench. */
int cli_mpi_wanted(int argc, char **argv);
/* argv[0] is "spmv" or "bench"; initialises and finalises MPI. */
int cli_mpi_run(int argc, char **argv);
/* 1 when argv (argv[0] "bench") has --multi. */
int cli_multi_wanted(int argc, char **argv);
int cli_multi_bench(int argc, char **argv);

#endif
