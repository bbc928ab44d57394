/* node_spmv.c — y = A*x with the node-aware halo: the steps listed in
   docs/node-aware.md (own part into the window when a caller's x, flags, off-node
   receives and sends, owned block, node block, off-node block). */
#include <string.h>
#include "dist.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

enum { TAG_NODE = 12 };

/* This rank's entries that others read, from x into its part of the node vector v. */
static void export_part(const hspmv_node *N, const hspmv_real *x, hspmv_real *v, int64_t len, int all)
{
    hspmv_real *dst = v + N->part_off[N->rank];
    const int32_t *e = all ? NULL : N->exp_idx;
    int64_t n = e ? N->nexp : len;
    if (e) {
#pragma omp parallel for num_threads(N->threads) schedule(static) if (n > 32768)
        for (int64_t j = 0; j < n; j++) dst[e[j]] = x[e[j]];
    } else {
        memcpy(dst, x, sizeof(*x) * (size_t)n); /* one contiguous stream: memcpy does it best */
    }
}

/* The node vector holding node rank q's part of call n (its published slot). */
static const hspmv_real *part_base(const hspmv_node *N, int q, int b)
{
    int s = N->flags[q].slot[b];
    return N->vecs + (int64_t)(s >= 0 ? s : N->nslots + b) * N->vec_stride;
}

/* Packs the node pairs' sends: own entries from x, others' from their
   owner's vector once the owner is ready. */
static void pack(hspmv_node *N, uint64_t n, int b, const hspmv_real *x, double *sync)
{
    for (int i = 0; i < N->nseg; i++) {
        int q = N->seg_owner[i];
        int64_t j0 = N->seg_ptr[i], j1 = N->seg_ptr[i + 1];
        const hspmv_real *src;
        if (q == N->rank) {
            src = x - N->part_off[q];
        } else {
            *sync += hspmv_node_wait(&N->flags[q].ready, n);
            src = part_base(N, q, b);
        }
        hspmv_node_gather_copy(N->sendbuf + j0, src, N->send_idx + j0, j1 - j0, N->threads);
    }
}

/* Waits until every rank of the node has published ready >= n; returns the
   node vector holding this call's x (every rank's part). */
static hspmv_real *node_x(hspmv_node *N, uint64_t n, int b, int my_slot, const hspmv_real *x, hspmv_real *par,
                          int64_t len, double *sync)
{
    node_flags *F = N->flags;
    int common = -3, mismatch = 0;
    for (int p = 0; p < N->size; p++) {
        *sync += hspmv_node_wait(&F[p].ready, n);
        int s = F[p].slot[b];
        if (s == -2) continue; /* nobody reads its part */
        if (common == -3) common = s;
        else if (s != common) mismatch = 1;
    }
    if (!mismatch) return common >= 0 ? N->vecs + (int64_t)common * N->vec_stride : par;
    /* the ranks passed different vectors: those in window slots copy their
       part into the parity buffer too, and everyone reads that */
    if (my_slot >= 0) export_part(N, x, par, len, N->oshare != NULL);
    hspmv_node_publish(&F[N->rank].ready2, n);
    for (int p = 0; p < N->size; p++)
        if (F[p].slot[b] >= 0) *sync += hspmv_node_wait(&F[p].ready2, n);
    return par;
}

/* For the folded rows: waits until the ranks whose parts they read have
   published ready >= n; the node vector holding this call's x when their
   slots are this rank's, else NULL (node_x, which every product calls
   after the owned block, sorts that out, ready2 and all). */
static const hspmv_real *fold_x(const hspmv_node *N, uint64_t n, int b, int my_slot, const hspmv_real *par,
                                double *sync)
{
    for (int i = 0; i < N->nfold_src; i++) {
        const node_flags *F = &N->flags[N->fold_src[i]];
        *sync += hspmv_node_wait(&F->ready, n);
        if (F->slot[b] != my_slot) return NULL;
    }
    return my_slot >= 0 ? N->vecs + (int64_t)my_slot * N->vec_stride : par;
}

/* Node rank q's x part in call n (parity b), for owned rows taken from q:
   waits until q published it (a claim on q succeeds once q opened this
   product, which it does just before it publishes its x part). */
typedef struct owned_x {
    hspmv_node *N;
    uint64_t n;
    int b;
} owned_x;

static const hspmv_real *part_x(void *ctx, int q)
{
    owned_x *o = ctx;
    hspmv_node_wait(&o->N->flags[q].ready, o->n);
    return part_base(o->N, q, o->b) + o->N->part_off[q];
}

const hspmv_real *hspmv_node_same_x(void *ctx, int q)
{
    (void)q;
    return ctx;
}

/* The owned block (y: its first row's) in its parts, with message progress in between. */
static void owned_product(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, MPI_Request *req, int nreq)
{
    int flag;
    int64_t rows = D->node->orow1 - D->node->orow0;
    if (!D->Lo) {
        if (rows > 0) memset(y, 0, sizeof(*y) * (size_t)rows);
        return;
    }
    for (int c = 0; c < D->npieces; c++) {
        hspmv_local_spmv_part(D->Lo, c, D->npieces, x, y, 0);
        if (nreq && c + 1 < D->npieces) MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE);
    }
}

int hspmv_node_spmv(hspmv_dist *D, const hspmv_real *x, hspmv_real *y)
{
    hspmv_node *N = D->node;
    node_flags *F = N->flags;
    uint64_t n = ++N->calls;
    int b = (int)(n & 1), rc = HSPMV_OK, me = N->rank, nreq = 0, flag;
    int64_t len = D->ncols_local;
    hspmv_real *par = N->vecs + (int64_t)(N->nslots + b) * N->vec_stride, *gh = N->ghost + b * N->gh_stride;
    double t0 = MPI_Wtime(), sync = 0, t_owned = 0;

    /* 1. this rank's x part where the node reads it (all of it when others
       may take owned rows) */
    int care = (N->nreaders > 0 || N->oshare || N->nfold) && len > 0, slot = care ? hspmv_node_slot_of(N, x) : -2;
    if (care && slot < 0) {
        export_part(N, x, par, len, N->oshare != NULL);
        N->copies++;
    }
    F[me].slot[b] = slot;
    /* y in a window slot: others write the rows they take of a shared
       block straight into it (where that block writes them, not adds) */
    int whole = N->merged && !N->nb.row && N->nb.L; /* the node block writes every row of y */
    int yin = (N->oshare || (N->gather == HSPMV_GATHER_SHARE && whole)) && hspmv_node_slot_of(N, y) >= 0;
    if (N->gather == HSPMV_GATHER_SHARE) /* before ready: node_share.c */
        hspmv_node_share_open(N->share, N->nb.L, yin && whole ? y - N->vecs : -1);
    if (N->oshare) hspmv_node_share_open(N->oshare, D->Lo, yin ? y + N->orow0 - N->vecs : -1);
    hspmv_node_publish(&F[me].ready, n);
    /* 2. the receives of the node pairs this rank receives for */
    for (int r = 0; r < N->nrecv; r++)
        if (MPI_Irecv(gh + N->recv_off[r], (int)N->recv_cnt[r], HSPMV_MPI_REAL, N->recv_src[r], TAG_NODE, D->comm,
                      &N->req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    /* 3-4. the node pairs' sends */
    if (N->nsend > 0) {
        pack(N, n, b, x, &sync);
        for (int s = 0; s < N->nsend; s++)
            if (MPI_Isend(N->sendbuf + N->send_ptr[s], (int)(N->send_ptr[s + 1] - N->send_ptr[s]), HSPMV_MPI_REAL,
                          N->send_dst[s], TAG_NODE, D->comm, &N->req[nreq++]) != MPI_SUCCESS)
                rc = HSPMV_ERR_MPI;
    }
    /* 5. folded boundary rows first, once the ranks they read published
       their x parts (at the start of the product; the owned rows shared
       after them even out what they cost); the owned block (rows shared
       or not), then the node's x */
    hspmv_real *xb = NULL, *yo = y + N->orow0;
    double t_fold = 0;
    if (N->nfold) {
        const hspmv_real *xf = fold_x(N, n, b, slot, par, &sync);
        if (!xf) xf = xb = node_x(N, n, b, slot, x, par, len, &sync);
        double s = MPI_Wtime();
        hspmv_node_fold_mul(N, xf, y);
        t_fold = MPI_Wtime() - s;
    }
    if (N->oshare) {
        owned_x ox = {N, n, b};
        double s = MPI_Wtime(), w = hspmv_node_share_mul(N->oshare, &(node_block){0}, x, part_x, &ox, yo, 0, N->req,
                                                         nreq);
        t_owned = MPI_Wtime() - s - w;
        sync += w;
    } else {
        double s = MPI_Wtime();
        if (!whole) owned_product(D, x, yo, N->req, nreq);
        t_owned = MPI_Wtime() - s;
    }
    if (!xb) xb = node_x(N, n, b, slot, x, par, len, &sync);
    double t1 = MPI_Wtime();
    /* 6. the node block */
    if (nreq) MPI_Testall(nreq, N->req, &flag, MPI_STATUSES_IGNORE);
    if (N->replica) { /* the node's x parts into private huge pages, gathered from there */
        hspmv_node_replicate(N, xb, b);
        xb = N->xr;
    }
    if (N->gather == HSPMV_GATHER_SHARE) {
        sync += hspmv_node_share_mul(N->share, &N->nb, xb, hspmv_node_same_x, xb, y, !whole, NULL, 0);
    } else {
        if (N->gather == HSPMV_GATHER_COPY && N->nb.L)
            hspmv_node_gather_copy(N->xn, xb, N->nsrc, N->nn, N->threads);
        hspmv_node_block_mul(&N->nb, N->gather == HSPMV_GATHER_COPY ? N->xn : xb, y, N->threads, !whole);
    }
    double t2 = MPI_Wtime();
    /* 7. the off-node block, once the node's receivers have its entries */
    if (nreq && MPI_Waitall(nreq, N->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    double t3 = MPI_Wtime(), sync_before = sync;
    hspmv_node_publish(&F[me].recvd, n);
    for (int i = 0; i < N->nsrc_recv; i++) sync += hspmv_node_wait(&F[N->src_recv[i]].recvd, n);
    double t4 = MPI_Wtime();
    if (N->gather == HSPMV_GATHER_COPY) {
        if (N->ob.L) hspmv_node_gather_copy(N->xo, gh, N->osrc, N->no, N->threads);
        hspmv_node_block_add(&N->ob, N->xo, y, N->threads);
    } else {
        hspmv_node_block_add(&N->ob, gh, y, N->threads);
    }
    double t5 = MPI_Wtime();
    /* 8. done reading; a window vector is the caller's again once its readers are done */
    hspmv_node_publish(&F[me].done, n);
    if (slot >= 0 && (N->gather == HSPMV_GATHER_SHARE || N->replica)) /* any rank may have read this part */
        for (int q = 0; q < N->size; q++) sync += q == me ? 0 : hspmv_node_wait(&F[q].done, n);
    else if (slot >= 0) /* (also when the slots disagreed: packers read owners' vectors before they knew) */
        for (int i = 0; i < N->nreaders; i++) sync += hspmv_node_wait(&F[N->readers[i]].done, n);
    double t6 = MPI_Wtime();

    hspmv_dist_timing *t = &D->timing;
    hspmv_node_share_stats(N->share, t->share_s, t->share_nnz);
    hspmv_node_share_stats(N->oshare, t->share_s, t->share_nnz);
    t->calls++;
    t->owned_s += t_owned;
    t->sync_s += sync;
    t->post_s += (t1 - t0) - t_owned - t_fold - sync_before; /* copies, receives, packing, sends */
    t->ghost_s += (t2 - t1) + (t5 - t4) + t_fold;
    t->wait_s += t3 - t2;
    t->total_s += t6 - t0;
    return rc;
}
