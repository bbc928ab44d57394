/* gen_rows.c — the rows of genmat's matrices (gen_rows.h): stencils, the
   FEM-like mesh, bands and blocks, random and power-law rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen_rows.h"

void gen_default(gen_spec *s)
{
    memset(s, 0, sizeof(*s));
    s->k = 8;
    s->w = 32;
    s->dof = 3;
    s->alpha = 2.1;
    s->seed = 42;
}

int gen_class(const char *kind)
{
    if (!kind) return 0;
    if (!strcmp(kind, "lap2d") || !strcmp(kind, "lap3d") || !strcmp(kind, "lap3d27")) return 's';
    if (!strcmp(kind, "fem3d")) return 'f';
    if (!strcmp(kind, "banded") || !strcmp(kind, "blocks")) return 'b';
    if (!strcmp(kind, "random") || !strcmp(kind, "powerlaw")) return 'r';
    return 0;
}

/* Rows of a grid of side n, or -1 when past 2^31-1. */
static int64_t grid_rows(int dim, int64_t n)
{
    int64_t r = n * n; /* n <= 2^31-1: n*n fits in int64 */
    if (dim == 3) r = r > INT32_MAX ? INT32_MAX + (int64_t)1 : r * n;
    return r > INT32_MAX ? -1 : r;
}

int64_t gen_rows(const gen_spec *s)
{
    int c = gen_class(s->kind);
    if (c == 's') return grid_rows(!strcmp(s->kind, "lap2d") ? 2 : 3, s->n);
    if (c == 'f') {
        int64_t r = grid_rows(3, s->n);
        return r < 0 || r > INT32_MAX / s->dof ? -1 : r * s->dof;
    }
    return c ? s->n : -1;
}

/* splitmix64 step on *state */
static uint64_t mix_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A random kind's value: [-1, 1) (--values random, printed with 9 digits)
   or m/256 with |m| < 256. */
static double rand_val(uint64_t *state, int realv)
{
    uint64_t z = mix_next(state);
    if (realv) return (double)(z >> 11) * 0x1.0p-52 - 1.0;
    return (double)((int64_t)(z % 511) - 255) / 256.0;
}

/* --values random: a value in [0,1) from the seed and the unordered pair
   {i, j}, so that a[i][j] == a[j][i] wherever the row is made. */
static double pair_u(const gen_spec *s, int64_t i, int64_t j)
{
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    uint64_t z = s->seed * 0x9e3779b97f4a7c15ULL ^ (lo * 0xbf58476d1ce4e5b9ULL + hi);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* The value of entry (i, j) of a stencil, band or block matrix whose
   two-valued form is `plain`; maxoff bounds the count of off-diagonals of a row. */
static double spd_value(const gen_spec *s, int64_t i, int64_t j, double plain, int64_t maxoff)
{
    if (!s->realv) return plain;
    if (i != j) return -(0.5 + pair_u(s, i, j));
    return 1.5 * (double)maxoff + 0.5 + pair_u(s, i, i);
}

int gen_buf_reserve(gen_buf *b, int64_t need)
{
    if (need <= b->cap) return 0;
    int64_t cap = need > 2 * b->cap ? need : 2 * b->cap;
    int64_t *c = realloc(b->cols, (size_t)cap * sizeof(int64_t));
    if (c) b->cols = c;
    double *v = c ? realloc(b->vals, (size_t)cap * sizeof(double)) : NULL;
    if (v) b->vals = v;
    if (!c || !v) return -1;
    b->cap = cap;
    return 0;
}

void gen_buf_free(gen_buf *b)
{
    free(b->cols);
    free(b->vals);
    memset(b, 0, sizeof(*b));
}

static void put(gen_buf *b, int64_t *cnt, int want_vals, int64_t j, double v)
{
    b->cols[*cnt] = j;
    if (want_vals) b->vals[*cnt] = v;
    (*cnt)++;
}

static int64_t stencil_row(const gen_spec *s, int64_t i, gen_buf *b, int want_vals)
{
    int64_t n = s->n, cnt = 0;
    int dim = !strcmp(s->kind, "lap2d") ? 2 : 3, full = !strcmp(s->kind, "lap3d27");
    int64_t x = i % n, y = (i / n) % n, z = dim == 3 ? i / (n * n) : 0;
    if (gen_buf_reserve(b, 27)) return -1;
    for (int dz = (dim == 3 ? -1 : 0); dz <= (dim == 3 ? 1 : 0); dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int far = abs(dx) + abs(dy) + abs(dz);
                if (!full && far > 1) continue;
                int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
                int64_t j = xx + n * (yy + n * zz);
                if (s->sym && j > i) continue;
                put(b, &cnt, want_vals, j,
                    spd_value(s, i, j, far == 0 ? (full ? 26 : 2 * dim) : -1, full ? 26 : 2 * dim));
            }
    return cnt;
}

/* fem3d: node numbers of the grid's nodes (fem_num[g], g = x + n*(y + n*z))
   and the grid node of each number (fem_node), a random permutation within
   each window of FEM_WIN consecutive grid nodes. */
enum { FEM_WIN = 256 };

static int fem_numbering(gen_spec *s, int64_t nodes)
{
    uint64_t z = s->seed ^ 0x2545f4914f6cdd1dULL;
    if (!(s->fem_num = malloc((size_t)nodes * sizeof(int32_t))) || !(s->fem_node = malloc((size_t)nodes * sizeof(int32_t))))
        return -1;
    for (int64_t g = 0; g < nodes; g++) s->fem_node[g] = (int32_t)g;
    for (int64_t w0 = 0; w0 < nodes; w0 += FEM_WIN) { /* Fisher-Yates within the window */
        int64_t m = nodes - w0 < FEM_WIN ? nodes - w0 : FEM_WIN;
        for (int64_t t = m - 1; t > 0; t--) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t u = (int64_t)((z >> 33) % (uint64_t)(t + 1));
            int32_t a = s->fem_node[w0 + t];
            s->fem_node[w0 + t] = s->fem_node[w0 + u];
            s->fem_node[w0 + u] = a;
        }
    }
    for (int64_t p = 0; p < nodes; p++) s->fem_num[s->fem_node[p]] = (int32_t)p;
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Row i of fem3d: unknown i % D of node number i / D, coupled to every
   unknown of itself and of its up to 26 grid neighbours, columns ascending. */
static int64_t fem_row(const gen_spec *s, int64_t i, gen_buf *b, int want_vals)
{
    int64_t n = s->n, D = s->dof, g = s->fem_node[i / D], cnt = 0, maxoff = 27 * D - 1;
    int64_t x = g % n, y = (g / n) % n, z = g / (n * n);
    int32_t nb[27];
    int m = 0;
    if (gen_buf_reserve(b, 27 * D)) return -1;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
                nb[m++] = s->fem_num[xx + n * (yy + n * zz)];
            }
    qsort(nb, (size_t)m, sizeof(*nb), cmp_i32);
    for (int t = 0; t < m; t++)
        for (int64_t d = 0; d < D; d++) {
            int64_t j = (int64_t)nb[t] * D + d;
            if (s->sym && j > i) return cnt;
            put(b, &cnt, want_vals, j, spd_value(s, i, j, j == i ? (double)(maxoff + 1) : -1, maxoff));
        }
    return cnt;
}

static int64_t band_row(const gen_spec *s, int64_t i, gen_buf *b, int want_vals)
{
    int64_t lo = i - s->w < 0 ? 0 : i - s->w, hi = i + s->w >= s->n ? s->n - 1 : i + s->w, cnt = 0;
    int blocks = !strcmp(s->kind, "blocks");
    if (gen_buf_reserve(b, 2 * s->w + 3)) return -1;
    if (blocks) { /* dense block; its first row couples to the previous block's last */
        lo = i / s->w * s->w;
        hi = lo + s->w - 1 < s->n - 1 ? lo + s->w - 1 : s->n - 1;
        if (lo > 0 && i == lo) put(b, &cnt, want_vals, lo - 1, s->realv ? spd_value(s, i, lo - 1, 0, 0) : -0.5);
    }
    for (int64_t j = lo; j <= hi; j++) {
        if (s->sym && j > i) break;
        /* -1 off the diagonal, 2W+1 on it: strictly diagonally dominant, so SPD */
        put(b, &cnt, want_vals, j, spd_value(s, i, j, j == i ? 2.0 * (double)s->w + 1 : -1.0, 2 * s->w + 2));
    }
    /* ... and the mirror of that pair: A == A^T */
    if (blocks && hi + 1 < s->n && !s->sym && i == hi)
        put(b, &cnt, want_vals, hi + 1, s->realv ? spd_value(s, i, hi + 1, 0, 0) : -0.5);
    return cnt;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Random rows: distinct sorted columns, length from the kind (powerlaw:
   Pareto, P(len > t) ~ t^-(alpha-1), scaled to a mean of about k). Their
   draws come from *rng, their values from *val. */
static int64_t random_row(const gen_spec *s, int64_t i, gen_buf *b, int want_vals, uint64_t *rng, uint64_t *val)
{
    int64_t len = s->k, m = 0;
    if (strcmp(s->kind, "random")) {
        double u = (double)(mix_next(rng) >> 11) * 0x1.0p-53, a = s->alpha;
        double xm = (double)s->k * (a - 1) / a; /* Pareto mean = xm*a/(a-1) */
        if (xm < 1) xm = 1;
        double l = xm / pow(1 - u, 1 / (a - 1));
        len = l > (double)s->n ? s->n : (int64_t)l;
    }
    if (len > s->n) len = s->n;
    if (gen_buf_reserve(b, len)) return -1;
    while (m < len) {
        for (int64_t t = m; t < len; t++) b->cols[t] = (int64_t)(mix_next(rng) % (uint64_t)s->n);
        qsort(b->cols, (size_t)len, sizeof(*b->cols), cmp_i64);
        m = 0;
        for (int64_t t = 0; t < len; t++)
            if (m == 0 || b->cols[t] != b->cols[m - 1]) b->cols[m++] = b->cols[t];
        if (len > s->n / 2) break; /* accept fewer distinct for near-dense rows */
    }
    if (want_vals)
        for (int64_t t = 0; t < m; t++) b->vals[t] = rand_val(val, s->realv) + (b->cols[t] == i ? 4 : 0);
    return m;
}

int gen_prepare(gen_spec *s)
{
    s->rng_state = s->seed;
    s->val_state = 7; /* the value stream genmat always started from (--rng stream) */
    if (gen_class(s->kind) == 'f' && !s->fem_num) return fem_numbering(s, gen_rows(s) / s->dof);
    return 0;
}

void gen_release(gen_spec *s)
{
    free(s->fem_num);
    free(s->fem_node);
    s->fem_num = s->fem_node = NULL;
}

int64_t gen_row(gen_spec *s, int64_t i, gen_buf *b, int want_vals)
{
    switch (gen_class(s->kind)) {
    case 's': return stencil_row(s, i, b, want_vals);
    case 'f': return fem_row(s, i, b, want_vals);
    case 'b': return band_row(s, i, b, want_vals);
    case 'r':
        if (s->stream) return random_row(s, i, b, want_vals, &s->rng_state, &s->val_state);
        else { /* the row's own streams: from the seed and the row number only */
            uint64_t r = s->seed ^ ((uint64_t)i * 0xd1b54a32d192ed03ULL), v;
            r = mix_next(&r);
            v = r ^ 0x8bb84b93962eacc9ULL;
            return random_row(s, i, b, want_vals, &r, &v);
        }
    }
    return -1;
}

int gen_digits(const gen_spec *s) { return s->realv ? 9 : 8; }

double gen_as_written(const gen_spec *s, double v)
{
    char t[40];
    if (v == (double)(int64_t)v) return v;
    snprintf(t, sizeof(t), "%.*g", gen_digits(s), v);
    return strtod(t, NULL);
}
