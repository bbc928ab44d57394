/* test_transpose.c — the transposed product on one rank: every format's
   decoder gives back the CSR it was made from, bit for bit (several
   panels, several BCOO tiles); Y = A^T X (hspmv_local_spmm with
   HSPMV_TRANSPOSE) for every format x every kernel set this CPU runs x
   k in {1, 2, 3, 8, 17}, row- and column-major, Y = and Y +=, on square
   and rectangular matrices, against the long-double reference of A^T x
   with the docs/design.md bound; the copy is built once and survives a
   failed allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "local.h"
#include "local_part.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;
static const int formats[] = {HSPMV_FORMAT_CSR,   HSPMV_FORMAT_CSRL, HSPMV_FORMAT_BCOO,  HSPMV_FORMAT_CSR16,
                              HSPMV_FORMAT_CSRVI, HSPMV_FORMAT_CSRP, HSPMV_FORMAT_CSRDU, HSPMV_FORMAT_PANELS};
static const char *fmt_names[] = {"auto", "csr", "csrl", "bcoo", "csr16", "csrvi", "csrp", "csrdu", "panels"};
#define NFMT (int)(sizeof(formats) / sizeof(formats[0]))
static const int ks[] = {1, 2, 3, 8, 17};
#define NK (int)(sizeof(ks) / sizeof(ks[0]))

/* A banded n x m matrix every format holds (CSRP's patterns too): row i's
   columns near i (offsets -40, -3, -1, 0, 2, 5, 300 where they fall inside; a row of 9
   entries in every 7th row, an empty row in every 11th), 7 distinct values. */
static void banded(hspmv_csr *A, int64_t n, int64_t m)
{
    static const int off[] = {-40, -3, -1, 0, 1, 2, 3, 5, 300};
    static const hspmv_real vals[] = {1.5, -0.25, 2, -3.75, 0.5, 7, -1};
    A->nrows = n;
    A->ncols = m;
    A->rowptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
    A->colind = malloc(sizeof(int32_t) * (size_t)(n * 9 + 1));
    A->val = malloc(sizeof(hspmv_real) * (size_t)(n * 9 + 1));
    int64_t k = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c0 = i;
        for (int d = 0; d < 9 && i % 11 != 5; d++) {
            int64_t c = c0 + off[d];
            if ((d == 4 || d == 6) && i % 7 != 0) continue;
            if (c < 0 || c >= m) continue;
            A->colind[k] = (int32_t)c;
            A->val[k++] = vals[(i + d) % 7];
        }
        A->rowptr[i + 1] = k;
    }
    A->nnz = k;
}

/* T = A^T the slow way (column by column), for the reference. */
static void transpose_slow(const hspmv_csr *A, hspmv_csr *T)
{
    T->nrows = A->ncols;
    T->ncols = A->nrows;
    T->nnz = A->nnz;
    T->rowptr = malloc(sizeof(int64_t) * (size_t)(T->nrows + 1));
    T->colind = malloc(sizeof(int32_t) * (size_t)(A->nnz + 1));
    T->val = malloc(sizeof(hspmv_real) * (size_t)(A->nnz + 1));
    int64_t q = 0;
    T->rowptr[0] = 0;
    for (int64_t j = 0; j < A->ncols; j++) {
        for (int64_t i = 0; i < A->nrows; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->colind[k] == j) {
                    T->colind[q] = (int32_t)i;
                    T->val[q++] = A->val[k];
                }
        T->rowptr[j + 1] = q;
    }
}

static void csr_free_plain(hspmv_csr *A)
{
    free(A->rowptr);
    free(A->colind);
    free(A->val);
    memset(A, 0, sizeof(*A));
}

static hspmv_opts opts_of(int format, const char *isa, int threads)
{
    hspmv_opts o;
    hspmv_opts_default(&o);
    o.format = format;
    o.kernel = isa;
    o.threads = threads;
    return o;
}

/* The decoder gives A back exactly. */
static int same_csr(const hspmv_csr *A, const hspmv_csr *B)
{
    if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
    if (memcmp(A->rowptr, B->rowptr, sizeof(int64_t) * (size_t)(A->nrows + 1))) return 0;
    if (A->nnz && memcmp(A->colind, B->colind, sizeof(int32_t) * (size_t)A->nnz)) return 0;
    return !A->nnz || tl_same_bits(A->val, B->val, A->nnz);
}

static void decode_gives_the_matrix_back(void)
{
    static const int64_t shapes[][2] = {{600, 600}, {300, 700}, {700, 300}};
    static const char *tests[] = {"", "panels=3", "pieces=2"};
    for (int s = 0; s < 3; s++) {
        hspmv_csr A;
        banded(&A, shapes[s][0], shapes[s][1]);
        for (int f = 0; f < NFMT; f++)
            for (int t = 0; t < 3; t++) {
                hspmv_opts o = opts_of(formats[f], "scalar", 1 + t % 2);
                hspmv_local *L = NULL;
                hspmv_csr B = {0};
                hspmv_error e;
                int rc = hspmv_local_create_test(&A, &o, tests[t], &L, &e);
                CHECK(rc == HSPMV_OK, "%s %lldx%lld: %s", fmt_names[formats[f]], (long long)A.nrows,
                      (long long)A.ncols, e.msg);
                if (rc) continue;
                CHECK(hspmv_local_to_csr(L, &B, &e) == HSPMV_OK, "decode: %s", e.msg);
                CHECK(same_csr(&A, &B), "%s %lldx%lld (%s): decoded matrix differs", fmt_names[formats[f]],
                      (long long)A.nrows, (long long)A.ncols, tests[t]);
                hspmv_csr_free(&B);
                hspmv_local_destroy(&L);
            }
        csr_free_plain(&A);
    }
    /* random values and columns for the formats that take any matrix */
    hspmv_csr R;
    CHECK(tl_csr_random(&R, 500, 800, NULL, 12, 3, 5) == HSPMV_OK, "generate");
    for (int f = 0; f < NFMT; f++) {
        if (formats[f] == HSPMV_FORMAT_CSRVI || formats[f] == HSPMV_FORMAT_CSRP) continue;
        hspmv_opts o = opts_of(formats[f], "scalar", 2);
        hspmv_local *L = NULL;
        hspmv_csr B = {0};
        if (hspmv_local_create_test(&R, &o, "panels=4", &L, NULL) != HSPMV_OK) {
            CHECK(0, "create %s", fmt_names[formats[f]]);
            continue;
        }
        CHECK(hspmv_local_to_csr(L, &B, NULL) == HSPMV_OK, "decode");
        CHECK(same_csr(&R, &B), "%s random: decoded matrix differs", fmt_names[formats[f]]);
        hspmv_csr_free(&B);
        hspmv_local_destroy(&L);
    }
    hspmv_csr_free(&R);
}

/* Vector j of a block of k (layout: row-major or column-major), n rows. */
static void get_vec(const hspmv_real *Y, int64_t n, int k, int j, int colmajor, hspmv_real *y)
{
    for (int64_t i = 0; i < n; i++) y[i] = colmajor ? Y[(int64_t)j * n + i] : Y[i * k + j];
}

/* Y = A^T X and Y += A^T X on L for every k and layout, checked against
   the reference on At (= A^T) and on [At | I] for the add. Returns failures. */
static int check_products(hspmv_local *L, const hspmv_csr *At, const char *what, int allk)
{
    int64_t m = At->ncols, n = At->nrows; /* X: m rows (A's rows), Y: n rows (A's columns) */
    int bad = 0;
    hspmv_csr B;
    if (tl_csr_augment(At, &B) != HSPMV_OK) return 1;
    hspmv_real *X = malloc(sizeof(hspmv_real) * (size_t)(m * 17 + 1));
    hspmv_real *Y = malloc(sizeof(hspmv_real) * (size_t)(n * 17 + 1));
    hspmv_real *Y0 = malloc(sizeof(hspmv_real) * (size_t)(n * 17 + 1));
    hspmv_real *xy = malloc(sizeof(hspmv_real) * (size_t)(m + n + 1)), *y = malloc(sizeof(hspmv_real) * (size_t)(n + 1));
    for (int ki = 0; ki < NK; ki++) {
        int k = ks[ki];
        if (!allk && k != 1 && k != 3) continue; /* every k on the first shape */
        for (int cm = 0; cm < 2; cm++)
            for (int add = 0; add < 2; add++) {
                hspmv_error e;
                char w[160];
                tl_fill(X, m * k, 100 + (uint64_t)k);
                if (add) tl_fill(Y, n * k, 200 + (uint64_t)k);
                else tl_fill_nan(Y, n * k);
                memcpy(Y0, Y, sizeof(hspmv_real) * (size_t)(n * k));
                int rc = hspmv_local_spmm(L, HSPMV_TRANSPOSE | (cm ? HSPMV_COL_MAJOR : 0), k, X, Y, add, &e);
                if (rc) {
                    fprintf(stderr, "  %s k=%d: %s\n", what, k, e.msg);
                    bad++;
                    continue;
                }
                for (int j = 0; j < k; j++) {
                    snprintf(w, sizeof(w), "%s k=%d %s %s vector %d", what, k, cm ? "col-major" : "row-major",
                             add ? "Y+=" : "Y=", j);
                    get_vec(X, m, k, j, cm, xy);
                    get_vec(Y, n, k, j, cm, y);
                    if (add) {
                        get_vec(Y0, n, k, j, cm, xy + m);
                        bad += !tl_matches_ref(&B, xy, y, w);
                    } else {
                        bad += !tl_matches_ref(At, xy, y, w);
                    }
                }
            }
    }
    free(X);
    free(Y);
    free(Y0);
    free(xy);
    free(y);
    hspmv_csr_free(&B);
    return bad;
}

static void transposed_product_matches_ref(void)
{
    static const int64_t shapes[][2] = {{300, 300}, {200, 330}, {330, 200}, {1, 40}, {40, 1}};
    int cases = 0;
    for (int s = 0; s < 5; s++) {
        hspmv_csr A, At;
        banded(&A, shapes[s][0], shapes[s][1]);
        transpose_slow(&A, &At);
        for (int f = 0; f < NFMT; f++)
            for (int i = 0; i < nsets; i++) {
                int threads = 1 + (f + i + s) % 2;
                hspmv_opts o = opts_of(formats[f], sets[i]->isa, threads);
                hspmv_local *L = NULL;
                hspmv_error e;
                char what[128];
                if (hspmv_local_create(&A, &o, &L, &e) != HSPMV_OK) {
                    CHECK(0, "create %s: %s", fmt_names[formats[f]], e.msg);
                    continue;
                }
                snprintf(what, sizeof(what), "%s/%s %lldx%lld threads=%d", fmt_names[formats[f]], sets[i]->isa,
                         (long long)A.nrows, (long long)A.ncols, threads);
                CHECK(check_products(L, &At, what, s == 0) == 0, "%s", what);
                hspmv_local_info li;
                hspmv_local_get_info(L->T, &li);
                CHECK(li.nrows == A.ncols && li.ncols == A.nrows && li.nnz == A.nnz && !strcmp(li.isa, sets[i]->isa),
                      "%s: the copy is %lldx%lld, %lld entries, %s", what, (long long)li.nrows, (long long)li.ncols,
                      (long long)li.nnz, li.isa);
                hspmv_local_destroy(&L);
                cases++;
            }
        csr_free_plain(&A);
        csr_free_plain(&At);
    }
    /* random columns and values (formats that take any matrix), several threads */
    hspmv_csr R, Rt;
    CHECK(tl_csr_random(&R, 400, 650, NULL, 10, 0, 9) == HSPMV_OK, "generate");
    transpose_slow(&R, &Rt);
    for (int f = 0; f < NFMT; f++) {
        if (formats[f] == HSPMV_FORMAT_CSRVI || formats[f] == HSPMV_FORMAT_CSRP) continue;
        hspmv_opts o = opts_of(formats[f], sets[0]->isa, 2);
        hspmv_local *L = NULL;
        if (hspmv_local_create(&R, &o, &L, NULL) != HSPMV_OK) {
            CHECK(0, "create %s", fmt_names[formats[f]]);
            continue;
        }
        CHECK(check_products(L, &Rt, fmt_names[formats[f]], 1) == 0, "random %s", fmt_names[formats[f]]);
        hspmv_local_destroy(&L);
        cases++;
    }
    hspmv_csr_free(&R);
    csr_free_plain(&Rt);
    printf("  %d matrix x format x kernel cases\n", cases);
}

/* The copy is made once; an allocation failing anywhere in it gives
   HSPMV_ERR_NOMEM and leaves L usable (a later call builds it). */
static void transposed_copy_is_built_once_and_survives_failures(void)
{
    hspmv_csr A, At;
    hspmv_local *L = NULL;
    hspmv_real x[250], y[260];
    banded(&A, 250, 260);
    transpose_slow(&A, &At);
    tl_fill(x, 250, 3);
    CHECK(hspmv_local_create(&A, NULL, &L, NULL) == HSPMV_OK, "create");
    if (!L) return;
    int failures = 0;
    for (long n = 1; n < 200; n++) {
        hspmv_error e;
        hspmv_alloc_fail_after(n);
        int rc = hspmv_local_spmm(L, HSPMV_TRANSPOSE, 1, x, y, 0, &e);
        hspmv_alloc_fail_after(0);
        if (rc == HSPMV_OK) break;
        failures++;
        CHECK(rc == HSPMV_ERR_NOMEM && !L->T, "allocation %ld: rc %d (%s)", n, rc, e.msg);
    }
    CHECK(failures > 3 && L->T, "%d failures before it succeeded", failures);
    CHECK(tl_matches_ref(&At, x, y, "after failures"), "product after the failures");
    hspmv_local *T = L->T;
    CHECK(hspmv_local_spmm(L, HSPMV_TRANSPOSE, 1, x, y, 0, NULL) == HSPMV_OK && L->T == T, "built again");
    CHECK(tl_matches_ref(&At, x, y, "second call"), "second call");
    /* the check can fail: a perturbed result is caught */
    y[17] += (hspmv_real)0.01;
    fprintf(stderr, "    (one mismatch expected below)\n");
    CHECK(!tl_matches_ref(&At, x, y, "perturbed on purpose"), "perturbed y passed");
    hspmv_local_destroy(&L);
    csr_free_plain(&A);
    csr_free_plain(&At);
}

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(decode_gives_the_matrix_back);
    RUN(transposed_product_matches_ref);
    RUN(transposed_copy_is_built_once_and_survives_failures);
    CHECK_DONE();
}
