/* node_comm.c — which ranks share a node: MPI_Comm_split_type(SHARED),
   optionally cut into pseudo-nodes of opts.node_ranks consecutive node
   ranks (so that the off-node path runs, and is tested, on one machine),
   node numbers, and the layout of a node's x vector. */
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

int hspmv_node_comm(hspmv_dist *D, int node_ranks, hspmv_node **Nout, hspmv_error *err)
{
    int me = D->rank, P = D->size, rc = HSPMV_OK, k = node_ranks;
    int ranks[2]; /* rank 0's node_ranks decides: the options may differ per rank */
    MPI_Comm shared = MPI_COMM_NULL;
    hspmv_node *N = hspmv_calloc(1, sizeof(*N));
    *Nout = NULL;
    if (N) {
        N->comm = N->leaders = MPI_COMM_NULL;
        N->win = MPI_WIN_NULL;
        N->node_of = hspmv_alloc_array((size_t)P, sizeof(int));
    }
    if (!N || !N->node_of) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node layout", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto fail;
    ranks[0] = k;
    MPI_Bcast(ranks, 1, MPI_INT, 0, D->comm);
    k = ranks[0];
    if (k < 0) { /* the same on every rank: rank 0's value */
        rc = hspmv_err(err, HSPMV_ERR_ARG, "opts.node_ranks = %d on rank 0: expected 0 (real nodes) or ranks per "
                       "pseudo-node (1 or more)", k);
        goto fail;
    }
    N->env_ranks = k;
    N->test = D->test;

    if (MPI_Comm_split_type(D->comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Comm_split_type(SHARED) failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto fail;
    MPI_Comm_size(shared, &N->shared_ranks);
    if (k > 0) { /* pseudo-nodes: node ranks 0..k-1, k..2k-1, ... */
        int sr;
        MPI_Comm_rank(shared, &sr);
        if (MPI_Comm_split(shared, sr / k, sr, &N->comm) != MPI_SUCCESS)
            rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: splitting the node into pseudo-nodes failed", me);
        MPI_Comm_free(&shared);
    } else {
        N->comm = shared;
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto fail;
    MPI_Comm_set_errhandler(N->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(N->comm, &N->rank);
    MPI_Comm_size(N->comm, &N->size);

    /* node numbers: the leaders (node rank 0) in D->comm order */
    if (MPI_Comm_split(D->comm, N->rank == 0 ? 0 : MPI_UNDEFINED, me, &N->leaders) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: making the node leaders' communicator failed", me);
    if (N->rank == 0 && !rc) {
        MPI_Comm_set_errhandler(N->leaders, MPI_ERRORS_RETURN);
        MPI_Comm_rank(N->leaders, &N->node);
        MPI_Comm_size(N->leaders, &N->nnodes);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto fail;
    int nn[2] = {N->node, N->nnodes};
    if (MPI_Bcast(nn, 2, MPI_INT, 0, N->comm) != MPI_SUCCESS ||
        MPI_Allgather(&nn[0], 1, MPI_INT, N->node_of, 1, MPI_INT, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: telling the node numbers failed", me);
    N->node = nn[0];
    N->nnodes = nn[1];
    N->member = hspmv_alloc_array((size_t)N->size, sizeof(int));
    N->part_off = hspmv_alloc_array((size_t)N->size + 1, sizeof(int64_t));
    if (!rc && (!N->member || !N->part_off))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node layout", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto fail;
    if (MPI_Allgather(&me, 1, MPI_INT, N->member, 1, MPI_INT, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the node members failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto fail;
    *Nout = N;
    return HSPMV_OK;
fail:
    hspmv_node_layout_free(&N);
    return rc;
}

void hspmv_node_layout(hspmv_dist *D, hspmv_node *N)
{
    /* each part padded to 4 KiB: a page is first touched by its owner, and
       no cache line holds two ranks' entries */
    const int64_t pad = 4096 / (int64_t)sizeof(hspmv_real);
    N->part_off[0] = 0;
    for (int q = 0; q < N->size; q++) {
        int r = N->member[q];
        int64_t len = D->col_start[r + 1] - D->col_start[r];
        N->part_off[q + 1] = N->part_off[q] + (len + pad - 1) / pad * pad;
    }
    N->vec_len = N->part_off[N->size];
}

/* Node rank of D rank r on this node (member[] is ascending), -1 if none. */
int hspmv_node_rank_of(const hspmv_node *N, int r)
{
    int lo = 0, hi = N->size - 1;
    while (lo <= hi) {
        int m = (lo + hi) / 2;
        if (N->member[m] == r) return m;
        if (N->member[m] < r) lo = m + 1;
        else hi = m - 1;
    }
    return -1;
}

/* Node-vector offset of global column c, owned by a rank of this node. */
int64_t hspmv_node_offset(const hspmv_dist *D, const hspmv_node *N, int64_t c)
{
    int o = hspmv_dist_owner(D->col_start, D->size, c);
    return N->part_off[hspmv_node_rank_of(N, o)] + c - D->col_start[o];
}

void hspmv_node_layout_free(hspmv_node **Np)
{
    hspmv_node *N = Np ? *Np : NULL;
    if (!N) return;
    hspmv_free(N->node_of);
    hspmv_free(N->member);
    hspmv_free(N->part_off);
    if (N->leaders != MPI_COMM_NULL) MPI_Comm_free(&N->leaders);
    if (N->comm != MPI_COMM_NULL) MPI_Comm_free(&N->comm);
    hspmv_free(N);
    *Np = NULL;
}
