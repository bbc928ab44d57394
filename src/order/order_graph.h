/* order_graph.h — private to src/order: the adjacency graph an ordering
   walks (a matrix's own pattern, A + A^T, or the bipartite graph of a
   rectangular matrix). */
#ifndef HSPMV_ORDER_GRAPH_H
#define HSPMV_ORDER_GRAPH_H

#include <stdint.h>
#include "hspmv.h"

/* Node v's neighbours are adj[beg[v] .. end[v]); a neighbour equal to v (a
   diagonal entry of the matrix's own pattern) is to be skipped. */
typedef struct hspmv_graph {
    int64_t n;
    const int64_t *beg, *end;
    const int32_t *adj;
    int64_t *own_beg, *own_end; /* what the graph allocated (NULL when it reads the matrix) */
    int32_t *own_adj;
} hspmv_graph;

/* The graph of a square A's pattern made symmetric: A's own arrays when A
   is structurally symmetric (checked in parallel), else A + A^T without
   the diagonal, neighbours ascending. threads: how many build it (<= 0:
   all). HSPMV_OK or HSPMV_ERR_NOMEM. */
int hspmv_graph_symmetric(const hspmv_csr *A, int threads, hspmv_graph *G, hspmv_error *err);

/* The bipartite graph of A: nodes 0..nrows-1 the rows, nrows.. the columns. */
int hspmv_graph_bipartite(const hspmv_csr *A, int threads, hspmv_graph *G, hspmv_error *err);

void hspmv_graph_free(hspmv_graph *G);

#endif
