/* order_rcm.c — reverse Cuthill-McKee: per connected component, in the
   order of their least nodes, from a pseudo-peripheral node
   (order_rcm_search.c), numbered level by level (order_rcm_sweep.c), the
   whole order reversed at the end (Liu and Sherman 1976: the reversal
   never widens the profile). One thread drives; a team of the others
   waits to take the wide levels, the same order at every thread count. */
#include <stdlib.h>
#include <string.h>
#include "order.h"
#include "order_rcm.h"
#include "util.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Each node's degree, its own diagonal left out, counted once: the searches
   and the sorts ask for it again and again, each time a random row. */
static void count_degrees(const hspmv_graph *G, int32_t *deg, int32_t *key, int T)
{
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t v = 0; v < G->n; v++) {
        int64_t d = 0;
        for (int64_t k = G->beg[v]; k < G->end[v]; k++) d += G->adj[k] != v;
        deg[v] = (int32_t)d;
        key[v] = HSPMV_RCM_UNSEEN;
    }
}

/* The driving thread: every component in turn. 0, or -1 out of memory. */
static int drive(hspmv_rcm_ws *W, double width_limit, int *hopeless)
{
    int64_t n = W->G->n, pos = 0;
    for (int64_t v = 0; v < n; v++) {
        if (W->key[v] != HSPMV_RCM_UNSEEN) continue;
        if (W->deg[v] == 0) { /* an isolated node: nothing to search */
            W->key[v] = -1;
            W->order[pos++] = v;
            continue;
        }
        int64_t s = hspmv_rcm_start(W, v, &width_limit, hopeless);
        if (*hopeless) return 0;
        if (W->failed || hspmv_rcm_sweep(W, s, &pos)) return -1;
    }
    return 0;
}

/* The Cuthill-McKee order of every component of G into order (G->n
   entries), or *hopeless (order unset). */
static int cm_all(const hspmv_graph *G, int64_t *order, const hspmv_rcm_opts *o, int *hopeless, hspmv_error *err)
{
    int64_t n = G->n;
    size_t m = n ? (size_t)n : 1;
    int T = hspmv_order_threads(o->threads), rc = 0;
    hspmv_rcm_ws W = {0};
    W.G = G;
    W.order = order;
    W.serial_below = o->serial_below > 0 ? o->serial_below : HSPMV_RCM_SERIAL_BELOW;
    if (n < W.serial_below) T = 1; /* no level can be that wide */
    W.deg = hspmv_alloc_array(m, sizeof(int32_t));
    W.mark = hspmv_calloc(m, sizeof(int64_t));
    W.q = hspmv_alloc_array(m, sizeof(int32_t));
    W.key = hspmv_alloc_array(m, sizeof(int32_t));
    W.buf = hspmv_calloc((size_t)T, sizeof(hspmv_rcm_buf));
    W.part = hspmv_calloc((size_t)T, sizeof(int64_t));
    rc = !W.deg || !W.mark || !W.q || !W.key || !W.buf || !W.part ? -1 : 0;
    if (!rc) {
        count_degrees(G, W.deg, W.key, T);
        W.T = 1;
#pragma omp parallel num_threads(T) if (T > 1)
        {
#ifdef _OPENMP
            int tid = omp_get_thread_num();
#else
            int tid = 0;
#endif
            if (tid == 0) {
#ifdef _OPENMP
                W.T = omp_get_num_threads();
#endif
                rc = drive(&W, o->width_limit, hopeless);
                if (W.T > 1) hspmv_rcm_post(&W, HSPMV_RCM_STOP, 0, 0);
            } else hspmv_rcm_serve(&W, tid);
        }
    }
    for (int t = 0; W.buf && t < T; t++) free(W.buf[t].v), free(W.buf[t].sort);
    hspmv_free(W.buf);
    hspmv_free(W.part);
    hspmv_free(W.deg);
    hspmv_free(W.mark);
    hspmv_free(W.q);
    hspmv_free(W.key);
    if (rc)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for reverse Cuthill-McKee on %lld nodes",
                         (long long)n);
    return hspmv_ok(err);
}

int hspmv_order_rcm(const hspmv_csr *A, int64_t *rp, int64_t *cp, hspmv_error *err)
{
    int hopeless;
    hspmv_rcm_opts o = {0, 0, 0};
    return hspmv_order_rcm_within(A, rp, cp, &o, &hopeless, err);
}

int hspmv_order_rcm_within(const hspmv_csr *A, int64_t *rp, int64_t *cp, const hspmv_rcm_opts *o, int *hopeless,
                           hspmv_error *err)
{
    hspmv_graph G;
    int64_t *order;
    int rc, square = A->nrows == A->ncols, T = hspmv_order_threads(o->threads);
    *hopeless = 0;
    rc = square ? hspmv_graph_symmetric(A, T, &G, err) : hspmv_graph_bipartite(A, T, &G, err);
    if (rc) return rc;
    if (!(order = hspmv_alloc_array(G.n ? (size_t)G.n : 1, sizeof(int64_t)))) {
        hspmv_graph_free(&G);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for an order of %lld nodes", (long long)G.n);
    }
    rc = cm_all(&G, order, o, hopeless, err);
    if (!rc && !*hopeless && square) {
        int64_t n = G.n;
#pragma omp parallel for schedule(static) num_threads(T)
        for (int64_t k = 0; k < n; k++) rp[k] = cp[k] = order[n - 1 - k];
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
