/* order_graph.c — the graphs the orderings walk: a square matrix's pattern
   made symmetric (A's own arrays when it already is), and the bipartite
   graph of rows and columns of a rectangular one; built in parallel. */
#include <stdlib.h>
#include <string.h>
#include "order_graph.h"
#include "util.h"
#include "order.h"

void hspmv_graph_free(hspmv_graph *G)
{
    hspmv_free(G->own_beg);
    hspmv_free(G->own_end);
    hspmv_free(G->own_adj);
    memset(G, 0, sizeof(*G));
}

/* A 64-bit mix of the pair (r, c) (splitmix64's finaliser). */
static inline uint64_t pair_hash(uint64_t r, uint64_t c)
{
    uint64_t z = (r << 32 | c) + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* 1 when the pattern of A equals that of A^T, told by one sequential sweep:
   the sum (mod 2^64) of a hash of every entry (i, j) against that of every
   (j, i). Equal patterns give equal sums; unequal ones differ but with a
   chance of about 2^-64, and then the ordering walks A's own pattern
   where A + A^T's was due: a permutation all the same, only a worse one.
   (The binary search of every mirror entry it replaces read a random row
   per entry: on a scattered 1M-row mesh a quarter of the ordering's time.) */
static int structurally_symmetric(const hspmv_csr *A, int T)
{
    uint64_t s = 0, t = 0;
#pragma omp parallel for schedule(static) num_threads(T) reduction(+ : s, t)
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            uint64_t j = (uint64_t)(uint32_t)A->colind[k];
            s += pair_hash((uint64_t)i, j);
            t += pair_hash(j, (uint64_t)i);
        }
    return s == t;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int own_arrays(hspmv_graph *G, int64_t n, int64_t nadj)
{
    G->own_beg = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    G->own_end = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    G->own_adj = hspmv_alloc_array(nadj > 0 ? (size_t)nadj : 1, sizeof(int32_t));
    if (G->own_beg && G->own_end && G->own_adj) return 0;
    hspmv_graph_free(G);
    return -1;
}

/* own_beg from the counts in own_end[0..n), and own_end[v] = own_beg[v]:
   where the fill of each node's list starts. */
static void starts(hspmv_graph *G, int64_t n, int T)
{
    int64_t *beg = G->own_beg, *pos = G->own_end;
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t v = 0; v < n; v++) beg[v + 1] = pos[v];
    beg[0] = 0;
    hspmv_order_scan(beg, n, T);
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t v = 0; v < n; v++) pos[v] = beg[v];
}

int hspmv_graph_symmetric(const hspmv_csr *A, int threads, hspmv_graph *G, hspmv_error *err)
{
    int64_t n = A->nrows;
    int T = hspmv_order_threads(threads);
    memset(G, 0, sizeof(*G));
    G->n = n;
    if (structurally_symmetric(A, T)) {
        G->beg = A->rowptr;
        G->end = A->rowptr + 1;
        G->adj = A->colind;
        return hspmv_ok(err);
    }
    if (own_arrays(G, n, 2 * A->nnz))
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for the graph of A + A^T (%lld rows)",
                         (long long)n);
    int64_t *pos = G->own_end; /* degrees first, then fill positions */
#pragma omp parallel num_threads(T)
    {
#pragma omp for schedule(static)
        for (int64_t i = 0; i <= n; i++) pos[i] = 0;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->colind[k] != i) {
                    __atomic_fetch_add(&pos[i], 1, __ATOMIC_RELAXED);
                    __atomic_fetch_add(&pos[A->colind[k]], 1, __ATOMIC_RELAXED);
                }
    }
    starts(G, n, T);
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t i = 0; i < n; i++) /* each list in no fixed order here: sorted below */
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t j = A->colind[k];
            if (j == i) continue;
            G->own_adj[__atomic_fetch_add(&pos[i], 1, __ATOMIC_RELAXED)] = j;
            G->own_adj[__atomic_fetch_add(&pos[j], 1, __ATOMIC_RELAXED)] = (int32_t)i;
        }
#pragma omp parallel for schedule(dynamic, 4096) num_threads(T)
    for (int64_t i = 0; i < n; i++) { /* sorted, each neighbour once: end[i] marks the kept ones */
        int32_t *a = G->own_adj + G->own_beg[i];
        int64_t len = G->own_beg[i + 1] - G->own_beg[i], m = 0;
        qsort(a, (size_t)len, sizeof(int32_t), cmp_i32);
        for (int64_t t = 0; t < len; t++)
            if (m == 0 || a[t] != a[m - 1]) a[m++] = a[t];
        G->own_end[i] = G->own_beg[i] + m;
    }
    G->beg = G->own_beg;
    G->end = G->own_end;
    G->adj = G->own_adj;
    return hspmv_ok(err);
}

int hspmv_graph_bipartite(const hspmv_csr *A, int threads, hspmv_graph *G, hspmv_error *err)
{
    int64_t nr = A->nrows, nc = A->ncols, n = nr + nc;
    int T = hspmv_order_threads(threads);
    memset(G, 0, sizeof(*G));
    if (n >= INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reordering: a %lld x %lld matrix has more than 2^31-1 rows and "
                         "columns together (the bipartite graph's 32-bit nodes)", (long long)nr, (long long)nc);
    G->n = n;
    if (own_arrays(G, n, 2 * A->nnz))
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for the bipartite graph (%lld nodes)",
                         (long long)n);
    int64_t *pos = G->own_end;
#pragma omp parallel num_threads(T)
    {
#pragma omp for schedule(static)
        for (int64_t v = 0; v <= n; v++) pos[v] = v < nr ? A->rowptr[v + 1] - A->rowptr[v] : 0;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < A->nnz; k++) __atomic_fetch_add(&pos[nr + A->colind[k]], 1, __ATOMIC_RELAXED);
    }
    starts(G, n, T);
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t i = 0; i < nr; i++) /* a row's columns in its order, a column's rows in none (RCM needs none) */
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t c = nr + A->colind[k];
            G->own_adj[G->own_beg[i] + (k - A->rowptr[i])] = (int32_t)c;
            G->own_adj[__atomic_fetch_add(&pos[c], 1, __ATOMIC_RELAXED)] = (int32_t)i;
        }
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t i = 0; i < nr; i++) pos[i] = G->own_beg[i + 1];
    G->beg = G->own_beg;
    G->end = G->own_end; /* pos[v] has reached beg[v+1] */
    G->adj = G->own_adj;
    return hspmv_ok(err);
}
