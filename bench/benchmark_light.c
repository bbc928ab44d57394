/* benchmark_light.c — the single-GPU program: read (or generate) a matrix,
   upload it, time the naive, LightSpMV, hybrid and cuSPARSE products with
   CUDA events, and check each one against the long-double reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "hspmv_gpu.h"
#include "order.h"
#include "settings.h"

static const char *prog = "benchmark-light";

static void usage(FILE *f)
{
    fprintf(f,
        "usage: %s matrix.mtx[.gz] [options]\n"
        "       %s --gen KIND N [--k K] [--width W] [--alpha A] [--seed S] [options]\n"
        "  Times y = A*x on the GPU: CUDA events, median/min/max of --reps timed products\n"
        "  (default 50) after --warmup (default 5), each kernel checked against the CPU\n"
        "  long-double reference (docs/design.md bound).\n"
        "  --reorder none|rcm|nd|auto: the matrix ordered for locality on the CPU before it is\n"
        "  uploaded (docs/reordering.md); the product timed and checked in that order.\n"
        "options:\n"
        "  --kernel LIST   comma list of: auto naive stream light light2 light4 light8\n"
        "                  light16 light32 cusparse cusparse-alg2, or 'all'\n"
        "                  (default naive,light,auto,cusparse)\n"
        "  --reps N --warmup N   timed and untimed products per kernel\n"
        "  --copy-mb M     buffer size of the device-to-device copy yardstick (default 1024)\n"
        "  --check all|none      compare every kernel with the reference (default all)\n"
        "  --long-min L    hybrid: rows of >= L entries go to the long-row kernel (0: planned)\n"
        "  --hints LIST    comma list of cache-hint modes to time every kernel but cuSPARSE in:\n"
        "                  0 none, 1 matrix streamed (evict-first), 2 as 1 plus x evict_last\n"
        "                  (default: the library's default only)\n"
        "  --panels LIST   comma list of column-panel widths to time auto with (0: no panels,\n"
        "                  -1: the library's rule; default: the library's rule only)\n"
        "  --parts         also time auto's short-row kernel and long-row chunks alone\n"
        "                  (auto-short, auto-long; not checked, they are not whole products)\n"
        "  --device D      CUDA device (default 0)\n"
        "generated matrices (CSR built in memory, no file; same kinds as genmat):\n"
        "  lap2d N  (N^2 rows, 5-point)   lap3d N  (N^3 rows, 7-point)\n"
        "  banded N --width W (long runs of 2W+1)   random N --k K   powerlaw N --k K --alpha A\n",
        bu_invoked_name(), bu_invoked_name());
}

/* ---- generators: CSR straight into memory, one RNG stream per row ------------ */

typedef struct {
    const char *kind;
    int64_t n, k, w;
    double alpha;
    uint64_t seed;
} gen_spec;

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return (double)(mix(s) >> 11) * 0x1.0p-53; }

static int is_stencil(const gen_spec *g) { return !strcmp(g->kind, "lap2d") || !strcmp(g->kind, "lap3d"); }

static int64_t gen_rows(const gen_spec *g)
{
    if (!strcmp(g->kind, "lap2d")) return g->n * g->n;
    if (!strcmp(g->kind, "lap3d")) return g->n > 2097151 ? INT64_MAX : g->n * g->n * g->n; /* no n^3 overflow */
    return g->n;
}

/* Length of row i (random kinds draw it from the row's own stream). */
static int64_t gen_len(const gen_spec *g, int64_t i)
{
    int64_t n = g->n;
    if (is_stencil(g)) {
        int dim = !strcmp(g->kind, "lap2d") ? 2 : 3;
        int64_t x = i % n, y = (i / n) % n, z = dim == 3 ? i / (n * n) : 0, c = 1;
        c += (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1);
        if (dim == 3) c += (z > 0) + (z < n - 1);
        return c;
    }
    if (!strcmp(g->kind, "banded")) {
        int64_t lo = i - g->w < 0 ? 0 : i - g->w, hi = i + g->w >= n ? n - 1 : i + g->w;
        return hi - lo + 1;
    }
    if (!strcmp(g->kind, "random")) return g->k < n ? g->k : n;
    /* powerlaw: Pareto, P(len > t) ~ t^-(alpha-1), mean about k (as genmat) */
    uint64_t s = g->seed ^ (0xa0761d6478bd642fULL * (uint64_t)(i + 1));
    double a = g->alpha, xm = (double)g->k * (a - 1) / a;
    if (xm < 1) xm = 1;
    double len = xm / pow(1 - unif(&s), 1 / (a - 1));
    return len > (double)n ? n : (int64_t)len;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* len distinct sorted random columns of [0, n) into c. */
static void random_cols(int32_t *c, int64_t len, int64_t n, uint64_t *s)
{
    if (len > n / 16) { /* selection sampling (Knuth's algorithm S): sorted, exact */
        int64_t need = len;
        for (int64_t j = 0; j < n && need > 0; j++)
            if ((double)(n - j) * unif(s) < (double)need) { c[len - need] = (int32_t)j; need--; }
        return;
    }
    int64_t m = 0;
    while (m < len) {
        for (int64_t t = m; t < len; t++) c[t] = (int32_t)(mix(s) % (uint64_t)n);
        qsort(c, (size_t)len, sizeof(*c), cmp_i32);
        m = 0;
        for (int64_t t = 0; t < len; t++)
            if (m == 0 || c[t] != c[m - 1]) c[m++] = c[t];
    }
}

static void gen_row(const gen_spec *g, const hspmv_csr *A, int64_t i)
{
    int64_t n = g->n, q = A->rowptr[i], len = A->rowptr[i + 1] - q;
    int32_t *c = A->colind + q;
    hspmv_real *v = A->val + q;
    if (is_stencil(g)) {
        int dim = !strcmp(g->kind, "lap2d") ? 2 : 3;
        int64_t x = i % n, y = (i / n) % n, z = dim == 3 ? i / (n * n) : 0, t = 0;
        int64_t nb[7];
        if (dim == 3 && z > 0) nb[t++] = i - n * n;
        if (y > 0) nb[t++] = i - n;
        if (x > 0) nb[t++] = i - 1;
        nb[t++] = i;
        if (x < n - 1) nb[t++] = i + 1;
        if (y < n - 1) nb[t++] = i + n;
        if (dim == 3 && z < n - 1) nb[t++] = i + n * n;
        for (int64_t u = 0; u < t; u++) {
            c[u] = (int32_t)nb[u];
            v[u] = nb[u] == i ? (hspmv_real)(2 * dim) : (hspmv_real)-1;
        }
        return;
    }
    if (!strcmp(g->kind, "banded")) {
        int64_t lo = i - g->w < 0 ? 0 : i - g->w;
        for (int64_t u = 0; u < len; u++) {
            int64_t j = lo + u, d = j > i ? j - i : i - j;
            c[u] = (int32_t)j;
            v[u] = j == i ? (hspmv_real)(2.0 * (double)g->w + 1) : (hspmv_real)(-1.0 / (double)(1 + d));
        }
        return;
    }
    uint64_t s = g->seed ^ (0x9fb21c651e98df25ULL * (uint64_t)(i + 1));
    random_cols(c, len, n, &s);
    for (int64_t u = 0; u < len; u++) v[u] = (hspmv_real)(2 * unif(&s) - 1);
}

static int generate(const gen_spec *g, hspmv_csr *A, hspmv_error *e)
{
    int64_t rows = gen_rows(g);
    memset(A, 0, sizeof(*A));
    if (rows <= 0 || rows > INT32_MAX) {
        e->code = HSPMV_ERR_ARG;
        snprintf(e->msg, sizeof(e->msg), "--gen %s %lld: %lld rows (need 1 .. 2^31-1)", g->kind,
                 (long long)g->n, (long long)rows);
        return e->code;
    }
    A->nrows = A->ncols = rows;
    A->rowptr = hspmv_malloc((size_t)(rows + 1) * sizeof(int64_t));
    if (!A->rowptr) goto nomem;
    A->rowptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; i++) A->rowptr[i + 1] = gen_len(g, i);
    for (int64_t i = 0; i < rows; i++) A->rowptr[i + 1] += A->rowptr[i];
    A->nnz = A->rowptr[rows];
    A->colind = hspmv_malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof(hspmv_real));
    if (!A->colind || !A->val) goto nomem;
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t i = 0; i < rows; i++) gen_row(g, A, i);
    return HSPMV_OK;
nomem:
    hspmv_csr_free(A);
    e->code = HSPMV_ERR_NOMEM;
    snprintf(e->msg, sizeof(e->msg), "--gen %s: out of memory", g->kind);
    return e->code;
}

/* ---- timing one kernel ----------------------------------------------------------- */

typedef struct {
    int kernel, hints;
    int64_t panel_cols; /* auto: columns per panel timed (0: none) */
    int panel_kernel;   /* auto with panels: the first panel's short-row kernel */
    double med, min, max; /* ms */
    hspmv_check chk;
    int checked;
} result;

static void die_if(int rc, const hspmv_error *e)
{
    if (rc) bu_die(prog, e);
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "benchmark-light"); /* --version: prints it and exits 0 */
    const char *path = NULL, *klist = "naive,light,auto,cusparse";
    gen_spec g = {NULL, 0, 8, 32, 2.1, 42};
    long reps = 50, warmup = 5, copy_mb = 1024, device = 0, long_min = 0;
    int check = 1, parts = 0, hint_list[8], nhint = 0, npanel = 0, reorder = HSPMV_REORDER_NONE;
    hspmv_order_choice oc = {0};
    long panel_list[8];
    const char *hints_arg = NULL, *panels_arg = NULL;
    hspmv_error e = {0, ""};
    hspmv_csr A;
    hspmv_gpu_info gi;
    char name[512];

    bu_set_prog(prog);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--reps")) reps = bu_parse_int(a, bu_value(argc, argv, &i), 1, BU_MAX_REPS);
        else if (!strcmp(a, "--warmup")) warmup = bu_parse_int(a, bu_value(argc, argv, &i), 0, BU_MAX_REPS);
        else if (!strcmp(a, "--copy-mb")) copy_mb = bu_parse_int(a, bu_value(argc, argv, &i), 1, 1 << 20);
        else if (!strcmp(a, "--device")) device = bu_parse_int(a, bu_value(argc, argv, &i), 0, 1023);
        else if (!strcmp(a, "--long-min")) long_min = bu_parse_int(a, bu_value(argc, argv, &i), 0, INT32_MAX);
        else if (!strcmp(a, "--kernel")) klist = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--hints")) hints_arg = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--panels")) panels_arg = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--parts")) parts = 1;
        else if (!strcmp(a, "--reorder")) reorder = bu_parse_reorder(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--check")) check = strcmp(bu_value(argc, argv, &i), "none") != 0;
        else if (!strcmp(a, "--gen")) {
            g.kind = bu_value(argc, argv, &i);
            g.n = bu_parse_int("--gen N", bu_value(argc, argv, &i), 1, INT32_MAX);
        } else if (!strcmp(a, "--k")) g.k = bu_parse_int(a, bu_value(argc, argv, &i), 1, INT32_MAX);
        else if (!strcmp(a, "--width")) g.w = bu_parse_int(a, bu_value(argc, argv, &i), 1, INT32_MAX);
        else if (!strcmp(a, "--alpha")) {
            g.alpha = bu_parse_real(a, v = bu_value(argc, argv, &i), 2, 1000);
            if (!(g.alpha > 2)) bu_fail("--alpha takes a number above 2, not '%.40s'", v);
        } else if (!strcmp(a, "--seed")) g.seed = (uint64_t)bu_parse_int(a, bu_value(argc, argv, &i), 0, INT64_MAX);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1]) { fprintf(stderr, "%s: error: unknown or incomplete option '%s'\n", prog, a); usage(stderr); return 2; }
        else if (!path) path = a;
        else { fprintf(stderr, "%s: error: more than one matrix given ('%s')\n", prog, a); return 2; }
    }
    if (!path == !g.kind) { usage(stderr); return 2; }
    if (g.kind && strcmp(g.kind, "lap2d") && strcmp(g.kind, "lap3d") && strcmp(g.kind, "banded") &&
        strcmp(g.kind, "random") && strcmp(g.kind, "powerlaw")) {
        fprintf(stderr, "%s: error: unknown --gen kind '%s'\n", prog, g.kind);
        return 2;
    }
    if (g.kind && (g.alpha <= 2 || g.k < 1 || g.w < 1)) {
        fprintf(stderr, "%s: error: need --alpha > 2, --k >= 1, --width >= 1\n", prog);
        return 2;
    }
    if (hints_arg) {
        char buf[128], *tok, *save = NULL, *end;
        snprintf(buf, sizeof(buf), "%s", hints_arg);
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            long h = strtol(tok, &end, 10);
            if (*end || h < 0 || h > 2 || nhint == 8) {
                fprintf(stderr, "%s: error: --hints takes up to 8 of 0, 1, 2 ('%s')\n", prog, tok);
                return 2;
            }
            hint_list[nhint++] = (int)h;
        }
    }
    if (nhint == 0) hint_list[nhint++] = -1; /* the library's default */
    if (panels_arg) {
        char buf[256], *tok, *save = NULL, *end;
        snprintf(buf, sizeof(buf), "%s", panels_arg);
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            long w = strtol(tok, &end, 10);
            if (*end || w < -1 || npanel == 8) {
                fprintf(stderr, "%s: error: --panels takes up to 8 widths >= -1 ('%s')\n", prog, tok);
                return 2;
            }
            panel_list[npanel++] = w;
        }
    }
    if (npanel == 0) panel_list[npanel++] = -1;
    if (warmup < 0 || reps < 1) { fprintf(stderr, "%s: error: --warmup >= 0 and --reps >= 1\n", prog); return 2; }

    /* which kernels, cuSPARSE first so the others can be quoted against it */
    int want[HSPMV_GPU_NKERNELS] = {0}, order[HSPMV_GPU_NKERNELS + 2], nk = 0;
    {
        char buf[512], *tok, *save = NULL;
        snprintf(buf, sizeof(buf), "%s", klist);
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int k = hspmv_gpu_kernel_parse(tok);
            if (!strcmp(tok, "all")) for (k = 0; k < HSPMV_GPU_NKERNELS; k++) want[k] = 1;
            else if (k < 0) { fprintf(stderr, "%s: error: unknown kernel '%s'\n", prog, tok); return 2; }
            else want[k] = 1;
        }
        static const int pref[HSPMV_GPU_NKERNELS] = {
            HSPMV_GPU_CUSPARSE, HSPMV_GPU_CUSPARSE_ALG2, HSPMV_GPU_NAIVE, HSPMV_GPU_STREAM,
            HSPMV_GPU_LIGHT2, HSPMV_GPU_LIGHT4, HSPMV_GPU_LIGHT8, HSPMV_GPU_LIGHT16,
            HSPMV_GPU_LIGHT32, HSPMV_GPU_LIGHT, HSPMV_GPU_AUTO,
        };
        for (int t = 0; t < HSPMV_GPU_NKERNELS; t++) if (want[pref[t]]) order[nk++] = pref[t];
        if (parts) { order[nk++] = HSPMV_GPU_AUTO_SHORT; order[nk++] = HSPMV_GPU_AUTO_LONG; }
    }

    die_if(hspmv_gpu_init((int)device, &gi, &e), &e);

    double t0 = bu_now(), t_read;
    if (g.kind) {
        snprintf(name, sizeof(name), "%s:%lld", g.kind, (long long)g.n);
        if (!strcmp(g.kind, "banded")) snprintf(name + strlen(name), 64, ":w%lld", (long long)g.w);
        if (!strcmp(g.kind, "random") || !strcmp(g.kind, "powerlaw"))
            snprintf(name + strlen(name), 64, ":k%lld", (long long)g.k);
        if (!strcmp(g.kind, "powerlaw")) snprintf(name + strlen(name), 64, ":a%g", g.alpha);
        die_if(generate(&g, &A, &e), &e);
    } else {
        hspmv_read_opts ro = bu_progress_opts(path);
        snprintf(name, sizeof(name), "%s", path);
        die_if(hspmv_csr_read(path, &A, &ro, NULL, &e), &e);
        bu_step_end();
    }
    t_read = bu_now() - t0;
    if (reorder != HSPMV_REORDER_NONE) { /* the same orderings as on the CPU, before the upload */
        hspmv_csr B;
        die_if(hspmv_order_choose(&A, reorder, hspmv_test_spec(), 0, &oc, &B, &e), &e);
        if (oc.rp) {
            hspmv_csr_free(&A);
            A = B;
        }
        printf("reorder=%s (asked %s): bandwidth %lld -> %lld, entries within %lld columns of the diagonal %.1f%% -> "
               "%.1f%%, ordered in %.3f s\n", hspmv_order_name(oc.used), hspmv_order_name(reorder),
               (long long)oc.before.bandwidth, (long long)oc.after.bandwidth, (long long)oc.before.window,
               100 * oc.before.local_frac, 100 * oc.after.local_frac, oc.seconds);
    }

    hspmv_gpu_csr *dA = NULL;
    hspmv_gpu_stats st;
    hspmv_real *x = hspmv_malloc((size_t)(A.ncols ? A.ncols : 1) * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)(A.nrows ? A.nrows : 1) * sizeof(hspmv_real));
    hspmv_real *dx = NULL, *dy = NULL;
    double *ms = malloc((size_t)reps * sizeof(double)), copy_gbs = 0;
    int nres = 0;
    result *res = calloc((size_t)(HSPMV_GPU_NKERNELS + 2) * (size_t)nhint * (size_t)npanel, sizeof(result));
    if (!x || !y || !ms || !res) {
        e.code = HSPMV_ERR_NOMEM;
        snprintf(e.msg, sizeof(e.msg), "vectors of %lld rows", (long long)A.nrows);
        bu_die(prog, &e);
    }
    bu_fill_x(x, A.ncols);
    t0 = bu_now();
    die_if(hspmv_gpu_csr_upload(&A, &dA, &e), &e);
    double t_upload_all = bu_now() - t0;
    if (long_min > 0) die_if(hspmv_gpu_csr_set_long_min(dA, long_min, &e), &e);
    die_if(hspmv_gpu_vec_create(A.ncols, &dx, &e), &e);
    die_if(hspmv_gpu_vec_create(A.nrows, &dy, &e), &e);
    die_if(hspmv_gpu_vec_upload(dx, x, A.ncols, &e), &e);
    die_if(hspmv_gpu_copy_rate((size_t)copy_mb << 20, 20, &copy_gbs, &e), &e);
    hspmv_gpu_csr_stats(dA, &st);

    const char *prec = sizeof(hspmv_real) == 8 ? "double" : "single";
    double bytes = bu_csr_bytes(&A), flops = 2.0 * (double)A.nnz;
    printf("matrix=%s rows=%lld cols=%lld nnz=%lld mean_row=%.2f max_row=%lld precision=%s %s_s=%.3f\n",
           name, (long long)A.nrows, (long long)A.ncols, (long long)A.nnz, st.mean_row,
           (long long)st.max_row, prec, g.kind ? "gen" : "read", t_read);
    printf("  device: %s, %d SMs, L2 %.0f MB, %.1f GB, CUDA runtime %d driver %d\n", gi.name, gi.sm_count,
           gi.l2_bytes / 1e6, gi.mem_bytes / 1e9, gi.runtime_version, gi.driver_version);
    printf("  upload: %.3f s for the copies (%.2f GB/s host-to-device), %.3f s with planning; device memory %.1f MB\n",
           st.upload_seconds, (double)st.device_bytes / 1e9 / (st.upload_seconds > 0 ? st.upload_seconds : 1),
           t_upload_all, (double)st.device_bytes / 1e6);
    printf("  copy yardstick: device-to-device cudaMemcpy of %ld MiB, median of 20: %.1f GB/s (read + write)\n",
           copy_mb, copy_gbs);
    printf("  hybrid rule: mean %.2f nnz/row -> %s; light -> %s; long rows (>= %lld entries): %lld in %lld chunks; cache hints %d\n",
           st.mean_row, hspmv_gpu_kernel_name(st.auto_kernel), hspmv_gpu_kernel_name(st.light_kernel),
           (long long)st.long_min, (long long)st.long_rows, (long long)st.long_chunks, st.hints);
    if (st.panels)
        printf("  column panels (auto): %d of %lld columns\n", st.panels, (long long)st.panel_cols);
    printf("  bytes per product = nnz*(%zu+4) + (rows+1)*8 + cols*%zu + rows*%zu = %.1f MB (cuSPARSE reads 32-bit row pointers: 4 bytes/row less)\n",
           sizeof(hspmv_real), sizeof(hspmv_real), sizeof(hspmv_real), bytes / 1e6);

    int fails = 0;
    long cur_panels = -1; /* the upload's rule */
    for (int t = 0; t < nk; t++)
        for (int h = 0; h < nhint; h++)
            for (int pw = 0; pw < (order[t] == HSPMV_GPU_AUTO ? npanel : 1); pw++) {
            int sp = order[t] == HSPMV_GPU_CUSPARSE || order[t] == HSPMV_GPU_CUSPARSE_ALG2;
            int part = order[t] == HSPMV_GPU_AUTO_SHORT || order[t] == HSPMV_GPU_AUTO_LONG;
            if (sp && h > 0) continue; /* cuSPARSE takes no hints: once */
            result *r = &res[nres++];
            memset(r, 0, sizeof(*r));
            r->kernel = order[t];
            if (order[t] == HSPMV_GPU_AUTO) {
                hspmv_gpu_stats ps;
                if (panel_list[pw] != cur_panels) /* a rebuild: seconds on big matrices */
                    die_if(hspmv_gpu_csr_set_panels(dA, &A, panel_list[pw], &e), &e);
                cur_panels = panel_list[pw];
                hspmv_gpu_csr_stats(dA, &ps);
                r->panel_cols = ps.panel_cols;
                r->panel_kernel = ps.panel_kernel;
            }
            die_if(hspmv_gpu_csr_set_hints(dA, sp ? -1 : hint_list[h], &e), &e);
            r->hints = sp ? -1 : hint_list[h] < 0 ? st.hints : hint_list[h];
            die_if(hspmv_gpu_vec_fill_bytes(dy, 0xff, A.nrows, &e), &e); /* NaN poison: every y_i must be written */
            if (r->kernel == HSPMV_GPU_AUTO_LONG) die_if(hspmv_gpu_vec_fill_bytes(dy, 0, A.nrows, &e), &e);
            die_if(hspmv_gpu_spmv(dA, r->kernel, dx, dy, &e), &e);
            die_if(hspmv_gpu_sync(&e), &e);
            if (check && !part) {
                die_if(hspmv_gpu_vec_download(y, dy, A.nrows, &e), &e);
                hspmv_ref_check(&A, x, y, 2.0, &r->chk);
                r->checked = 1;
                fails += r->chk.violations > 0;
            }
            die_if(hspmv_gpu_spmv_time(dA, r->kernel, dx, dy, (int)warmup, (int)reps, ms, &e), &e);
            bu_stats(ms, (int)reps, &r->med, &r->min, &r->max);
        }
    die_if(hspmv_gpu_csr_set_hints(dA, -1, &e), &e);

    double sp_ms = 0;
    for (int t = 0; t < nres; t++)
        if (res[t].kernel == HSPMV_GPU_CUSPARSE) sp_ms = res[t].med;
    printf("  %-20s %10s %10s %10s %9s %9s %6s %8s %10s %10s %s\n", "kernel", "median_ms", "min_ms", "max_ms",
           "GFLOP/s", "GB/s", "%copy", "x_cusp", "max_rel", "avg_rel", "check");
    for (int t = 0; t < nres; t++) {
        result *r = &res[t];
        double gbs = bytes / (r->med * 1e-3) / 1e9;
        char label[96], vs[32] = "-";
        int k = r->kernel;
        if (k == HSPMV_GPU_AUTO || k == HSPMV_GPU_LIGHT)
            snprintf(label, sizeof(label), "%s(%s%s)", hspmv_gpu_kernel_name(k),
                     hspmv_gpu_kernel_name(k == HSPMV_GPU_AUTO ? st.auto_kernel : st.light_kernel),
                     k == HSPMV_GPU_AUTO && st.long_chunks ? "+long" : "");
        else snprintf(label, sizeof(label), "%s", hspmv_gpu_kernel_name(k));
        if (r->hints >= 0 && r->hints < 10 && nhint > 1) snprintf(label + strlen(label), 8, "/h%d", r->hints);
        if (r->panel_cols > 0)
            snprintf(label + strlen(label), 40, "/p%lld:%s", (long long)r->panel_cols, hspmv_gpu_kernel_name(r->panel_kernel));
        if (sp_ms > 0) snprintf(vs, sizeof(vs), "%.3f", sp_ms / r->med);
        printf("  %-20s %10.4f %10.4f %10.4f %9.2f %9.1f %5.1f%% %8s %10.3e %10.3e %s\n", label, r->med, r->min,
               r->max, flops / (r->med * 1e-3) / 1e9, gbs, 100 * gbs / copy_gbs, vs, r->chk.max_rel,
               r->chk.avg_rel, !r->checked ? "not checked" : r->chk.violations ? "FAILED" : "ok");
    }
    for (int t = 0; t < nres; t++) {
        result *r = &res[t];
        double gbs = bytes / (r->med * 1e-3) / 1e9;
        int k = r->kernel;
        printf("bench=light matrix=%s precision=%s kernel=%s hints=%d panel_cols=%lld panel_kernel=%s picked=%s rows=%lld nnz=%lld mean_row=%.3f "
               "max_row=%lld long_rows=%lld reps=%ld median_ms=%.6f min_ms=%.6f max_ms=%.6f gflops=%.3f gbs=%.2f "
               "copy_gbs=%.1f copy_frac=%.4f vs_cusparse=%.4f upload_s=%.4f max_rel=%.3e avg_rel=%.3e "
               "violations=%lld checked=%d reorder=%s bandwidth_before=%lld bandwidth_after=%lld reorder_s=%.4f",
               name, prec, hspmv_gpu_kernel_name(k), r->hints, (long long)r->panel_cols,
               r->panel_cols > 0 ? hspmv_gpu_kernel_name(r->panel_kernel) : "-",
               hspmv_gpu_kernel_name(k == HSPMV_GPU_AUTO || k == HSPMV_GPU_AUTO_SHORT ? st.auto_kernel : k == HSPMV_GPU_LIGHT ? st.light_kernel : k),
               (long long)A.nrows, (long long)A.nnz, st.mean_row, (long long)st.max_row,
               (long long)(k == HSPMV_GPU_AUTO ? st.long_rows : 0), reps, r->med, r->min, r->max,
               flops / (r->med * 1e-3) / 1e9, gbs, copy_gbs, gbs / copy_gbs, sp_ms > 0 ? sp_ms / r->med : 0.0,
               st.upload_seconds, r->chk.max_rel, r->chk.avg_rel, (long long)r->chk.violations, r->checked,
               hspmv_order_name(oc.used), (long long)oc.before.bandwidth,
               (long long)oc.after.bandwidth, oc.seconds);
        bu_meta_kv(stdout, 1, 1);
        printf("\n");
    }
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_gpu_csr_destroy(&dA);
    hspmv_free(x);
    hspmv_free(y);
    free(ms);
    free(res);
    hspmv_csr_free(&A);
    return fails ? 1 : 0;
}
