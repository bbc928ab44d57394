/* halo_plan.c — split one rank's rows into an owned-column block and a
   ghost-column block (ghosts renumbered compactly, PETSc MPIAIJ style), and
   build the plan of who sends which x entries to whom: rank to rank (halo
   "p2p"), or node-aware (halo "node", node_halo.c). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "dist_sym.h"
#include "local_part.h"
#include "kernel_select.h"
#include "node.h"
#include "util.h"
#include "local_calls.h"

#ifdef _OPENMP
#include <omp.h>
static int omp_max_threads(void) { return omp_get_max_threads(); }
#else
static int omp_max_threads(void) { return 1; }
#endif

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int64_t hspmv_dist_lower_i32(const int32_t *g, int64_t n, int64_t c)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (g[m] < c) lo = m + 1;
        else hi = m;
    }
    return lo;
}

int hspmv_dist_split_blocks(const hspmv_csr *S, int64_t cb, int64_t ce, hspmv_csr *Ao, hspmv_csr *Ag,
                        int32_t **g_out, int64_t *ng_out)
{
    int64_t nl = S->nrows, no = 0, ngh = 0, ng = 0;
    const int64_t *rp = S->rowptr;
    const int32_t *ci = S->colind;
    int32_t *g = NULL;
    for (int64_t k = 0; k < S->nnz; k++) {
        if (ci[k] >= cb && ci[k] < ce) no++;
        else ngh++;
    }
    Ao->nrows = Ag->nrows = nl;
    Ao->ncols = ce - cb;
    Ao->nnz = no;
    Ag->nnz = ngh;
    Ao->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Ao->colind = hspmv_alloc_array((size_t)(no ? no : 1), sizeof(int32_t));
    Ao->val = hspmv_alloc_array((size_t)(no ? no : 1), sizeof(hspmv_real));
    Ag->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Ag->colind = hspmv_alloc_array((size_t)(ngh ? ngh : 1), sizeof(int32_t));
    Ag->val = hspmv_alloc_array((size_t)(ngh ? ngh : 1), sizeof(hspmv_real));
    g = hspmv_alloc_array((size_t)(ngh ? ngh : 1), sizeof(int32_t));
    if (!Ao->rowptr || !Ao->colind || !Ao->val || !Ag->rowptr || !Ag->colind || !Ag->val || !g) {
        hspmv_free(g);
        return HSPMV_ERR_NOMEM;
    }
    int64_t ko = 0, kg = 0;
    Ao->rowptr[0] = Ag->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            if (ci[k] >= cb && ci[k] < ce) {
                Ao->colind[ko] = (int32_t)(ci[k] - cb);
                Ao->val[ko++] = S->val[k];
            } else {
                g[kg] = ci[k];
                Ag->colind[kg] = ci[k]; /* global for now */
                Ag->val[kg++] = S->val[k];
            }
        }
        Ao->rowptr[i + 1] = ko;
        Ag->rowptr[i + 1] = kg;
    }
    /* distinct ghosts ascending, renumbered compactly (sorted rows stay
       sorted): through a map of the columns where it is not much larger
       than the ghost entries (a random matrix's 10^8 ghost entries took
       10-20 s to sort and search), else sort and binary search */
    int use_map = S->ncols <= 8 * ngh + ((int64_t)1 << 20);
    int32_t *map = use_map ? hspmv_calloc((size_t)S->ncols + 1, sizeof(int32_t)) : NULL;
    if (use_map && !map) {
        hspmv_free(g);
        return HSPMV_ERR_NOMEM;
    }
    if (map) {
        for (int64_t k = 0; k < ngh; k++) map[g[k]] = 1;
        for (int64_t c = 0; c < S->ncols; c++)
            if (map[c]) {
                g[ng] = (int32_t)c;
                map[c] = (int32_t)++ng;
            }
        for (int64_t k = 0; k < ngh; k++) Ag->colind[k] = map[Ag->colind[k]] - 1;
        hspmv_free(map);
    } else {
        qsort(g, (size_t)ngh, sizeof(int32_t), cmp_i32);
        for (int64_t k = 0; k < ngh; k++)
            if (ng == 0 || g[ng - 1] != g[k]) g[ng++] = g[k];
        for (int64_t k = 0; k < ngh; k++) Ag->colind[k] = (int32_t)hspmv_dist_lower_i32(g, ng, Ag->colind[k]);
    }
    Ag->ncols = ng;
    *g_out = g;
    *ng_out = ng;
    return HSPMV_OK;
}


/* The owned block, one prepared matrix (one set of arrays, big enough for
   huge pages: ranks of 16 separately allocated pieces of 2 MiB got none), multiplied in
   parts balanced by rows, with message progress between them: one part
   unless this rank has messages in flight during the product; else a part
   per 2^17 nonzeros (2^15 per thread), up to HSPMV_DIST_PIECES_MAX. Open
   MPI's shared-memory transport without a single-copy mechanism (the
   default in containers) moves a large message only while both ranks are
   inside MPI: on 16 ranks of the 200^3 Laplacian, 1 piece waited 33% of the
   product, 4 pieces 14-22%, 8 pieces 1% (README, "Distributed runs").
   HSPMV_TEST's dist_pieces forces a count. */
static int prepare_owned(hspmv_dist *D, const hspmv_csr *Ao, const hspmv_opts *o, int messages, int T,
                         hspmv_error *err)
{
    int np = 1;
    long forced = hspmv_test_int(D->test, "dist_pieces", 0);
    int64_t per = (int64_t)1 << 17;
    if (per < (int64_t)T << 15) per = (int64_t)T << 15;
    if (forced > 0) np = (int)forced;
    else if (messages) np = Ao->nnz / per > HSPMV_DIST_PIECES_MAX ? HSPMV_DIST_PIECES_MAX
                           : Ao->nnz / per < 1 ? 1 : (int)(Ao->nnz / per);
    if (np > HSPMV_DIST_PIECES_MAX) np = HSPMV_DIST_PIECES_MAX;
    D->npieces = np;
    if (Ao->nnz == 0) return HSPMV_OK;
    int rc = hspmv_local_create_test(Ao, o, D->test, &D->Lo, err);
    if (!rc && D->node) hspmv_local_cache_sharers(D->Lo, D->node->shared_ranks); /* the node's ranks stream together */
    return rc;
}

/* Owned rows shared within the node (node_share.c): where the owned block
   is separate (not merged) and the node has several ranks, the last
   owned_share_tail 64ths of every rank's owned block are copied
   into a shared window (in its format where that is CSRP, else CSR), and
   a rank done with its own takes chunks from the others' tails. Default,
   where some rank's owned block has 2^16 entries or more: 32 for ranks
   of one thread, 16 for ranks of several, which also even out their
   threads' speeds among themselves. Why: on the 16-core Xeon VM some
   cores ran their equal shares 1.3-1.5x slower than the rest, different
   ones in each launch and the same ones for every allocation within one
   (the real-valued lap3d 200 at 16 ranks: 12 ranks 3.8-4.4 ms, 4 ranks
   5.6-5.8; a streaming read, 16 processes: 6.0-7.9 GB/s a core), and
   every product waited for them. Half of the block movable at 16x1 was
   faster than a quarter in 3 of 3 launches on one machine (CSRP copies:
   3.99-5.28 ms against 4.38-5.53) and 2 of 2 on another (CSR copies);
   at 4x4 it was slower in 5 of 5. Collective. */
static int share_owned(hspmv_dist *D, const hspmv_csr *Ao, hspmv_error *err)
{
    hspmv_node *N = D->node;
    int64_t nnz = Ao->nnz, most = 0, tail = hspmv_test_int(D->test, "owned_share_tail", -1);
    int ranks = 0, rc;
    MPI_Allreduce(&nnz, &most, 1, MPI_INT64_T, MPI_MAX, D->comm);
    MPI_Allreduce(&N->size, &ranks, 1, MPI_INT, MPI_MAX, D->comm);
    if (tail < 0) tail = most < ((int64_t)1 << 16) ? 0 : N->threads > 1 ? 16 : 32;
    if (N->merged || tail == 0 || ranks < 2) return HSPMV_OK;
    rc = hspmv_node_share_build(D, N, &N->oshare, Ao, D->Lo, (int)tail, "owned block", err);
    if (rc) return rc; /* agreed; hspmv_node_free frees what was built */
    if (N->size < 2) { /* alone on its node: nobody to share with */
        hspmv_node_share_free(&N->oshare);
        return HSPMV_OK;
    }
    hspmv_node_share_kernels(N->oshare, D->Lo);
    N->otail = (int)tail;
    return HSPMV_OK;
}

/* The halo mode: o->halo, else node; rank 0's answer for everyone; -1
   (and *asked its value) when rank 0's is none of the HSPMV_HALO_*. */
static int halo_mode(hspmv_dist *D, const hspmv_opts *o, int *asked)
{
    int m = o->halo == HSPMV_HALO_NODE || o->halo == HSPMV_HALO_P2P ? o->halo : HSPMV_HALO_AUTO;
    int v[2] = {m, o->halo};
    MPI_Bcast(v, 2, MPI_INT, 0, D->comm);
    *asked = v[0]; /* AUTO, or what was asked for */
    if (v[1] != HSPMV_HALO_AUTO && v[1] != HSPMV_HALO_NODE && v[1] != HSPMV_HALO_P2P) {
        *asked = v[1];
        return -1;
    }
    return v[0] == HSPMV_HALO_P2P ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
}

/* What the p2p plan sends between nodes: this rank's ghosts whose owner is
   on another node, and the distinct such owners. */
static void p2p_volumes(const hspmv_dist *D, hspmv_node *N, const int32_t *g)
{
    int last = -1;
    N->inter_entries_p2p = N->inter_msgs_p2p = 0;
    for (int64_t k = 0; k < D->nghost; k++) {
        int o = hspmv_dist_owner(D->col_start, D->size, g[k]);
        if (N->node_of[o] == N->node) continue;
        N->inter_entries_p2p++;
        N->inter_msgs_p2p += o != last; /* ghosts ascending: an owner's are adjacent */
        last = o;
    }
}

/* Whether the owned columns go into the node block (one pass over the
   rows, and the block is then every rank's whole work, which the ranks of
   a node can share: node_share.c): when, over all ranks, fewer than twice
   as many entries lie in the ranks' own columns as in other columns of
   their node (random columns: 1/16 own at 16 ranks, and an owned block of
   half an entry per row costs a pass over the rows for little work; at 2
   ranks half and half); HSPMV_TEST's merge=0|1 forces it. Collective. */
static int merge_owned(hspmv_dist *D, const hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t nnz_owned)
{
    int64_t v[2] = {nnz_owned, 0}, sum[2];
    for (int64_t k = 0; k < Ag->nnz; k++)
        v[1] += N->node_of[hspmv_dist_owner(D->col_start, D->size, g[Ag->colind[k]])] == N->node;
    MPI_Allreduce(v, sum, 2, MPI_INT64_T, MPI_SUM, D->comm);
    return (int)hspmv_test_int(D->test, "merge", sum[0] < 2 * sum[1]);
}

/* Ao and Ag as one block M whose columns are the ghost columns with this
   rank's own columns [cb, ce) in their place: gm (ascending, ngm of them). */
static int merge_blocks(const hspmv_csr *Ao, const hspmv_csr *Ag, const int32_t *g, int64_t ng, int64_t cb,
                        int64_t ce, hspmv_csr *M, int32_t **gm, int64_t *ngm)
{
    int64_t nlow = 0, nl = Ao->nrows, own = ce - cb, k = 0;
    while (nlow < ng && g[nlow] < cb) nlow++;
    *ngm = ng + own;
    *gm = hspmv_alloc_array((size_t)(*ngm ? *ngm : 1), sizeof(int32_t));
    M->nrows = nl;
    M->ncols = *ngm;
    M->nnz = Ao->nnz + Ag->nnz;
    M->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    M->colind = hspmv_alloc_array((size_t)(M->nnz ? M->nnz : 1), sizeof(int32_t));
    M->val = hspmv_alloc_array((size_t)(M->nnz ? M->nnz : 1), sizeof(hspmv_real));
    if (!*gm || !M->rowptr || !M->colind || !M->val) return HSPMV_ERR_NOMEM;
    for (int64_t j = 0; j < nlow; j++) (*gm)[j] = g[j];
    for (int64_t c = 0; c < own; c++) (*gm)[nlow + c] = (int32_t)(cb + c);
    for (int64_t j = nlow; j < ng; j++) (*gm)[own + j] = g[j];
    M->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) { /* ghosts below, own, ghosts above: ascending */
        int64_t a = Ag->rowptr[i], ae = Ag->rowptr[i + 1];
        for (; a < ae && Ag->colind[a] < nlow; a++) {
            M->colind[k] = Ag->colind[a];
            M->val[k++] = Ag->val[a];
        }
        for (int64_t o = Ao->rowptr[i]; o < Ao->rowptr[i + 1]; o++) {
            M->colind[k] = (int32_t)(nlow + Ao->colind[o]);
            M->val[k++] = Ao->val[o];
        }
        for (; a < ae; a++) {
            M->colind[k] = (int32_t)(own + Ag->colind[a]);
            M->val[k++] = Ag->val[a];
        }
        M->rowptr[i + 1] = k;
    }
    return HSPMV_OK;
}

/* Prefixes "rank R: " to a message that names no rank (from the local layer). */
static void name_rank(int me, int rc, hspmv_error *err)
{
    if (rc && err && strncmp(err->msg, "rank ", 5) != 0) {
        char tmp[sizeof(err->msg)];
        snprintf(tmp, sizeof(tmp), "%s", err->msg);
        hspmv_err(err, rc, "rank %d: %s", me, tmp);
    }
}

/* opts.symmetric AUTO or YES: when the matrix is symmetric (or skew) across
   the ranks, each keeps the lower triangle of its rows (sym/dist_sym.h).
   It travels by p2p messages: with halo "node" asked for, AUTO keeps both
   triangles and YES is refused. Collective, agreed status. */
static int one_triangle(hspmv_dist *D, hspmv_csr *Ao, hspmv_csr *Ag, int32_t *g, int ask, int halo, int T,
                        hspmv_error *err)
{
    int sign = 0, rc;
    double check_s = 0;
    if (ask != HSPMV_SYMMETRIC_AUTO && ask != HSPMV_SYMMETRIC_YES) return HSPMV_OK; /* NO; bad values: the local layer */
    MPI_Bcast(&halo, 1, MPI_INT, 0, D->comm);
    if (halo == HSPMV_HALO_NODE) {
        if (ask == HSPMV_SYMMETRIC_AUTO) return HSPMV_OK;
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "symmetric yes with halo node: one triangle across ranks "
                         "sends the mirrored entries' sums back by p2p messages; use halo auto or p2p");
    }
    if ((rc = hspmv_dist_sym_decide(D, Ao, Ag, g, ask, T, &sign, &check_s, err)) || sign == 0) return rc;
    if (hspmv_dist_sym_keep_lower(D, Ag, g, &D->nghost, sign, check_s) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the lower ghost block", D->rank);
    else
        D->nnz_ghost = D->sym->nnz;
    return hspmv_dist_agree(D->comm, rc, err);
}

int hspmv_dist_build(hspmv_dist *D, hspmv_csr *S, const hspmv_opts *o, hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK, asked;
    hspmv_csr Ao = {0}, Ag = {0};
    int32_t *g = NULL;
    int64_t cb = D->col_start[me], ce = D->col_start[me + 1];
    int T = o->threads > 0 ? o->threads : omp_max_threads();
    hspmv_opts o1 = *o;
    int sym_ask = o->symmetric;
    o1.symmetric = HSPMV_SYMMETRIC_NO; /* the blocks keep both triangles unless one_triangle says otherwise */
    o = &o1;

    D->nrows_local = S->nrows;
    D->ncols_local = ce - cb;
    D->format = o->format;
    D->csrl_threshold = o->csrl_threshold;
    if (o->reorder != HSPMV_REORDER_NONE) /* docs/reordering.md: one rank's matrix only, so far */
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder %d: a distributed matrix is reordered only when rank 0 "
                       "holds it whole (hspmv_dist_create_root, hspmv_dist_read with the root read of a Matrix "
                       "Market file); use reorder none here", o->reorder);
    else if (hspmv_dist_keep_diagonal(D, S) != HSPMV_OK ||
             hspmv_dist_split_blocks(S, cb, ce, &Ao, &Ag, &g, &D->nghost) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory splitting %lld local rows into blocks", me,
                       (long long)S->nrows);
    hspmv_csr_free(S);
    if (!rc) {
        D->nnz_owned = Ao.nnz;
        D->nnz_ghost = Ag.nnz;
        D->ghost_col = hspmv_alloc_array((size_t)(D->nghost ? D->nghost : 1), sizeof(int64_t));
        D->work = hspmv_alloc_pages((size_t)(D->nrows_local ? D->nrows_local : 1), sizeof(hspmv_real));
        if (!D->ghost_col || !D->work)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld ghost entries", me,
                           (long long)D->nghost);
        else
            for (int64_t k = 0; k < D->nghost; k++) D->ghost_col[k] = g[k];
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = one_triangle(D, &Ao, &Ag, g, sym_ask, o->halo, T, err))) goto out;
    if ((rc = hspmv_node_comm(D, o->node_ranks, &D->node, err))) goto out;
    if ((rc = hspmv_node_cores(D, D->node, T, err))) goto out; /* waits yield at once where oversubscribed */
    hspmv_node_layout(D, D->node);
    p2p_volumes(D, D->node, g);
    D->halo = halo_mode(D, o, &asked);
    if (D->halo >= 0 && D->sym) D->halo = HSPMV_HALO_P2P; /* one_triangle took it only where p2p may be used */
    if (D->halo < 0) { /* rank 0's value: the same refusal everywhere */
        rc = hspmv_err(err, HSPMV_ERR_ARG, "opts.halo = %d on rank 0: expected HSPMV_HALO_AUTO (%d), _NODE (%d) or "
                       "_P2P (%d)", asked, HSPMV_HALO_AUTO, HSPMV_HALO_NODE, HSPMV_HALO_P2P);
        goto out;
    }

    /* kernel "auto": the blocks are made untimed (scalar kernels, nothing to
       time at creation) and hspmv_dist_agree_kernels picks their set, once */
    hspmv_opts ob = *o;
    int timed = !o->kernel || !strcmp(o->kernel, "auto");
    if (timed) ob.kernel = "scalar";
    if (D->halo == HSPMV_HALO_NODE) {
        D->node->threads = T;
        D->node->merged = merge_owned(D, D->node, &Ag, g, Ao.nnz);
        if (D->node->merged) {
            hspmv_csr M = {0};
            int32_t *gm = NULL;
            int64_t ngm = 0;
            if (merge_blocks(&Ao, &Ag, g, D->nghost, cb, ce, &M, &gm, &ngm) != HSPMV_OK)
                rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory merging the owned block", me);
            rc = hspmv_dist_agree(D->comm, rc, err);
            if (!rc) rc = hspmv_node_plan(D, D->node, &M, gm, ngm, NULL, &ob, timed, err);
            hspmv_csr_free(&M);
            hspmv_free(gm);
            if (!rc) { /* nothing left for the owned block */
                hspmv_free(Ao.colind);
                hspmv_free(Ao.val);
                Ao.colind = NULL;
                Ao.val = NULL;
                Ao.nnz = 0;
            }
        } else {
            rc = hspmv_node_plan(D, D->node, &Ag, g, D->nghost, &Ao, &ob, timed, err);
        }
        if (rc == HSPMV_ERR_UNSUPPORTED && asked == HSPMV_HALO_AUTO) { /* no shared windows: p2p */
            hspmv_ok(err);
            hspmv_node_free(&D->node);
            if ((rc = hspmv_node_comm(D, o->node_ranks, &D->node, err))) goto out;
            if ((rc = hspmv_node_cores(D, D->node, T, err))) goto out;
            hspmv_node_layout(D, D->node);
            p2p_volumes(D, D->node, g);
            D->halo = HSPMV_HALO_P2P;
        } else if (rc) {
            goto out;
        }
    }
    if (D->halo == HSPMV_HALO_P2P) {
        D->xg = hspmv_alloc_pages((size_t)(D->nghost ? D->nghost : 1), sizeof(hspmv_real));
        if (!D->xg) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld ghost entries", me,
                                   (long long)D->nghost);
        if (!rc && !D->sym && hspmv_halo_p2p_rows(D, &Ag) != HSPMV_OK)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory compressing the ghost rows", me);
        if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
        if ((rc = hspmv_halo_p2p_plan(D, g, err))) goto out;
        if (D->sym && hspmv_dist_sym_buffers(D) != HSPMV_OK)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the mirrored sums' buffers", me);
        if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
        if ((rc = hspmv_node_volumes(D, D->node, g, err))) goto out;
    }

    /* the owned block (and the p2p ghost block) for the node-level kernels */
    int messages = D->halo == HSPMV_HALO_P2P ? D->nrecv + D->nsend > 0 : D->node->nrecv + D->node->nsend > 0;
    if (D->sym && Ao.nrows > 0) ob.symmetric = sym_ask; /* the owned block: one triangle of its own */
    rc = prepare_owned(D, &Ao, &ob, messages, T, err);
    if (!rc && D->halo == HSPMV_HALO_P2P && Ag.nnz > 0) rc = hspmv_local_create_test(&Ag, &ob, D->test, &D->Lg, err);
    name_rank(me, rc, err);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (D->halo == HSPMV_HALO_NODE) {
        rc = hspmv_node_fold_prepare(D->node, &ob, D->Lo, err);
        name_rank(me, rc, err);
        if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    }
    if (timed) { /* collective: every rank is here */
        hspmv_local *own[1 + HSPMV_NODE_FOLD_RUNS] = {D->Lo}; /* the owned block and its folded rows: the same rows' kernels */
        int nown = 1;
        for (int r = 0; D->halo == HSPMV_HALO_NODE && r < D->node->nfold; r++)
            own[nown++] = D->node->fold_L[r];
        hspmv_dist_agree_kernels(D, own, nown, (int64_t)1 << 20);
        if (D->halo == HSPMV_HALO_P2P) hspmv_dist_agree_kernels(D, &D->Lg, 1, (int64_t)1 << 15);
    }
    if (D->halo == HSPMV_HALO_NODE && (rc = share_owned(D, &Ao, err))) goto out;
    rc = hspmv_dist_fill_info(D, err);
out:
    hspmv_csr_free(&Ao);
    hspmv_csr_free(&Ag);
    hspmv_free(g);
    return rc;
}
