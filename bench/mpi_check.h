/* mpi_check.h — what the MPI programs need when no rank holds the whole
   matrix (--read parallel): every rank's rows read again in byte ranges, the
   product checked row block by row block against the long-double reference. */
#ifndef HSPMV_MPI_CHECK_H
#define HSPMV_MPI_CHECK_H

#include "hspmv.h"
#include "csr.h"

typedef struct mc_rows {
    hspmv_csr rows;       /* this rank's rows, file ordering, global columns */
    int64_t *row_start;   /* nranks+1 */
    int me, P;
} mc_rows;

/* Collective on MPI_COMM_WORLD: reads this rank's rows of path (partition
   nnz, every rank a byte range). */
int mc_rows_read(const char *path, int threads, mc_rows *R, hspmv_error *e);
void mc_rows_free(mc_rows *R);

/* Collective. y (D's layout) against the reference of rows*x with x[j] =
   fill(j) for every column: y is gathered in the file ordering on rank 0
   (yg, nrows entries there; NULL elsewhere) and sent back in the rows'
   blocks. chk is the same on every rank (violations summed, first_bad the
   lowest, worst/max_rel the largest, avg_rel over all rows). */
int mc_check(const mc_rows *R, const hspmv_dist *D, const hspmv_real *y, hspmv_real *yg,
             hspmv_real (*fill)(int64_t j), hspmv_check *chk, hspmv_error *e);

#endif
