/* test_csr.c — COO to CSR: sorting, duplicates, symmetry, shapes, failures. */
#include <string.h>
#include "check.h"
#include "testlib.h"
#include "csr.h"
#include "alloc.h"

/* A COO built from literal triplets (1-based like a file, converted here). */
static void coo_of(hspmv_coo *c, int64_t m, int64_t n, int sym, int64_t nz, const int *ij, const double *v)
{
    memset(c, 0, sizeof(*c));
    c->nrows = m;
    c->ncols = n;
    c->nnz = nz;
    c->symmetry = sym;
    c->row = hspmv_malloc((nz + 1) * sizeof(int32_t));
    c->col = hspmv_malloc((nz + 1) * sizeof(int32_t));
    c->val = hspmv_malloc((nz + 1) * sizeof(hspmv_real));
    for (int64_t k = 0; k < nz; k++) {
        c->row[k] = ij[2 * k] - 1;
        c->col[k] = ij[2 * k + 1] - 1;
        c->val[k] = (hspmv_real)v[k];
    }
}

/* Dense copy of A for easy comparison. */
static double at(const hspmv_csr *A, int64_t i, int64_t j)
{
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) return A->val[k];
    return 0;
}

static int has(const hspmv_csr *A, int64_t i, int64_t j)
{
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) return 1;
    return 0;
}

static void duplicates_are_summed_and_columns_sorted(void)
{
    int ij[] = {2, 3, 1, 1, 2, 1, 2, 3, 1, 1, 2, 2};
    double v[] = {1, 2, 3, 4, 5, 6};
    hspmv_coo c;
    hspmv_csr A;
    coo_of(&c, 2, 3, HSPMV_GENERAL, 6, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK, "build failed");
    CHECK(A.nnz == 4, "nnz %lld, expected 4 after summing", (long long)A.nnz);
    CHECK(hspmv_csr_validate(&A, NULL) == HSPMV_OK, "invalid CSR");
    CHECK(at(&A, 0, 0) == 7 && at(&A, 1, 0) == 3 && at(&A, 1, 1) == 6 && at(&A, 1, 2) == 5, "values");
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

/* Finite duplicates whose sum is not finite are refused like an inf in the
   file, naming the entry (1-based); nothing is left allocated. */
static void duplicates_summing_past_the_range_are_refused(void)
{
#ifdef HSPMV_SINGLE
    const double big = 3e38;
#else
    const double big = 1e308;
#endif
    int ij[] = {1, 1, 3, 2, 3, 2, 2, 2};
    double v[] = {1, big, big, 2};
    hspmv_coo c;
    hspmv_csr A;
    hspmv_error e;
    coo_of(&c, 3, 3, HSPMV_GENERAL, 4, ij, v);
    int rc = hspmv_csr_from_coo(&c, &A, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "entry (3,2) is given more than once") &&
              strstr(e.msg, sizeof(hspmv_real) == 4 ? "float range" : "double range"), "code %d: %s", rc, e.msg);
    CHECK(!A.rowptr && !A.colind && !A.val, "CSR left allocated");
    hspmv_coo_free(&c);
    v[2] = -big; /* big + (-big) is fine, as is the mirror of a symmetric big */
    coo_of(&c, 3, 3, HSPMV_SYMMETRIC, 4, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, &e) == HSPMV_OK && at(&A, 2, 1) == 0 && at(&A, 1, 2) == 0, "%s", e.msg);
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void symmetric_triangle_is_mirrored_once(void)
{
    int ij[] = {1, 1, 2, 1, 3, 2, 3, 3};
    double v[] = {4, -1, -2, 5};
    hspmv_coo c;
    hspmv_csr A;
    coo_of(&c, 3, 3, HSPMV_SYMMETRIC, 4, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK, "build failed");
    CHECK(A.nnz == 6, "nnz %lld, expected 6", (long long)A.nnz);
    CHECK(at(&A, 0, 1) == -1 && at(&A, 1, 0) == -1 && at(&A, 1, 2) == -2 && at(&A, 2, 1) == -2, "mirror");
    CHECK(at(&A, 0, 0) == 4 && at(&A, 2, 2) == 5, "diagonal not doubled");
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void skew_symmetric_mirror_is_negated(void)
{
    int ij[] = {2, 1, 3, 1};
    double v[] = {3, -7};
    hspmv_coo c;
    hspmv_csr A;
    coo_of(&c, 3, 3, HSPMV_SKEW_SYMMETRIC, 2, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK, "build failed");
    CHECK(at(&A, 1, 0) == 3 && at(&A, 0, 1) == -3 && at(&A, 2, 0) == -7 && at(&A, 0, 2) == 7, "skew values");
    CHECK(A.nnz == 4, "nnz %lld", (long long)A.nnz);
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void explicit_zeros_and_empty_rows_are_kept(void)
{
    int ij[] = {1, 2, 4, 4};
    double v[] = {0, 1};
    hspmv_coo c;
    hspmv_csr A;
    coo_of(&c, 5, 4, HSPMV_GENERAL, 2, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK, "build failed");
    CHECK(A.nnz == 2 && has(&A, 0, 1), "explicit zero dropped");
    CHECK(A.rowptr[1] == 1 && A.rowptr[2] == 1 && A.rowptr[3] == 1 && A.rowptr[4] == 2 && A.rowptr[5] == 2,
          "row pointers of empty rows");
    CHECK(hspmv_csr_validate(&A, NULL) == HSPMV_OK, "invalid CSR");
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void rectangular_and_empty_matrices_build(void)
{
    int ij[] = {1, 7, 2, 1};
    double v[] = {1, 2};
    hspmv_coo c;
    hspmv_csr A;
    coo_of(&c, 2, 7, HSPMV_GENERAL, 2, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK && A.ncols == 7 && at(&A, 0, 6) == 1, "wide");
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
    coo_of(&c, 0, 0, HSPMV_GENERAL, 0, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK && A.nnz == 0 && A.rowptr[0] == 0, "empty");
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void long_unsorted_rows_sort_with_values(void)
{
    enum { N = 1000 };
    static int ij[2 * N];
    static double v[N];
    uint64_t s = 7;
    for (int k = 0; k < N; k++) { /* a permutation of columns 1..N in row 1 */
        ij[2 * k] = 1;
        ij[2 * k + 1] = k + 1;
        v[k] = k + 1;
    }
    for (int k = N - 1; k > 0; k--) {
        int r = (int)(tl_next(&s) % (uint64_t)(k + 1)), t = ij[2 * k + 1];
        double tv = v[k];
        ij[2 * k + 1] = ij[2 * r + 1]; ij[2 * r + 1] = t;
        v[k] = v[r]; v[r] = tv;
    }
    hspmv_coo c;
    hspmv_csr A;
    coo_of(&c, 1, N, HSPMV_GENERAL, N, ij, v);
    CHECK(hspmv_csr_from_coo(&c, &A, NULL) == HSPMV_OK, "build");
    CHECK(hspmv_csr_validate(&A, NULL) == HSPMV_OK, "not sorted");
    int good = 1;
    for (int k = 0; k < N; k++) good &= A.colind[k] == k && A.val[k] == k + 1;
    CHECK(good, "values did not follow their columns");
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void failed_allocations_return_nomem_and_leave_nothing(void)
{
    int ij[] = {1, 1, 2, 1, 2, 2};
    double v[] = {1, 2, 3};
    hspmv_coo c;
    hspmv_csr A;
    hspmv_error e;
    int n;
    coo_of(&c, 2, 2, HSPMV_SYMMETRIC, 3, ij, v);
    for (n = 1; n < 20; n++) {
        hspmv_alloc_fail_after(n);
        int rc = hspmv_csr_from_coo(&c, &A, &e);
        hspmv_alloc_fail_after(0);
        if (rc == HSPMV_OK) break;
        CHECK(rc == HSPMV_ERR_NOMEM && A.rowptr == NULL && A.colind == NULL && A.val == NULL,
              "allocation %d: rc %d", n, rc);
        CHECK(strstr(e.msg, "out of memory") != NULL, "message '%s'", e.msg);
    }
    CHECK(n > 1 && n < 20, "never failed or never succeeded (n=%d)", n);
    hspmv_csr_free(&A);
    hspmv_coo_free(&c);
}

static void validate_catches_broken_csr(void)
{
    int64_t rp[] = {0, 2, 1};
    int32_t ci[] = {0, 1};
    hspmv_real v[] = {1, 1};
    hspmv_csr A = {2, 2, 1, rp, ci, v};
    hspmv_error e;
    CHECK(hspmv_csr_validate(&A, &e) == HSPMV_ERR_FORMAT, "decreasing rowptr accepted");
    int64_t rp2[] = {0, 2, 2};
    int32_t ci2[] = {1, 0};
    hspmv_csr B = {2, 2, 2, rp2, ci2, v};
    CHECK(hspmv_csr_validate(&B, &e) == HSPMV_ERR_FORMAT, "unsorted columns accepted");
    ci2[0] = 0; ci2[1] = 5;
    CHECK(hspmv_csr_validate(&B, &e) == HSPMV_ERR_FORMAT, "out-of-range column accepted");
}

int main(void)
{
    RUN(duplicates_are_summed_and_columns_sorted);
    RUN(duplicates_summing_past_the_range_are_refused);
    RUN(symmetric_triangle_is_mirrored_once);
    RUN(skew_symmetric_mirror_is_negated);
    RUN(explicit_zeros_and_empty_rows_are_kept);
    RUN(rectangular_and_empty_matrices_build);
    RUN(long_unsorted_rows_sort_with_values);
    RUN(failed_allocations_return_nomem_and_leave_nothing);
    RUN(validate_catches_broken_csr);
    CHECK_DONE();
}
