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
    return hspmv_node_slot_vec(N, N->flags[q].slot[b], b);
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
            *sync += hspmv_node_wait(&N->flags[q].ready, n, N->spin);
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
        *sync += hspmv_node_wait(&F[p].ready, n, N->spin);
        int s = F[p].slot[b];
        if (s == -2) continue; /* nobody reads its part */
        if (common == -3) common = s;
        else if (s != common) mismatch = 1;
    }
    if (!mismatch) return common >= 0 ? hspmv_node_slot_vec(N, common, b) : par;
    /* the ranks passed different vectors: those in window slots copy their
       part into the parity buffer too, and everyone reads that */
    if (my_slot >= 0) export_part(N, x, par, len, N->oshare != NULL);
    hspmv_node_publish(&F[N->rank].ready2, n);
    for (int p = 0; p < N->size; p++)
        if (F[p].slot[b] >= 0) *sync += hspmv_node_wait(&F[p].ready2, n, N->spin);
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
        *sync += hspmv_node_wait(&F->ready, n, N->spin);
        if (F->slot[b] != my_slot) return NULL;
    }
    return my_slot >= 0 ? hspmv_node_slot_vec(N, my_slot, b) : par;
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
    hspmv_node_wait(&o->N->flags[q].ready, o->n, o->N->spin);
    return part_base(o->N, q, o->b) + o->N->part_off[q];
}

const hspmv_real *hspmv_node_same_x(void *ctx, int q)
{
    (void)q;
    return ctx;
}

/* The owned block (y: its first row's) in its parts, with message progress
   in between; dot (not NULL: hspmv_dist_dot_fused holds) += x'y of its rows. */
static void owned_product(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, MPI_Request *req, int nreq, double *dot)
{
    int flag;
    int64_t rows = D->node->orow1 - D->node->orow0;
    if (!D->Lo) {
        if (rows > 0) memset(y, 0, sizeof(*y) * (size_t)rows);
        return;
    }
    for (int c = 0; c < D->npieces; c++) {
        if (dot) *dot += hspmv_local_spmv_dot_part(D->Lo, c, D->npieces, x, y);
        else hspmv_local_spmv_part(D->Lo, c, D->npieces, x, y, 0);
        if (nreq && c + 1 < D->npieces) MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE);
    }
}

int hspmv_node_begin(hspmv_dist *D, const hspmv_real *x, hspmv_real *y)
{
    hspmv_node *N = D->node;
    node_call *c = &N->cur;
    node_flags *F = N->flags;
    uint64_t n = ++N->calls;
    int b = (int)(n & 1), me = N->rank;
    int64_t len = D->ncols_local;
    memset(c, 0, sizeof(*c));
    c->t0 = MPI_Wtime();
    c->n = n;
    c->b = b;
    c->x = x;
    c->par = N->vecs + (int64_t)(N->nslots + b) * N->vec_stride;
    c->gh = N->ghost + b * N->gh_stride;

    /* 1. this rank's x part where the node reads it (all of it when others
       may take owned rows) */
    int care = (N->nreaders > 0 || N->oshare || N->nfold) && len > 0;
    c->slot = care ? hspmv_node_x_slot(N, x) : -2;
    if (care && c->slot < 0) {
        export_part(N, x, c->par, len, N->oshare != NULL);
        N->copies++;
    }
    F[me].slot[b] = c->slot;
    /* y in a window slot: others write the rows they take of a shared
       block straight into it (where that block writes them, not adds) */
    c->whole = N->merged && !N->nb.row && N->nb.L; /* the node block writes every row of y */
    int yin = y && (N->oshare || (N->gather == HSPMV_GATHER_SHARE && c->whole)) && hspmv_node_slot_of(N, y) >= 0;
    if (N->gather == HSPMV_GATHER_SHARE) /* before ready: node_share.c */
        hspmv_node_share_open(N->share, N->nb.L, yin && c->whole ? y - N->vecs : -1);
    if (N->oshare) hspmv_node_share_open(N->oshare, D->Lo, yin ? y + N->orow0 - N->vecs : -1);
    hspmv_node_publish(&F[me].ready, c->n);
    /* 2. the receives of the node pairs this rank receives for */
    for (int r = 0; r < N->nrecv; r++)
        if (MPI_Irecv(c->gh + N->recv_off[r], (int)N->recv_cnt[r], HSPMV_MPI_REAL, N->recv_src[r], TAG_NODE,
                      D->comm, &N->req[c->nreq++]) != MPI_SUCCESS)
            c->rc = HSPMV_ERR_MPI;
    /* 3-4. the node pairs' sends */
    if (N->nsend > 0) {
        pack(N, c->n, c->b, c->x, &c->sync);
        for (int s = 0; s < N->nsend; s++)
            if (MPI_Isend(N->sendbuf + N->send_ptr[s], (int)(N->send_ptr[s + 1] - N->send_ptr[s]), HSPMV_MPI_REAL,
                          N->send_dst[s], TAG_NODE, D->comm, &N->req[c->nreq++]) != MPI_SUCCESS)
                c->rc = HSPMV_ERR_MPI;
    }
    return c->rc;
}

void hspmv_node_local(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *dot)
{
    hspmv_node *N = D->node;
    node_call *c = &N->cur;
    int64_t len = D->ncols_local;
    /* 5. folded boundary rows first, once the ranks they read published
       their x parts (at the start of the product; the owned rows shared
       after them even out what they cost); the owned block (rows shared
       or not), then the node's x */
    hspmv_real *xb = NULL, *yo = y + N->orow0;
    if (N->nfold) {
        const hspmv_real *xf = fold_x(N, c->n, c->b, c->slot, c->par, &c->sync);
        if (!xf) xf = xb = node_x(N, c->n, c->b, c->slot, x, c->par, len, &c->sync);
        double s = MPI_Wtime();
        hspmv_node_fold_mul(N, xf, y);
        c->t_fold = MPI_Wtime() - s;
    }
    if (N->oshare) {
        owned_x ox = {N, c->n, c->b};
        double s = MPI_Wtime(), w = hspmv_node_share_mul(N->oshare, &(node_block){0}, x, part_x, &ox, yo, 0, N->req,
                                                         c->nreq);
        c->t_owned = MPI_Wtime() - s - w;
        c->sync += w;
    } else {
        double s = MPI_Wtime();
        if (!c->whole) owned_product(D, x, yo, N->req, c->nreq, dot);
        c->t_owned = MPI_Wtime() - s;
    }
    if (!xb) xb = node_x(N, c->n, c->b, c->slot, x, c->par, len, &c->sync);
    c->t1 = MPI_Wtime();
    /* 6. the node block */
    int flag;
    if (c->nreq) MPI_Testall(c->nreq, N->req, &flag, MPI_STATUSES_IGNORE);
    if (N->replica) { /* the node's x parts into private huge pages, gathered from there */
        hspmv_node_replicate(N, xb, c->b);
        xb = N->xr;
    }
    if (N->gather == HSPMV_GATHER_SHARE) {
        c->sync += hspmv_node_share_mul(N->share, &N->nb, xb, hspmv_node_same_x, xb, y, !c->whole, NULL, 0);
    } else {
        if (N->gather == HSPMV_GATHER_COPY && N->nb.L)
            hspmv_node_gather_copy(N->xn, xb, N->nsrc, N->nn, N->threads);
        const hspmv_real *xn = N->gather == HSPMV_GATHER_COPY ? N->xn : xb;
        if (dot) hspmv_node_block_add_dot(&N->nb, xn, y, N->threads, x, dot);
        else hspmv_node_block_mul(&N->nb, xn, y, N->threads, !c->whole);
    }
    c->t2 = MPI_Wtime();
}

int hspmv_node_end(hspmv_dist *D)
{
    hspmv_node *N = D->node;
    node_call *c = &N->cur;
    node_flags *F = N->flags;
    /* 7. the off-node block's values: its receives, and the node's receivers */
    if (c->nreq && hspmv_dist_waitall(D, c->nreq, N->req)) c->rc = HSPMV_ERR_MPI;
    c->t3 = MPI_Wtime();
    c->sync_before = c->sync;
    hspmv_node_publish(&F[N->rank].recvd, c->n);
    for (int i = 0; i < N->nsrc_recv; i++) c->sync += hspmv_node_wait(&F[N->src_recv[i]].recvd, c->n, N->spin);
    c->t4 = MPI_Wtime();
    return c->rc;
}

void hspmv_node_rest(hspmv_dist *D, hspmv_real *y, double *dot)
{
    hspmv_node *N = D->node;
    node_call *c = &N->cur;
    node_flags *F = N->flags;
    int me = N->rank;
    uint64_t n = c->n;
    if (N->gather == HSPMV_GATHER_COPY) {
        if (N->ob.L) hspmv_node_gather_copy(N->xo, c->gh, N->osrc, N->no, N->threads);
        hspmv_node_block_add_dot(&N->ob, N->xo, y, N->threads, c->x, dot);
    } else {
        hspmv_node_block_add_dot(&N->ob, c->gh, y, N->threads, c->x, dot);
    }
    double t5 = MPI_Wtime();
    /* 8. done reading; a window vector is the caller's again once its readers are done */
    hspmv_node_publish(&F[me].done, n);
    if (c->slot >= 0 && (N->gather == HSPMV_GATHER_SHARE || N->replica)) /* any rank may have read this part */
        for (int q = 0; q < N->size; q++) c->sync += q == me ? 0 : hspmv_node_wait(&F[q].done, n, N->spin);
    else if (c->slot >= 0) /* (also when the slots disagreed: packers read owners' vectors before they knew) */
        for (int i = 0; i < N->nreaders; i++) c->sync += hspmv_node_wait(&F[N->readers[i]].done, n, N->spin);

    hspmv_dist_timing *t = &D->timing;
    hspmv_node_share_stats(N->share, N->share_s, N->share_nnz);
    hspmv_node_share_stats(N->oshare, N->share_s, N->share_nnz);
    t->owned_s += c->t_owned;
    t->sync_s += c->sync;
    t->post_s += (c->t1 - c->t0) - c->t_owned - c->t_fold - c->sync_before; /* copies, receives, packing, sends */
    t->ghost_s += (c->t2 - c->t1) + (t5 - c->t4) + c->t_fold;
    t->wait_s += c->t3 - c->t2;
}
