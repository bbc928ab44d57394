/* test_csr16.c — CSR16 (16-bit column offsets from the row): the conversion,
   hspmv_csr16_fits at the +-32767 edge, and every kernel set this CPU runs
   (hspmv_kernel_sets), in both row pointer widths, against the long-double
   reference with the docs/design.md bound: y = A*x (add = 0), y = y0 + A*x
   (add = 1), and sub-ranges of rows giving exactly what one call gives.
   ISA-agnostic: it names kernels only through the registry, so the same
   file tests NEON under qemu-aarch64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csr16.h"
#include "kernel_select.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

/* Row lengths that exercise every tail: below, at and above one vector for
   2, 4, 8 and 16 lanes, and 4 unrolled vectors. */
#define MAXLEN 33

/* The set's CSR16 kernel on k->mat, rows [r0, r1). */
static void run16(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                  int add)
{
    const hspmv_csr16 *C = k->mat;
    k->ks->csr16(r0, r1, C->rowptr32, C->rowptr, C->off, C->val, x, y, add);
}

/* C with row pointers of rp_bits bits. */
static int csr16_with(const hspmv_csr *A, int rp_bits, hspmv_csr16 *C)
{
    int rc = hspmv_csr16_alloc(A, rp_bits, C, NULL);
    if (rc == HSPMV_OK) hspmv_csr16_fill_rows(A, C, 0, A->nrows);
    return rc;
}

/* Every set, both row pointer widths, on A (which must fit): tl_kcheck_run's
   checks, and both widths give the same bits. Returns the number of failed
   checks. */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    tl_kcheck T;
    hspmv_csr16 C[2] = {{0}};
    int bad = 0, rct = tl_kcheck_init(&T, A, seed);
    int rc32 = csr16_with(A, 32, &C[0]), rc64 = csr16_with(A, 64, &C[1]);
    hspmv_real *yw = hspmv_malloc((size_t)(T.n > 0 ? T.n : 1) * sizeof(hspmv_real));
    if (!yw || rct || rc32 || rc64 || !hspmv_csr16_fits(A)) {
        CHECK(0, "%s: setup failed (invalid CSR or out of memory %d, conversion %d/%d, or does not fit)",
              name, rct, rc32, rc64);
        bad++;
        goto out;
    }
    for (int s = 0; s < nsets; s++)
        for (int w = 0; w < 2; w++) {
            char label[256];
            tl_kernel k = {run16, sets[s], &C[w], label};
            snprintf(label, sizeof(label), "%s %s/csr16 rp%d", name, sets[s]->isa, w ? 64 : 32);
            int f = tl_kcheck_run(&T, &k);
            if (w == 0) memcpy(yw, T.y, (size_t)T.n * sizeof(hspmv_real));
            f += tl_kcheck_same(&T, yw, "64-bit row pointers give other bits than 32-bit");
            CHECK(f == 0, "%s: %d checks failed", label, f);
            bad += f;
        }
out:
    hspmv_csr16_free(&C[0]);
    hspmv_csr16_free(&C[1]);
    tl_kcheck_free(&T);
    hspmv_free(yw);
    return bad;
}

/* Random banded CSR: row i has lens[i % nlens] distinct sorted columns
   drawn uniformly from [i-hw, i+hw] within [0, ncols) (fewer when the
   window is narrower), by selection sampling; values in [-1, 1). */
static int csr_banded(hspmv_csr *A, int64_t nrows, int64_t ncols, const int64_t *lens, int nlens,
                      int64_t hw, uint64_t seed)
{
    uint64_t s = seed, sv = ~seed;
    int64_t nnz = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->ncols = ncols;
    A->rowptr = hspmv_calloc((size_t)nrows + 1, sizeof(int64_t));
    if (!A->rowptr) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t lo = i - hw > 0 ? i - hw : 0, hi = i + hw + 1 < ncols ? i + hw + 1 : ncols;
        int64_t want = lens[i % nlens], room = hi > lo ? hi - lo : 0;
        nnz += want < room ? want : room;
        A->rowptr[i + 1] = nnz;
    }
    A->nnz = nnz;
    A->colind = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(hspmv_real));
    if (!A->colind || !A->val) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t lo = i - hw > 0 ? i - hw : 0, hi = i + hw + 1 < ncols ? i + hw + 1 : ncols;
        int64_t q = A->rowptr[i], need = A->rowptr[i + 1] - q;
        for (int64_t c = lo; c < hi && need > 0; c++) /* Knuth's algorithm S */
            if ((int64_t)(tl_next(&s) % (uint64_t)(hi - c)) < need) {
                A->colind[q] = (int32_t)c;
                A->val[q++] = (hspmv_real)tl_uniform(&sv, -1, 1);
                need--;
            }
    }
    return HSPMV_OK;
}

/* A CSR whose row i holds the given columns of row i (ncol[i] of them,
   ascending), values from the seed. */
static int csr_rows(hspmv_csr *A, int64_t nrows, int64_t ncols, int32_t cols[][3],
                    const int *ncol, uint64_t seed)
{
    int64_t nnz = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->ncols = ncols;
    A->rowptr = hspmv_calloc((size_t)nrows + 1, sizeof(int64_t));
    for (int64_t i = 0; i < nrows; i++) nnz += ncol[i];
    A->colind = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    A->nnz = nnz;
    for (int64_t i = 0, q = 0; i < nrows; i++) {
        for (int t = 0; t < ncol[i]; t++) A->colind[q++] = cols[i][t];
        A->rowptr[i + 1] = q;
    }
    tl_fill(A->val, nnz, seed);
    return HSPMV_OK;
}

/* 1 when A's conversion is refused as it should be: fits says no and the
   conversion returns UNSUPPORTED with C zeroed. */
static int refused(const hspmv_csr *A)
{
    hspmv_csr16 C;
    hspmv_error e;
    int rc = hspmv_csr16_from_csr(A, &C, &e);
    return !hspmv_csr16_fits(A) && rc == HSPMV_ERR_UNSUPPORTED && !C.off && !C.val &&
           !C.rowptr && !C.rowptr32 && e.msg[0];
}

/* ---- tests ---------------------------------------------------------------- */

static void registry_has_a_csr16_kernel_in_every_set(void)
{
    CHECK(nsets >= 1, "no kernel sets");
    for (int s = 0; s < nsets; s++) CHECK(sets[s]->csr16, "%s has no csr16 kernel", sets[s]->isa);
}

static void csr16_from_csr_stores_column_minus_row_and_32_bit_pointers(void)
{
    static const int64_t lens[] = {0, 3, 9, 1, 17};
    hspmv_csr A;
    hspmv_csr16 C;
    int rc = csr_banded(&A, 200, 150, lens, 5, 60, 3);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_csr16_from_csr(&A, &C, NULL);
    CHECK(rc == HSPMV_OK, "conversion failed (%d)", rc);
    if (rc == HSPMV_OK) {
        int ok = C.rowptr32 && !C.rowptr && C.nrows == 200 && C.ncols == 150 && C.nnz == A.nnz;
        CHECK(ok, "fields or pointer width wrong");
        for (int64_t i = 0; ok && i < A.nrows; i++) {
            ok = C.rowptr32[i + 1] == (uint32_t)A.rowptr[i + 1];
            for (int64_t k = A.rowptr[i]; ok && k < A.rowptr[i + 1]; k++)
                ok = i + C.off[k] == A.colind[k] && C.val[k] == A.val[k];
            CHECK(ok, "row %lld differs from the CSR", (long long)i);
        }
        double r = sizeof(hspmv_real);
        double want = (double)A.nnz * (r + 2) + 201.0 * 4 + 150 * r + 200 * r;
        CHECK(hspmv_csr16_bytes(&C) == want, "bytes %g, want %g", hspmv_csr16_bytes(&C), want);
    }
    hspmv_csr16_free(&C);
    CHECK(!C.off && !C.val && !C.rowptr32, "free did not zero");
    hspmv_csr16_free(&C); /* twice is fine */
    hspmv_csr_free(&A);
}

static void csr16_conversion_fails_cleanly_when_out_of_memory(void)
{
    static const int64_t lens[] = {5};
    hspmv_csr A;
    int rc = csr_banded(&A, 50, 50, lens, 1, 4, 5);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    for (long n = 1; n <= 3; n++) {
        hspmv_csr16 C;
        hspmv_alloc_fail_after(n);
        rc = hspmv_csr16_from_csr(&A, &C, NULL);
        hspmv_alloc_fail_after(0);
        CHECK(rc == HSPMV_ERR_NOMEM && !C.off && !C.val && !C.rowptr32 && !C.rowptr,
              "allocation %ld failing: rc %d", n, rc);
        hspmv_csr16_free(&C);
    }
    hspmv_csr16 C;
    CHECK(hspmv_csr16_alloc(&A, 16, &C, NULL) == HSPMV_ERR_ARG, "16-bit row pointers accepted");
    hspmv_csr_free(&A);
}

/* Offsets of exactly +-32767 fit and multiply right; 32768 either way (and
   -32768, which int16 could hold) do not fit. */
static void csr16_fits_offsets_of_32767_and_refuses_32768(void)
{
    int32_t cols[4][3] = {{0, 32767, 0}, {1, 32768, 0}, {0, 32767, 65536}, {0, 0, 0}};
    int ncol[4] = {2, 2, 3, 0}; /* row 2: offsets -2, 32765, 65534 - too far */
    hspmv_csr A;
    /* rows 0 and 1 reach +32767 */
    int32_t ok_cols[3][3] = {{0, 32767, 0}, {1, 32768, 0}, {2, 0, 0}};
    int ok_n[3] = {2, 2, 1};
    int rc = csr_rows(&A, 3, 65537, ok_cols, ok_n, 1);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(hspmv_csr16_fits(&A), "+32767 refused");
    check_all_kernels(&A, "offset +32767", 41);
    hspmv_csr_free(&A);

    /* -32767 at the last row of a tall matrix, x entry 0 at offset -32767 */
    {
        static const int64_t one[] = {1};
        rc = csr_banded(&A, 32768, 1, one, 1, 32767, 2);
        CHECK(rc == HSPMV_OK && A.nnz == 32768, "generator failed");
        if (rc) return;
        CHECK(A.colind[A.nnz - 1] == 0 && hspmv_csr16_fits(&A), "-32767 refused");
        check_all_kernels(&A, "offset -32767", 42);
        hspmv_csr_free(&A);
        rc = csr_banded(&A, 32769, 1, one, 1, 32768, 2); /* row 32768, column 0 */
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        CHECK(refused(&A), "-32768 accepted");
        hspmv_csr_free(&A);
    }

    cols[1][1] = 32769; /* row 1: +32768 */
    ncol[2] = 0;
    rc = csr_rows(&A, 4, 65537, cols, ncol, 3);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(refused(&A), "+32768 accepted");
    hspmv_csr_free(&A);
    cols[1][1] = 32768;
    ncol[2] = 3; /* row 2: +65534 */
    rc = csr_rows(&A, 4, 65537, cols, ncol, 4);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(refused(&A), "+65534 accepted");
    hspmv_csr_free(&A);
}

static void csr16_refuses_a_random_wide_matrix(void)
{
    hspmv_csr A;
    int rc = tl_csr_random(&A, 100, 200000, NULL, 8, 0, 9);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(refused(&A), "a random 100 x 200000 matrix accepted");
    hspmv_csr_free(&A);
}

static void every_csr16_kernel_matches_ref_on_banded_row_lengths_0_to_33(void)
{
    int64_t lens[MAXLEN + 1];
    for (int t = 0; t <= MAXLEN; t++) lens[t] = (t * 7) % (MAXLEN + 1); /* each length once per 34 rows */
    static const int64_t hws[] = {16, 40, 300, 32767};
    for (int h = 0; h < 4; h++) {
        hspmv_csr A;
        char name[64];
        int64_t n = 3 * (MAXLEN + 1) + 5, m = hws[h] == 32767 ? 70000 : n;
        int rc = csr_banded(&A, n, m, lens, MAXLEN + 1, hws[h], 11 + (uint64_t)h);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "banded +-%lld, lengths 0..33", (long long)hws[h]);
        check_all_kernels(&A, name, 7 + (uint64_t)h);
        hspmv_csr_free(&A);
    }
}

static void every_csr16_kernel_matches_ref_on_a_dense_band_of_1000(void)
{
    static const int64_t lens[] = {1000, 0, 3, 999, 1000, 1, 513};
    hspmv_csr A;
    int rc = csr_banded(&A, 40, 2000, lens, 7, 1000, 31);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "dense band", 9);
    hspmv_csr_free(&A);
}

/* Tall and wide shapes, offsets relative to the row index: the tall one has
   rows past the last column (empty, its window being outside) and the wide
   one columns far right of the diagonal. */
static void every_csr16_kernel_matches_ref_on_rectangular_matrices(void)
{
    static const int64_t lens[] = {0, 1, 5, 8, 9, 17, 33, 2};
    static const int64_t shapes[][3] = {{300, 50, 40}, {50, 3000, 2000}, {40000, 8000, 32767},
                                        {200, 33000, 32767}, {1, 70000, 32767}};
    for (int t = 0; t < 5; t++) {
        hspmv_csr A;
        char name[64];
        int rc = csr_banded(&A, shapes[t][0], shapes[t][1], lens, 8, shapes[t][2], 51 + (uint64_t)t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "%lld x %lld", (long long)shapes[t][0], (long long)shapes[t][1]);
        check_all_kernels(&A, name, 13 + (uint64_t)t);
        hspmv_csr_free(&A);
    }
}

static void every_csr16_kernel_handles_empty_matrices_and_rows(void)
{
    static const int64_t some[] = {0, 0, 7, 0, 16, 0, 0, 1};
    int rc = tl_on_empty_matrices(check_all_kernels);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    hspmv_csr A;
    rc = csr_banded(&A, 99, 99, some, 8, 20, 62);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "5 of 8 rows empty", 14);
    hspmv_csr_free(&A);
}

/* Threads call kernels on sub-ranges: many cut points, empty ranges included. */
static void every_csr16_kernel_gives_one_calls_y_on_split_row_ranges(void)
{
    int64_t lens[MAXLEN + 1], n = 97;
    for (int t = 0; t <= MAXLEN; t++) lens[t] = (t * 5) % (MAXLEN + 1);
    hspmv_csr A;
    hspmv_csr16 C[2] = {{0}};
    int rc = csr_banded(&A, n, 200, lens, MAXLEN + 1, 60, 71);
    rc = rc ? rc : csr16_with(&A, 32, &C[0]);
    rc = rc ? rc : csr16_with(&A, 64, &C[1]);
    CHECK(rc == HSPMV_OK, "setup failed");
    hspmv_real *x = hspmv_malloc(200 * sizeof(hspmv_real));
    tl_fill(x, 200, 13);
    for (int s = 0; s < nsets && rc == HSPMV_OK; s++)
        for (int w = 0; w < 2; w++) {
            char label[64];
            tl_kernel k = {run16, sets[s], &C[w], label};
            snprintf(label, sizeof(label), "%s/csr16 rp%d", sets[s]->isa, w ? 64 : 32);
            CHECK(tl_check_splits(&k, n, x) == 0, "%s: split ranges differ from one call", label);
        }
    hspmv_free(x);
    hspmv_csr16_free(&C[0]);
    hspmv_csr16_free(&C[1]);
    hspmv_csr_free(&A);
}

/* Tails must not touch memory past the last value, offset or x entry: row
   2 of 3 (rows 0 and 1 empty) is its columns 0..len-1, the last entries of
   every array, and each array the kernels read ends at a page that faults. */
static void every_csr16_kernel_reads_nothing_past_the_arrays_ends(void)
{
    for (int64_t len = 1; len <= MAXLEN; len++) {
        hspmv_csr A;
        hspmv_csr16 C, G;
        tl_guard P = {0};
        int64_t l3[3] = {0, 0, len};
        int rc = csr_banded(&A, 3, len, l3, 3, len + 2, 23 + (uint64_t)len);
        rc = rc ? rc : hspmv_csr16_from_csr(&A, &C, NULL);
        CHECK(rc == HSPMV_OK && A.nnz == len, "setup failed");
        if (rc) return;
        hspmv_real *x = malloc((size_t)len * sizeof(hspmv_real));
        tl_fill(x, len, 17);
        G = C;
        hspmv_real *gx = tl_guard_copy(&P, x, (size_t)len * sizeof(hspmv_real));
        G.off = tl_guard_copy(&P, C.off, (size_t)len * sizeof(int16_t));
        G.val = tl_guard_copy(&P, C.val, (size_t)len * sizeof(hspmv_real));
        G.rowptr32 = tl_guard_copy(&P, C.rowptr32, 4 * sizeof(uint32_t));
        int mapped = gx && G.off && G.val && G.rowptr32;
        CHECK(mapped, "mmap failed");
        for (int s = 0; s < nsets && mapped; s++) {
            char what[64];
            tl_kernel g = {run16, sets[s], &G, what}, k = {run16, sets[s], &C, what};
            snprintf(what, sizeof(what), "%s/csr16, %lld at page end", sets[s]->isa, (long long)len);
            CHECK(tl_check_guarded(&A, &g, gx, &k, x) == 0, "%s", what);
        }
        tl_guard_free(&P);
        free(x);
        hspmv_csr16_free(&C);
        hspmv_csr_free(&A);
    }
}

/* The check can fail: a CSR16 y that is right except for one row moved by
   three times that row's bound is rejected, for every set. */
static void ref_check_rejects_a_csr16_y_off_by_three_bounds(void)
{
    static const int64_t lens[] = {12, 3, 20};
    hspmv_csr A;
    hspmv_csr16 C;
    int rc = csr_banded(&A, 30, 60, lens, 3, 15, 91);
    rc = rc ? rc : hspmv_csr16_from_csr(&A, &C, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(60 * sizeof(hspmv_real));
    tl_fill(x, 60, 19);
    for (int s = 0; s < nsets; s++) { /* row 0 has 12 entries */
        char label[64];
        tl_kernel k = {run16, sets[s], &C, label};
        snprintf(label, sizeof(label), "%s/csr16", sets[s]->isa);
        CHECK(tl_check_rejects(&A, &k, x, 0) == 0, "%s: the check did not tell y off by 3 bounds", label);
    }
    hspmv_free(x);
    hspmv_csr16_free(&C);
    hspmv_csr_free(&A);
}

/* One matrix of a folder: 1 when checked, 0 when refused. */
static int check_file(const hspmv_csr *A, const char *name, int i)
{
    if (!hspmv_csr16_fits(A)) {
        CHECK(refused(A), "%s: does not fit but was converted", name);
        return 0;
    }
    check_all_kernels(A, name, 1000 + (uint64_t)i);
    return 1;
}

/* Every readable *.mtx in dir (those that fit through check_all_kernels,
   the others refused); skipped when dir is missing. */
static void check_folder(const char *dir, int shared) { CHECK_EACH_MTX(dir, shared, check_file); }

static void every_csr16_kernel_matches_ref_on_bundled_matrices(void) { check_folder("matrices", 0); }

static void every_csr16_kernel_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(registry_has_a_csr16_kernel_in_every_set);
    RUN(csr16_from_csr_stores_column_minus_row_and_32_bit_pointers);
    RUN(csr16_conversion_fails_cleanly_when_out_of_memory);
    RUN(csr16_fits_offsets_of_32767_and_refuses_32768);
    RUN(csr16_refuses_a_random_wide_matrix);
    RUN(ref_check_rejects_a_csr16_y_off_by_three_bounds);
    RUN(every_csr16_kernel_matches_ref_on_banded_row_lengths_0_to_33);
    RUN(every_csr16_kernel_matches_ref_on_a_dense_band_of_1000);
    RUN(every_csr16_kernel_matches_ref_on_rectangular_matrices);
    RUN(every_csr16_kernel_handles_empty_matrices_and_rows);
    RUN(every_csr16_kernel_gives_one_calls_y_on_split_row_ranges);
    RUN(every_csr16_kernel_reads_nothing_past_the_arrays_ends);
    RUN(every_csr16_kernel_matches_ref_on_bundled_matrices);
    RUN(every_csr16_kernel_matches_ref_on_shared_matrices);
    CHECK_DONE();
}
