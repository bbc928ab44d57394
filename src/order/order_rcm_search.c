/* order_rcm_search.c — RCM's start node: George and Liu's pseudo-peripheral
   node finder ("An implementation of a pseudoperipheral node finder", ACM
   TOMS 5(3), 1979) on level-synchronous breadth-first searches, each wide
   level expanded by the team (nodes claimed by compare-and-swap on their
   visit stamp). A search needs only its depth and its last level as a
   set, so the order the threads find nodes in never shows. */
#include <string.h>
#include "order_rcm.h"

void hspmv_rcm_search_part(hspmv_rcm_ws *W, int tid)
{
    const hspmv_graph *G = W->G;
    hspmv_rcm_buf *B = &W->buf[tid];
    int64_t lo, hi, st = W->stamp, off = W->b;
    hspmv_rcm_share(W, tid, W->a, W->b, &lo, &hi);
    B->n = 0;
    for (int64_t t = lo; t < hi; t++) {
        int64_t v = W->q[t];
        if (hspmv_rcm_reserve(B, G->end[v] - G->beg[v])) {
            __atomic_store_n(&W->failed, 1, __ATOMIC_RELAXED);
            break;
        }
        for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
            int32_t u = G->adj[k];
            int64_t m = __atomic_load_n(&W->mark[u], __ATOMIC_RELAXED);
            if (m != st && __atomic_compare_exchange_n(&W->mark[u], &m, st, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                B->v[B->n++] = u;
        }
    }
    W->part[tid] = B->n;
#pragma omp barrier
    for (int t = 0; t < tid; t++) off += W->part[t];
    if (B->n) memcpy(W->q + off, B->v, (size_t)B->n * sizeof(int32_t));
    if (tid == W->T - 1) W->found = off + B->n - W->b;
#pragma omp barrier
}

/* The least (degree, node) of q[lo, hi), -1 when empty. */
static int64_t least(const hspmv_rcm_ws *W, int64_t lo, int64_t hi)
{
    int64_t best = -1, bestd = 0;
    for (int64_t t = lo; t < hi; t++) {
        int64_t v = W->q[t], d = W->deg[v];
        if (best < 0 || d < bestd || (d == bestd && v < best)) best = v, bestd = d;
    }
    return best;
}

void hspmv_rcm_mindeg_part(hspmv_rcm_ws *W, int tid)
{
    int64_t lo, hi;
    hspmv_rcm_share(W, tid, W->a, W->b, &lo, &hi);
    W->part[tid] = least(W, lo, hi);
#pragma omp barrier
    if (tid == 0) { /* the driving thread reads it; the others wait for the next task */
        int64_t best = -1;
        for (int t = 0; t < W->T; t++) {
            int64_t v = W->part[t];
            if (v >= 0 && (best < 0 || W->deg[v] < W->deg[best] || (W->deg[v] == W->deg[best] && v < best))) best = v;
        }
        W->found = best;
    }
}

/* Breadth-first search from r over r's component: returns its depth (the
   eccentricity of r); its last level is W->q[*last .. *len). */
static int64_t bfs_levels(hspmv_rcm_ws *W, int64_t r, int64_t *last, int64_t *len)
{
    const hspmv_graph *G = W->G;
    int64_t head = 0, tail = 0, depth = 0, lvl_start = 0, st = ++W->stamp;
    W->q[tail++] = (int32_t)r;
    W->mark[r] = st;
    while (head < tail) {
        int64_t lvl_end = tail;
        lvl_start = head;
        if (W->T > 1 && lvl_end - lvl_start >= W->serial_below) {
            hspmv_rcm_post(W, HSPMV_RCM_SEARCH, lvl_start, lvl_end);
            tail = lvl_end + W->found;
        } else
            for (int64_t t = lvl_start; t < lvl_end; t++) {
                int64_t v = W->q[t];
                for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
                    int32_t u = G->adj[k];
                    if (W->mark[u] != st) W->mark[u] = st, W->q[tail++] = u;
                }
            }
        head = lvl_end;
        if (tail > lvl_end) depth++;
    }
    *last = lvl_start;
    *len = tail;
    return depth;
}

static int64_t least_of_level(hspmv_rcm_ws *W, int64_t lo, int64_t hi)
{
    if (W->T > 1 && hi - lo >= W->serial_below) {
        hspmv_rcm_post(W, HSPMV_RCM_MINDEG, lo, hi);
        return W->found;
    }
    return least(W, lo, hi);
}

int64_t hspmv_rcm_start(hspmv_rcm_ws *W, int64_t r, double *width_limit, int *hopeless)
{
    int64_t last, len, depth = bfs_levels(W, r, &last, &len);
    if (*width_limit > 0 && (double)len / (double)(depth + 1) > *width_limit) {
        *hopeless = 1; /* an expander: RCM's levels cannot be narrow */
        return r;
    }
    *width_limit = 0; /* asked of the first component only */
    for (int it = 0; it < 16 && !W->failed; it++) { /* move while that deepens the level structure */
        int64_t best = least_of_level(W, last, len);
        if (best < 0 || best == r) break;
        int64_t last2, len2, d2 = bfs_levels(W, best, &last2, &len2);
        if (d2 <= depth) break;
        r = best, depth = d2, last = last2, len = len2;
    }
    return r;
}
