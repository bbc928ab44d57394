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
#include "bench_out.h"
#include "bench_util.h"
#include "gen_rows.h"
#include "order.h"

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
        "  --rng row|stream: random/powerlaw draw each row from its own seed (row, the\n"
        "  default: benchmark-mpi and solve --gen make the same rows on any number of\n"
        "  ranks) or all rows from one stream (stream: the draws before rows had seeds,\n"
        "  kept for the bundled random_3000_k8 and powerlaw_2000_k6)\n"
        "  --shuffle SEED: renumber rows and columns by one random permutation drawn\n"
        "  from SEED (a badly ordered mesh for --reorder; a symmetric kind stays\n"
        "  symmetric, --symmetric still writes the lower triangle)\n"
        "  -o FILE (default stdout): written under a temporary name beside FILE and renamed over\n"
        "  it when complete (a device or a pipe is written in place); gzip when FILE ends in .gz\n"
        "  --values stencil|random: stencil (default) writes the few values above;\n"
        "  random draws real values with 9 significant digits from a fixed seed (--seed):\n"
        "  stencil/fem3d/banded/blocks off-diagonals in [-1.5,-0.5), a[i][j] == a[j][i], and a\n"
        "  diagonal above the row's largest possible off-diagonal sum (still SPD);\n"
        "  random/powerlaw values in [-1,1) (+4 on the diagonal).\n", bu_invoked_name());
}

/* Buffered output of "i j v" lines with hand-written integer formatting,
   to standard output or to -o's file (bench_out: a temporary name renamed
   over it when complete; gzip when the name ends in .gz). */
static char obuf[1 << 20];
static size_t olen;
static bo_file bo;
static int to_file; /* -o given: bo, else stdout */
static const char *out_name = "standard output";

/* A failed write (full disk, /dev/full, closed pipe): say why, remove the
   temporary file (never the target, never a device), exit 1; a truncated
   matrix must never look written. */
static void write_failed(void)
{
    int e = to_file ? bo.err : errno;
    if (to_file) bo_abort(&bo);
    bu_fail_status(1, "writing %s: %s", out_name, strerror(e ? e : EIO));
}

static void flush(void)
{
    errno = 0;
    if (olen && (to_file ? bo_write(&bo, obuf, olen) != 0 : fwrite(obuf, 1, olen, stdout) != olen)) write_failed();
    olen = 0;
}

/* s into the buffer, flushed as it fills. */
static void put_str(const char *s)
{
    for (size_t len = strlen(s); len;) {
        if (olen == sizeof(obuf)) flush();
        size_t k = sizeof(obuf) - olen < len ? sizeof(obuf) - olen : len;
        memcpy(obuf + olen, s, k);
        olen += k, s += k, len -= k;
    }
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

int main(int argc, char **argv)
{
    bu_version(argc, argv, "genmat"); /* --version: prints it and exits 0 */
    gen_spec s;
    const char *path = NULL;
    int dof_given = 0, k_given = 0, shuffle = 0;
    uint64_t shuffle_seed = 0;
    gen_default(&s);
    bu_set_prog("genmat");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-o")) path = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--k")) { s.k = bu_parse_int(a, bu_value(argc, argv, &i), 1, INT32_MAX); k_given = 1; }
        else if (!strcmp(a, "--width")) s.w = bu_parse_int(a, bu_value(argc, argv, &i), 1, INT32_MAX);
        else if (!strcmp(a, "--dof")) { s.dof = bu_parse_int(a, bu_value(argc, argv, &i), 1, 9); dof_given = 1; }
        else if (!strcmp(a, "--alpha")) {
            s.alpha = bu_parse_real_above(a, bu_value(argc, argv, &i), 2, 1000); /* above 2: a finite mean */
        } else if (!strcmp(a, "--seed")) s.seed = (uint64_t)bu_parse_int(a, bu_value(argc, argv, &i), 0, INT64_MAX);
        else if (!strcmp(a, "--symmetric")) s.sym = 1;
        else if (!strcmp(a, "--shuffle")) {
            shuffle_seed = (uint64_t)bu_parse_int(a, bu_value(argc, argv, &i), 0, INT64_MAX);
            shuffle = 1;
        }
        else if (!strcmp(a, "--values")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "random")) s.realv = 1;
            else if (strcmp(v, "stencil")) bu_fail("--values takes stencil or random, not '%.40s'", v);
        } else if (!strcmp(a, "--rng")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "stream")) s.stream = 1;
            else if (strcmp(v, "row")) bu_fail("--rng takes row or stream, not '%.40s'", v);
        } else if (a[0] == '-' && a[1] && !(s.kind && !s.n && a[1] >= '0' && a[1] <= '9'))
            bu_fail("unknown option '%.60s' (see genmat --help)", a); /* "-5" where SIZE is due is a SIZE */
        else if (!s.kind) s.kind = a;
        else if (!s.n) s.n = bu_parse_int("SIZE", a, 1, INT32_MAX);
        else bu_fail("unexpected argument '%.60s' (see genmat --help)", a);
    }
    int cls = gen_class(s.kind);
    if (!s.kind) bu_fail("no KIND given (usage: %s KIND SIZE [options] -o out.mtx; see --help)", bu_invoked_name());
    if (!cls)
        bu_fail("KIND takes lap2d, lap3d, lap3d27, fem3d, banded, blocks, random or powerlaw, not '%.40s'", s.kind);
    if (!s.n) bu_fail("no SIZE given (usage: %s KIND SIZE [options] -o out.mtx; see --help)", bu_invoked_name());
    if (cls == 'r' && s.sym) bu_fail("--symmetric is for stencil, fem3d, banded and blocks only, not %s", s.kind);
    if (cls != 'f' && dof_given) bu_fail("--dof is for fem3d only, not %s", s.kind);
    if (cls == 'r' && k_given && s.k > s.n) /* the default 8 is capped at SIZE */
        bu_fail("--k %lld is more than the %lld columns of %s %lld: --k takes an integer from 1 to %lld",
                (long long)s.k, (long long)s.n, s.kind, (long long)s.n, (long long)s.n);
    int64_t rows = gen_rows(&s);
    if (rows < 0 && cls == 'f')
        bu_fail("fem3d SIZE %lld with --dof %lld gives more than 2147483647 rows (32-bit indices)",
                (long long)s.n, (long long)s.dof);
    if (rows < 0)
        bu_fail("SIZE %lld gives a %s grid of more than 2147483647 rows (32-bit indices); SIZE at most %d",
                (long long)s.n, s.kind, !strcmp(s.kind, "lap2d") ? 46340 : 1290);
    if (gen_prepare(&s)) bu_fail_status(1, "out of memory for the numbering of %lld rows", (long long)rows);

    /* count pass (the same rows as the write pass) */
    int64_t nnz = 0, m;
    gen_buf b = {0};
    if (cls == 'r') { /* one row's columns and values: k of them, or up to n for a power-law row */
        m = !strcmp(s.kind, "random") && s.k < s.n ? s.k : s.n;
        if (gen_buf_reserve(&b, m))
            bu_fail_status(1, "out of memory for a row of %lld columns (%.3g GB)", (long long)m, (double)m * 16 / 1e9);
    }
    if (path) { /* tried before any row is made */
        char why[1024];
        size_t len = strlen(path);
        int st = bo_open(&bo, "", path, NULL, 0, BO_STREAM | (len > 3 && !strcmp(path + len - 3, ".gz") ? BO_GZIP : 0),
                         why, sizeof(why));
        if (st) bu_fail_status(st, "%s", why);
        out_name = path;
        to_file = 1;
    }
    digits = gen_digits(&s);
    for (int64_t i = 0; i < rows; i++) {
        if ((m = gen_row(&s, i, &b, 0)) < 0) bu_fail_status(1, "out of memory for row %lld", (long long)i + 1);
        nnz += m;
    }
    put_str(s.sym ? "%%MatrixMarket matrix coordinate real symmetric\n% generated by hspmv genmat:"
                  : "%%MatrixMarket matrix coordinate real general\n% generated by hspmv genmat:");
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-o") && (i == 1 || strcmp(argv[i - 1], "-o"))) {
            put_str(" ");
            put_str(argv[i]);
        }
    char size_line[80];
    snprintf(size_line, sizeof(size_line), "\n%lld %lld %lld\n", (long long)rows, (long long)rows, (long long)nnz);
    put_str(size_line);
    int64_t *newof = NULL; /* --shuffle: the new number of each row and column */
    if (shuffle) {
        int64_t *p = malloc((size_t)rows * sizeof(int64_t));
        newof = malloc((size_t)rows * sizeof(int64_t));
        if (!p || !newof) bu_fail_status(1, "out of memory for the --shuffle permutation of %lld rows", (long long)rows);
        hspmv_order_random(p, rows, shuffle_seed);
        hspmv_order_invert(p, rows, newof);
        free(p);
    }
    gen_prepare(&s);
    for (int64_t i = 0; i < rows; i++) {
        if ((m = gen_row(&s, i, &b, 1)) < 0) bu_fail_status(1, "out of memory for row %lld", (long long)i + 1);
        for (int64_t t = 0; t < m; t++) {
            int64_t r = newof ? newof[i] : i, c = newof ? newof[b.cols[t]] : b.cols[t];
            if (s.sym && c > r) { /* the lower triangle stays lower: the entry's mirror image */
                int64_t z = r;
                r = c, c = z;
            }
            entry(r, c, b.vals[t]);
        }
    }
    free(newof);
    flush();
    gen_buf_free(&b);
    gen_release(&s);
    if (to_file) { /* the close and the rename (NFS reports a full disk at the close) */
        char why[1024];
        if (bo_commit(&bo, why, sizeof(why))) bu_fail_status(1, "%s", why);
    } else {
        errno = 0;
        if (fflush(stdout) != 0 || ferror(stdout)) write_failed();
    }
    return 0;
}
