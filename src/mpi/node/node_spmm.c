/* node_spmm.c — Y = A X for a row-major block of k vectors with the
   node-aware halo: a second shared window holds the node's x parts and the
   off-node ghosts k values an entry, and the product runs the steps of
   node_spmv.c (docs/node-aware.md) with the block kernels: k values per
   message entry, the same flags and call numbers as the one-vector product,
   so that the two may alternate. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

#define PAGE ((size_t)4096)

enum { TAG_NODE_BLOCK = 15 };

/* The window's bytes for k values an entry: 2 parity node vectors, 2 ghost areas. */
static size_t window_bytes(const hspmv_node *N, int k)
{
    return 2 * ((size_t)N->vec_stride + (size_t)N->gh_stride) * (size_t)k * sizeof(hspmv_real);
}

static void free_private(node_wide *W)
{
    hspmv_free(W->sendbuf);
    hspmv_free(W->ngy);
    hspmv_free(W->ogy);
    hspmv_free(W->xn);
    hspmv_free(W->xo);
    W->sendbuf = W->ngy = W->ogy = W->xn = W->xo = NULL;
}

/* The window only (collective over the node). */
static void free_window(hspmv_node *N, node_wide *W)
{
    if (!W->have_win) return;
    MPI_Barrier(N->comm); /* nobody reads it any more */
    hspmv_shared_unalias(&W->alias);
    MPI_Win_unlock_all(W->win);
    MPI_Win_free(&W->win);
    W->have_win = 0;
    W->vecs = W->ghost = NULL;
}

void hspmv_node_wide_free(hspmv_node *N)
{
    node_wide *W = N->wide;
    if (!W) return;
    free_window(N, W);
    free_private(W);
    hspmv_free(W);
    N->wide = NULL;
}

/* The private buffers for k values an entry into T (this rank only). */
static int alloc_private(const hspmv_dist *D, const hspmv_node *N, int k, node_wide *T, hspmv_error *err)
{
    int64_t ns = N->send_ptr[N->nsend], copy = N->gather == HSPMV_GATHER_COPY;
    T->sendbuf = hspmv_alloc_pages((size_t)(ns * k + 1), sizeof(hspmv_real));
    T->ngy = hspmv_alloc_pages((size_t)((N->nb.row && !N->nb.val1 ? N->nb.nrows * k : 0) + 1), sizeof(hspmv_real));
    T->ogy = hspmv_alloc_pages((size_t)((N->ob.row && !N->ob.val1 ? N->ob.nrows * k : 0) + 1), sizeof(hspmv_real));
    T->xn = hspmv_alloc_pages((size_t)((copy ? N->nn * k : 0) + 1), sizeof(hspmv_real));
    T->xo = hspmv_alloc_pages((size_t)((copy ? N->no * k : 0) + 1), sizeof(hspmv_real));
    if (!T->sendbuf || !T->ngy || !T->ogy || !T->xn || !T->xo)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node halo of %d vectors (%lld "
                         "entries to send)", D->rank, k, (long long)ns);
    int64_t most = 0;
    for (int r = 0; r < N->nrecv; r++) most = N->recv_cnt[r] > most ? N->recv_cnt[r] : most;
    for (int s = 0; s < N->nsend; s++)
        most = N->send_ptr[s + 1] - N->send_ptr[s] > most ? N->send_ptr[s + 1] - N->send_ptr[s] : most;
    if (most * k > INT_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: a message between nodes of %lld entries x %d "
                         "vectors exceeds 2^31 - 1 values", D->rank, (long long)most, k);
    return HSPMV_OK;
}

/* The window for k values an entry, as node_window.c's (node rank 0
   allocates it, every rank maps it, a second mapping where its pages can
   be huge). Collective over D->comm, agreed. */
static int alloc_window(hspmv_dist *D, hspmv_node *N, node_wide *W, int k, hspmv_error *err)
{
    size_t bytes = window_bytes(N, k) + PAGE; /* room to align */
    void *mine = NULL, *b0 = NULL;
    MPI_Aint qsize;
    int qdisp, rc = HSPMV_OK;
    if (MPI_Win_allocate_shared(N->rank == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, N->comm, &mine, &W->win) !=
        MPI_SUCCESS) {
        W->win = MPI_WIN_NULL;
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory: MPI_Win_allocate_shared of %zu bytes for the "
                       "node's block of %d vectors failed", D->rank, bytes, k);
    } else if (MPI_Win_shared_query(W->win, 0, &qsize, &qdisp, &b0) != MPI_SUCCESS || !b0 ||
               (size_t)qsize < bytes) {
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Win_shared_query gave no usable memory", D->rank);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) {
        if (W->win != MPI_WIN_NULL) MPI_Win_free(&W->win);
        return rc;
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, W->win);
    W->have_win = 1;
    int64_t off = (int64_t)((((uintptr_t)b0 + PAGE - 1) & ~(uintptr_t)(PAGE - 1)) - (uintptr_t)b0);
    MPI_Bcast(&off, 1, MPI_INT64_T, 0, N->comm);
    char *base = hspmv_shared_view(&W->alias, (char *)b0 + off, bytes - PAGE);
    W->vecs = (hspmv_real *)base;
    W->ghost = W->vecs + 2 * N->vec_stride * k;
    /* huge pages for what is written whole each product: the ghost areas
       (each rank a share), and this rank's parts where it exports them
       whole; a stencil's parts, where only boundary entries are exported,
       stay untouched (k times the node's x, twice, is mostly never used) */
    (void)hspmv_shared_huge(W->ghost, 2 * (size_t)N->gh_stride * (size_t)k * sizeof(hspmv_real), N->rank, N->size);
    for (int b = 0; b < 2 && !N->exp_idx && D->ncols_local > 0; b++)
        (void)hspmv_shared_huge(W->vecs + (b * N->vec_stride + N->part_off[N->rank]) * k,
                                (size_t)(D->ncols_local * k) * sizeof(hspmv_real), 0, 1);
    return HSPMV_OK;
}

/* The buffers for k vectors, made on the first block call and when a
   later one has a larger k (every rank calls with the same k, so every
   rank comes here with the same history). Collective, agreed; after a
   failure no window is left (the next call tries again). */
static int wide_setup(hspmv_dist *D, int k, hspmv_error *err)
{
    hspmv_node *N = D->node;
    node_wide *W = N->wide, T;
    int rc = HSPMV_OK;
    if (W && W->k >= k) return hspmv_ok(err);
    memset(&T, 0, sizeof(T));
    if (!W && !(W = N->wide = hspmv_calloc(1, sizeof(*W))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node halo of %d vectors", D->rank, k);
    if (!rc) rc = alloc_private(D, N, k, &T, err);
    if (!rc) { /* every rank of the node maps all of it: checked and agreed before MPI is asked (node_window.c) */
        char what[200];
        snprintf(what, sizeof(what), "rank %d: the node's shared window for %d vectors (the node's x twice and "
                 "2 ghost areas)", D->rank, k);
        rc = hspmv_mem_check((double)window_bytes(N, k), NULL, 0, what, err);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) { /* W (if any) as it was */
        free_private(&T);
        return rc;
    }
    free_window(N, W); /* every rank is in this call: the last one's reads are over */
    free_private(W);
    W->k = 0;
    W->sendbuf = T.sendbuf;
    W->ngy = T.ngy;
    W->ogy = T.ogy;
    W->xn = T.xn;
    W->xo = T.xo;
    if ((rc = alloc_window(D, N, W, k, err))) {
        hspmv_node_wide_free(N);
        return rc;
    }
    W->k = k;
    return hspmv_ok(err);
}

/* dst[j*k ..] = src[(idx[j] - shift)*k ..], j < n: entries of k values. */
static void gather_rows(hspmv_real *dst, const hspmv_real *src, const int64_t *idx, int64_t n, int64_t shift, int k,
                        int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static) if (n * k > 32768)
    for (int64_t j = 0; j < n; j++) {
        const hspmv_real *s = src + (idx[j] - shift) * k;
        hspmv_real *d = dst + j * k;
        for (int v = 0; v < k; v++) d[v] = s[v];
    }
}

/* This rank's entries that others read (its folded rows too), from X into its part of the node vector xk. */
static void export_rows(const hspmv_node *N, const hspmv_real *X, hspmv_real *xk, int64_t len, int k)
{
    hspmv_real *dst = xk + N->part_off[N->rank] * k;
    const int32_t *e = N->exp_idx;
    if (!e) {
        memcpy(dst, X, sizeof(*X) * (size_t)(len * k));
        return;
    }
    int64_t n = N->nexp;
#pragma omp parallel for num_threads(N->threads) schedule(static) if (n * k > 32768)
    for (int64_t j = 0; j < n; j++) {
        const hspmv_real *s = X + (int64_t)e[j] * k;
        hspmv_real *d = dst + (int64_t)e[j] * k;
        for (int v = 0; v < k; v++) d[v] = s[v];
    }
}

/* Y (+)= the block's product of the k-wide X (compressed rows through gy, added). */
static int block_mul(const node_block *B, int k, const hspmv_real *X, hspmv_real *Y, hspmv_real *gy, int add,
                     int threads, hspmv_error *err)
{
    if (!B->L) return HSPMV_OK;
    if (!B->row) return hspmv_local_spmm(B->L, 0, k, X, Y, add, err);
    const int64_t n = B->nrows;
    if (B->val1) { /* one entry a row: rows differ, so entries may go to any thread */
        const int32_t *r1 = B->row1, *c1 = B->col1;
        const hspmv_real *v1 = B->val1;
#pragma omp parallel for num_threads(threads) schedule(static) if (n * k > 32768)
        for (int64_t i = 0; i < n; i++) {
            hspmv_real *y = Y + (int64_t)r1[i] * k, a = v1[i];
            const hspmv_real *x = X + (int64_t)c1[i] * k;
            for (int v = 0; v < k; v++) y[v] += a * x[v];
        }
        return HSPMV_OK;
    }
    int rc = hspmv_local_spmm(B->L, 0, k, X, gy, 0, err);
    const int64_t *r = B->row;
#pragma omp parallel for num_threads(threads) schedule(static) if (n * k > 32768)
    for (int64_t i = 0; i < n; i++) {
        hspmv_real *y = Y + r[i] * k;
        const hspmv_real *g = gy + i * k;
        for (int v = 0; v < k; v++) y[v] += g[v];
    }
    return rc;
}

/* The owned block's rows (Y: its first row's) in parts, with message progress in between. */
static int owned_product(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, MPI_Request *req, int nreq)
{
    int flag;
    int64_t rows = D->node->orow1 - D->node->orow0;
    if (!D->Lo) {
        if (rows > 0) memset(Y, 0, sizeof(*Y) * (size_t)(rows * k));
        return HSPMV_OK;
    }
    for (int c = 0; c < D->npieces; c++) {
        hspmv_local_spmm_part(D->Lo, c, D->npieces, k, X, Y, 0);
        if (nreq && c + 1 < D->npieces) MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE);
    }
    return HSPMV_OK;
}

/* One product: the steps of node_spmv.c (docs/node-aware.md) with every
   x part in the parity buffer (X is never a window vector here: nothing
   to wait for at the end, as for a caller's x there) and no shared rows
   (each rank's blocks hold all of its rows). */
static int product(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    hspmv_node *N = D->node;
    node_wide *W = N->wide;
    node_flags *F = N->flags;
    uint64_t n = ++N->calls;
    int b = (int)(n & 1), me = N->rank, nreq = 0, rc = HSPMV_OK, lrc = HSPMV_OK, flag;
    int64_t len = D->ncols_local, kw = W->k;
    hspmv_real *xk = W->vecs + b * N->vec_stride * kw, *gh = W->ghost + b * N->gh_stride * kw;
    double sync = 0, t_fold = 0, t_owned, t0 = MPI_Wtime();
    hspmv_error lerr = {0, ""};

    /* 1. this rank's part where the node reads it, ready published */
    int care = (N->nreaders > 0 || N->nfold) && len > 0;
    if (care) export_rows(N, X, xk, len, k);
    F[me].slot[b] = care ? -1 : -2;
    hspmv_node_publish(&F[me].ready, n);
    /* 2. the receives of the node pairs this rank receives for */
    for (int r = 0; r < N->nrecv; r++)
        if (MPI_Irecv(gh + N->recv_off[r] * k, (int)(N->recv_cnt[r] * k), HSPMV_MPI_REAL, N->recv_src[r],
                      TAG_NODE_BLOCK, D->comm, &N->req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    /* 3-4. the node pairs' sends: own entries from X, others' from the window once their owner is ready */
    for (int i = 0; i < N->nseg; i++) {
        int q = N->seg_owner[i];
        int64_t j0 = N->seg_ptr[i], j1 = N->seg_ptr[i + 1];
        if (q != me) sync += hspmv_node_wait(&F[q].ready, n, N->spin);
        gather_rows(W->sendbuf + j0 * k, q == me ? X : xk, N->send_idx + j0, j1 - j0, q == me ? N->part_off[me] : 0,
                    k, N->threads);
    }
    for (int s = 0; s < N->nsend; s++)
        if (MPI_Isend(W->sendbuf + N->send_ptr[s] * k, (int)((N->send_ptr[s + 1] - N->send_ptr[s]) * k),
                      HSPMV_MPI_REAL, N->send_dst[s], TAG_NODE_BLOCK, D->comm, &N->req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;

    /* 5. folded rows once the ranks they read are ready, the owned block, then every rank's part */
    if (N->nfold) {
        for (int i = 0; i < N->nfold_src; i++) sync += hspmv_node_wait(&F[N->fold_src[i]].ready, n, N->spin);
        double s = MPI_Wtime();
        for (int r = 0; r < N->nfold && !lrc; r++)
            lrc = hspmv_local_spmm(N->fold_L[r], 0, k, xk + N->fold_base[r] * k, Y + N->fold_first[r] * k, 0, &lerr);
        t_fold = MPI_Wtime() - s;
    }
    int whole = N->merged && !N->nb.row && N->nb.L; /* the node block writes every row of Y */
    double s = MPI_Wtime();
    if (!whole) owned_product(D, k, X, Y + N->orow0 * k, N->req, nreq);
    t_owned = MPI_Wtime() - s;
    for (int p = 0; p < N->size; p++) sync += hspmv_node_wait(&F[p].ready, n, N->spin); /* (double buffering: every call) */
    double t1 = MPI_Wtime();
    /* 6. the node block */
    if (nreq) MPI_Testall(nreq, N->req, &flag, MPI_STATUSES_IGNORE);
    const hspmv_real *xn = xk;
    if (N->gather == HSPMV_GATHER_COPY && N->nb.L) {
        gather_rows(W->xn, xk, N->nsrc, N->nn, 0, k, N->threads);
        xn = W->xn;
    }
    if (!lrc) lrc = block_mul(&N->nb, k, xn, Y, W->ngy, !whole, N->threads, &lerr);
    double t2 = MPI_Wtime();
    /* 7. the off-node values: the receives, recvd published, the node's receivers */
    if (nreq && hspmv_dist_waitall(D, nreq, N->req)) rc = HSPMV_ERR_MPI;
    double t3 = MPI_Wtime(), sync_before = sync;
    hspmv_node_publish(&F[me].recvd, n);
    for (int i = 0; i < N->nsrc_recv; i++) sync += hspmv_node_wait(&F[N->src_recv[i]].recvd, n, N->spin);
    double t4 = MPI_Wtime();
    const hspmv_real *xo = gh;
    if (N->gather == HSPMV_GATHER_COPY && N->ob.L) {
        gather_rows(W->xo, gh, N->osrc, N->no, 0, k, N->threads);
        xo = W->xo;
    }
    if (!lrc) lrc = block_mul(&N->ob, k, xo, Y, W->ogy, 1, N->threads, &lerr);
    double t5 = MPI_Wtime();
    /* 8. done reading the window */
    hspmv_node_publish(&F[me].done, n);

    hspmv_dist_timing *t = &D->timing;
    t->owned_s += t_owned;
    t->sync_s += sync;
    t->post_s += (t1 - t0) - t_owned - t_fold - sync_before; /* copies, receives, packing, sends */
    t->ghost_s += (t2 - t1) + (t5 - t4) + t_fold;
    t->wait_s += t3 - t2;
    t->calls++;
    t->total_s += MPI_Wtime() - t0;
    if (lrc) return hspmv_err(err, lrc, "rank %d: %s", D->rank, lerr.msg);
    if (rc) return hspmv_err(err, rc, "rank %d: the node halo exchange of %d vectors failed", D->rank, k);
    return hspmv_ok(err);
}

int hspmv_node_spmm(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    int rc = wide_setup(D, k, err);
    return rc ? rc : product(D, k, X, Y, err);
}
