/* mpi_gpu_gen.c — matrices generated row block by row block (each rank
   its own rows, no file): 2D and 3D Laplacians, bands, uniform random
   columns; every row a function of its index and the seed alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_gpu.h"
#include "alloc.h"
#include "util.h"

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A value in [0,1) from the seed and the unordered pair {i, j}. */
static double pair_u(uint64_t seed, int64_t i, int64_t j)
{
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    return (double)(mix(seed * 0x9e3779b97f4a7c15ULL ^ (lo * 0xbf58476d1ce4e5b9ULL + hi)) >> 11) * 0x1.0p-53;
}

int64_t mg_gen_rows(const mg_gen *g)
{
    int64_t n = g->n, r;
    if (!g->kind || n < 1) return -1;
    if (!strcmp(g->kind, "lap2d")) r = n > 46341 ? -1 : n * n;
    else if (!strcmp(g->kind, "lap3d")) r = n > 1291 ? -1 : n * n * n;
    else if (!strcmp(g->kind, "random") || !strcmp(g->kind, "banded")) r = n;
    else return -1;
    return r > 0 && r <= INT32_MAX ? r : -1;
}

void mg_gen_name(const mg_gen *g, char *buf, size_t len)
{
    if (!strcmp(g->kind, "random")) snprintf(buf, len, "random-%lld-k%d", (long long)g->n, g->k);
    else if (!strcmp(g->kind, "banded")) snprintf(buf, len, "banded-%lld-w%d", (long long)g->n, g->w);
    else snprintf(buf, len, "%s-%lld%s", g->kind, (long long)g->n, g->random_values ? "-rv" : "");
}

/* Row i's columns (ascending) and values; returns its length. */
static int64_t gen_row(const mg_gen *g, int64_t nrows, int64_t i, int32_t *c, hspmv_real *v)
{
    int64_t n = g->n, m = 0;
    if (!strcmp(g->kind, "random")) {
        uint64_t s = mix(g->seed ^ (0x9fb21c651e98df25ULL * (uint64_t)(i + 1)));
        int64_t k = g->k < nrows ? g->k : nrows;
        while (m < k) { /* distinct columns, kept sorted by insertion */
            s = mix(s + 0x9e3779b97f4a7c15ULL);
            int32_t col = (int32_t)(s % (uint64_t)nrows);
            int64_t t = m;
            while (t > 0 && c[t - 1] > col) t--;
            if (t > 0 && c[t - 1] == col) continue;
            memmove(c + t + 1, c + t, sizeof(*c) * (size_t)(m - t));
            c[t] = col;
            m++;
        }
        for (int64_t t = 0; t < m; t++) {
            s = mix(s + 0x9e3779b97f4a7c15ULL);
            v[t] = (hspmv_real)(2.0 * (double)(s >> 11) * 0x1.0p-53 - 1.0);
        }
        return m;
    }
    int64_t nb[7], cnt = 0, maxoff;
    if (!strcmp(g->kind, "banded")) {
        for (int64_t j = i - g->w; j <= i + g->w; j++)
            if (j >= 0 && j < nrows) c[m++] = (int32_t)j;
        maxoff = 2 * (int64_t)g->w;
    } else {
        int dim = !strcmp(g->kind, "lap3d") ? 3 : 2;
        int64_t x = i % n, y = (i / n) % n, z = dim == 3 ? i / (n * n) : 0;
        if (dim == 3 && z > 0) nb[cnt++] = i - n * n;
        if (y > 0) nb[cnt++] = i - n;
        if (x > 0) nb[cnt++] = i - 1;
        nb[cnt++] = i;
        if (x < n - 1) nb[cnt++] = i + 1;
        if (y < n - 1) nb[cnt++] = i + n;
        if (dim == 3 && z < n - 1) nb[cnt++] = i + n * n;
        for (int64_t t = 0; t < cnt; t++) c[m++] = (int32_t)nb[t];
        maxoff = 2 * dim;
    }
    for (int64_t t = 0; t < m; t++) {
        int64_t j = c[t];
        if (j == i) v[t] = g->random_values ? (hspmv_real)(1.5 * (double)maxoff + 1) : (hspmv_real)maxoff;
        else v[t] = g->random_values ? (hspmv_real)(-0.5 - pair_u(g->seed, i, j)) : (hspmv_real)-1;
    }
    return m;
}

static int64_t row_cap(const mg_gen *g)
{
    if (!strcmp(g->kind, "random")) return g->k;
    if (!strcmp(g->kind, "banded")) return 2 * (int64_t)g->w + 1;
    return 7;
}

int mg_gen_slice(const mg_gen *g, int64_t b, int64_t e, hspmv_csr *S, hspmv_error *err)
{
    int64_t nrows = mg_gen_rows(g), n = e - b, cap = row_cap(g);
    memset(S, 0, sizeof(*S));
    if (nrows < 0 || b < 0 || e > nrows || b > e || cap < 1)
        return hspmv_err(err, HSPMV_ERR_ARG, "--gen %s %lld: not a matrix this program makes", g->kind ? g->kind : "?",
                         (long long)g->n);
    S->nrows = n;
    S->ncols = nrows;
    S->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(n * cap > 0 ? n * cap : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(n * cap > 0 ? n * cap : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val) {
        hspmv_csr_free(S);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "--gen: out of memory for %lld rows", (long long)n);
    }
    /* rows at cap spacing in parallel, then compacted */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        S->rowptr[i + 1] = gen_row(g, nrows, b + i, S->colind + i * cap, S->val + i * cap);
    S->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = S->rowptr[i + 1], at = S->rowptr[i];
        if (at != i * cap) {
            memmove(S->colind + at, S->colind + i * cap, sizeof(int32_t) * (size_t)len);
            memmove(S->val + at, S->val + i * cap, sizeof(hspmv_real) * (size_t)len);
        }
        S->rowptr[i + 1] = at + len;
    }
    S->nnz = S->rowptr[n];
    return hspmv_ok(err);
}
