/* node_share.c — shared rows while a product runs (node_share.h says how):
   claims on the ranks' chunks, running them, the counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "node_share.h"

#ifdef _OPENMP
#include <omp.h>
static int omp_thread(void) { return omp_get_thread_num(); }
#else
static int omp_thread(void) { return 0; }
#endif

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
            hspmv_node_pause(it++, S->spin);
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

/* Tests (HSPMV_TEST share_delay=RANK:MICROSECONDS): this rank starts
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
            wait += hspmv_node_wait(&S->done[me][c], S->epoch, S->spin);
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
