/* dist_spmv.c — y = A*x on a distributed matrix, the same four steps in
   both halo modes: start the exchange, multiply what is local, finish the
   exchange, multiply the rest (halo "node": node_spmv.c does the steps). */
#include <string.h>
#include "dist.h"
#include "dist_sym.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

/* What needs no message. p2p: the owned block, in pieces with message
   progress between them. */
static void local_product(hspmv_dist *D, const hspmv_real *x, hspmv_real *y)
{
    if (D->halo == HSPMV_HALO_NODE) {
        hspmv_node_local(D, x, y);
        return;
    }
    double t0 = MPI_Wtime();
    if (!D->Lo && D->nrows_local > 0) memset(y, 0, sizeof(*y) * (size_t)D->nrows_local);
    for (int c = 0; D->Lo && c < D->npieces; c++) {
        hspmv_local_spmv_part(D->Lo, c, D->npieces, x, y, 0);
        if (c + 1 < D->npieces) hspmv_halo_progress(D); /* let large messages move meanwhile */
    }
    D->timing.owned_s += MPI_Wtime() - t0;
}

/* What needed the exchange. p2p: y += the ghost block's product. */
static void rest_product(hspmv_dist *D, hspmv_real *y)
{
    if (D->halo == HSPMV_HALO_NODE) {
        hspmv_node_rest(D, y);
        return;
    }
    double t0 = MPI_Wtime();
    if (D->Lg && !D->ghost_row) hspmv_local_spmv(D->Lg, D->xg, y, 1);
    else if (D->Lg) { /* compressed rows: product of the rows with ghosts, then added in place */
        const int64_t *gr = D->ghost_row, n = D->nghost_rows;
        const hspmv_real *gy = D->gy;
        hspmv_local_spmv(D->Lg, D->xg, D->gy, 0);
#pragma omp parallel for num_threads(D->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[gr[i]] += gy[i];
    }
    D->timing.ghost_s += MPI_Wtime() - t0;
}

static int spmv_run(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, hspmv_error *err)
{
    double t0 = MPI_Wtime();
    int rc;
    if (D->sym) { /* one triangle: its exchange also carries the mirrored entries' sums back */
        rc = hspmv_dist_sym_spmv(D, x, y);
    } else {
        rc = hspmv_halo_begin(D, x, y);
        local_product(D, x, y);
        if (hspmv_halo_end(D)) rc = HSPMV_ERR_MPI;
        rest_product(D, y);
    }
    D->timing.calls++;
    D->timing.total_s += MPI_Wtime() - t0;
    if (rc) return hspmv_err(err, rc, "rank %d: the halo exchange failed", D->rank);
    return hspmv_ok(err);
}

int hspmv_dist_spmv(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, hspmv_error *err)
{
    hspmv_real *sub;
    hspmv_error run_err;
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmv: D is NULL");
    int rc = hspmv_dist_vec_args(D, "hspmv_dist_spmv", 1, &x, D->ncols_local, &y, D->nrows_local, &sub, err);
    if (rc == HSPMV_OK) return spmv_run(D, x, y, err);
    if (rc != HSPMV_ERR_ARG) return rc;
    spmv_run(D, x, y, &run_err); /* with the stand-ins: the others get this rank's part of the exchange */
    hspmv_free(sub);
    return rc;
}

int hspmv_dist_spmv_scaled(hspmv_dist *D, hspmv_real alpha, const hspmv_real *x, hspmv_real beta, hspmv_real *y,
                           hspmv_error *err)
{
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmv_scaled: D is NULL");
    if (alpha == 1 && beta == 0) return hspmv_dist_spmv(D, x, y, err);
    int rc = hspmv_dist_spmv(D, x, D->work, err);
    if (!y && D->nrows_local > 0) /* after the product: the other ranks got their x from this one */
        return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: hspmv_dist_spmv_scaled: y is NULL (this rank's part has "
                         "%lld entries)", D->rank, (long long)D->nrows_local);
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
