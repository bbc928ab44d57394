/* mpi_prog.c — leaving together and the common options of the MPI programs. */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "mpi_prog.h"

static const char *prog_name = "?";
static void (*prog_usage)(FILE *);
static int me;

void mp_start(int *argc, char ***argv, const char *prog, void (*usage)(FILE *), int *rank, int *nranks)
{
    int prov;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    *rank = me;
    prog_name = prog;
    prog_usage = usage;
}

void mp_die(const hspmv_error *e)
{
    if (me == 0) fprintf(stderr, "%s: error: %s\n", prog_name, e->msg);
    MPI_Finalize();
    exit(1);
}

void mp_die_msg(const char *m)
{
    hspmv_error e = {HSPMV_ERR_ARG, ""};
    snprintf(e.msg, sizeof(e.msg), "%s", m);
    mp_die(&e);
}

void mp_other_arg(const char *a, const char **path)
{
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        if (me == 0) prog_usage(stdout);
        MPI_Finalize();
        exit(0);
    }
    if (a[0] == '-' && a[1]) {
        char m[300];
        if (me == 0) prog_usage(stderr);
        snprintf(m, sizeof(m), "unknown option or missing value '%s'", a);
        mp_die_msg(m);
    }
    if (*path) mp_die_msg("more than one matrix given");
    *path = a;
}

void mp_need_path(const char *path)
{
    if (path) return;
    if (me == 0) prog_usage(stderr);
    mp_die_msg("no matrix given");
}
