/* dist_spmm.c — Y = op(A) X on a distributed matrix for a block of k
   vectors. A row-major block, halo "p2p": one exchange of k values per
   ghost entry, overlapped with the owned block as in hspmv_dist_spmv.
   Halo "node", and a column-major block in either mode: one vector at a
   time through hspmv_dist_spmv (the node window and plan hold one vector;
   a column-major block through row-major copies measured 4.6 times slower
   than its vectors one by one: docs/results/2026-11-27-distributed-block.md). */
#include <string.h>
#include "dist.h"
#include "util.h"

/* cx and cy with room for kc values per entry (this rank; agreed by the caller). */
static int grow_scratch(hspmv_dist *D, int kc, hspmv_error *err)
{
    hspmv_dist_blk *B = &D->blk;
    if (kc <= B->kc) return hspmv_ok(err);
    hspmv_real *cx = hspmv_alloc_pages((size_t)(D->ncols_local * kc + 1), sizeof(hspmv_real));
    hspmv_real *cy = hspmv_alloc_pages((size_t)(D->nrows_local * kc + 1), sizeof(hspmv_real));
    if (!cx || !cy) {
        hspmv_free(cx);
        hspmv_free(cy);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the scratch of %d vectors "
                         "(%lld + %lld entries)", D->rank, kc, (long long)D->ncols_local, (long long)D->nrows_local);
    }
    hspmv_free(B->cx);
    hspmv_free(B->cy);
    B->cx = cx;
    B->cy = cy;
    B->kc = kc;
    return hspmv_ok(err);
}

/* The buffers this call needs, agreed on every rank when any had to grow
   (their sizes are the same on every rank, so all of them take part or
   none); after a failure every rank drops them all, and stays in step. */
static int prepare(hspmv_dist *D, int k, int colmajor, hspmv_error *err)
{
    int p2p = D->halo != HSPMV_HALO_NODE && !colmajor, kc = p2p || colmajor ? 0 : k;
    int rc = HSPMV_OK, grow = (p2p && k > D->blk.k) || kc > D->blk.kc;
    if (!grow) return hspmv_ok(err);
    if (p2p) rc = hspmv_halo_blk_grow(D, k, err);
    if (!rc) rc = grow_scratch(D, kc, err);
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

/* dst (rows of k, row-major) <-> src (k vectors of n, one after another). */
static void to_rows(const hspmv_real *src, hspmv_real *dst, int64_t n, int k, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static) if (n * k > 32768)
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < k; j++) dst[i * k + j] = src[(int64_t)j * n + i];
}

static void to_cols(const hspmv_real *src, hspmv_real *dst, int64_t n, int k, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static) if (n * k > 32768)
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < k; j++) dst[(int64_t)j * n + i] = src[i * k + j];
}

/* One vector at a time (halo "node", or a column-major block); a row-major
   block through column-major copies (one pass over X and one over Y: taking each vector out of the
   block in turn would read X and write Y k times). */
static int by_vectors(hspmv_dist *D, int k, int colmajor, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    int64_t nc = D->ncols_local, nr = D->nrows_local;
    int rc = HSPMV_OK;
    const hspmv_real *x = X;
    hspmv_real *y = Y;
    if (!colmajor) {
        to_cols(X, D->blk.cx, nc, k, D->threads);
        x = D->blk.cx;
        y = D->blk.cy;
    }
    for (int j = 0; j < k; j++) {
        int r = hspmv_dist_spmv(D, x + (int64_t)j * nc, y + (int64_t)j * nr, err);
        if (r && !rc) rc = r;
    }
    if (!colmajor) to_rows(D->blk.cy, Y, nr, k, D->threads);
    if (rc) return hspmv_err(err, rc, "rank %d: the halo exchange failed", D->rank);
    return hspmv_ok(err);
}

int hspmv_dist_spmm(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    if (!D || k < 1 || (flags & ~(HSPMV_TRANSPOSE | HSPMV_COL_MAJOR)))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmm: bad arguments (k = %d, flags = %d)", k, flags);
    if (flags & HSPMV_TRANSPOSE) return hspmv_dist_spmm_transpose(D, flags, k, X, Y, err);
    if (k == 1) return hspmv_dist_spmv(D, X, Y, err);
    int colmajor = (flags & HSPMV_COL_MAJOR) != 0, rc = prepare(D, k, colmajor, err);
    if (rc) return rc;
    if (D->halo == HSPMV_HALO_NODE || colmajor) return by_vectors(D, k, colmajor, X, Y, err);
    return p2p_block(D, k, X, Y, err);
}
