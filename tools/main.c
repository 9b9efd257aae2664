/* spx: the command-line program. Dispatches `spx CMD ...` to one function
 * per subcommand; `spx --help` lists them, `spx CMD --help` details one. */
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"info", spx_cmd_info, "statistics of a matrix (--json for one JSON object)"},
    {"convert", spx_cmd_convert, "convert between .mtx, .mtx.gz and .spx"},
    {"gen", spx_cmd_gen, "generate a matrix from a spec and write it"},
    {"spmv", spx_cmd_spmv, "y = alpha*op(A)*x + beta*y with vectors in text files"},
    {"spgemm", spx_cmd_spgemm, "C = A*B (B defaults to A)"},
    {"solve", spx_cmd_solve, "A x = b by CG, BiCGSTAB or GMRES, b and x in text files"},
    {"eigs", spx_cmd_eigs, "the largest or smallest eigenvalues of a symmetric matrix"},
    {"bench", spx_cmd_bench, "time every format, device and precision on a matrix"},
    {"formats", spx_cmd_formats, "list the registered formats and devices"},
};

static void print_help(FILE *f)
{
    fprintf(f,
            "Usage: spx COMMAND [ARGS] [--help]\n\n"
            "SpX %d.%d.%d: sparse matrix products on CPUs and GPUs.\n\nCommands:\n",
            SPX_VERSION_MAJOR, SPX_VERSION_MINOR, SPX_VERSION_PATCH);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(f, "  %-8s  %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(f, "\nA matrix argument M is a file (.mtx, .mtx.gz, .spx) or gen:SPEC, e.g.\n"
               "gen:lap3d7:64 (see spx_generate in spx.h for the specs).\n"
               "An output FILE of - is standard output. Exit codes, in every command:\n"
               "0 ok, 1 library error (message on stderr), 2 usage error (unknown command,\n"
               "option, format, device or precision, bad value), 3 a result failed its check.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_help(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("spx %d.%d.%d\n", SPX_VERSION_MAJOR, SPX_VERSION_MINOR, SPX_VERSION_PATCH);
        return CLI_OK;
    }
    if (cli_mpi_wanted(argc - 1, argv + 1)) return cli_mpi_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0 && cli_multi_wanted(argc - 1, argv + 1))
        return cli_multi_bench(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "spx: unknown command '%s' (see spx --help)\n", argv[1]);
    return CLI_USAGE;
}
