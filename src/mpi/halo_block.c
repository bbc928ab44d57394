/* halo_block.c — the p2p halo exchange of a block of k vectors: the same
   plan and messages as one vector's (one per neighbour), each carrying k
   values per ghost entry; its buffers, grown on first use. */
#include <limits.h>
#include <string.h>
#include "dist.h"
#include "util.h"

enum { TAG_HALO_BLOCK = 13 };

int hspmv_halo_blk_grow(hspmv_dist *D, int k, hspmv_error *err)
{
    hspmv_dist_blk *B = &D->blk;
    if (k <= B->k) return hspmv_ok(err);
    int64_t ns = D->send_ptr ? D->send_ptr[D->nsend] : 0, most = 0;
    for (int r = 0; r < D->nrecv; r++)
        if (D->recv_ptr[r + 1] - D->recv_ptr[r] > most) most = D->recv_ptr[r + 1] - D->recv_ptr[r];
    for (int s = 0; s < D->nsend; s++)
        if (D->send_ptr[s + 1] - D->send_ptr[s] > most) most = D->send_ptr[s + 1] - D->send_ptr[s];
    if (most * k > INT_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: a halo message of %lld entries x %d vectors "
                         "exceeds 2^31 - 1 values", D->rank, (long long)most, k);
    hspmv_real *xg = hspmv_alloc_pages((size_t)(D->nghost * k + 1), sizeof(hspmv_real));
    hspmv_real *sb = hspmv_alloc_pages((size_t)(ns * k + 1), sizeof(hspmv_real));
    hspmv_real *gy = D->ghost_row ? hspmv_alloc_pages((size_t)(D->nghost_rows * k + 1), sizeof(hspmv_real)) : NULL;
    if (!xg || !sb || (D->ghost_row && !gy)) {
        hspmv_free(xg);
        hspmv_free(sb);
        hspmv_free(gy);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the halo of %d vectors (%lld ghost "
                         "entries, %lld to send)", D->rank, k, (long long)D->nghost, (long long)ns);
    }
    hspmv_free(B->xg);
    hspmv_free(B->sendbuf);
    hspmv_free(B->gy);
    B->xg = xg;
    B->sendbuf = sb;
    B->gy = gy;
    B->k = k;
    return hspmv_ok(err);
}

void hspmv_dist_blk_free(hspmv_dist *D)
{
    hspmv_dist_blk *B = &D->blk;
    hspmv_free(B->xg);
    hspmv_free(B->sendbuf);
    hspmv_free(B->gy);
    memset(B, 0, sizeof(*B));
}

int hspmv_halo_begin_block(hspmv_dist *D, const hspmv_real *X, int k)
{
    double t0 = MPI_Wtime();
    int rc = HSPMV_OK, n = 0;
    const int32_t *si = D->send_idx;
    hspmv_real *sb = D->blk.sendbuf, *xg = D->blk.xg;
    int64_t ns = D->send_ptr[D->nsend];

    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Irecv(xg + D->recv_ptr[r] * k, (int)((D->recv_ptr[r + 1] - D->recv_ptr[r]) * k), HSPMV_MPI_REAL,
                      D->recv_rank[r], TAG_HALO_BLOCK, D->comm, &D->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    /* each sent entry's k values are one contiguous row of X */
#pragma omp parallel for num_threads(D->threads) schedule(static) if (ns * k > 32768)
    for (int64_t e = 0; e < ns; e++) {
        const hspmv_real *src = X + (int64_t)si[e] * k;
        hspmv_real *dst = sb + e * k;
        for (int j = 0; j < k; j++) dst[j] = src[j];
    }
    for (int s = 0; s < D->nsend; s++)
        if (MPI_Isend(sb + D->send_ptr[s] * k, (int)((D->send_ptr[s + 1] - D->send_ptr[s]) * k), HSPMV_MPI_REAL,
                      D->send_rank[s], TAG_HALO_BLOCK, D->comm, &D->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    D->timing.post_s += MPI_Wtime() - t0;
    return rc;
}
