/* solve_model.c — solve's timing report: the standalone product timed on
   the solver's own matrix and layout, and the byte model of an iteration
   (products by the formats' byte counts + vector passes x entries x
   sizeof(real)), at the bandwidth that product reached. */
#include <stdlib.h>
#include "solve_model.h"
#include "bench_util.h"

int sm_time_product(hspmv_dist *D, const hspmv_real *x, int reps, double *med_s, hspmv_error *e)
{
    hspmv_real *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    double *t = calloc((size_t)reps, sizeof(double)), mn, mx;
    int bad = !y || !t, rc = HSPMV_OK;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) rc = hspmv_err(e, HSPMV_ERR_NOMEM, "out of memory for the standalone product's vector");
    for (int r = -2; !rc && r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        rc = hspmv_dist_spmv(D, x, y, e);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 0) t[r] = dt;
    }
    if (!rc) bu_stats(t, reps, med_s, &mn, &mx);
    free(t);
    hspmv_free(y);
    return rc;
}

void sm_model_of(const hspmv_dist *D, const hspmv_solver_result *res, double prod_s, sm_model *m)
{
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    double b = in.owned.bytes + in.ghost.bytes;
    MPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    m->prod_bytes = b;
    m->vec_bytes = ((double)res->passes_rows * (double)in.nrows + (double)res->passes_cols * (double)in.ncols) *
                   (double)sizeof(hspmv_real);
    m->iter_bytes = res->spmv_per_iter * b + m->vec_bytes;
    m->bw = prod_s > 0 ? b / prod_s : 0;
    m->model_s = m->bw > 0 ? m->iter_bytes / m->bw : 0;
}
