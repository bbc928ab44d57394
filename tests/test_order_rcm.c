/* test_order_rcm.c — the threaded reverse Cuthill-McKee (src/order) gives
   exactly the order of the serial algorithm kept here as the reference
   (George-Liu start, children by ascending degree then index, components
   by their least node, the whole order reversed), at 1, 2, 3 and 7
   threads, with every level taken by the whole team and with the default
   split: shuffled 7-point, 27-point and fem3d meshes, random columns,
   several components with isolated nodes, a path, a star, a rectangular
   matrix, 1 x 1, empty and entry-free matrices; auto's early stop on an
   expander agrees too; a long path takes linear time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "order.h"
#include "testlib.h"
#include "../bench/gen_rows.h"

/* ---- the reference: the serial algorithm, on a graph of its own ---- */

typedef struct ref_graph {
    int64_t n, *beg;
    int32_t *adj;
} ref_graph;

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Square: A + A^T without the diagonal, each neighbour once; else the
   bipartite graph (rows 0..nrows-1, columns after). */
static void ref_graph_of(const hspmv_csr *A, ref_graph *G)
{
    int square = A->nrows == A->ncols;
    int64_t n = square ? A->nrows : A->nrows + A->ncols, off = square ? 0 : A->nrows, *fill;
    G->n = n;
    G->beg = calloc((size_t)n + 2, sizeof(int64_t));
    G->adj = malloc(2 * (size_t)A->nnz * sizeof(int32_t) + 4);
    fill = calloc((size_t)n + 1, sizeof(int64_t));
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!square || A->colind[k] != i) G->beg[i + 1]++, G->beg[off + A->colind[k] + 1]++;
    for (int64_t v = 0; v < n; v++) G->beg[v + 1] += G->beg[v], fill[v] = G->beg[v];
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t j = off + A->colind[k];
            if (j == i) continue;
            G->adj[fill[i]++] = (int32_t)j;
            G->adj[fill[j]++] = (int32_t)i;
        }
    int64_t z = 0; /* sorted, duplicates dropped, compacted */
    for (int64_t v = 0; v < n; v++) {
        int64_t b = G->beg[v], e = G->beg[v + 1], s = z;
        qsort(G->adj + b, (size_t)(e - b), sizeof(int32_t), cmp_i32);
        for (int64_t t = b; t < e; t++)
            if (z == s || G->adj[t] != G->adj[z - 1]) G->adj[z++] = G->adj[t];
        G->beg[v] = s;
    }
    G->beg[n] = z;
    free(fill);
}

typedef struct ref_ws {
    const ref_graph *G;
    int64_t *mark, stamp, *q, *deg;
    char *done;
} ref_ws;

static int64_t ref_bfs(ref_ws *W, int64_t r, int64_t *last, int64_t *len)
{
    int64_t head = 0, tail = 0, depth = 0, lvl_start = 0;
    W->stamp++;
    W->q[tail++] = r;
    W->mark[r] = W->stamp;
    while (head < tail) {
        int64_t lvl_end = tail;
        lvl_start = head;
        for (; head < lvl_end; head++)
            for (int64_t k = W->G->beg[W->q[head]]; k < W->G->beg[W->q[head] + 1]; k++) {
                int64_t u = W->G->adj[k];
                if (W->mark[u] != W->stamp) W->mark[u] = W->stamp, W->q[tail++] = u;
            }
        if (tail > lvl_end) depth++;
    }
    *last = lvl_start;
    *len = tail;
    return depth;
}

static int64_t ref_start(ref_ws *W, int64_t r, double *limit, int *hopeless)
{
    int64_t last, len, depth = ref_bfs(W, r, &last, &len);
    if (*limit > 0 && (double)len / (double)(depth + 1) > *limit) return *hopeless = 1, r;
    *limit = 0;
    for (int it = 0; it < 16; it++) {
        int64_t best = -1;
        for (int64_t t = last; t < len; t++) {
            int64_t v = W->q[t];
            if (best < 0 || W->deg[v] < W->deg[best] || (W->deg[v] == W->deg[best] && v < best)) best = v;
        }
        if (best < 0 || best == r) break;
        int64_t last2, len2, d2 = ref_bfs(W, best, &last2, &len2);
        if (d2 <= depth) break;
        r = best, depth = d2, last = last2, len = len2;
    }
    return r;
}

static const int64_t *ref_deg;
static int cmp_by_deg(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (ref_deg[x] != ref_deg[y]) return ref_deg[x] < ref_deg[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* rp, cp as hspmv_order_rcm_within gives them; returns hopeless. */
static int ref_rcm(const hspmv_csr *A, double limit, int64_t *rp, int64_t *cp)
{
    ref_graph G;
    ref_graph_of(A, &G);
    int64_t n = G.n, pos = 0, *order = malloc((size_t)n * 8 + 8);
    ref_ws W = {&G, calloc((size_t)n + 1, 8), 0, malloc((size_t)n * 8 + 8), malloc((size_t)n * 8 + 8), calloc((size_t)n + 1, 1)};
    int hopeless = 0;
    for (int64_t v = 0; v < n; v++) W.deg[v] = G.beg[v + 1] - G.beg[v];
    ref_deg = W.deg;
    for (int64_t v = 0; v < n && !hopeless; v++) {
        if (W.done[v]) continue;
        if (W.deg[v] == 0) {
            W.done[v] = 1, order[pos++] = v;
            continue;
        }
        int64_t s = ref_start(&W, v, &limit, &hopeless), head = pos;
        if (hopeless) break;
        order[pos++] = s, W.done[s] = 1;
        while (head < pos) {
            int64_t u = order[head++], first = pos;
            for (int64_t k = G.beg[u]; k < G.beg[u + 1]; k++)
                if (!W.done[G.adj[k]]) W.done[G.adj[k]] = 1, order[pos++] = G.adj[k];
            qsort(order + first, (size_t)(pos - first), sizeof(int64_t), cmp_by_deg);
        }
    }
    if (!hopeless) {
        int64_t ir = 0, ic = 0;
        for (int64_t k = n - 1; k >= 0; k--) {
            if (A->nrows == A->ncols) rp[ir] = cp[ir] = order[k], ir++;
            else if (order[k] < A->nrows) rp[ir++] = order[k];
            else cp[ic++] = order[k] - A->nrows;
        }
    }
    free(order), free(W.mark), free(W.q), free(W.deg), free(W.done), free(G.beg), free(G.adj);
    return hopeless;
}

/* ---- matrices ---- */

/* genmat's matrix of kind and size (bench/gen_rows.c), values as made. */
static void gen(hspmv_csr *A, const char *kind, int64_t size)
{
    gen_spec s;
    gen_buf b = {0};
    gen_default(&s);
    s.kind = kind, s.n = size;
    CHECK(gen_prepare(&s) == 0, "%s %lld", kind, (long long)size);
    int64_t n = gen_rows(&s), cap = 0, z = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc(((size_t)n + 1) * sizeof(int64_t));
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t m = gen_row(&s, i, &b, 1);
        if (z + m > cap) {
            cap = 2 * (z + m);
            A->colind = realloc(A->colind, (size_t)cap * sizeof(int32_t));
            A->val = realloc(A->val, (size_t)cap * sizeof(hspmv_real));
        }
        for (int64_t t = 0; t < m; t++) A->colind[z + t] = (int32_t)b.cols[t], A->val[z + t] = (hspmv_real)b.vals[t];
        z += m;
        A->rowptr[i + 1] = z;
    }
    A->nnz = z;
    /* owned by hspmv_free from here: copy out of realloc's blocks */
    int32_t *c = hspmv_malloc((size_t)z * sizeof(int32_t) + 4);
    hspmv_real *v = hspmv_malloc((size_t)z * sizeof(hspmv_real) + 8);
    memcpy(c, A->colind, (size_t)z * sizeof(int32_t)), memcpy(v, A->val, (size_t)z * sizeof(hspmv_real));
    free(A->colind), free(A->val);
    A->colind = c, A->val = v;
    gen_buf_free(&b);
    gen_release(&s);
}

/* A made from the edge list (i, j) of an m x n pattern, values 1. */
static void from_edges(hspmv_csr *A, int64_t m, int64_t n, const int64_t *e, int64_t ne)
{
    memset(A, 0, sizeof(*A));
    A->nrows = m, A->ncols = n;
    A->rowptr = hspmv_malloc(((size_t)m + 1) * sizeof(int64_t));
    A->colind = hspmv_malloc((size_t)ne * sizeof(int32_t) + 4);
    A->val = hspmv_malloc((size_t)ne * sizeof(hspmv_real) + 8);
    memset(A->rowptr, 0, ((size_t)m + 1) * sizeof(int64_t));
    for (int64_t t = 0; t < ne; t++) A->rowptr[e[2 * t] + 1]++;
    for (int64_t i = 0; i < m; i++) A->rowptr[i + 1] += A->rowptr[i];
    int64_t *fill = malloc(((size_t)m + 1) * sizeof(int64_t));
    memcpy(fill, A->rowptr, ((size_t)m + 1) * sizeof(int64_t));
    for (int64_t t = 0; t < ne; t++) A->colind[fill[e[2 * t]]++] = (int32_t)e[2 * t + 1], A->val[t] = 1;
    for (int64_t i = 0; i < m; i++)
        qsort(A->colind + A->rowptr[i], (size_t)(A->rowptr[i + 1] - A->rowptr[i]), sizeof(int32_t), cmp_i32);
    A->nnz = ne;
    free(fill);
}

static void shuffle(hspmv_csr *A, uint64_t seed)
{
    hspmv_csr B;
    int64_t *p = malloc(((size_t)A->nrows + 1) * 8), *q = malloc(((size_t)A->ncols + 1) * 8);
    hspmv_order_random(p, A->nrows, seed);
    hspmv_order_random(q, A->ncols, A->nrows == A->ncols ? seed : seed + 1);
    CHECK(hspmv_order_apply(A, p, q, 0, &B, NULL) == HSPMV_OK, "shuffle");
    hspmv_csr_free(A);
    *A = B;
    free(p), free(q);
}

/* ---- the comparison ---- */

static const int threads[] = {1, 2, 3, 7};

/* The library's order at each thread count, every level by the team and
   the default split, equals the reference's, entry for entry. */
static void same_as_reference(const hspmv_csr *A, double limit, const char *name)
{
    int64_t m = A->nrows, n = A->ncols;
    int64_t *rr = malloc((size_t)m * 8 + 8), *rc = malloc((size_t)n * 8 + 8);
    int64_t *rp = malloc((size_t)m * 8 + 8), *cp = malloc((size_t)n * 8 + 8);
    int ref_hopeless = ref_rcm(A, limit, rr, rc);
    for (int t = 0; t < (int)(sizeof(threads) / sizeof(threads[0])); t++)
        for (int64_t below = 1; below >= 0; below--) {
            hspmv_rcm_opts o = {limit, threads[t], below};
            hspmv_error e;
            int hopeless = -1;
            for (int64_t k = 0; k < m; k++) rp[k] = -1;
            for (int64_t k = 0; k < n; k++) cp[k] = -1;
            CHECK(hspmv_order_rcm_within(A, rp, cp, &o, &hopeless, &e) == HSPMV_OK, "%s: %s", name, e.msg);
            CHECK(hopeless == ref_hopeless, "%s, %d threads, serial_below %lld: hopeless %d, the reference %d", name,
                  threads[t], (long long)below, hopeless, ref_hopeless);
            if (hopeless || ref_hopeless) continue;
            int64_t bad = -1;
            for (int64_t k = 0; k < m && bad < 0; k++)
                if (rp[k] != rr[k]) bad = k;
            CHECK(bad < 0, "%s, %d threads, serial_below %lld: row order differs at %lld (%lld, reference %lld)", name,
                  threads[t], (long long)below, (long long)bad, (long long)(bad >= 0 ? rp[bad] : 0),
                  (long long)(bad >= 0 ? rr[bad] : 0));
            bad = -1;
            for (int64_t k = 0; k < n && bad < 0; k++)
                if (cp[k] != rc[k]) bad = k;
            CHECK(bad < 0, "%s, %d threads, serial_below %lld: column order differs at %lld", name, threads[t],
                  (long long)below, (long long)bad);
        }
    free(rr), free(rc), free(rp), free(cp);
}

static void test_meshes(void)
{
    static const struct {
        const char *kind;
        int64_t size;
    } meshes[] = {{"lap3d", 20}, {"lap3d27", 12}, {"fem3d", 6}, {"lap2d", 24}};
    for (int t = 0; t < 4; t++) {
        hspmv_csr A;
        char name[64];
        gen(&A, meshes[t].kind, meshes[t].size);
        snprintf(name, sizeof name, "%s %lld in grid order", meshes[t].kind, (long long)meshes[t].size);
        same_as_reference(&A, 0, name);
        shuffle(&A, 11 + (uint64_t)t);
        snprintf(name, sizeof name, "%s %lld shuffled", meshes[t].kind, (long long)meshes[t].size);
        same_as_reference(&A, 0, name);
        same_as_reference(&A, 1e9, name); /* auto's limit, not reached */
        hspmv_csr_free(&A);
    }
}

static void test_random_columns(void)
{
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 3000, 3000, NULL, 6, 0, 5) == HSPMV_OK, "random");
    same_as_reference(&A, 0, "random 3000 x 6");
    same_as_reference(&A, 4, "random 3000 x 6, auto's early stop"); /* an expander: gives up */
    hspmv_csr_free(&A);
    gen(&A, "powerlaw", 4000);
    same_as_reference(&A, 0, "powerlaw 4000");
    hspmv_csr_free(&A);
}

/* Three grids of different sizes, a path and a 2-node piece, isolated
   nodes (one with a diagonal entry only) among them, shuffled. */
static void test_components(void)
{
    int64_t n = 20 * 20 + 10 * 25 + 9 * 9 * 9 + 50 + 2 + 7, ne = 0, base = 0;
    int64_t *e = malloc((size_t)n * 16 * 8);
    for (int g = 0; g < 2; g++) {
        int64_t r = g ? 10 : 20, c = g ? 25 : 20;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++) {
                int64_t v = base + i * c + j;
                if (j + 1 < c) e[2 * ne] = v, e[2 * ne + 1] = v + 1, ne++, e[2 * ne] = v + 1, e[2 * ne + 1] = v, ne++;
                if (i + 1 < r) e[2 * ne] = v, e[2 * ne + 1] = v + c, ne++, e[2 * ne] = v + c, e[2 * ne + 1] = v, ne++;
            }
        base += r * c;
    }
    for (int64_t i = 0; i < 729; i++) { /* a 9^3 cube, 7 points */
        int64_t x = i % 9, y = i / 9 % 9, z = i / 81, v = base + i;
        if (x < 8) e[2 * ne] = v, e[2 * ne + 1] = v + 1, ne++, e[2 * ne] = v + 1, e[2 * ne + 1] = v, ne++;
        if (y < 8) e[2 * ne] = v, e[2 * ne + 1] = v + 9, ne++, e[2 * ne] = v + 9, e[2 * ne + 1] = v, ne++;
        if (z < 8) e[2 * ne] = v, e[2 * ne + 1] = v + 81, ne++, e[2 * ne] = v + 81, e[2 * ne + 1] = v, ne++;
    }
    base += 729;
    for (int64_t i = 0; i + 1 < 50; i++) e[2 * ne] = base + i, e[2 * ne + 1] = base + i + 1, ne++; /* one-sided */
    base += 50;
    e[2 * ne] = base, e[2 * ne + 1] = base + 1, ne++;
    base += 2;
    e[2 * ne] = base, e[2 * ne + 1] = base, ne++; /* an isolated node with its diagonal */
    hspmv_csr A;
    from_edges(&A, n, n, e, ne);
    same_as_reference(&A, 0, "components in order");
    shuffle(&A, 3);
    same_as_reference(&A, 0, "components shuffled");
    hspmv_csr_free(&A);
    free(e);
}

static void test_shapes(void)
{
    int64_t n = 3000, *e = malloc((size_t)n * 4 * 8), ne = 0; /* edge room */
    hspmv_csr A;
    for (int64_t i = 0; i + 1 < 400; i++) e[2 * ne] = i, e[2 * ne + 1] = i + 1, ne++, e[2 * ne] = i + 1, e[2 * ne + 1] = i, ne++;
    from_edges(&A, 400, 400, e, ne);
    same_as_reference(&A, 0, "path 400");
    shuffle(&A, 7);
    same_as_reference(&A, 0, "path 400 shuffled");
    hspmv_csr_free(&A);
    ne = 0; /* a star: node 17 in the middle */
    for (int64_t i = 0; i < 3000; i++)
        if (i != 17) e[2 * ne] = i, e[2 * ne + 1] = 17, ne++, e[2 * ne] = 17, e[2 * ne + 1] = i, ne++;
    from_edges(&A, 3000, 3000, e, ne);
    same_as_reference(&A, 0, "star 3000");
    hspmv_csr_free(&A);
    ne = 0; /* rectangular: row i holds columns i and i + 1 (a bipartite path), a few rows empty */
    for (int64_t i = 0; i < 299; i++)
        if (i % 100 != 7) e[2 * ne] = i, e[2 * ne + 1] = i, ne++, e[2 * ne] = i, e[2 * ne + 1] = i + 1, ne++;
    from_edges(&A, 299, 301, e, ne);
    same_as_reference(&A, 0, "rectangular 299 x 301");
    shuffle(&A, 9);
    same_as_reference(&A, 0, "rectangular shuffled");
    hspmv_csr_free(&A);
    e[0] = e[1] = 0;
    from_edges(&A, 1, 1, e, 1);
    same_as_reference(&A, 0, "1 x 1");
    hspmv_csr_free(&A);
    from_edges(&A, 1, 1, e, 0);
    same_as_reference(&A, 0, "1 x 1 without entries");
    hspmv_csr_free(&A);
    from_edges(&A, 0, 0, e, 0);
    same_as_reference(&A, 0, "0 x 0");
    hspmv_csr_free(&A);
    from_edges(&A, 9, 9, e, 0);
    same_as_reference(&A, 0, "9 x 9 without entries");
    hspmv_csr_free(&A);
    free(e);
}

/* A path of 2^20 nodes has as many levels, each of one node: with the
   default split the team stays out of the way (linear time, well under
   the bound; the reference takes about 0.1 s). */
static void test_long_path(void)
{
    int64_t n = 1 << 20, *e = malloc((size_t)n * 4 * 8), ne = 0;
    hspmv_csr A;
    for (int64_t i = 0; i + 1 < n; i++) e[2 * ne] = i, e[2 * ne + 1] = i + 1, ne++, e[2 * ne] = i + 1, e[2 * ne + 1] = i, ne++;
    from_edges(&A, n, n, e, ne);
    shuffle(&A, 5);
    int64_t *rr = malloc((size_t)n * 8), *rc = malloc((size_t)n * 8), *rp = malloc((size_t)n * 8);
    ref_rcm(&A, 0, rr, rc);
    for (int t = 1; t < 4; t++) {
        hspmv_rcm_opts o = {0, threads[t], 0};
        int hopeless;
        double t0 = check_now();
        CHECK(hspmv_order_rcm_within(&A, rp, rp, &o, &hopeless, NULL) == HSPMV_OK, "long path");
        double s = check_now() - t0;
        CHECK(memcmp(rp, rr, (size_t)n * 8) == 0, "long path, %d threads: not the reference's order", threads[t]);
        CHECK(s < 10, "long path, %d threads: %.2f s", threads[t], s);
    }
    hspmv_csr_free(&A);
    free(e), free(rr), free(rc), free(rp);
}

int main(void)
{
    RUN(test_meshes);
    RUN(test_random_columns);
    RUN(test_components);
    RUN(test_shapes);
    RUN(test_long_path);
    CHECK_DONE();
}
