/* halo_exchange.c — the halo exchange of x in either mode: begin (p2p: post
   the ghost receives and the packed sends) and end (p2p: wait for them);
   halo "node" goes to node_spmv.c. */
#include "dist.h"
#include "node.h"

enum { TAG_HALO = 11 };

int hspmv_halo_begin(hspmv_dist *D, const hspmv_real *x, hspmv_real *y)
{
    if (D->halo == HSPMV_HALO_NODE) return hspmv_node_begin(D, x, y);
    double t0 = MPI_Wtime();
    int rc = HSPMV_OK, n = 0;
    const int32_t *si = D->send_idx;
    hspmv_real *sb = D->sendbuf;
    int64_t ns = D->send_ptr[D->nsend];

    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Irecv(D->xg + D->recv_ptr[r], (int)(D->recv_ptr[r + 1] - D->recv_ptr[r]), HSPMV_MPI_REAL,
                      D->recv_rank[r], TAG_HALO, D->comm, &D->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
#pragma omp parallel for num_threads(D->threads) schedule(static) if (ns > 32768)
    for (int64_t k = 0; k < ns; k++) sb[k] = x[si[k]];
    for (int s = 0; s < D->nsend; s++)
        if (MPI_Isend(sb + D->send_ptr[s], (int)(D->send_ptr[s + 1] - D->send_ptr[s]), HSPMV_MPI_REAL,
                      D->send_rank[s], TAG_HALO, D->comm, &D->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    D->timing.post_s += MPI_Wtime() - t0;
    return rc;
}

int hspmv_halo_end(hspmv_dist *D)
{
    if (D->halo == HSPMV_HALO_NODE) return hspmv_node_end(D);
    double t0 = MPI_Wtime();
    int n = D->nrecv + D->nsend, rc = HSPMV_OK;
    if (n && hspmv_dist_waitall(D, n, D->req)) rc = HSPMV_ERR_MPI;
    D->timing.wait_s += MPI_Wtime() - t0;
    return rc;
}

int hspmv_halo_progress(hspmv_dist *D)
{
    int n = D->nrecv + D->nsend, flag;
    if (n && MPI_Testall(n, D->req, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS) return HSPMV_ERR_MPI;
    return HSPMV_OK;
}
