/* dist_spmm.c — Y = op(A) X on a distributed matrix for a block of k
   vectors. A row-major block: one exchange of k values per ghost entry,
   overlapped with the owned block as in hspmv_dist_spmv, and the block
   kernels; halo "p2p" here, halo "node" in node_spmm.c (the node's window
   holding k-wide vectors). A column-major block, in either mode: one
   vector at a time through hspmv_dist_spmv (through row-major copies it
   measured 4.6 times slower than its vectors one by one:
   docs/results/2026-11-27-distributed-block.md). A^T X: the same on the
   transposed matrix (dist_transpose.c). */
#include <string.h>
#include "dist.h"
#include "dist_sym.h"
#include "node.h"
#include "util.h"

/* The p2p buffers for k values an entry, agreed on every rank when any had
   to grow (their sizes are the same on every rank, so all of them take part
   or none); after a failure every rank drops them all, and stays in step. */
static int prepare_p2p(hspmv_dist *D, int k, hspmv_error *err)
{
    int rc;
    if (k <= D->blk.k) return hspmv_ok(err);
    rc = hspmv_halo_blk_grow(D, k, err);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) hspmv_dist_blk_free(D);
    return rc;
}

/* Halo "p2p", row-major: start the exchange, Y = the owned block's product,
   finish the exchange, Y += the ghost block's (compressed rows through
   blk.gy). A local block's failure is this rank's (as an MPI one). */
static int p2p_block(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    double t0 = MPI_Wtime();
    int rc = hspmv_halo_begin_block(D, X, k), lrc = HSPMV_OK;
    hspmv_error lerr = {0, ""};
    double t1 = MPI_Wtime();
    if (D->Lo) lrc = hspmv_local_spmm(D->Lo, 0, k, X, Y, 0, &lerr);
    else if (D->nrows_local > 0) memset(Y, 0, sizeof(*Y) * (size_t)(D->nrows_local * k));
    D->timing.owned_s += MPI_Wtime() - t1;
    if (hspmv_halo_end(D)) rc = HSPMV_ERR_MPI;
    t1 = MPI_Wtime();
    if (D->Lg && !D->ghost_row) {
        if (!lrc) lrc = hspmv_local_spmm(D->Lg, 0, k, D->blk.xg, Y, 1, &lerr);
    } else if (D->Lg && !lrc) { /* compressed rows: their product, then added in place */
        const int64_t *gr = D->ghost_row, n = D->nghost_rows;
        const hspmv_real *gy = D->blk.gy;
        lrc = hspmv_local_spmm(D->Lg, 0, k, D->blk.xg, D->blk.gy, 0, &lerr);
#pragma omp parallel for num_threads(D->threads) schedule(static) if (n * k > 32768)
        for (int64_t i = 0; i < n; i++) {
            hspmv_real *y = Y + gr[i] * k;
            const hspmv_real *g = gy + i * k;
            for (int j = 0; j < k; j++) y[j] += g[j];
        }
    }
    D->timing.ghost_s += MPI_Wtime() - t1;
    D->timing.calls++;
    D->timing.total_s += MPI_Wtime() - t0;
    if (lrc) return hspmv_err(err, lrc, "rank %d: %s", D->rank, lerr.msg);
    if (rc) return hspmv_err(err, rc, "rank %d: the halo exchange of %d vectors failed", D->rank, k);
    return hspmv_ok(err);
}

/* A column-major block: one vector at a time (vector j at j*n). */
static int by_vectors(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    int64_t nc = D->ncols_local, nr = D->nrows_local;
    int rc = HSPMV_OK;
    for (int j = 0; j < k; j++) {
        int r = hspmv_dist_spmv(D, X + (int64_t)j * nc, Y + (int64_t)j * nr, err);
        if (r && !rc) rc = r;
    }
    if (rc) return hspmv_err(err, rc, "rank %d: the halo exchange failed", D->rank);
    return hspmv_ok(err);
}

/* One triangle, a row-major block: vector j copied out, multiplied and
   copied back (the block kernels are for full storage). */
static int sym_rows(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    int64_t nc = D->ncols_local, nr = D->nrows_local;
    hspmv_real *x = hspmv_alloc_array((size_t)(nc ? nc : 1), sizeof(hspmv_real));
    hspmv_real *y = hspmv_alloc_array((size_t)(nr ? nr : 1), sizeof(hspmv_real));
    int rc = x && y ? HSPMV_OK : hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for two vectors of the "
                                          "block product", D->rank);
    rc = hspmv_dist_agree(D->comm, rc, err);
    for (int j = 0; !rc && j < k; j++) {
        for (int64_t i = 0; i < nc; i++) x[i] = X[i * k + j];
        int r = hspmv_dist_spmv(D, x, y, err);
        for (int64_t i = 0; i < nr; i++) Y[i * k + j] = y[i];
        if (r && !rc) rc = r;
    }
    hspmv_free(x);
    hspmv_free(y);
    return rc;
}

/* Y = A^T X: the transposed matrix's product (its times are counted in
   D's by hspmv_dist_get_timing); one triangle: A^T is A, or -A. */
static int transposed(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    if (D->sym) {
        int rc = hspmv_dist_spmm(D, flags & HSPMV_COL_MAJOR, k, X, Y, err);
        int64_t n = D->nrows_local * (int64_t)k;
        if (D->sym->sign < 0 && Y)
            for (int64_t i = 0; i < n; i++) Y[i] = -Y[i];
        return rc;
    }
    hspmv_dist *At;
    int rc = hspmv_dist_transposed(D, &At, err);
    return rc ? rc : hspmv_dist_spmm(At, flags & HSPMV_COL_MAJOR, k, X, Y, err);
}

/* Y = A X, X and Y checked (and, NULL on this rank, stood in for). */
static int plain(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    if (k == 1) return hspmv_dist_spmv(D, X, Y, err);
    if (flags & HSPMV_COL_MAJOR) return by_vectors(D, k, X, Y, err);
    if (D->sym) return sym_rows(D, k, X, Y, err);
    if (D->halo == HSPMV_HALO_NODE) return hspmv_node_spmm(D, k, X, Y, err);
    int rc = prepare_p2p(D, k, err);
    return rc ? rc : p2p_block(D, k, X, Y, err);
}

int hspmv_dist_spmm(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    hspmv_real *sub;
    hspmv_error run_err;
    /* D, k and flags are the same on every rank (documented): refused alike everywhere */
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmm: D is NULL");
    if (k < 1 || (flags & ~(HSPMV_TRANSPOSE | HSPMV_COL_MAJOR)))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmm: bad arguments (k = %d, flags = %d)", k, flags);
    if (flags & HSPMV_TRANSPOSE) return transposed(D, flags, k, X, Y, err); /* checks on A^T's layout */
    int rc = hspmv_dist_vec_args(D, "hspmv_dist_spmm", k, &X, D->ncols_local, &Y, D->nrows_local, &sub, err);
    if (rc == HSPMV_OK) return plain(D, flags, k, X, Y, err);
    if (rc != HSPMV_ERR_ARG) return rc;
    plain(D, flags, k, X, Y, &run_err);
    hspmv_free(sub);
    return rc;
}
