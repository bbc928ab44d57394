/* genmat.c — writes the Matrix Market test matrices this project makes itself:
   stencil Laplacians, a FEM-like mesh matrix, banded matrices with long runs,
   random and power-law. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench_util.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: %s KIND SIZE [options] -o out.mtx\n"
        "  lap2d N         2D 5-point Laplacian on an N x N grid (SPD, 4 / -1)\n"
        "  lap3d N         3D 7-point Laplacian on an N^3 grid (SPD, 6 / -1)\n"
        "  lap3d27 N       3D 27-point stencil on an N^3 grid (SPD, 26 / -1)\n"
        "  fem3d N         FEM-like: the nodes of an N^3 grid, --dof D unknowns each\n"
        "                  (default 3, numbered consecutively), 27-point node coupling\n"
        "                  (rows of up to 27*D entries in runs of D columns), node\n"
        "                  numbers shuffled within windows of 256 (fixed seed), so rows\n"
        "                  share no offset pattern, as on an unstructured mesh (SPD,\n"
        "                  27*D / -1)\n"
        "  banded N        band of half-width --width W (default 32): rows are long runs\n"
        "                  of consecutive columns (CSRL's case); SPD\n"
        "  blocks N        block diagonal, dense --width W blocks, plus one symmetric\n"
        "                  coupling pair between neighbouring blocks; SPD\n"
        "  random N        --k K (default 8) uniform random columns per row\n"
        "  powerlaw N      row lengths from a power law (mean --k, exponent --alpha 2.1),\n"
        "                  random columns: a few very long rows\n"
        "options: --k K  --width W  --alpha A  --dof D  --seed S  --symmetric (write the\n"
        "  lower triangle with a symmetric header; stencil/fem3d/banded/blocks only)\n"
        "  -o FILE (default stdout)\n"
        "  --values stencil|random: stencil (default) writes the few values above;\n"
        "  random draws real values with 9 significant digits from a fixed seed (--seed):\n"
        "  stencil/fem3d/banded/blocks off-diagonals in [-1.5,-0.5), a[i][j] == a[j][i], and a\n"
        "  diagonal above the row's largest possible off-diagonal sum (still SPD);\n"
        "  random/powerlaw values in [-1,1) (+4 on the diagonal).\n", bu_invoked_name());
}

static uint64_t rng_state = 42;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Buffered output of "i j v" lines with hand-written integer formatting. */
static char obuf[1 << 20];
static size_t olen;
static FILE *out;
static const char *out_name = "standard output";
static const char *out_path; /* a regular file this run created: removed when writing fails */

/* A failed write (full disk, /dev/full, closed pipe): say why, remove the
   partial file, exit 1; a truncated matrix must never look written. */
static void write_failed(void)
{
    int e = errno;
    if (out_path) unlink(out_path);
    bu_fail_status(1, "writing %s: %s", out_name, strerror(e ? e : EIO));
}

static void flush(void)
{
    errno = 0;
    if (olen && fwrite(obuf, 1, olen, out) != olen) write_failed();
    olen = 0;
}

static void put_int(int64_t v)
{
    char t[24];
    int n = 0;
    if (v < 0) { obuf[olen++] = '-'; v = -v; }
    do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) obuf[olen++] = t[--n];
}

static int digits = 8; /* significant digits of a non-integer value (9 with --values random) */

/* Values are either small integers or m/256 with |m| < 256: exact in 8 digits. */
static void entry(int64_t i, int64_t j, double v)
{
    if (olen > sizeof(obuf) - 128) flush();
    put_int(i + 1);
    obuf[olen++] = ' ';
    put_int(j + 1);
    obuf[olen++] = ' ';
    if (v == (int64_t)v) put_int((int64_t)v);
    else olen += (size_t)snprintf(obuf + olen, 32, "%.*g", digits, v);
    obuf[olen++] = '\n';
}

/* Values come from their own stream so the count pass and the write pass
   draw the same columns. */
static uint64_t val_state = 7;
static double rand_val(int realv)
{
    uint64_t z = (val_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    if (realv) return (double)(z >> 11) * 0x1.0p-52 - 1.0; /* [-1, 1), printed with 9 digits */
    return (double)((int64_t)(z % 511) - 255) / 256.0;
}

typedef struct { const char *kind; int64_t n, k, w, dof; double alpha; int sym, realv; uint64_t seed; } spec;

/* --values random: a value in [0,1) from the seed and the unordered pair
   {i, j}, so that a[i][j] == a[j][i] and both passes see the same value. */
static double pair_u(const spec *s, int64_t i, int64_t j)
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
static double spd_value(const spec *s, int64_t i, int64_t j, double plain, int64_t maxoff)
{
    if (!s->realv) return plain;
    if (i != j) return -(0.5 + pair_u(s, i, j));
    return 1.5 * (double)maxoff + 0.5 + pair_u(s, i, i);
}

/* Emits the entries of row i (columns ascending). Returns the count when
   emit == 0 (used for the size line). sym keeps only j <= i. */
static int64_t stencil_row(const spec *s, int64_t i, int emit)
{
    int64_t n = s->n, cnt = 0;
    int dim = !strcmp(s->kind, "lap2d") ? 2 : 3, full = !strcmp(s->kind, "lap3d27");
    int64_t x = i % n, y = (i / n) % n, z = dim == 3 ? i / (n * n) : 0;
    for (int dz = (dim == 3 ? -1 : 0); dz <= (dim == 3 ? 1 : 0); dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int far = abs(dx) + abs(dy) + abs(dz);
                if (!full && far > 1) continue;
                int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
                int64_t j = xx + n * (yy + n * zz);
                if (s->sym && j > i) continue;
                cnt++;
                if (emit) entry(i, j, spd_value(s, i, j, far == 0 ? (full ? 26 : 2 * dim) : -1, full ? 26 : 2 * dim));
            }
    return cnt;
}

/* fem3d: node numbers of the grid's nodes (fem_num[g], g = x + n*(y + n*z))
   and the grid node of each number (fem_node), a random permutation within
   each window of FEM_WIN consecutive grid nodes. */
enum { FEM_WIN = 256 };
static int32_t *fem_num, *fem_node;

static void fem_numbering(int64_t nodes, uint64_t seed)
{
    uint64_t z = seed ^ 0x2545f4914f6cdd1dULL;
    if (!(fem_num = malloc((size_t)nodes * sizeof(int32_t))) || !(fem_node = malloc((size_t)nodes * sizeof(int32_t))))
        bu_fail_status(1, "out of memory for the numbering of %lld nodes", (long long)nodes);
    for (int64_t g = 0; g < nodes; g++) fem_node[g] = (int32_t)g;
    for (int64_t w0 = 0; w0 < nodes; w0 += FEM_WIN) { /* Fisher-Yates within the window */
        int64_t m = nodes - w0 < FEM_WIN ? nodes - w0 : FEM_WIN;
        for (int64_t t = m - 1; t > 0; t--) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t u = (int64_t)((z >> 33) % (uint64_t)(t + 1));
            int32_t a = fem_node[w0 + t];
            fem_node[w0 + t] = fem_node[w0 + u];
            fem_node[w0 + u] = a;
        }
    }
    for (int64_t p = 0; p < nodes; p++) fem_num[fem_node[p]] = (int32_t)p;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Row i of fem3d: unknown i % D of node number i / D, coupled to every
   unknown of itself and of its up to 26 grid neighbours, columns ascending. */
static int64_t fem_row(const spec *s, int64_t i, int emit)
{
    int64_t n = s->n, D = s->dof, g = fem_node[i / D], cnt = 0, maxoff = 27 * D - 1;
    int64_t x = g % n, y = (g / n) % n, z = g / (n * n);
    int32_t nb[27];
    int m = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
                nb[m++] = fem_num[xx + n * (yy + n * zz)];
            }
    qsort(nb, (size_t)m, sizeof(*nb), cmp_i32);
    for (int t = 0; t < m; t++)
        for (int64_t b = 0; b < D; b++) {
            int64_t j = (int64_t)nb[t] * D + b;
            if (s->sym && j > i) return cnt;
            cnt++;
            if (emit) entry(i, j, spd_value(s, i, j, j == i ? (double)(maxoff + 1) : -1, maxoff));
        }
    return cnt;
}

static int64_t band_row(const spec *s, int64_t i, int emit)
{
    int64_t lo = i - s->w < 0 ? 0 : i - s->w, hi = i + s->w >= s->n ? s->n - 1 : i + s->w, cnt = 0;
    if (!strcmp(s->kind, "blocks")) { /* dense block; its first row couples to the previous block's last */
        lo = i / s->w * s->w;
        hi = lo + s->w - 1 < s->n - 1 ? lo + s->w - 1 : s->n - 1;
        if (lo > 0 && i == lo) { cnt++; if (emit) entry(i, lo - 1, s->realv ? spd_value(s, i, lo - 1, 0, 0) : -0.5); }
    }
    for (int64_t j = lo; j <= hi; j++) {
        if (s->sym && j > i) break;
        cnt++;
        /* -1 off the diagonal, 2W+1 on it: strictly diagonally dominant, so SPD */
        if (emit) entry(i, j, spd_value(s, i, j, j == i ? 2.0 * (double)s->w + 1 : -1.0, 2 * s->w + 2));
    }
    /* ... and the mirror of that pair: A == A^T */
    if (!strcmp(s->kind, "blocks") && hi + 1 < s->n && !s->sym && i == hi) { cnt++; if (emit) entry(i, hi + 1, s->realv ? spd_value(s, i, hi + 1, 0, 0) : -0.5); }
    return cnt;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Random rows: distinct sorted columns, length from the kind. */
static int64_t random_len(const spec *s)
{
    if (!strcmp(s->kind, "random")) return s->k;
    /* Pareto: P(len > t) ~ t^-(alpha-1), scaled to mean about k */
    double u = (double)(rng() >> 11) * 0x1.0p-53, a = s->alpha;
    double xm = (double)s->k * (a - 1) / a; /* Pareto mean = xm*a/(a-1) */
    if (xm < 1) xm = 1;
    double len = xm / pow(1 - u, 1 / (a - 1));
    return len > (double)s->n ? s->n : (int64_t)len;
}

static int64_t random_row(const spec *s, int64_t i, int64_t *cols)
{
    int64_t len = random_len(s), m = 0;
    if (len > s->n) len = s->n;
    while (m < len) {
        for (int64_t t = m; t < len; t++) cols[t] = (int64_t)(rng() % (uint64_t)s->n);
        qsort(cols, (size_t)len, sizeof(*cols), cmp_i64);
        m = 0;
        for (int64_t t = 0; t < len; t++)
            if (m == 0 || cols[t] != cols[m - 1]) cols[m++] = cols[t];
        if (len > s->n / 2) break; /* accept fewer distinct for near-dense rows */
    }
    (void)i;
    return m;
}

/* Rows of a stencil kind of size n, or -1 when past 2^31-1. */
static int64_t stencil_rows(const char *kind, int64_t n)
{
    int64_t r = n * n; /* n <= 2^31-1: n*n fits in int64 */
    if (strcmp(kind, "lap2d")) r = r > INT32_MAX ? INT32_MAX + (int64_t)1 : r * n;
    return r > INT32_MAX ? -1 : r;
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "genmat"); /* --version: prints it and exits 0 */
    spec s = {NULL, 0, 8, 32, 3, 2.1, 0, 0, 42};
    const char *path = NULL;
    uint64_t seed = 42;
    int dof_given = 0;
    bu_set_prog("genmat");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-o")) path = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--k")) s.k = bu_parse_int(a, bu_value(argc, argv, &i), 1, INT32_MAX);
        else if (!strcmp(a, "--width")) s.w = bu_parse_int(a, bu_value(argc, argv, &i), 1, INT32_MAX);
        else if (!strcmp(a, "--dof")) { s.dof = bu_parse_int(a, bu_value(argc, argv, &i), 1, 9); dof_given = 1; }
        else if (!strcmp(a, "--alpha")) {
            s.alpha = bu_parse_real(a, v = bu_value(argc, argv, &i), 2, 1000);
            if (!(s.alpha > 2)) bu_fail("--alpha takes a number above 2 (a finite mean), not '%.40s'", v);
        } else if (!strcmp(a, "--seed")) seed = (uint64_t)bu_parse_int(a, bu_value(argc, argv, &i), 0, INT64_MAX);
        else if (!strcmp(a, "--symmetric")) s.sym = 1;
        else if (!strcmp(a, "--values")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "random")) s.realv = 1;
            else if (strcmp(v, "stencil")) bu_fail("--values takes stencil or random, not '%.40s'", v);
        } else if (a[0] == '-' && a[1]) bu_fail("unknown option '%.60s' (see genmat --help)", a);
        else if (!s.kind) s.kind = a;
        else if (!s.n) s.n = bu_parse_int("SIZE", a, 1, INT32_MAX);
        else bu_fail("unexpected argument '%.60s' (see genmat --help)", a);
    }
    int stencil = s.kind && (!strcmp(s.kind, "lap2d") || !strcmp(s.kind, "lap3d") || !strcmp(s.kind, "lap3d27"));
    int band = s.kind && (!strcmp(s.kind, "banded") || !strcmp(s.kind, "blocks"));
    int rnd = s.kind && (!strcmp(s.kind, "random") || !strcmp(s.kind, "powerlaw"));
    int fem = s.kind && !strcmp(s.kind, "fem3d");
    if (!s.kind) bu_fail("no KIND given (usage: %s KIND SIZE [options] -o out.mtx; see --help)", bu_invoked_name());
    if (!stencil && !band && !rnd && !fem)
        bu_fail("KIND takes lap2d, lap3d, lap3d27, fem3d, banded, blocks, random or powerlaw, not '%.40s'", s.kind);
    if (!s.n) bu_fail("no SIZE given (usage: %s KIND SIZE [options] -o out.mtx; see --help)", bu_invoked_name());
    if (rnd && s.sym) bu_fail("--symmetric is for stencil, fem3d, banded and blocks only, not %s", s.kind);
    if (!fem && dof_given) bu_fail("--dof is for fem3d only, not %s", s.kind);
    int64_t rows = stencil ? stencil_rows(s.kind, s.n) : s.n;
    if (fem) {
        rows = stencil_rows("lap3d", s.n);
        if (rows >= 0 && rows > INT32_MAX / s.dof) rows = -1;
        if (rows < 0)
            bu_fail("fem3d SIZE %lld with --dof %lld gives more than 2147483647 rows (32-bit indices)",
                    (long long)s.n, (long long)s.dof);
        fem_numbering(rows, seed);
        rows *= s.dof;
    }
    if (rows < 0)
        bu_fail("SIZE %lld gives a %s grid of more than 2147483647 rows (32-bit indices); SIZE at most %d",
                (long long)s.n, s.kind, !strcmp(s.kind, "lap2d") ? 46340 : 1290);

    /* count pass (random kinds replay the same RNG stream) */
    int64_t nnz = 0, *cols = NULL;
    if (rnd) { /* one row's columns: k of them, or up to n for a power-law row */
        size_t m = (size_t)(!strcmp(s.kind, "random") && s.k < s.n ? s.k : s.n);
        if (!(cols = malloc(m * sizeof(*cols))))
            bu_fail_status(1, "out of memory for a row of %zu columns (%.3g GB)", m, (double)m * 8 / 1e9);
    }
    if (path) {
        struct stat st;
        out_name = path;
        if (!(out = fopen(path, "w"))) bu_fail_status(1, "cannot create %s: %s", path, strerror(errno));
        /* only a regular file is removed after a failed write, never a device such as /dev/full */
        if (fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode)) out_path = path;
    } else out = stdout;
    s.seed = seed;
    if (s.realv) digits = 9;
    rng_state = seed;
    for (int64_t i = 0; i < rows; i++)
        nnz += stencil ? stencil_row(&s, i, 0) : fem ? fem_row(&s, i, 0) : band ? band_row(&s, i, 0) : random_row(&s, i, cols);
    errno = 0;
    if (fprintf(out, "%%%%MatrixMarket matrix coordinate real %s\n%% generated by hspmv genmat:",
                s.sym ? "symmetric" : "general") < 0)
        write_failed();
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-o") && (i == 1 || strcmp(argv[i - 1], "-o")) && fprintf(out, " %s", argv[i]) < 0)
            write_failed();
    if (fprintf(out, "\n%lld %lld %lld\n", (long long)rows, (long long)rows, (long long)nnz) < 0) write_failed();
    rng_state = seed;
    for (int64_t i = 0; i < rows; i++) {
        if (stencil) stencil_row(&s, i, 1);
        else if (fem) fem_row(&s, i, 1);
        else if (band) band_row(&s, i, 1);
        else {
            int64_t m = random_row(&s, i, cols);
            for (int64_t t = 0; t < m; t++) entry(i, cols[t], rand_val(s.realv) + (cols[t] == i ? 4 : 0));
        }
    }
    flush();
    free(cols);
    free(fem_num);
    free(fem_node);
    /* what stdio still holds, and the close (NFS reports a full disk there) */
    errno = 0;
    if (fflush(out) != 0 || ferror(out)) write_failed();
    errno = 0;
    if (fclose(out) != 0) write_failed();
    return 0;
}
