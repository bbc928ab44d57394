/* dist_spmv.c — y = A*x on a distributed matrix, the same four steps in
   both halo modes: start the exchange, multiply what is local, finish the
   exchange, multiply the rest (halo "node": node_spmv.c does the steps);
   with x'y of this rank's rows summed as the rows are made (CG's p'q). */
#include <string.h>
#include "dist.h"
#include "dist_sym.h"
#include "local_part.h"
#include "node.h"
#include "util.h"
#include "dist_dot.h"

/* What needs no message. p2p: the owned block, in pieces with message
   progress between them. dot (when not NULL): += x'y of what it made. */
static void local_product(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *dot)
{
    if (D->halo == HSPMV_HALO_NODE) {
        hspmv_node_local(D, x, y, dot);
        return;
    }
    double t0 = MPI_Wtime();
    if (!D->Lo && D->nrows_local > 0) memset(y, 0, sizeof(*y) * (size_t)D->nrows_local);
    for (int c = 0; D->Lo && c < D->npieces; c++) {
        if (dot) *dot += hspmv_local_spmv_dot_part(D->Lo, c, D->npieces, x, y);
        else hspmv_local_spmv_part(D->Lo, c, D->npieces, x, y, 0);
        if (c + 1 < D->npieces) hspmv_halo_progress(D); /* let large messages move meanwhile */
    }
    D->timing.owned_s += MPI_Wtime() - t0;
}

/* The compressed ghost rows' sums added to y, and with dot x'(those sums):
   HSPMV_SHARES_DOT. */
static void add_ghost_rows(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *dot)
{
    const int64_t *gr = D->ghost_row, n = D->nghost_rows;
    const hspmv_real *gy = D->gy;
    if (!dot) {
#pragma omp parallel for num_threads(D->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[gr[i]] += gy[i];
        return;
    }
    HSPMV_SHARES_DOT(D->threads, n, dot, {
        y[gr[i]] += gy[i];
        s += (double)x[gr[i]] * gy[i];
    });
}

/* What needed the exchange. p2p: y += the ghost block's product. */
static void rest_product(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *dot)
{
    if (D->halo == HSPMV_HALO_NODE) {
        hspmv_node_rest(D, y, dot);
        return;
    }
    double t0 = MPI_Wtime();
    if (D->Lg && !D->ghost_row) hspmv_local_spmv(D->Lg, D->xg, y, 1); /* (never with dot: hspmv_dist_dot_fused) */
    else if (D->Lg) { /* compressed rows: product of the rows with ghosts, then added in place */
        hspmv_local_spmv(D->Lg, D->xg, D->gy, 0);
        add_ghost_rows(D, x, y, dot);
    }
    D->timing.ghost_s += MPI_Wtime() - t0;
}

int hspmv_dist_dot_fused(const hspmv_dist *D)
{
    if (!D || D->sym || D->nrows != D->ncols || D->row_start[D->rank] != D->col_start[D->rank] ||
        D->nrows_local != D->ncols_local)
        return 0;
    if (D->halo == HSPMV_HALO_P2P) return !D->Lg || D->ghost_row != NULL;
    const hspmv_node *N = D->node; /* node: the owned block, then the node and off-node blocks' compressed rows */
    return D->halo == HSPMV_HALO_NODE && N && !N->oshare && !N->nfold && !N->merged &&
           N->gather != HSPMV_GATHER_SHARE && N->orow0 == 0 && N->orow1 == D->nrows_local &&
           (!N->nb.L || N->nb.row) && (!N->ob.L || N->ob.row);
}

/* x'y over this rank's rows, one threaded pass (T shares' sums added in order). */
static double local_dot(const hspmv_dist *D, const hspmv_real *x, const hspmv_real *y)
{
    double sum = 0, *dot = &sum;
    HSPMV_SHARES_DOT(D->threads, D->nrows_local, dot, { s += (double)x[i] * y[i]; });
    return sum;
}

/* The four steps; dot (NULL: none): this rank's x'y, fused where
   hspmv_dist_dot_fused, else one pass after the product. */
static int spmv_run(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *dot, hspmv_error *err)
{
    double t0 = MPI_Wtime();
    int rc, fused = dot && hspmv_dist_dot_fused(D);
    if (D->sym) { /* one triangle: its exchange also carries the mirrored entries' sums back */
        rc = hspmv_dist_sym_spmv(D, x, y);
    } else {
        rc = hspmv_halo_begin(D, x, y);
        local_product(D, x, y, fused ? dot : NULL);
        if (hspmv_halo_end(D)) rc = HSPMV_ERR_MPI;
        rest_product(D, x, y, fused ? dot : NULL);
    }
    if (dot && !fused) *dot = local_dot(D, x, y);
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
    if (rc == HSPMV_OK) return spmv_run(D, x, y, NULL, err);
    if (rc != HSPMV_ERR_ARG) return rc;
    spmv_run(D, x, y, NULL, &run_err); /* with the stand-ins: the others get this rank's part of the exchange */
    hspmv_free(sub);
    return rc;
}

int hspmv_dist_spmv_dot(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *xy, hspmv_error *err)
{
    hspmv_real *sub;
    hspmv_error run_err;
    double dot = 0;
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmv_dot: D is NULL");
    int rc = hspmv_dist_vec_args(D, "hspmv_dist_spmv_dot", 1, &x, D->ncols_local, &y, D->nrows_local, &sub, err);
    if (rc == HSPMV_OK && D->nrows != D->ncols) /* the same on every rank; the others still get their x */
        rc = hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmv_dot: x'y of a %lld x %lld matrix (not square)",
                       (long long)D->nrows, (long long)D->ncols);
    else if (rc == HSPMV_OK) {
        rc = spmv_run(D, x, y, &dot, err);
        if (xy) *xy = dot;
        return rc;
    }
    if (rc != HSPMV_ERR_ARG) return rc;
    spmv_run(D, x, y, NULL, &run_err);
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
