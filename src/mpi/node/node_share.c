/* node_share.c — a block's rows shared out among the ranks of a node while
   a product runs, so that a rank slowed down by its core, its cache, its
   rows or where its memory lies does not hold up the node. Two blocks use
   it: the node block where the owned columns are merged into it (gather
   "share", random-like columns), and the owned block where it is separate
   (stencils and other local columns: "owned rows shared",
   HSPMV_OWNED_SHARE_TAIL, halo_plan.c).

   With a static split every product waits for the slowest rank of the node:
   on the power-law matrix (16 ranks of equal nonzeros, one 16-core Xeon,
   one job) the ranks' node blocks took 40.2-50.7 ms per product, the same
   ranks being slow call after call, and each product took 51.6 ms where
   one process of 16 threads took 48.2; on the real-valued lap3d 200, 4 of
   16 ranks took 5.6-5.8 ms for their owned blocks where the rest took
   3.8-4.4, different ranks in each launch. Threads of one process balance
   that by sharing memory; ranks can too, for the part of the work whose
   data every rank of the node can read.

   Each rank cuts its block into NCHUNK chunks of equal entries and copies
   the last of them (a number of 64ths: HSPMV_NODE_SHARE_TAIL, default 48,
   for the node block; HSPMV_OWNED_SHARE_TAIL, default 16, for the owned
   block), as plain CSR, into its segment of a second shared window. Every
   product each rank multiplies its chunks from the front with its own
   prepared block (private memory, huge pages, its own format), and when it
   has none left takes chunks from the back of the other ranks' tails,
   multiplying them from the window copy straight into the owner's y where
   that y is a window vector (hspmv_dist_vec_alloc's, as solvers and
   benchmark-mpi have it) and the block writes its rows rather than adds to
   them; else into the owner's result buffer in the window, whose rows the
   owner adds into its y once it has run out of chunks. (That pass ran on
   one thread of the owner, the slow rank, after its chunks: on one 16-core
   Xeon, 3 rounds, the real-valued lap3d 200 took 3.80 ms at 16x1 direct
   against 4.13 through the buffer, 4.43 against 5.06 at 4x4 and 4.29
   against 5.12 at 2x8, medians of the same launches.) Three quarters of
   each rank's node block can move, at three quarters more memory for it:
   one job had two of 16 ranks 2.6 times slower than the rest on random
   columns whatever the gathers (28.5 ms per product against 11.1,
   direct), and with a quarter movable they still took 21.4 ms. (A copy
   of all of it, on the window's 4 KiB pages, ran 17% slower than the
   private block on 2 ranks of random columns: the owner keeps its own.)
   Half of the owned block moves at one thread a rank, a
   quarter at more (halo_plan.c); a CSRP block's tail is copied as CSRP,
   so a rank that takes a chunk reads 8.2 bytes an entry of the
   real-valued lap3d 200, as its owner would, not a CSR copy's 12 (4x4 on
   that matrix, one 16-core Xeon, 3 launches: 4.27, 4.53, 4.45 ms against
   4.39, 4.77, 4.73 with CSR copies).

   Claims are a compare-and-swap on the owner's word: epoch (24 bits), next
   chunk from the front (20 bits), one past the last chunk left at the back
   (20 bits). The owner resets it for a product before it publishes its x
   part (node_spmv.c step 1), so a claim that succeeds finds the owner's x
   of that product published or about to be (the owned block's thieves
   wait for the owner's ready flag; the node block's take chunks only after
   seeing every rank's x, step 3). A thief finding an owner still in the
   product before waits for it to open this one (it is the late one whose
   tail is worth taking), and skips an owner already a product ahead. An
   owner leaves a product only after the chunks taken from it are done, so
   its result buffer and word are free again at the next reset.

   Long chunks first. A row longer than a chunk's share of the entries
   makes its chunk long (the power-law matrix's longest rows hold a million
   entries and more: about 4 ms on one core). Run when the front and back
   meet, such a chunk kept every other rank of the node waiting for it at
   the end of each product: 16 ranks of power law 4M k8 waited 2.4-2.9 ms
   of a 40 ms product. So an owner runs its long chunks (more than twice
   the average entries; flagged in its segment, which others skip) before
   its others, while there is still work left for everyone else
   (longest-processing-time first, Graham 1969).

   A rank's threads. With several threads a rank, the chunks others never
   take are cut into one contiguous range a thread, run from the front,
   and a thread done with its range takes chunks from the back of its
   siblings' ranges (as local_pieces.c does within one process); only then
   do they claim the tail from the rank's word. Claimed one by one from
   the word, the threads ran interleaved chunks, thread k chunks k, k+T,
   ...: on one 16-core Xeon, 8 rounds, each launch timing both, the real-valued lap3d 200 took 2%
   longer at 8x2 (7 of 8 launches), 1% at 2x8 and 0.5% at 4x4 (6 of 8
   each); random columns were the same either way.

   A rank that runs another's node-block chunk reads x entries of ranks
   whose readers it may not be: with that sharing, a rank whose x is a
   window vector waits for every rank of the node at step 8, not only its
   readers. An owned-block chunk reads only its owner's part, whose owner
   waits for it before it leaves the product. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dist.h"
#include "kernel_select.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

/* chunks per rank; tails are given in 64ths (by default others may take the
   last NTAIL of them), each 64th being SUB chunks: fine chunks, so that an
   owner waits less for the last chunk a thief runs (measured: 64 chunks per
   rank cost 16 ranks of the real-valued lap3d 200 a tenth of a millisecond
   per product where no rank was slow) */
enum { SUB = 4, NCHUNK = 64 * SUB, NTAIL = 48 };
#define EPOCH_MASK 0xffffffu

/* What each rank publishes at the start of its segment. */
typedef struct share_head {
    uint64_t word; /* epoch << 40 | front << 20 | back: chunks [front, back) are left */
    char pad0[120];
    int64_t base;  /* first row of the tail (row bounds[NCHUNK - tail] of the block) */
    int32_t tail;  /* chunks others may take: the last tail */
    int64_t nrows, ncols, nnz; /* of the tail */
    int64_t off_bounds, off_done, off_long, off_rowptr, off_colind, off_val, off_ybuf; /* from the segment's start */
    int32_t xpf;
    int32_t csrp;  /* 1: the tail is CSRP (the arrays below; off_val its values), 0: CSR (off_rowptr, off_colind) */
    int32_t npat;
    int64_t nslices, nmixed, off_start, off_ofs, off_pid, off_sp, off_spat;
    int64_t ywin; /* this product: the owner's y (its block's row 0) at node vector offset ywin, or -1: ybuf */
} share_head;

struct node_share {
    MPI_Win win;
    int size, rank, threads;
    uint32_t epoch;
    const hspmv_kernel_set *ks;
    share_head **head;      /* size entries: each rank's head in this process's mapping */
    hspmv_panels *view;     /* size entries: each rank's tail as a one-panel CSR over its segment */
    hspmv_csrp *pview;      /* size entries: each rank's tail as CSRP over its segment, where it is */
    const int64_t **bounds; /* size entries of NCHUNK+1: chunk c is block rows [bounds[c], bounds[c+1]) */
    uint64_t **done;        /* size entries of NCHUNK: the epoch in which another rank last did chunk c */
    const uint8_t **islong; /* size entries of NCHUNK: 1 for a long chunk (its owner runs it first) */
    int nlong;              /* this rank's long chunks, */
    int16_t longs[NCHUNK];  /* which they are */
    int next_long;          /* the next of them to run this epoch (claimed by the owner's threads) */
    hspmv_real **ybuf;      /* size entries: tail rows taken by others land here (row - base) */
    hspmv_real *vecs;       /* the node vectors in this process's mapping (a y there is written directly) */
    hspmv_alias *alias;     /* size entries: this process's second mapping of each segment, on huge pages */
    int huge;               /* 0: huge pages off (hspmv_shared_huge_off), the segments stay on 4 KiB mappings */
    size_t huge_bytes;      /* of this rank's segment, collapsed into huge pages */
    int direct;             /* this product: others write this rank's tail rows straight into its y */
    const hspmv_local *L;   /* this rank's own block */
    int delay_us;           /* tests: this rank starts each product late (HSPMV_TEST share_delay, late_start) */
    int progress;           /* MPI allows calls from the main thread inside a parallel region */
    unsigned char mine[NCHUNK]; /* this epoch: 1 when this rank ran its own chunk c */
    int64_t cnnz[NCHUNK];   /* entries of this rank's chunk c */
    double run_s[2];        /* since the last stats: thread-seconds in its own chunks [0] and in others' [1]; */
    int64_t run_nnz[2];     /* entries of its chunks it ran [0] and others ran [1] */
    int ranges;             /* 1 (several threads): its threads start on contiguous ranges of its front chunks */
    hspmv_claim_word *rw;   /* threads entries: this epoch, thread t's front chunks [front, back) are left */
};

#ifdef _OPENMP
#include <omp.h>
static int omp_thread(void) { return omp_get_thread_num(); }
#else
static int omp_thread(void) { return 0; }
#endif

static size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }

/* The chunk bounds: NCHUNK row ranges of about equal entries; and each
   chunk's entries. */
static void cut(const hspmv_csr *B, int64_t *bounds, int64_t *entries)
{
    int64_t i = 0;
    bounds[0] = 0;
    for (int c = 1; c < NCHUNK; c++) {
        int64_t goal = B->nnz * c / NCHUNK;
        while (i < B->nrows && B->rowptr[i + 1] <= goal) i++;
        bounds[c] = i > bounds[c - 1] ? i : bounds[c - 1];
    }
    bounds[NCHUNK] = B->nrows;
    for (int c = 0; c < NCHUNK; c++) entries[c] = B->nrows > 0 ? B->rowptr[bounds[c + 1]] - B->rowptr[bounds[c]] : 0;
}

/* 1 in islong[c] for a chunk with more than twice the average entries
   and those chunks in longs; the count. */
static int long_chunks(const hspmv_csr *B, const int64_t *entries, uint8_t *islong, int16_t *longs)
{
    int n = 0;
    for (int c = 0; c < NCHUNK; c++) {
        islong[c] = B->nnz > 0 && entries[c] > 2 * (B->nnz / NCHUNK + 1);
        if (islong[c]) longs[n++] = (int16_t)c;
    }
    return n;
}

void hspmv_node_share_free(node_share **pS)
{
    node_share *S = *pS;
    if (!S) return;
    for (int q = 0; S->alias && q < S->size; q++) hspmv_shared_unalias(&S->alias[q]);
    if (S->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(S->win);
        MPI_Win_free(&S->win);
    }
    hspmv_free(S->head);
    hspmv_free(S->view);
    hspmv_free(S->pview);
    hspmv_free(S->bounds);
    hspmv_free(S->done);
    hspmv_free(S->islong);
    hspmv_free(S->ybuf);
    hspmv_free(S->alias);
    hspmv_free(S->rw);
    hspmv_free(S);
    *pS = NULL;
}

/* Rows [base, nrows) of B as CSRP into *P, for a block whose own format is
   CSRP: a rank that takes a chunk then reads what the owner would (8.2
   bytes an entry on the real-valued lap3d 200 against a CSR copy's 12).
   The patterns are offsets from the tail's rows, so x is the owner's part
   as it is. 0 where it cannot be made (out of memory): the tail is CSR then. */
static int tail_csrp(const hspmv_csr *B, int64_t base, hspmv_csrp *P)
{
    hspmv_csr T = {0};
    int64_t k0 = B->rowptr[base];
    T.nrows = B->nrows - base;
    T.ncols = B->ncols;
    T.nnz = B->rowptr[B->nrows] - k0;
    T.rowptr = hspmv_alloc_array((size_t)T.nrows + 1, sizeof(int64_t));
    if (!T.rowptr) return 0;
    for (int64_t i = 0; i <= T.nrows; i++) T.rowptr[i] = B->rowptr[base + i] - k0;
    T.colind = B->colind + k0;
    T.val = B->val + k0;
    int ok = hspmv_csrp_from_csr(&T, P, NULL) == HSPMV_OK;
    hspmv_free(T.rowptr);
    return ok;
}

int hspmv_node_share_build(hspmv_dist *D, hspmv_node *N, node_share **out, const hspmv_csr *B,
                           const hspmv_local *L, int tail, const char *block, hspmv_error *err)
{
    int rc = HSPMV_OK, me = D->rank;
    hspmv_local_info li = {0};
    int64_t bounds[NCHUNK + 1];
    if (L) hspmv_local_get_info(L, &li);
    node_share *S = hspmv_calloc(1, sizeof(*S));
    if (S) {
        S->win = MPI_WIN_NULL;
        S->size = N->size;
        S->rank = N->rank;
        S->threads = N->threads;
        S->L = L;
        S->vecs = N->vecs; /* the node window is made before any block is shared */
        S->ks = hspmv_kernel_find(li.isa);
        char buf[64]; /* share_delay=RANK:MICROSECONDS: that rank starts late, others take its tail */
        const char *d = hspmv_test_str(D->test, "share_delay", buf, sizeof(buf));
        int dr = -1, du = 0;
        if (d && sscanf(d, "%d:%d", &dr, &du) == 2 && dr == me) S->delay_us = du;
        S->huge = !hspmv_shared_huge_off();
        S->ranges = N->threads > 1;
        if (S->ranges) S->rw = hspmv_alloc_array((size_t)N->threads, sizeof(*S->rw));
        S->head = hspmv_calloc((size_t)N->size, sizeof(*S->head));
        S->view = hspmv_calloc((size_t)N->size, sizeof(*S->view));
        S->pview = hspmv_calloc((size_t)N->size, sizeof(*S->pview));
        S->bounds = hspmv_calloc((size_t)N->size, sizeof(*S->bounds));
        S->done = hspmv_calloc((size_t)N->size, sizeof(*S->done));
        S->islong = hspmv_calloc((size_t)N->size, sizeof(*S->islong));
        S->ybuf = hspmv_calloc((size_t)N->size, sizeof(*S->ybuf));
        S->alias = hspmv_calloc((size_t)N->size, sizeof(*S->alias));
    }
    *out = S;
    if (!S || !S->ks || !S->head || !S->view || !S->pview || !S->bounds || !S->done || !S->islong || !S->ybuf ||
        !S->alias || (S->ranges && !S->rw))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory sharing the %s", me, block);
    if (!rc && B->nnz > 0 && !L)
        rc = hspmv_err(err, HSPMV_ERR_ARG, "rank %d: its %s has entries but no prepared matrix", me, block);
    int mt = MPI_THREAD_SINGLE;
    MPI_Query_thread(&mt);
    if (S) S->progress = mt >= MPI_THREAD_FUNNELED; /* the main thread may call MPI inside a region */
    /* the segment: head, bounds, done flags, the tail's CSR (colind padded
       for the x prefetches ahead), its result buffer */
    int64_t entries[NCHUNK];
    cut(B, bounds, entries);
    if (S) memcpy(S->cnnz, entries, sizeof(entries));
    uint8_t islong[NCHUNK];
    int16_t longs[NCHUNK];
    int nlong = long_chunks(B, entries, islong, longs);
    share_head h = {0};
    if (tail < 0) tail = (int)hspmv_test_int(D->test, "share_tail", NTAIL);
    tail = (tail > 64 ? 64 : tail) * SUB; /* in chunks from here on */
    int64_t base = bounds[NCHUNK - tail], k0 = B->rowptr[base];
    size_t at = up64(sizeof(share_head));
    h.base = base;
    h.tail = tail;
    h.nrows = B->nrows - base;
    h.ncols = B->ncols;
    h.nnz = B->rowptr[B->nrows] - k0;
    h.xpf = li.xpf; /* PANELS and BCOO prefetch x: so does the tail's kernel */
    hspmv_csrp P = {0};
    h.csrp = !rc && L && li.format == HSPMV_FORMAT_CSRP && h.nrows > 0 && tail_csrp(B, base, &P);
    h.off_bounds = (int64_t)at, at = up64(at + (NCHUNK + 1) * sizeof(int64_t));
    h.off_done = (int64_t)at, at = up64(at + NCHUNK * sizeof(uint64_t));
    h.off_long = (int64_t)at, at = up64(at + NCHUNK);
    if (h.csrp) {
        h.npat = P.npat;
        h.nslices = P.nslices;
        h.nmixed = P.nmixed;
        h.off_start = (int64_t)at, at = up64(at + (size_t)(P.npat + 1) * sizeof(int32_t));
        h.off_ofs = (int64_t)at, at = up64(at + (size_t)P.start[P.npat] * sizeof(int32_t));
        h.off_pid = (int64_t)at, at = up64(at + (size_t)h.nrows);
        h.off_sp = (int64_t)at, at = up64(at + (size_t)(P.nslices + 1) * sizeof(int64_t));
        h.off_spat = (int64_t)at, at = up64(at + (size_t)P.nslices * sizeof(uint16_t));
    } else {
        h.off_rowptr = (int64_t)at, at = up64(at + (size_t)(h.nrows + 1) * sizeof(int64_t));
        h.off_colind = (int64_t)at, at = up64(at + (size_t)(h.nnz + HSPMV_PANELS_PAD) * sizeof(int32_t));
    }
    h.off_val = (int64_t)at, at = up64(at + (size_t)h.nnz * sizeof(hspmv_real));
    h.off_ybuf = (int64_t)at, at = up64(at + (size_t)h.nrows * sizeof(hspmv_real));
    if (!rc) {
        char what[160];
        snprintf(what, sizeof(what), "rank %d: a copy of the last %d/64 of its %s in a shared window", me,
                 tail / SUB, block);
        rc = hspmv_mem_check((double)at, NULL, 0, what, err);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) {
        hspmv_csrp_free(&P);
        return rc;
    }
    char *seg = NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each segment on its own pages */
    if (MPI_Win_allocate_shared((MPI_Aint)at, 1, info, N->comm, &seg, &S->win) != MPI_SUCCESS || !seg) {
        S->win = MPI_WIN_NULL;
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: MPI_Win_allocate_shared of %zu bytes failed", me, at);
    }
    MPI_Info_free(&info);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) {
        hspmv_csrp_free(&P);
        return rc;
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, S->win);
    /* this rank's segment, on huge pages before it is written */
    if (S->huge) seg = hspmv_shared_view(&S->alias[N->rank], seg, at);
    if (S->huge) S->huge_bytes = hspmv_shared_huge(seg, at, 0, 1);
    share_head *H = (share_head *)seg;
    *H = h;
    H->word = 0; /* epoch 0: nothing to claim until the first reset */
    memcpy(seg + h.off_bounds, bounds, sizeof(bounds));
    memset(seg + h.off_done, 0, NCHUNK * sizeof(uint64_t));
    memcpy(seg + h.off_long, islong, NCHUNK);
    S->nlong = nlong;
    memcpy(S->longs, longs, sizeof(longs));
    if (h.csrp) {
        memcpy(seg + h.off_start, P.start, (size_t)(P.npat + 1) * sizeof(int32_t));
        memcpy(seg + h.off_ofs, P.ofs, (size_t)P.start[P.npat] * sizeof(int32_t));
        memcpy(seg + h.off_pid, P.pid, (size_t)h.nrows);
        memcpy(seg + h.off_sp, P.sp, (size_t)(P.nslices + 1) * sizeof(int64_t));
        memcpy(seg + h.off_spat, P.spat, (size_t)P.nslices * sizeof(uint16_t));
        memcpy(seg + h.off_val, P.val, (size_t)h.nnz * sizeof(hspmv_real));
        hspmv_csrp_free(&P);
    } else {
        int64_t *rp = (int64_t *)(seg + h.off_rowptr);
        for (int64_t i = 0; i <= h.nrows; i++) rp[i] = B->rowptr[base + i] - k0;
        memcpy(seg + h.off_colind, B->colind + k0, (size_t)h.nnz * sizeof(int32_t));
        memset(seg + h.off_colind + (size_t)h.nnz * sizeof(int32_t), 0, HSPMV_PANELS_PAD * sizeof(int32_t));
        memcpy(seg + h.off_val, B->val + k0, (size_t)h.nnz * sizeof(hspmv_real));
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    MPI_Barrier(N->comm);
    /* every rank's segment in this process's mapping */
    for (int q = 0; q < N->size && !rc; q++) {
        MPI_Aint qs;
        int qd;
        char *b = NULL;
        if (MPI_Win_shared_query(S->win, q, &qs, &qd, &b) != MPI_SUCCESS || !b) {
            rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: MPI_Win_shared_query gave no segment", me);
            break;
        }
        /* every segment where its owner's huge pages map 2 MiB at a time
           here too (a taker streams it: a copy on 4 KiB pages ran 17%
           slower than the private block, 2 ranks of random columns) */
        if (q == N->rank) b = hspmv_alias_of(&S->alias[q], b);
        else if (S->huge) b = hspmv_shared_view(&S->alias[q], b, (size_t)qs);
        share_head *Hq = (share_head *)b;
        hspmv_panels *v = &S->view[q];
        S->head[q] = Hq;
        S->bounds[q] = (const int64_t *)(b + Hq->off_bounds);
        S->done[q] = (uint64_t *)(b + Hq->off_done);
        S->islong[q] = (const uint8_t *)(b + Hq->off_long);
        S->ybuf[q] = (hspmv_real *)(b + Hq->off_ybuf);
        v->nrows = Hq->nrows;
        v->ncols = Hq->ncols;
        v->nnz = Hq->nnz;
        v->npanels = 1;
        v->width = Hq->ncols > 0 ? Hq->ncols : 1;
        v->xpf = Hq->xpf;
        v->rowptr = (int64_t *)(b + Hq->off_rowptr);
        v->colind = (int32_t *)(b + Hq->off_colind);
        v->val = (hspmv_real *)(b + Hq->off_val);
        if (Hq->csrp) {
            hspmv_csrp *p = &S->pview[q];
            p->nrows = Hq->nrows;
            p->ncols = Hq->ncols;
            p->nnz = Hq->nnz;
            p->nslices = Hq->nslices;
            p->nmixed = Hq->nmixed;
            p->npat = Hq->npat;
            p->start = (int32_t *)(b + Hq->off_start);
            p->ofs = (int32_t *)(b + Hq->off_ofs);
            p->pid = (uint8_t *)(b + Hq->off_pid);
            p->sp = (int64_t *)(b + Hq->off_sp);
            p->spat = (uint16_t *)(b + Hq->off_spat);
            p->val = (hspmv_real *)(b + Hq->off_val);
        }
    }
    return hspmv_dist_agree(D->comm, rc, err);
}

void hspmv_node_share_kernels(node_share *S, const hspmv_local *L)
{
    hspmv_local_info li = {0};
    const hspmv_kernel_set *ks;
    if (!S || !L) return;
    hspmv_local_get_info(L, &li);
    if ((ks = hspmv_kernel_find(li.isa))) S->ks = ks;
}

static uint64_t word_of(uint32_t epoch, uint64_t front, uint64_t back)
{
    return (uint64_t)(epoch & EPOCH_MASK) << 40 | front << 20 | back;
}

static uint64_t front_of(uint64_t w) { return w >> 20 & 0xfffff; }
static uint64_t back_of(uint64_t w) { return w & 0xfffff; }

void hspmv_node_share_open(node_share *S, const hspmv_local *L, int64_t ywin)
{
    S->epoch++;
    S->L = L;
    S->direct = ywin >= 0;
    S->head[S->rank]->ywin = S->direct ? ywin : -1; /* a thief's successful claim sees it (the word's release) */
    S->next_long = 0;
    memset(S->mine, 0, sizeof(S->mine));
    /* with ranges the front chunks (those others never take) are cut
       among the threads, and the word's front starts at the tail */
    uint64_t front = S->ranges ? (uint64_t)(NCHUNK - S->head[S->rank]->tail) : 0, T = (uint64_t)S->threads;
    for (uint64_t t = 0; S->ranges && t < T; t++) S->rw[t].w = (front * t / T) << 32 | front * (t + 1) / T;
    __atomic_store_n(&S->head[S->rank]->word, word_of(S->epoch, front, NCHUNK), __ATOMIC_RELEASE);
}

/* The next chunk of rank q this epoch: from the front (q itself), else from
   the back of its tail; -1 when none is left (or q is a product ahead).
   A rank still in the product before (it has not opened this one yet) is
   waited for: it is the late one that needs its tail taken, and it can
   finish that product without anything of this one. */
static int claim(node_share *S, int q)
{
    uint64_t *w = &S->head[q]->word, c = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    for (unsigned it = 0;;) {
        uint64_t front = front_of(c), back = back_of(c), n;
        int got;
        if ((c >> 40) == ((S->epoch - 1) & EPOCH_MASK)) {
            hspmv_node_pause(it++);
            c = __atomic_load_n(w, __ATOMIC_ACQUIRE);
            continue;
        }
        if ((c >> 40) != (S->epoch & EPOCH_MASK)) return -1;
        if (q == S->rank) {
            if (front >= back) return -1;
            n = word_of(S->epoch, front + 1, back), got = (int)front;
        } else {
            if (back <= front || back <= (uint64_t)(NCHUNK - S->head[q]->tail)) return -1;
            n = word_of(S->epoch, front, back - 1), got = (int)back - 1;
        }
        if (__atomic_compare_exchange_n(w, &c, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (!S->islong[q][got]) return got;
            c = n; /* a long chunk: its owner runs it first (share_mul) */
        }
    }
}

/* Tests (HSPMV_TEST_SHARE_DELAY "rank:microseconds"): this rank starts
   the product late, until the others have claimed all of its tail or the
   delay has passed. A fixed sleep of the delay cost the CI machine (8 ranks
   on 2 cores, 80 ms a product) 2 minutes of test time; where taking works,
   the tail is gone within a scheduler slice or two, and where it does not
   the tests find the tail still there. */
static void late_start(node_share *S)
{
    const uint64_t *w = &S->head[S->rank]->word;
    const uint64_t first = (uint64_t)(NCHUNK - S->head[S->rank]->tail);
    double end = MPI_Wtime() + 1e-6 * S->delay_us;
    while (back_of(__atomic_load_n(w, __ATOMIC_ACQUIRE)) > first && MPI_Wtime() < end)
        usleep(200); /* asleep: the others may need this core */
}

/* This rank's own chunk c into own (y, or gy for compressed rows); its entries. */
static int64_t run_own(node_share *S, int c, const hspmv_real *x, hspmv_real *own, int add)
{
    int64_t r0 = S->bounds[S->rank][c], r1 = S->bounds[S->rank][c + 1];
    if (S->L)
        hspmv_local_spmv_rows(S->L, r0, r1, x, own, add);
    else if (!add) /* an empty block: its rows are zeros */
        memset(own + r0, 0, sizeof(*own) * (size_t)(r1 - r0));
    S->mine[c] = 1;
    return S->cnnz[c];
}

double hspmv_node_share_mul(node_share *S, const node_block *B, const hspmv_real *x, hspmv_share_x *xq, void *ctx,
                            hspmv_real *y, int add, MPI_Request *req, int nreq)
{
    const int me = S->rank, P = S->size;
    const int64_t *row = B->row; /* compressed rows: own chunks land in gy, then y[row[i]] += */
    hspmv_real *own = row ? B->gy : y;
    double wait = 0;
    if (row) add = 0;
    if (S->delay_us > 0) late_start(S);
    int progress = nreq > 0 && S->progress;
#pragma omp parallel num_threads(S->threads)
    {
        int l;
        double ts[2] = {0, 0}, t0 = MPI_Wtime(); /* seconds in own chunks, in others' */
        int64_t ne = 0;
        while ((l = __atomic_fetch_add(&S->next_long, 1, __ATOMIC_RELAXED)) < S->nlong) /* long chunks first */
            ne += run_own(S, S->longs[l], x, own, add);
        if (S->ranges) { /* its own range from the front, then the other threads' from the back */
            int tid = omp_thread(), c, flag;
            for (int k = 0; k < S->threads; k++) {
                int t = (tid + k) % S->threads;
                while ((c = hspmv_local_take_piece(&S->rw[t].w, k > 0)) >= 0) {
                    if (progress && tid == 0) MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE);
                    if (!S->islong[me][c]) ne += run_own(S, c, x, own, add); /* (a long one ran above) */
                }
            }
        }
        for (int t = 0; t < P; t++) { /* own chunks, then the others' from the next rank on */
            int q = (me + t) % P, c, flag;
            while ((c = claim(S, q)) >= 0) {
                if (progress && omp_thread() == 0) MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE); /* messages move */
                if (q == me) {
                    ne += run_own(S, c, x, own, add);
                } else {
                    double s = MPI_Wtime();
                    int64_t r0 = S->bounds[q][c], r1 = S->bounds[q][c + 1], b = S->head[q]->base,
                            yw = S->head[q]->ywin;
                    hspmv_real *yq = yw >= 0 ? S->vecs + yw + b : S->ybuf[q]; /* indexed by tail row */
                    if (S->head[q]->csrp)
                        S->ks->csrp(r0 - b, r1 - b, &S->pview[q], xq(ctx, q), yq, 0);
                    else
                        S->ks->panels(r0 - b, r1 - b, &S->view[q], xq(ctx, q), yq, 0);
                    __atomic_store_n(&S->done[q][c], (uint64_t)S->epoch, __ATOMIC_RELEASE);
                    ts[1] += MPI_Wtime() - s;
                }
            }
            if (t == 0) ts[0] = MPI_Wtime() - t0; /* its own chunks are gone */
        }
#pragma omp critical(hspmv_share_stats)
        {
            S->run_s[0] += ts[0];
            S->run_s[1] += ts[1];
            S->run_nnz[0] += ne;
        }
    }
    /* the rows others ran for this rank (and every row when compressed) */
    const int64_t base = S->head[me]->base;
    const hspmv_real *yb = S->ybuf[me] - base;
    for (int c = 0; c < NCHUNK; c++) {
        int64_t i0 = S->bounds[me][c], i1 = S->bounds[me][c + 1];
        if (!S->mine[c]) {
            wait += hspmv_node_wait(&S->done[me][c], S->epoch);
            S->run_nnz[1] += S->cnnz[c];
        }
        const hspmv_real *src = S->mine[c] ? own : yb;
        if (row)
            for (int64_t i = i0; i < i1; i++) y[row[i]] += src[i];
        else if (!S->mine[c] && !S->direct)
            for (int64_t i = i0; i < i1; i++) y[i] = add ? y[i] + src[i] : src[i];
    }
    return wait;
}

int hspmv_node_share_long(const node_share *S, int *taken)
{
    *taken = 0;
    for (int l = 0; S && l < S->nlong; l++) /* run by another rank in this epoch */
        *taken += __atomic_load_n(&S->done[S->rank][S->longs[l]], __ATOMIC_ACQUIRE) == S->epoch;
    return S ? S->nlong : 0;
}

int hspmv_node_share_copy_csrp(const node_share *S) { return S ? S->head[S->rank]->csrp : 0; }

int hspmv_node_share_direct(const node_share *S) { return S ? S->direct : 0; }

size_t hspmv_node_share_huge_bytes(const node_share *S) { return S ? S->huge_bytes : 0; }

void hspmv_node_share_stats(node_share *S, double run_s[2], int64_t run_nnz[2])
{
    for (int k = 0; S && k < 2; k++) {
        run_s[k] += S->run_s[k];
        run_nnz[k] += S->run_nnz[k];
        S->run_s[k] = 0;
        S->run_nnz[k] = 0;
    }
}

int64_t hspmv_node_share_taken(const node_share *S)
{
    int64_t n = 0;
    for (int c = 0; S && c < NCHUNK; c++) n += !S->mine[c];
    n /= SUB; /* in 64ths */
    return n;
}
