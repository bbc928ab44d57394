/* order_nd.c — a graph-partition order: METIS nested dissection
   (METIS_NodeND) of the graph of A + A^T. Built without METIS (make
   NO_METIS=1, or a build without MPI) it refuses. */
#include <string.h>
#include "order.h"
#include "order_graph.h"
#include "util.h"
#ifndef HSPMV_NO_METIS
#include <metis.h>
#endif

int hspmv_order_nd(const hspmv_csr *A, int64_t *rp, int64_t *cp, hspmv_error *err)
{
    if (A->nrows != A->ncols)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder nd (METIS nested dissection) needs a square matrix, "
                         "this one is %lld x %lld (rcm orders rectangular ones)", (long long)A->nrows,
                         (long long)A->ncols);
#ifdef HSPMV_NO_METIS
    (void)rp, (void)cp;
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder nd: this hspmv was built without METIS (make NO_METIS=1); "
                     "use rcm");
#else
    hspmv_graph G;
    int64_t n = A->nrows, m = 0;
    int rc = hspmv_graph_symmetric(A, 0, &G, err);
    if (rc) return rc;
    for (int64_t v = 0; v < n; v++)
        for (int64_t k = G.beg[v]; k < G.end[v]; k++) m += G.adj[k] != v;
    if ((sizeof(idx_t) < 8 && m > INT32_MAX) || n > INT32_MAX) {
        hspmv_graph_free(&G);
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder nd: METIS's %d-bit idx_t cannot hold a graph of %lld "
                         "edges", (int)sizeof(idx_t) * 8, (long long)m);
    }
    idx_t *xadj = hspmv_alloc_array((size_t)n + 1, sizeof(idx_t));
    idx_t *adj = hspmv_alloc_array(m ? (size_t)m : 1, sizeof(idx_t));
    idx_t *perm = hspmv_alloc_array(n ? (size_t)n : 1, sizeof(idx_t));
    idx_t *iperm = hspmv_alloc_array(n ? (size_t)n : 1, sizeof(idx_t));
    if (!xadj || !adj || !perm || !iperm) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "reorder nd: out of memory for METIS's graph of %lld rows", (long long)n);
        goto done;
    }
    xadj[0] = 0;
    for (int64_t v = 0, e = 0; v < n; v++) {
        for (int64_t k = G.beg[v]; k < G.end[v]; k++)
            if (G.adj[k] != v) adj[e++] = G.adj[k];
        xadj[v + 1] = (idx_t)e;
    }
    if (m == 0) { /* no edges: METIS has nothing to cut, the order stays */
        for (int64_t v = 0; v < n; v++) rp[v] = v;
    } else {
        idx_t nv = (idx_t)n, opt[METIS_NOPTIONS];
        METIS_SetDefaultOptions(opt);
        opt[METIS_OPTION_SEED] = 1; /* reproducible */
        int mr = METIS_NodeND(&nv, xadj, adj, NULL, opt, perm, iperm);
        if (mr != METIS_OK) {
            rc = hspmv_err(err, mr == METIS_ERROR_MEMORY ? HSPMV_ERR_NOMEM : HSPMV_ERR_UNSUPPORTED,
                           "reorder nd: METIS_NodeND failed (status %d) on %lld rows", mr, (long long)n);
            goto done;
        }
        /* METIS's manual: row i of the permuted matrix is row perm[i] of A */
        for (int64_t v = 0; v < n; v++) rp[v] = perm[v];
    }
    if (cp != rp) memcpy(cp, rp, (size_t)n * sizeof(int64_t));
    rc = hspmv_order_check(rp, n, "METIS_NodeND's permutation", err);
done:
    hspmv_free(xadj);
    hspmv_free(adj);
    hspmv_free(perm);
    hspmv_free(iperm);
    hspmv_graph_free(&G);
    return rc;
#endif
}
