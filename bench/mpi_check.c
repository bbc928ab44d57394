/* mpi_check.c — checks from rows read in parallel:
   nothing of the size of the matrix is held by one rank, only vectors. */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "mpi_check.h"
#include "csr.h"

int mc_rows_read(const char *path, int threads, mc_rows *R, hspmv_error *e)
{
    hspmv_opts o;
    memset(R, 0, sizeof(*R));
    MPI_Comm_rank(MPI_COMM_WORLD, &R->me);
    MPI_Comm_size(MPI_COMM_WORLD, &R->P);
    R->row_start = calloc((size_t)R->P + 1, sizeof(int64_t));
    hspmv_opts_default(&o);
    o.threads = threads;
    return hspmv_dist_read_rows(path, MPI_COMM_WORLD, &o, &R->rows, R->row_start, e);
}

void mc_rows_free(mc_rows *R)
{
    hspmv_csr_free(&R->rows);
    free(R->row_start);
    R->row_start = NULL;
}

/* counts and places of the rows' blocks, for MPI_Scatterv / Gatherv (rows < 2^31) */
static void blocks(const mc_rows *R, int *cnt, int *dsp)
{
    for (int p = 0; p < R->P; p++) {
        cnt[p] = (int)(R->row_start[p + 1] - R->row_start[p]);
        dsp[p] = (int)R->row_start[p];
    }
}

#ifdef HSPMV_SINGLE
#define MC_REAL MPI_FLOAT
#else
#define MC_REAL MPI_DOUBLE
#endif

int mc_check(const mc_rows *R, const hspmv_dist *D, const hspmv_real *y, hspmv_real *yg,
             hspmv_real (*fill)(int64_t j), hspmv_check *chk, hspmv_error *e)
{
    const hspmv_csr *A = &R->rows;
    hspmv_real *x = malloc(sizeof(hspmv_real) * ((size_t)A->ncols + 1));
    hspmv_real *yl = malloc(sizeof(hspmv_real) * ((size_t)A->nrows + 1));
    int *cnt = malloc(sizeof(int) * 2 * (size_t)R->P), rc;
    int nomem = !x || !yl || !cnt, any;
    MPI_Allreduce(&nomem, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        free(x);
        free(yl);
        free(cnt);
        e->code = HSPMV_ERR_NOMEM;
        strcpy(e->msg, "out of memory for the check");
        return HSPMV_ERR_NOMEM;
    }
    if ((rc = hspmv_dist_gather(D, HSPMV_VEC_ROWS, y, yg, e)) == HSPMV_OK) {
        blocks(R, cnt, cnt + R->P);
        MPI_Scatterv(yg, cnt, cnt + R->P, MC_REAL, yl, (int)A->nrows, MC_REAL, 0, MPI_COMM_WORLD);
        for (int64_t j = 0; j < A->ncols; j++) x[j] = fill(j);
        hspmv_check c;
        hspmv_ref_check(A, x, yl, 2.0, &c);
        /* one verdict for all: sums, maxima, the lowest bad row */
        double mx[3] = {c.worst, c.max_rel, 0}, gmx[3], rel = c.avg_rel * (double)A->nrows, grel = 0;
        int64_t r0 = R->row_start[R->me], gv[4];
        int64_t v[4] = {c.violations, c.overflows, c.first_bad >= 0 ? r0 + c.first_bad : INT64_MAX,
                        c.first_overflow >= 0 ? r0 + c.first_overflow : INT64_MAX};
        MPI_Allreduce(mx, gmx, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&rel, &grel, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&v[0], &gv[0], 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); /* counts */
        MPI_Allreduce(&v[2], &gv[2], 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD); /* first rows */
        int64_t n = R->row_start[R->P];
        chk->violations = gv[0];
        chk->overflows = gv[1];
        chk->first_bad = gv[2] == INT64_MAX ? -1 : gv[2];
        chk->first_overflow = gv[3] == INT64_MAX ? -1 : gv[3];
        chk->worst = gmx[0];
        chk->max_rel = gmx[1];
        chk->avg_rel = n > 0 ? grel / (double)n : 0;
    }
    free(x);
    free(yl);
    free(cnt);
    return rc;
}
