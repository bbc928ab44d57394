/* halo_p2p.c — the rank-to-rank halo plan (PETSc MPIAIJ style): who sends
   which x entries to whom, and the ghost block kept to its non-empty rows. */
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "util.h"

/* Keeps only the ghost block's non-empty rows when they are at most half of
   the rows (PETSc's compressed rows): a stencil's ghost block touches a few
   boundary rows, and walking every row pointer and y entry for them would
   cost as much as a third of the owned block. */
int hspmv_halo_p2p_rows(hspmv_dist *D, hspmv_csr *Ag)
{
    return hspmv_dist_compress_rows(Ag, &D->ghost_row, &D->gy, &D->nghost_rows);
}

/* Exchanges the requests: each owner learns which of its x entries every
   other rank needs. Collective; all allocations are agreed before waiting. */
int hspmv_halo_p2p_plan(hspmv_dist *D, const int32_t *g, hspmv_error *err)
{
    int P = D->size, me = D->rank, rc = HSPMV_OK, nreq = 0;
    int *rcount = hspmv_calloc((size_t)P, sizeof(int)), *scount = hspmv_calloc((size_t)P, sizeof(int));
    MPI_Request *req = NULL;
    int64_t cb = D->col_start[me];

    if (!rcount || !scount) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the halo plan", me);
    /* ghosts are sorted, so each owner's are one contiguous run */
    if (!rc)
        for (int64_t k = 0; k < D->nghost; k++) rcount[hspmv_dist_owner(D->col_start, P, g[k])]++;
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoall of the halo counts failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    int64_t nsend = 0;
    for (int q = 0; q < P; q++) {
        if (rcount[q]) D->nrecv++;
        if (scount[q]) D->nsend++;
        nsend += scount[q];
    }
    D->recv_rank = hspmv_alloc_array((size_t)(D->nrecv + 1), sizeof(int));
    D->recv_ptr = hspmv_alloc_array((size_t)(D->nrecv + 1), sizeof(int64_t));
    D->send_rank = hspmv_alloc_array((size_t)(D->nsend + 1), sizeof(int));
    D->send_ptr = hspmv_alloc_array((size_t)(D->nsend + 1), sizeof(int64_t));
    D->send_idx = hspmv_alloc_pages((size_t)(nsend ? nsend : 1), sizeof(int32_t));
    D->sendbuf = hspmv_alloc_pages((size_t)(nsend ? nsend : 1), sizeof(hspmv_real));
    D->req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    if (!D->recv_rank || !D->recv_ptr || !D->send_rank || !D->send_ptr || !D->send_idx || !D->sendbuf ||
        !D->req || !req)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the halo plan (%lld entries to send)",
                       me, (long long)nsend);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    int nr = 0, ns = 0;
    D->recv_ptr[0] = D->send_ptr[0] = 0;
    for (int q = 0; q < P; q++) {
        if (rcount[q]) {
            D->recv_rank[nr] = q;
            D->recv_ptr[nr + 1] = D->recv_ptr[nr] + rcount[q];
            nr++;
        }
        if (scount[q]) {
            D->send_rank[ns] = q;
            D->send_ptr[ns + 1] = D->send_ptr[ns] + scount[q];
            ns++;
        }
    }
    /* the owners receive the global column numbers they must send */
    for (int s = 0; s < D->nsend; s++)
        if (MPI_Irecv(D->send_idx + D->send_ptr[s], scount[D->send_rank[s]], MPI_INT32_T, D->send_rank[s], 7,
                      D->comm, &req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Isend(g + D->recv_ptr[r], rcount[D->recv_rank[r]], MPI_INT32_T, D->recv_rank[r], 7, D->comm,
                      &req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    if (MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    if (rc) hspmv_err(err, rc, "rank %d: exchanging the halo requests failed", me);
    for (int64_t k = 0; !rc && k < nsend; k++) {
        int64_t c = D->send_idx[k] - cb;
        if (c < 0 || c >= D->ncols_local)
            rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: halo request for column %d it does not own", me,
                           D->send_idx[k]);
        D->send_idx[k] = (int32_t)c;
    }
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    hspmv_free(rcount);
    hspmv_free(scount);
    hspmv_free(req);
    return rc;
}
