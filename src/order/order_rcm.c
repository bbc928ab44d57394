/* order_rcm.c — reverse Cuthill-McKee: per connected component, from a
   pseudo-peripheral node (George and Liu's repeated breadth-first search,
   "An implementation of a pseudoperipheral node finder", ACM TOMS 5(3),
   1979), neighbours appended by ascending degree, the whole order
   reversed at the end (Liu and Sherman 1976: the reversal never widens the
   profile). The degrees are counted once, in parallel; the searches run on
   one thread: they walk each edge a few times. */
#include <stdlib.h>
#include <string.h>
#include "order.h"
#include "order_graph.h"
#include "util.h"

/* Work arrays of one ordering. */
typedef struct rcm_ws {
    const hspmv_graph *G;
    int64_t *mark;   /* BFS stamp of each node (George-Liu searches) */
    int64_t stamp;
    int64_t *q;      /* those searches' queue */
    uint8_t *done;   /* node already placed in the order */
    int32_t *deg;    /* degree of each node, its own diagonal left out */
    double width_limit; /* > 0: give up when the first search's levels are wider on average */
    int hopeless;    /* it gave up */
} rcm_ws;

/* Each node's degree, its own diagonal left out, counted once: the searches
   and the sorts ask for it again and again, each time a random row. */
static void count_degrees(const hspmv_graph *G, int32_t *deg)
{
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < G->n; v++) {
        int64_t d = 0;
        for (int64_t k = G->beg[v]; k < G->end[v]; k++) d += G->adj[k] != v;
        deg[v] = (int32_t)d;
    }
}

/* Breadth-first search from r over the nodes not placed yet: returns the
   depth of its level structure (eccentricity of r) and, in *last, the
   position in W->q where its last level starts (W->q[*last .. *len)). */
static int64_t bfs_levels(rcm_ws *W, int64_t r, int64_t *last, int64_t *len)
{
    const hspmv_graph *G = W->G;
    int64_t head = 0, tail = 0, depth = 0, lvl_start = 0, lvl_end;
    W->stamp++;
    W->q[tail++] = r;
    W->mark[r] = W->stamp;
    while (head < tail) {
        lvl_end = tail;
        lvl_start = head;
        for (; head < lvl_end; head++) {
            int64_t v = W->q[head];
            for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
                int64_t u = G->adj[k];
                if (W->mark[u] != W->stamp) W->mark[u] = W->stamp, W->q[tail++] = u;
            }
        }
        if (tail > lvl_end) depth++;
    }
    *last = lvl_start;
    *len = tail;
    return depth;
}

/* George and Liu: from r, move to a node of least degree in the last level
   while that deepens the level structure (at most 16 moves). */
static int64_t pseudo_peripheral(rcm_ws *W, int64_t r)
{
    int64_t last, len, depth = bfs_levels(W, r, &last, &len);
    if (W->width_limit > 0 && (double)len / (double)(depth + 1) > W->width_limit) {
        W->hopeless = 1; /* an expander: RCM's levels cannot be narrow */
        return r;
    }
    W->width_limit = 0; /* asked of the first component only */
    for (int it = 0; it < 16; it++) {
        int64_t best = -1, bestd = 0;
        for (int64_t t = last; t < len; t++) {
            int64_t d = W->deg[W->q[t]];
            if (best < 0 || d < bestd || (d == bestd && W->q[t] < best)) best = W->q[t], bestd = d;
        }
        if (best < 0 || best == r) break;
        int64_t last2, len2, d2 = bfs_levels(W, best, &last2, &len2);
        if (d2 <= depth) break;
        r = best, depth = d2, last = last2, len = len2;
    }
    return r;
}

/* (degree, node) pairs: Cuthill-McKee's order of a node's new neighbours. */
typedef struct dn {
    int64_t d, v;
} dn;
static int cmp_dn(const void *a, const void *b)
{
    const dn *x = a, *y = b;
    if (x->d != y->d) return (x->d > y->d) - (x->d < y->d);
    return (x->v > y->v) - (x->v < y->v);
}

/* Cuthill-McKee of the component of s, appended to order from *pos. */
static int cuthill_mckee(rcm_ws *W, int64_t s, int64_t *order, int64_t *pos, dn **buf, int64_t *cap)
{
    const hspmv_graph *G = W->G;
    int64_t head = *pos;
    order[(*pos)++] = s;
    W->done[s] = 1;
    while (head < *pos) {
        int64_t v = order[head++], first = *pos;
        for (int64_t k = G->beg[v]; k < G->end[v]; k++) {
            int64_t u = G->adj[k];
            if (!W->done[u]) W->done[u] = 1, order[(*pos)++] = u;
        }
        int64_t m = *pos - first;
        if (m < 2) continue;
        if (m > *cap) {
            dn *nb = realloc(*buf, (size_t)m * sizeof(dn));
            if (!nb) return -1;
            *buf = nb, *cap = m;
        }
        for (int64_t t = 0; t < m; t++) (*buf)[t].v = order[first + t], (*buf)[t].d = W->deg[order[first + t]];
        if (m <= 16) { /* insertion sort: most rows */
            for (int64_t i = 1; i < m; i++) {
                dn x = (*buf)[i];
                int64_t j = i;
                while (j > 0 && cmp_dn(&(*buf)[j - 1], &x) > 0) (*buf)[j] = (*buf)[j - 1], j--;
                (*buf)[j] = x;
            }
        } else qsort(*buf, (size_t)m, sizeof(dn), cmp_dn);
        for (int64_t t = 0; t < m; t++) order[first + t] = (*buf)[t].v;
    }
    return 0;
}

/* The Cuthill-McKee order of every component of G into order (G->n
   entries), or *hopeless (order unset) when width_limit > 0 and the first
   component's first search has wider levels on average. */
static int cm_all(const hspmv_graph *G, int64_t *order, double width_limit, int *hopeless, hspmv_error *err)
{
    int64_t n = G->n, pos = 0, cap = 0;
    dn *buf = NULL;
    rcm_ws W = {G, NULL, 0, NULL, NULL, NULL, width_limit, 0};
    W.mark = hspmv_calloc((size_t)n ? (size_t)n : 1, sizeof(int64_t));
    W.q = hspmv_alloc_array((size_t)n ? (size_t)n : 1, sizeof(int64_t));
    W.done = hspmv_calloc((size_t)n ? (size_t)n : 1, 1);
    W.deg = hspmv_alloc_array((size_t)n ? (size_t)n : 1, sizeof(int32_t));
    int rc = !W.mark || !W.q || !W.done || !W.deg;
    if (!rc) count_degrees(G, W.deg);
    for (int64_t v = 0; v < n && !rc; v++) {
        if (W.done[v]) continue;
        if (W.deg[v] == 0) { /* an isolated node: nothing to search */
            W.done[v] = 1;
            order[pos++] = v;
            continue;
        }
        int64_t s = pseudo_peripheral(&W, v);
        if (W.hopeless) break;
        rc = cuthill_mckee(&W, s, order, &pos, &buf, &cap) != 0;
    }
    *hopeless = W.hopeless;
    free(buf);
    hspmv_free(W.mark);
    hspmv_free(W.q);
    hspmv_free(W.done);
    hspmv_free(W.deg);
    if (rc)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for reverse Cuthill-McKee on %lld nodes",
                         (long long)n);
    return hspmv_ok(err);
}

int hspmv_order_rcm(const hspmv_csr *A, int64_t *rp, int64_t *cp, hspmv_error *err)
{
    int hopeless;
    return hspmv_order_rcm_within(A, rp, cp, 0, &hopeless, err);
}

int hspmv_order_rcm_within(const hspmv_csr *A, int64_t *rp, int64_t *cp, double width_limit, int *hopeless,
                           hspmv_error *err)
{
    hspmv_graph G;
    int64_t *order;
    int rc, square = A->nrows == A->ncols;
    *hopeless = 0;
    rc = square ? hspmv_graph_symmetric(A, &G, err) : hspmv_graph_bipartite(A, &G, err);
    if (rc) return rc;
    if (!(order = hspmv_alloc_array(G.n ? (size_t)G.n : 1, sizeof(int64_t)))) {
        hspmv_graph_free(&G);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for an order of %lld nodes", (long long)G.n);
    }
    rc = cm_all(&G, order, width_limit, hopeless, err);
    if (!rc && !*hopeless && square) {
        for (int64_t k = 0; k < G.n; k++) rp[k] = order[G.n - 1 - k];
        if (cp != rp) memcpy(cp, rp, (size_t)G.n * sizeof(int64_t));
    } else if (!rc && !*hopeless) { /* the reversed bipartite order, rows and columns each in their turn */
        int64_t nr = A->nrows, ir = 0, ic = 0;
        for (int64_t k = G.n - 1; k >= 0; k--) {
            if (order[k] < nr) rp[ir++] = order[k];
            else cp[ic++] = order[k] - nr;
        }
    }
    hspmv_free(order);
    hspmv_graph_free(&G);
    return rc;
}
