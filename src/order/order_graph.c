/* order_graph.c — the graphs the orderings walk: a square matrix's pattern
   made symmetric (A's own arrays when it already is), and the bipartite
   graph of rows and columns of a rectangular one. */
#include <stdlib.h>
#include <string.h>
#include "order_graph.h"
#include "util.h"

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
static int structurally_symmetric(const hspmv_csr *A)
{
    uint64_t s = 0, t = 0;
#pragma omp parallel for schedule(static) reduction(+ : s, t)
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

int hspmv_graph_symmetric(const hspmv_csr *A, hspmv_graph *G, hspmv_error *err)
{
    int64_t n = A->nrows;
    memset(G, 0, sizeof(*G));
    G->n = n;
    if (structurally_symmetric(A)) {
        G->beg = A->rowptr;
        G->end = A->rowptr + 1;
        G->adj = A->colind;
        return hspmv_ok(err);
    }
    G->own_beg = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    G->own_end = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    G->own_adj = hspmv_alloc_array(A->nnz > 0 ? 2 * (size_t)A->nnz : 1, sizeof(int32_t));
    if (!G->own_beg || !G->own_end || !G->own_adj) {
        hspmv_graph_free(G);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for the graph of A + A^T (%lld rows)",
                         (long long)n);
    }
    int64_t *cnt = G->own_end; /* degrees first, then fill positions */
    memset(cnt, 0, ((size_t)n + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != i) cnt[i]++, cnt[A->colind[k]]++;
    G->own_beg[0] = 0;
    for (int64_t i = 0; i < n; i++) G->own_beg[i + 1] = G->own_beg[i] + cnt[i], cnt[i] = G->own_beg[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t j = A->colind[k];
            if (j == i) continue;
            G->own_adj[cnt[i]++] = j;
            G->own_adj[cnt[j]++] = (int32_t)i;
        }
#pragma omp parallel for schedule(dynamic, 4096)
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

int hspmv_graph_bipartite(const hspmv_csr *A, hspmv_graph *G, hspmv_error *err)
{
    int64_t nr = A->nrows, nc = A->ncols, n = nr + nc;
    memset(G, 0, sizeof(*G));
    if (n >= INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reordering: a %lld x %lld matrix has more than 2^31-1 rows and "
                         "columns together (the bipartite graph's 32-bit nodes)", (long long)nr, (long long)nc);
    G->n = n;
    G->own_beg = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    G->own_end = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    G->own_adj = hspmv_alloc_array(A->nnz > 0 ? 2 * (size_t)A->nnz : 1, sizeof(int32_t));
    if (!G->own_beg || !G->own_end || !G->own_adj) {
        hspmv_graph_free(G);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for the bipartite graph (%lld nodes)",
                         (long long)n);
    }
    int64_t *pos = G->own_end;
    memset(pos, 0, ((size_t)n + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < nr; i++) pos[i] = A->rowptr[i + 1] - A->rowptr[i];
    for (int64_t k = 0; k < A->nnz; k++) pos[nr + A->colind[k]]++;
    G->own_beg[0] = 0;
    for (int64_t v = 0; v < n; v++) G->own_beg[v + 1] = G->own_beg[v] + pos[v], pos[v] = G->own_beg[v];
    for (int64_t i = 0; i < nr; i++) /* rows in order: each column's row list ascends */
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t c = nr + A->colind[k];
            G->own_adj[pos[i]++] = (int32_t)c;
            G->own_adj[pos[c]++] = (int32_t)i;
        }
    G->beg = G->own_beg;
    G->end = G->own_end; /* pos[v] has reached beg[v+1] */
    G->adj = G->own_adj;
    return hspmv_ok(err);
}
