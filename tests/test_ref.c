/* test_ref.c — the oracle itself, and the naive kernel against it on every
   shared and bundled matrix. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "testlib.h"
#include "csr.h"

/* Runs the naive kernel on each .mtx in dir and checks it with the oracle. */
static int naive_matches_ref_in(const char *dir, int *files)
{
    char **paths;
    int n = tl_list_mtx(dir, &paths), ok = 1;
    *files = n;
    for (int f = 0; f < n; f++) {
        hspmv_csr A;
        if (tl_is_unsupported_shared(paths[f])) continue;
        if (tl_read_csr(paths[f], &A) != HSPMV_OK) { ok = 0; fprintf(stderr, "    cannot read %s\n", paths[f]); continue; }
        hspmv_real *x = hspmv_malloc((A.ncols + 1) * sizeof(hspmv_real));
        hspmv_real *y = hspmv_malloc((A.nrows + 1) * sizeof(hspmv_real));
        tl_fill(x, A.ncols, 11);
        hspmv_csr_spmv_naive(&A, x, y);
        ok &= tl_matches_ref(&A, x, y, paths[f]);
        hspmv_free(x);
        hspmv_free(y);
        hspmv_csr_free(&A);
    }
    if (n > 0) tl_free_list(paths, n);
    return ok;
}

static void naive_kernel_matches_ref_on_every_shared_matrix(void)
{
    int n;
    int ok = naive_matches_ref_in(tl_shared_dir(), &n);
    if (n < 0) { CHECK(n >= 0, "no folder %s (%s)", tl_shared_dir(), tl_missing_hint(1)); return; }
    CHECK(n >= 20, "only %d matrices in %s", n, tl_shared_dir());
    CHECK(ok, "a matrix is off the bound");
}

static void naive_kernel_matches_ref_on_bundled_generated_matrices(void)
{
    int n;
    int ok = naive_matches_ref_in("matrices", &n);
    CHECK(n >= 4, "expected the bundled matrices in ./matrices, found %d", n);
    CHECK(ok, "a matrix is off the bound");
}

static void check_catches_a_perturbed_entry(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 500, 400, NULL, 9, 0, 3);
    hspmv_real *x = hspmv_malloc(400 * sizeof(hspmv_real)), *y = hspmv_malloc(500 * sizeof(hspmv_real));
    tl_fill(x, 400, 4);
    hspmv_ref_spmv(&A, x, y);
    CHECK(hspmv_ref_check(&A, x, y, 2.0, NULL) == 0, "reference fails its own check");
    hspmv_check c;
    double a = 0;
    for (int64_t k = A.rowptr[250]; k < A.rowptr[251]; k++) a += fabs((double)A.val[k] * x[A.colind[k]]);
    y[250] += (hspmv_real)(40 * 9 * hspmv_eps() * a); /* 20x the c=2 bound */
    CHECK(hspmv_ref_check(&A, x, y, 2.0, &c) == 1 && c.first_bad == 250, "perturbation missed");
    CHECK(c.worst > 10 && c.max_rel > 0, "worst %g", c.worst);
    y[250] = NAN;
    CHECK(hspmv_ref_check(&A, x, y, 2.0, NULL) == 1, "NaN not caught");
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

/* Values deep in the subnormal range: their products and sums carry an
   absolute rounding error (up to half the smallest subnormal), far above the
   relative bound c*k*eps*|A||x|. The bound's absolute term k*eta accepts every
   kernel on them, and still catches a y moved by 3 bounds. */
static void subnormal_products_are_within_the_absolute_term_for_every_kernel(void)
{
    const double tiny = sizeof(hspmv_real) == 4 ? 1e-40 : 1e-310;
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 300, 200, NULL, 9, 2, 21) == HSPMV_OK, "generate");
    for (int64_t k = 0; k < A.nnz; k++) /* most subnormal, every 4th normal: mixed rows too */
        A.val[k] = (hspmv_real)(k % 4 ? (double)A.val[k] * tiny : (double)A.val[k] * tiny * 1e20);
    hspmv_real *x = hspmv_malloc(200 * sizeof(hspmv_real)), *y = hspmv_malloc(300 * sizeof(hspmv_real));
    tl_fill(x, 200, 5);
    /* the two entries: 1 2 1e-310 and 2 1 3e-320 (single: 1e-40, 3e-45) */
    int64_t rp[] = {0, 1, 2};
    int32_t ci[] = {1, 0};
    hspmv_real v2[] = {(hspmv_real)(sizeof(hspmv_real) == 4 ? 1e-40 : 1e-310),
                       (hspmv_real)(sizeof(hspmv_real) == 4 ? 3e-45 : 3e-320)};
    hspmv_real x2[] = {(hspmv_real)1.001, (hspmv_real)1.7}, y2[2];
    hspmv_csr B = {2, 2, 2, rp, ci, v2};
    hspmv_csr_spmv_naive(&B, x2, y2);
    CHECK(tl_matches_ref(&B, x2, y2, "the issue's 2 x 2"), "naive on the issue's matrix");
    hspmv_csr_spmv_naive(&A, x, y);
    CHECK(tl_matches_ref(&A, x, y, "naive, subnormal"), "naive");
    int64_t bad = -1;
    for (int64_t i = 0; i < A.nrows && bad < 0; i++) {
        long double s = 0;
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) s += (long double)A.val[k] * x[A.colind[k]];
        if ((long double)y[i] != s) bad = i;
    }
    CHECK(bad >= 0, "no row was inexact: the test proves nothing");
    static const int fmts[] = {HSPMV_FORMAT_CSR, HSPMV_FORMAT_CSRL, HSPMV_FORMAT_BCOO, HSPMV_FORMAT_CSR16,
                               HSPMV_FORMAT_CSRVI};
    static const char *isas[] = {"scalar", "avx2", "avx512", "neon"};
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
        for (size_t s = 0; s < sizeof(isas) / sizeof(isas[0]); s++)
            for (int t = 1; t <= 3; t += 2) {
                hspmv_opts o;
                hspmv_local *L = NULL;
                hspmv_error e;
                char what[96];
                hspmv_opts_default(&o);
                o.format = fmts[f];
                o.kernel = isas[s];
                o.threads = t;
                if (hspmv_local_create(&A, &o, &L, &e) != HSPMV_OK) continue; /* not on this CPU, or CSRVI's 256 */
                tl_fill_nan(y, 300);
                hspmv_local_spmv(L, x, y, 0);
                snprintf(what, sizeof(what), "format %d %s %d threads, subnormal", fmts[f], isas[s], t);
                CHECK(tl_matches_ref(&A, x, y, what), "%s", what);
                hspmv_local_destroy(&L);
            }
    hspmv_csr_spmv_naive(&A, x, y);
    y[bad] = (hspmv_real)((long double)y[bad] + 3 * tl_row_bound(&A, x, bad));
    fprintf(stderr, "    (the next line is the expected rejection)\n");
    CHECK(!tl_matches_ref(&A, x, y, "moved by 3 bounds"), "a y moved by 3 bounds passed");
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

/* |A||x| beyond the range: the product is not representable, y may be inf;
   the check counts an overflow, not a violation of the kernel. */
static void an_overflowing_product_is_an_overflow_not_a_violation(void)
{
    const hspmv_real big = (hspmv_real)(sizeof(hspmv_real) == 4 ? 3e38 : 1e308);
    int64_t rp[] = {0, 2, 3, 5};
    int32_t ci[] = {0, 1, 1, 0, 1};
    hspmv_real v[] = {big, big, 1, big, -big}, x[] = {1, 1}, y[3];
    hspmv_csr A = {3, 2, 5, rp, ci, v};
    hspmv_check c;
    hspmv_csr_spmv_naive(&A, x, y); /* row 0: inf; row 2: big - big = 0 but |A||x| = 2 big */
    CHECK(hspmv_ref_check(&A, x, y, 2.0, &c) == 0 && c.violations == 0 && c.overflows == 2 && c.first_overflow == 0,
          "violations %lld overflows %lld first %lld", (long long)c.violations, (long long)c.overflows,
          (long long)c.first_overflow);
    y[1] = 2; /* a wrong value in the representable row is still a violation */
    CHECK(hspmv_ref_check(&A, x, y, 2.0, &c) == 1 && c.first_bad == 1 && c.overflows == 2, "violation %lld",
          (long long)c.violations);
    fprintf(stderr, "    (the next lines are the expected rejection)\n");
    CHECK(!tl_matches_ref(&A, x, y, "overflow"), "tl_matches_ref accepts an overflow");
}

static void empty_row_must_give_exact_zero(void)
{
    int64_t rp[] = {0, 0, 1};
    int32_t ci[] = {0};
    hspmv_real v[] = {2}, x[] = {3}, y[] = {1e-30f, 6};
    hspmv_csr A = {2, 1, 1, rp, ci, v};
    CHECK(hspmv_ref_check(&A, x, y, 2.0, NULL) == 1, "nonzero y on an empty row accepted");
    y[0] = 0;
    CHECK(hspmv_ref_check(&A, x, y, 2.0, NULL) == 0, "exact answer refused");
}

static void laplacian_times_ones_gives_row_sums_exactly(void)
{
    hspmv_csr A;
    char path[] = "matrices/lap2d_64.mtx";
    if (tl_read_csr(path, &A) != HSPMV_OK) { CHECK(0, "cannot read %s", path); return; }
    hspmv_real *x = hspmv_malloc(A.ncols * sizeof(hspmv_real)), *y = hspmv_malloc(A.nrows * sizeof(hspmv_real));
    for (int64_t j = 0; j < A.ncols; j++) x[j] = 1;
    hspmv_csr_spmv_naive(&A, x, y);
    int exact = 1;
    for (int64_t i = 0; i < A.nrows; i++) {
        double s = 0;
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) s += A.val[k];
        exact &= y[i] == s && (s == 0 || s == 1 || s == 2);
    }
    CHECK(exact, "row sums of the 5-point Laplacian are 0, 1 or 2 and exact");
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

static void symmetric_file_equals_its_general_twin(void)
{
    hspmv_csr S, G;
    if (tl_read_csr("matrices/lap3d_12_sym.mtx", &S) || tl_read_csr("matrices/lap3d_12.mtx", &G)) {
        CHECK(0, "cannot read the bundled lap3d_12 pair");
        return;
    }
    CHECK(S.nnz == G.nnz && S.nrows == G.nrows, "sizes differ: %lld vs %lld", (long long)S.nnz, (long long)G.nnz);
    if (S.nnz == G.nnz) {
        CHECK(!memcmp(S.rowptr, G.rowptr, (S.nrows + 1) * sizeof(int64_t)) &&
              !memcmp(S.colind, G.colind, S.nnz * sizeof(int32_t)) &&
              !memcmp(S.val, G.val, S.nnz * sizeof(hspmv_real)), "expanded symmetric differs");
    }
    hspmv_csr_free(&S);
    hspmv_csr_free(&G);
}

int main(void)
{
    RUN(check_catches_a_perturbed_entry);
    RUN(empty_row_must_give_exact_zero);
    RUN(subnormal_products_are_within_the_absolute_term_for_every_kernel);
    RUN(an_overflowing_product_is_an_overflow_not_a_violation);
    RUN(naive_kernel_matches_ref_on_every_shared_matrix);
    RUN(naive_kernel_matches_ref_on_bundled_generated_matrices);
    RUN(laplacian_times_ones_gives_row_sums_exactly);
    RUN(symmetric_file_equals_its_general_twin);
    CHECK_DONE();
}
