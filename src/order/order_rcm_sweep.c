/* order_rcm_sweep.c — Cuthill-McKee's numbering of one component, a level
   at a time. Serially each node of level L, in order, appends its new
   neighbours sorted by (degree, node): so a node of level L+1 comes under
   the first node of level L that touches it, and level L+1 is its nodes
   sorted by (that parent's position, degree, node). A wide level is made
   so by the team: each node of level L+1 gets the least position that
   reaches it (an atomic minimum by compare-and-swap); then each thread
   collects, in the order of its share of level L, each parent's children
   (the neighbours whose minimum is that parent), sorts them, and copies
   its list behind the lists of the threads before it. */
#include <string.h>
#include "order_rcm.h"

static void failed(hspmv_rcm_ws *W)
{
    __atomic_store_n(&W->failed, 1, __ATOMIC_RELAXED);
}

void hspmv_rcm_sweep_part(hspmv_rcm_ws *W, int tid)
{
    const hspmv_graph *G = W->G;
    hspmv_rcm_buf *B = &W->buf[tid];
    int64_t a = W->a, b = W->b, lo, hi, off = b;
    int32_t *key = W->key;
    hspmv_rcm_share(W, tid, a, b, &lo, &hi);
    for (int64_t p = lo; p < hi; p++) {
        int64_t v = W->order[p];
        for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
            int32_t u = G->adj[k], c = __atomic_load_n(&key[u], __ATOMIC_RELAXED);
            /* a key at or below p: u placed already (a level up to L) or reached by
               an earlier parent; else (unseen, or a later parent's) it is lowered to p */
            while (c > p && !__atomic_compare_exchange_n(&key[u], &c, (int32_t)p, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
        }
    }
#pragma omp barrier
    B->n = 0;
    for (int64_t p = lo; p < hi; p++) {
        int64_t v = W->order[p], first = B->n;
        if (hspmv_rcm_reserve(B, G->end[v] - G->beg[v])) {
            failed(W);
            break;
        }
        for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
            int32_t u = G->adj[k];
            if (__atomic_load_n(&key[u], __ATOMIC_RELAXED) == p) { /* p's child; -1: taken once */
                __atomic_store_n(&key[u], -1, __ATOMIC_RELAXED);
                B->v[B->n++] = u;
            }
        }
        if (hspmv_rcm_sort_group(W->deg, B->v + first, B->n - first, B)) failed(W);
    }
    W->part[tid] = B->n;
#pragma omp barrier
    for (int t = 0; t < tid; t++) off += W->part[t];
    for (int64_t i = 0; i < B->n; i++) W->order[off + i] = B->v[i];
    if (tid == W->T - 1) W->found = off + B->n - b;
#pragma omp barrier
}

int hspmv_rcm_sweep(hspmv_rcm_ws *W, int64_t s, int64_t *pos)
{
    const hspmv_graph *G = W->G;
    hspmv_rcm_buf *B = &W->buf[0];
    int64_t a = *pos, b = a + 1;
    W->order[a] = s;
    W->key[s] = -1;
    while (a < b && !W->failed) {
        int64_t next = b;
        if (W->T > 1 && b - a >= W->serial_below) {
            hspmv_rcm_post(W, HSPMV_RCM_SWEEP, a, b);
            next = b + W->found;
        } else
            for (int64_t p = a; p < b; p++) { /* the serial order itself */
                int64_t v = W->order[p];
                B->n = 0;
                if (hspmv_rcm_reserve(B, G->end[v] - G->beg[v])) return -1;
                for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
                    int32_t u = G->adj[k];
                    if (W->key[u] == HSPMV_RCM_UNSEEN) W->key[u] = (int32_t)p, B->v[B->n++] = u;
                }
                if (hspmv_rcm_sort_group(W->deg, B->v, B->n, B)) return -1;
                for (int64_t i = 0; i < B->n; i++) W->order[next++] = B->v[i];
            }
        a = b, b = next;
    }
    *pos = b;
    return W->failed ? -1 : 0;
}
