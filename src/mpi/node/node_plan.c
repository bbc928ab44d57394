/* node_plan.c — the node-aware plan of one rank: its ghost columns split
   into those of other ranks of its node (read from the node's shared
   window) and those of other nodes (node_pairs.c), the readers of each
   rank's x part, the window, folded rows, and the blocks in the gather the
   plan keeps (node_gather.c). Also frees a node's whole state. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

/* Splits the ghost block Ag (compact columns into g, ng of them) into the
   node block Bn (columns of ranks of the node; compact, N->nsrc their
   node-vector offsets) and the off-node block Bo (compact; og their global
   columns). */
static int split_ghosts(hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t ng,
                        hspmv_csr *Bn, hspmv_csr *Bo, int32_t **og)
{
    int64_t nl = Ag->nrows, zn = 0, zo = 0;
    int64_t *map = hspmv_alloc_array((size_t)(ng ? ng : 1), sizeof(int64_t));
    if (!map) return HSPMV_ERR_NOMEM;
    N->nn = N->no = 0;
    for (int64_t j = 0; j < ng; j++) {
        int o = hspmv_dist_owner(D->col_start, D->size, g[j]);
        map[j] = N->node_of[o] == N->node ? N->nn++ : -1 - N->no++;
    }
    N->nsrc = hspmv_alloc_array((size_t)(N->nn ? N->nn : 1), sizeof(int64_t));
    *og = hspmv_alloc_array((size_t)(N->no ? N->no : 1), sizeof(int32_t));
    for (int64_t k = 0; k < Ag->nnz; k++) {
        zn += map[Ag->colind[k]] >= 0;
        zo += map[Ag->colind[k]] < 0;
    }
    Bn->nrows = Bo->nrows = nl;
    Bn->ncols = N->nn;
    Bo->ncols = N->no;
    Bn->nnz = zn;
    Bo->nnz = zo;
    Bn->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Bo->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Bn->colind = hspmv_alloc_array((size_t)(zn ? zn : 1), sizeof(int32_t));
    Bo->colind = hspmv_alloc_array((size_t)(zo ? zo : 1), sizeof(int32_t));
    Bn->val = hspmv_alloc_array((size_t)(zn ? zn : 1), sizeof(hspmv_real));
    Bo->val = hspmv_alloc_array((size_t)(zo ? zo : 1), sizeof(hspmv_real));
    if (!N->nsrc || !*og || !Bn->rowptr || !Bo->rowptr || !Bn->colind || !Bo->colind || !Bn->val || !Bo->val) {
        hspmv_free(map);
        return HSPMV_ERR_NOMEM;
    }
    for (int64_t j = 0; j < ng; j++) {
        if (map[j] >= 0) N->nsrc[map[j]] = hspmv_node_offset(D, N, g[j]);
        else (*og)[-1 - map[j]] = g[j];
    }
    int64_t kn = 0, ko = 0;
    Bn->rowptr[0] = Bo->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) {
        for (int64_t k = Ag->rowptr[i]; k < Ag->rowptr[i + 1]; k++) {
            int64_t m = map[Ag->colind[k]];
            if (m >= 0) {
                Bn->colind[kn] = (int32_t)m;
                Bn->val[kn++] = Ag->val[k];
            } else {
                Bo->colind[ko] = (int32_t)(-1 - m);
                Bo->val[ko++] = Ag->val[k];
            }
        }
        Bn->rowptr[i + 1] = kn;
        Bo->rowptr[i + 1] = ko;
    }
    hspmv_free(map);
    return HSPMV_OK;
}

/* Who reads whose part, and what: this rank reads the owners of its
   node-block columns and of what it packs for other ranks' values (its own
   it packs from x); an Alltoallv over the node gives each rank its readers
   and the entries of its part they read, and its folded rows read
   (exp_idx, or the whole part when
   they read more than half of it: a caller's x then costs one contiguous
   copy). */
static int find_readers(hspmv_dist *D, hspmv_node *N, hspmv_error *err)
{
    int k = N->size, me = N->rank, rc = HSPMV_OK;
    int *cnt = hspmv_calloc((size_t)k, sizeof(int)), *rcnt = hspmv_calloc((size_t)k, sizeof(int));
    int *sd = hspmv_calloc((size_t)k + 1, sizeof(int)), *rd = hspmv_calloc((size_t)k + 1, sizeof(int));
    int64_t tot = 0, rtot = 0, len = D->ncols_local, ns = N->send_ptr[N->nsend];
    int32_t *out = NULL, *in = NULL;
    unsigned char *mark = NULL;
    if (!cnt || !rcnt || !sd || !rd) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    for (int64_t j = 0; !rc && j < N->nn; j++) cnt[hspmv_node_part_of(N, N->nsrc[j])]++;
    for (int64_t j = 0; !rc && j < ns; j++) {
        int q = hspmv_node_part_of(N, N->send_idx[j]);
        if (q != me) cnt[q]++;
    }
    for (int q = 0; !rc && q < k; q++) {
        sd[q + 1] = sd[q] + cnt[q];
        tot += cnt[q];
    }
    if (!rc && tot > INT_MAX) rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld reads", D->rank, (long long)tot);
    if (!rc && !(out = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int32_t))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    {
        int *fill = rcnt; /* rcnt as scratch until the Alltoall */
        for (int q = 0; q < k; q++) fill[q] = sd[q];
        for (int64_t j = 0; j < N->nn; j++) {
            int q = hspmv_node_part_of(N, N->nsrc[j]);
            out[fill[q]++] = (int32_t)(N->nsrc[j] - N->part_off[q]);
        }
        for (int64_t j = 0; j < ns; j++) {
            int q = hspmv_node_part_of(N, N->send_idx[j]);
            if (q != me) out[fill[q]++] = (int32_t)(N->send_idx[j] - N->part_off[q]);
        }
    }
    if (MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoall of the node readers failed", D->rank);
    for (int q = 0; !rc && q < k; q++) {
        rd[q + 1] = rd[q] + rcnt[q];
        rtot += rcnt[q];
    }
    if (!rc && rtot > INT_MAX) rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld reads", D->rank, (long long)rtot);
    if (!rc) {
        in = hspmv_alloc_array((size_t)(rtot ? rtot : 1), sizeof(int32_t));
        mark = hspmv_calloc((size_t)(len ? len : 1), 1);
        N->readers = hspmv_alloc_array((size_t)k + 1, sizeof(int));
        if (!in || !mark || !N->readers) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Alltoallv(out, cnt, sd, MPI_INT32_T, in, rcnt, rd, MPI_INT32_T, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoallv of the node reads failed", D->rank);
    for (int q = 0; !rc && q < k; q++)
        if (rcnt[q]) N->readers[N->nreaders++] = q;
    for (int64_t j = 0; !rc && j < rtot; j++) mark[in[j]] = 1;
    for (int64_t j = 0; !rc && j < N->nfold_own; j++) mark[N->fold_own[j]] = 1; /* its folded rows read them */
    for (int64_t j = 0; !rc && j < len; j++) N->nexp += mark[j];
    if (!rc && N->nexp > 0 && 2 * N->nexp <= len) { /* a few entries (a stencil's boundary): just those */
        N->exp_idx = hspmv_alloc_array((size_t)N->nexp, sizeof(int32_t));
        if (!N->exp_idx) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
        for (int64_t j = 0, w = 0; !rc && j < len; j++)
            if (mark[j]) N->exp_idx[w++] = (int32_t)j;
    }
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    hspmv_free(cnt);
    hspmv_free(rcnt);
    hspmv_free(sd);
    hspmv_free(rd);
    hspmv_free(out);
    hspmv_free(in);
    hspmv_free(mark);
    return rc;
}

/* 1 (on every rank) when the node blocks can be shared: the owned columns
   are in them (they are the ranks' whole work), there are other ranks on
   the node, and the blocks are worth timing (or sharing was asked for). */
static int share_fits(hspmv_dist *D, hspmv_node *N, const node_block *nb, int want)
{
    int64_t z[2] = {0, N->size}, g[2]; /* the largest block's entries, the largest node */
    if (nb->L) {
        hspmv_local_info li;
        hspmv_local_get_info(nb->L, &li);
        z[0] = li.nnz;
    }
    MPI_Allreduce(z, g, 2, MPI_INT64_T, MPI_MAX, D->comm);
    return N->merged && g[1] > 1 && (want == HSPMV_GATHER_SHARE || g[0] >= ((int64_t)1 << 16));
}

int hspmv_node_plan(hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t ng,
                    hspmv_csr *Ao, const hspmv_opts *o, int timed, hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK;
    int want = (int)hspmv_test_int(D->test, "gather", 0); /* HSPMV_TEST's gather=direct|copy|share: 1, 2, 3 */
    hspmv_csr Bn = {0}, Bo = {0};
    int32_t *og = NULL;
    node_block dir[2], cpy[2];
    N->orow0 = 0;
    N->orow1 = D->nrows_local;
    memset(dir, 0, sizeof(dir));
    memset(cpy, 0, sizeof(cpy));

    if (split_ghosts(D, N, Ag, g, ng, &Bn, &Bo, &og) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory splitting the ghost block by node", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = hspmv_node_fold_plan(D, N, Ao, &Bn, err))) goto out;
    if ((rc = hspmv_node_offnode_plan(D, N, og, N->no, err))) goto out;
    if (hspmv_node_send_segments(N) != HSPMV_OK) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = find_readers(D, N, err))) goto out;
    hspmv_free(N->fold_own); /* in the export list now */
    N->fold_own = NULL;
    N->nfold_own = 0;
    if ((rc = hspmv_node_window(D, N, err))) goto out;
    if ((rc = hspmv_node_fold_build(D, N, Ao, &Bn, err))) goto out;

    /* the blocks: compact columns (copy) and columns in the window (direct) */
    if (N->vec_len > INT32_MAX || N->gh_len > INT32_MAX) want = HSPMV_GATHER_COPY; /* int32 columns */
    if (hspmv_node_block_compress(&Bn, &cpy[0]) || hspmv_node_block_compress(&Bo, &cpy[1]) || hspmv_node_block_copy(&cpy[0], &dir[0]) ||
        hspmv_node_block_copy(&cpy[1], &dir[1]))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node blocks", me);
    if (!rc && want != HSPMV_GATHER_DIRECT && want != HSPMV_GATHER_SHARE) {
        if (Bn.nnz > 0) rc = hspmv_local_create_test(&Bn, o, D->test, &cpy[0].L, err);
        if (!rc && Bo.nnz > 0) rc = hspmv_local_create_test(&Bo, o, D->test, &cpy[1].L, err);
        if (!rc && (hspmv_node_block_single(&Bn, &cpy[0]) || hspmv_node_block_single(&Bo, &cpy[1])))
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node blocks", me);
        N->xn = hspmv_alloc_pages((size_t)(N->nn ? N->nn : 1), sizeof(hspmv_real));
        N->xo = hspmv_alloc_pages((size_t)(N->no ? N->no : 1), sizeof(hspmv_real));
        if (!rc && (!N->xn || !N->xo)) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    }
    if (!rc && want != HSPMV_GATHER_COPY) {
        for (int64_t k = 0; k < Bn.nnz; k++) Bn.colind[k] = (int32_t)N->nsrc[Bn.colind[k]];
        for (int64_t k = 0; k < Bo.nnz; k++) Bo.colind[k] = (int32_t)N->osrc[Bo.colind[k]];
        Bn.ncols = N->vec_len;
        Bo.ncols = N->gh_len;
        if (Bn.nnz > 0) rc = hspmv_local_create_test(&Bn, o, D->test, &dir[0].L, err);
        if (!rc && Bo.nnz > 0) rc = hspmv_local_create_test(&Bo, o, D->test, &dir[1].L, err);
        if (!rc && (hspmv_node_block_single(&Bn, &dir[0]) || hspmv_node_block_single(&Bo, &dir[1])))
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node blocks", me);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((!want || want == HSPMV_GATHER_SHARE) && share_fits(D, N, &dir[0], want)) { /* rows shared: node_share.c */
        hspmv_error e2; /* not asked for: a failure only means no sharing */
        int src = hspmv_node_share_build(D, N, &N->share, &Bn, dir[0].L, -1, "node block",
                                         want == HSPMV_GATHER_SHARE ? err : &e2);
        if (src != HSPMV_OK) {
            hspmv_node_share_free(&N->share);
            if (want == HSPMV_GATHER_SHARE) rc = src;
        }
    } else if (want == HSPMV_GATHER_SHARE) {
        want = HSPMV_GATHER_DIRECT; /* nothing to share here: direct */
    }
    if (rc && err && strncmp(err->msg, "rank ", 5) != 0) {
        char tmp[sizeof(err->msg)];
        snprintf(tmp, sizeof(tmp), "%s", err->msg);
        hspmv_err(err, rc, "rank %d: %s", me, tmp);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (want) { /* forced: nothing to choose (the other variant was not built) */
        N->gather = want;
        node_block *keep = want != HSPMV_GATHER_COPY ? dir : cpy, *drop = want != HSPMV_GATHER_COPY ? cpy : dir;
        N->nb = keep[0];
        N->ob = keep[1];
        memset(keep, 0, 2 * sizeof(*keep));
        hspmv_node_block_free(&drop[0]);
        hspmv_node_block_free(&drop[1]);
        if (want != HSPMV_GATHER_COPY) {
            hspmv_free(N->xn);
            hspmv_free(N->xo);
            N->xn = N->xo = NULL;
        }
        if (timed) {
            hspmv_local *g2[2] = {N->nb.L, N->ob.L};
            hspmv_dist_agree_kernels(D, g2, 2, (int64_t)1 << 15);
            if (N->share) hspmv_node_share_kernels(N->share, N->nb.L);
        }
    } else {
        rc = hspmv_node_choose_gather(D, N, dir, cpy, timed, err);
    }
    if (!rc) rc = hspmv_node_choose_replica(D, N, timed, err);
out:
    for (int i = 0; i < 2; i++) {
        hspmv_node_block_free(&dir[i]);
        hspmv_node_block_free(&cpy[i]);
    }
    hspmv_csr_free(&Bn);
    hspmv_csr_free(&Bo);
    hspmv_free(og);
    return rc;
}

void hspmv_node_free(hspmv_node **Np)
{
    hspmv_node *N = Np ? *Np : NULL;
    if (!N) return;
    hspmv_node_block_free(&N->nb);
    hspmv_node_block_free(&N->ob);
    hspmv_node_share_free(&N->share);
    hspmv_node_share_free(&N->oshare);
    hspmv_node_fold_free(N);
    hspmv_free(N->recv_src);
    hspmv_free(N->recv_off);
    hspmv_free(N->recv_cnt);
    hspmv_free(N->send_dst);
    hspmv_free(N->send_ptr);
    hspmv_free(N->send_idx);
    hspmv_free(N->seg_ptr);
    hspmv_free(N->seg_owner);
    hspmv_free(N->exp_idx);
    hspmv_free(N->sendbuf);
    hspmv_free(N->req);
    hspmv_free(N->src_recv);
    hspmv_free(N->readers);
    hspmv_free(N->nsrc);
    hspmv_free(N->osrc);
    hspmv_free(N->xn);
    hspmv_free(N->xo);
    hspmv_free(N->xr);
    hspmv_node_wide_free(N);
    hspmv_node_window_free(N);
    hspmv_node_layout_free(Np);
}
