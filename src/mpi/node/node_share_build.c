/* node_share_build.c — shared rows set up: each rank's block cut into
   chunks, its tail copied into a second shared window (CSRP where the block
   is, else CSR), every rank's segment mapped; and freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "node_share.h"

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
        S->spin = N->spin;
        S->L = L;
        S->vecs = N->vecs; /* the node window is made before any block is shared */
        S->ks = hspmv_kernel_find(li.isa);
        char buf[64]; /* share_delay=RANK:MICROSECONDS: that rank starts late, others take its tail */
        const char *d = hspmv_test_str(D->test, "share_delay", buf, sizeof(buf));
        int dr = -1, du = 0;
        if (d && sscanf(d, "%d:%d", &dr, &du) == 2 && dr == me) S->delay_us = du;
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
    seg = hspmv_shared_view(&S->alias[N->rank], seg, at);
    S->huge_bytes = hspmv_shared_huge(seg, at, 0, 1);
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
        else b = hspmv_shared_view(&S->alias[q], b, (size_t)qs);
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
