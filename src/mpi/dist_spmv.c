/* dist_spmv.c — y = A*x on a distributed matrix. Halo "p2p": begin the
   exchange, multiply the owned block, end the exchange, multiply-add the
   ghost block. Halo "node": node_spmv.c. */
#include <string.h>
#include "dist.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

static int p2p_spmv(hspmv_dist *D, const hspmv_real *x, hspmv_real *y)
{
    double t0 = MPI_Wtime(), t1, t2, t3;
    int rc = hspmv_halo_begin(D, x);
    t1 = MPI_Wtime();
    if (!D->Lo && D->nrows_local > 0) memset(y, 0, sizeof(*y) * (size_t)D->nrows_local);
    for (int c = 0; D->Lo && c < D->npieces; c++) {
        hspmv_local_spmv_part(D->Lo, c, D->npieces, x, y, 0);
        if (c + 1 < D->npieces) hspmv_halo_progress(D); /* let large messages move meanwhile */
    }
    t2 = MPI_Wtime();
    if (hspmv_halo_end(D)) rc = HSPMV_ERR_MPI;
    t3 = MPI_Wtime();
    if (D->Lg && !D->ghost_row) hspmv_local_spmv(D->Lg, D->xg, y, 1);
    else if (D->Lg) { /* compressed rows: product of the rows with ghosts, then added in place */
        const int64_t *gr = D->ghost_row, n = D->nghost_rows;
        const hspmv_real *gy = D->gy;
        hspmv_local_spmv(D->Lg, D->xg, D->gy, 0);
#pragma omp parallel for num_threads(D->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[gr[i]] += gy[i];
    }
    double t4 = MPI_Wtime();
    hspmv_dist_timing *t = &D->timing;
    t->calls++;
    t->post_s += t1 - t0;
    t->owned_s += t2 - t1;
    t->wait_s += t3 - t2;
    t->ghost_s += t4 - t3;
    t->total_s += t4 - t0;
    return rc;
}

int hspmv_dist_spmv(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, hspmv_error *err)
{
    int rc = D->halo == HSPMV_HALO_NODE ? hspmv_node_spmv(D, x, y) : p2p_spmv(D, x, y);
    if (rc) return hspmv_err(err, rc, "rank %d: the halo exchange failed", D->rank);
    return hspmv_ok(err);
}

int hspmv_dist_spmv_scaled(hspmv_dist *D, hspmv_real alpha, const hspmv_real *x, hspmv_real beta, hspmv_real *y,
                           hspmv_error *err)
{
    if (alpha == 1 && beta == 0) return hspmv_dist_spmv(D, x, y, err);
    int rc = hspmv_dist_spmv(D, x, D->work, err);
    const hspmv_real *w = D->work;
    int64_t n = D->nrows_local;
    if (beta == 0) {
#pragma omp parallel for num_threads(D->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[i] = alpha * w[i];
    } else {
#pragma omp parallel for num_threads(D->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[i] = alpha * w[i] + beta * y[i];
    }
    return rc;
}
