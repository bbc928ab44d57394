/* mpi_badfile.c — reads a (bad) matrix with hspmv_dist_read on every rank
   and prints "rank R: status CODE: MESSAGE"; exits 1 on failure, as a
   program would. A second argument "parallel" makes every rank read a byte
   range (HSPMV_READ_PARALLEL). tests/mpi/run.sh checks every rank printed
   the same thing, quickly, and the same as the root read. */
#include <stdio.h>
#include <string.h>
#include "hspmv.h"
#include "mpitest.h"

int main(int argc, char **argv)
{
    int me;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    hspmv_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    mt_opts(&o);
    if (argc > 2 && !strcmp(argv[2], "parallel")) o.read = HSPMV_READ_PARALLEL;
    int rc = hspmv_dist_read(argc > 1 ? argv[1] : NULL, MPI_COMM_WORLD, &o, &D, &e);
    printf("rank %d: status %d: %s\n", me, rc, rc ? e.msg : "ok");
    fflush(stdout);
    hspmv_dist_destroy(&D);
    MPI_Finalize();
    return rc ? 1 : 0;
}
