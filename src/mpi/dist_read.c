/* dist_read.c — hspmv_dist_read: a PETSc binary file read by every rank
   (MPI-IO), a Matrix Market file by rank 0 or in byte ranges by every rank. */
#include "dist.h"
#include "dist_petsc.h"

int hspmv_dist_read(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **Dout, hspmv_error *err)
{
    /* PETSc binary files: every rank reads its own rows (MPI-IO), whatever o->read says */
    if (Dout && comm != MPI_COMM_NULL && hspmv_dist_is_petsc_file(path, comm))
        return hspmv_dist_read_petsc(path, comm, o, Dout, err);
    if (o && o->read == HSPMV_READ_PARALLEL) return hspmv_dist_read_parallel(path, comm, o, Dout, err);
    if (o && o->read != HSPMV_READ_ROOT) {
        if (Dout) *Dout = NULL;
        return hspmv_err(err, HSPMV_ERR_ARG, "unknown read method %d", o->read);
    }
    return hspmv_dist_read_root(path, comm, o, Dout, err);
}
