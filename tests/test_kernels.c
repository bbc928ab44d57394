/* test_kernels.c — every kernel set this CPU runs (hspmv_kernel_sets), CSR and
   CSRL, checked against the long-double reference with the docs/design.md bound:
   y = A*x (add = 0), y = y0 + A*x (add = 1), and sub-ranges of rows giving
   exactly what one call gives. ISA-agnostic: it names kernels only through
   the registry, so the same file tests NEON under qemu-aarch64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csrl.h"
#include "kernel_select.h"
#include "testlib.h"
#include "csr.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

/* The row lengths (and segment lengths) that exercise every tail: below,
   at and above one vector for 2, 4, 8 and 16 lanes, and 4 unrolled vectors. */
static const int64_t tail_lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
#define NTAIL (int)(sizeof(tail_lens) / sizeof(tail_lens[0]))

enum { FMT_CSR, FMT_CSRL };
static const char *fmt_name[] = {"csr", "csrl"};

static void run_csr(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                    int add)
{
    const hspmv_csr *A = k->mat;
    k->ks->csr(r0, r1, A->rowptr, A->colind, A->val, x, y, add);
}

static void run_csrl(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                     int add)
{
    const hspmv_csrl *L = k->mat;
    k->ks->csrl(r0, r1, L->segptr, L->valptr, L->jas, L->jan, L->val, x, y, add);
}

/* Set ks's kernel of format fmt, on A (CSR) or L (CSRL). */
static tl_kernel kernel_of(const hspmv_kernel_set *ks, int fmt, const hspmv_csr *A, const hspmv_csrl *L,
                           const char *label)
{
    tl_kernel k = {fmt == FMT_CSR ? run_csr : run_csrl, ks, fmt == FMT_CSR ? (const void *)A : L, label};
    return k;
}

/* Every set, both formats, on A: tl_kcheck_run's checks. Returns the number
   of failed checks. */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    tl_kcheck T;
    hspmv_csrl L = {0};
    int bad = 0, rct = tl_kcheck_init(&T, A, seed), rcl = hspmv_csrl_from_csr(A, &L, NULL);
    if (rct || rcl) {
        CHECK(0, "%s: setup failed (invalid CSR or out of memory %d, CSRL conversion %d)", name, rct, rcl);
        bad++;
        goto out;
    }
    for (int s = 0; s < nsets; s++)
        for (int f = FMT_CSR; f <= FMT_CSRL; f++) {
            char label[256];
            tl_kernel k = kernel_of(sets[s], f, A, &L, label);
            snprintf(label, sizeof(label), "%s %s/%s", name, sets[s]->isa, fmt_name[f]);
            int fails = tl_kcheck_run(&T, &k);
            CHECK(fails == 0, "%s: %d checks failed", label, fails);
            bad += fails;
        }
out:
    hspmv_csrl_free(&L);
    tl_kcheck_free(&T);
    return bad;
}

/* Row i gets segments of maximal runs: lengths from lens[] taken in turn,
   nseg_max+1 possible counts (0..nseg_max), at least one column skipped
   between segments, so CSRL sees exactly these segment lengths. */
static int csr_segments(hspmv_csr *A, int64_t nrows, const int64_t *lens, int nlens,
                        int nseg_max, uint64_t seed)
{
    uint64_t s = seed, sv = ~seed; /* structure and values: separate streams */
    int64_t nnz = 0, maxcol = 0, li = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->rowptr = hspmv_calloc((size_t)nrows + 1, sizeof(int64_t));
    int64_t *nseg = calloc((size_t)nrows + 1, sizeof(int64_t));
    if (!A->rowptr || !nseg) {
        free(nseg);
        return HSPMV_ERR_NOMEM;
    }
    /* first pass: sizes */
    for (int64_t i = 0; i < nrows; i++) {
        int64_t c = (int64_t)(tl_next(&s) % 5);
        nseg[i] = (int64_t)(tl_next(&s) % (uint64_t)(nseg_max + 1));
        for (int64_t g = 0; g < nseg[i]; g++) {
            int64_t len = lens[li++ % nlens];
            if (len == 0) continue;
            nnz += len;
            c += len + 1 + (int64_t)(tl_next(&s) % 3);
        }
        A->rowptr[i + 1] = nnz;
        if (c > maxcol) maxcol = c;
    }
    A->nnz = nnz;
    A->ncols = maxcol;
    A->colind = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(hspmv_real));
    if (!A->colind || !A->val) {
        free(nseg);
        return HSPMV_ERR_NOMEM;
    }
    /* second pass: the same structure stream, now writing columns */
    s = seed;
    li = 0;
    for (int64_t i = 0, q = 0; i < nrows; i++) {
        int64_t c = (int64_t)(tl_next(&s) % 5);
        (void)tl_next(&s);
        for (int64_t g = 0; g < nseg[i]; g++) {
            int64_t len = lens[li++ % nlens];
            if (len == 0) continue;
            for (int64_t t = 0; t < len; t++) {
                A->colind[q] = (int32_t)(c + t);
                A->val[q++] = (hspmv_real)tl_uniform(&sv, -1, 1);
            }
            c += len + 1 + (int64_t)(tl_next(&s) % 3);
        }
    }
    free(nseg);
    return HSPMV_OK;
}

/* A random CSR with row i of length lens[i % nlens]; runs as in tl_csr_random. */
static int csr_row_lengths(hspmv_csr *A, int64_t nrows, int64_t ncols, const int64_t *lens,
                           int nlens, int runs, uint64_t seed)
{
    int64_t *rl = malloc((size_t)(nrows ? nrows : 1) * sizeof(int64_t));
    if (!rl) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < nrows; i++) rl[i] = lens[(i * 7 + i / nlens) % nlens];
    int rc = tl_csr_random(A, nrows, ncols, rl, 0, runs, seed);
    free(rl);
    return rc;
}

/* ---- tests ---------------------------------------------------------------- */

static void registry_lists_the_scalar_set_last(void)
{
    CHECK(nsets >= 1, "no kernel sets");
    if (nsets < 1) return;
    CHECK(strcmp(sets[nsets - 1]->isa, "scalar") == 0, "last set is %s", sets[nsets - 1]->isa);
    CHECK(hspmv_kernel_find("auto") == sets[0], "auto is not the first set");
    for (int s = 0; s < nsets; s++) {
        CHECK(sets[s]->csr && sets[s]->csrl, "%s has a NULL kernel", sets[s]->isa);
        CHECK(hspmv_kernel_find(sets[s]->isa) == sets[s], "find(%s) fails", sets[s]->isa);
    }
}

static int check_file(const hspmv_csr *A, const char *name, int i)
{
    check_all_kernels(A, name, 1000 + (uint64_t)i);
    return 1;
}

/* Every readable *.mtx in dir through check_all_kernels; skipped when dir is
   missing. */
static void check_folder(const char *dir, int shared) { CHECK_EACH_MTX(dir, shared, check_file); }

static void every_kernel_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

static void every_kernel_matches_ref_on_row_lengths_0_to_33(void)
{
    hspmv_csr A;
    /* runs = 0: scattered columns (CSR tails); runs = 6: CSRL with mixed segments */
    for (int runs = 0; runs <= 6; runs += 6) {
        int rc = csr_row_lengths(&A, 3 * NTAIL + 5, 300, tail_lens, NTAIL, runs, 11 + runs);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        check_all_kernels(&A, runs ? "row lengths 0..33, runs<=6" : "row lengths 0..33", 7);
        hspmv_csr_free(&A);
    }
}

static void every_kernel_matches_ref_on_segment_lengths_0_to_33(void)
{
    hspmv_csr A;
    int rc = csr_segments(&A, 200, tail_lens, NTAIL, 4, 21);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "segment lengths 0..33", 8);
    hspmv_csr_free(&A);
}

static void every_kernel_matches_ref_on_a_dense_row_of_1000(void)
{
    static const int64_t lens[] = {1000, 0, 3, 999, 1000, 1};
    hspmv_csr A;
    int rc = csr_row_lengths(&A, 12, 1000, lens, 6, 0, 31);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(A.rowptr[1] == 1000, "row 0 has %lld entries", (long long)A.rowptr[1]);
    check_all_kernels(&A, "dense row", 9);
    hspmv_csr_free(&A);
}

static void every_kernel_matches_ref_on_segments_of_500_to_2100(void)
{
    static const int64_t lens[] = {500, 513, 1, 1000, 2047, 2, 2100};
    hspmv_csr A;
    int rc = csr_segments(&A, 40, lens, 7, 3, 41);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "long segments", 10);
    hspmv_csr_free(&A);
}

static void every_kernel_matches_ref_on_single_entry_segments_only(void)
{
    static const int64_t one[] = {1};
    hspmv_csr A;
    int rc = csr_segments(&A, 300, one, 1, 40, 51);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(hspmv_csr_count_segments(&A) == A.nnz, "%lld segments for %lld entries",
          (long long)hspmv_csr_count_segments(&A), (long long)A.nnz);
    check_all_kernels(&A, "single-entry segments", 11);
    hspmv_csr_free(&A);
}

static void every_kernel_handles_empty_matrices(void)
{
    CHECK(tl_on_empty_matrices(check_all_kernels) == HSPMV_OK, "generator failed");
}

/* Threads call kernels on sub-ranges: many cut points, empty ranges included. */
static void every_kernel_gives_one_calls_y_on_split_row_ranges(void)
{
    hspmv_csr A;
    hspmv_csrl L;
    int64_t n = 97;
    int rc = csr_row_lengths(&A, n, 200, tail_lens, NTAIL, 4, 71);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_csrl_from_csr(&A, &L, NULL);
    CHECK(rc == HSPMV_OK, "CSRL conversion failed");
    hspmv_real *x = hspmv_malloc(200 * sizeof(hspmv_real));
    tl_fill(x, 200, 13);
    for (int s = 0; s < nsets && rc == HSPMV_OK; s++)
        for (int f = FMT_CSR; f <= FMT_CSRL; f++) {
            char label[64];
            tl_kernel k = kernel_of(sets[s], f, &A, &L, label);
            snprintf(label, sizeof(label), "%s/%s", sets[s]->isa, fmt_name[f]);
            CHECK(tl_check_splits(&k, n, x) == 0, "%s: split ranges differ from one call", label);
        }
    hspmv_free(x);
    hspmv_csrl_free(&L);
    hspmv_csr_free(&A);
}

/* Rows 0 and 1 empty, row 2 one isolated entry then columns 5..5+len-1, the
   last column of the matrix: every tail of row 2 ends at the arrays' ends. */
static int csr_tail_at_end(hspmv_csr *A, int64_t len)
{
    memset(A, 0, sizeof(*A));
    A->nrows = 3;
    A->ncols = 5 + len;
    A->nnz = 1 + len;
    A->rowptr = hspmv_calloc(4, sizeof(int64_t));
    A->colind = hspmv_malloc((size_t)A->nnz * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)A->nnz * sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    A->rowptr[3] = A->nnz;
    A->colind[0] = 2;
    for (int64_t t = 0; t < len; t++) A->colind[1 + t] = (int32_t)(5 + t);
    tl_fill(A->val, A->nnz, 23 + (uint64_t)len);
    return HSPMV_OK;
}

/* Masked tails must not touch memory past the last value, index or x entry:
   each array the kernels read ends at a page that faults when read. */
static void every_kernel_reads_nothing_past_the_arrays_ends(void)
{
    for (int t = 1; t < NTAIL; t++) {
        hspmv_csr A, G;
        hspmv_csrl L, GL;
        tl_guard P = {0};
        int rc = csr_tail_at_end(&A, tail_lens[t]);
        rc = rc ? rc : hspmv_csrl_from_csr(&A, &L, NULL);
        CHECK(rc == HSPMV_OK, "setup failed");
        if (rc) return;
        hspmv_real *x = malloc((size_t)A.ncols * sizeof(hspmv_real));
        tl_fill(x, A.ncols, 17);
        G = A;
        GL = L;
        hspmv_real *gx = tl_guard_copy(&P, x, (size_t)A.ncols * sizeof(hspmv_real));
        G.colind = tl_guard_copy(&P, A.colind, (size_t)A.nnz * sizeof(int32_t));
        G.val = tl_guard_copy(&P, A.val, (size_t)A.nnz * sizeof(hspmv_real));
        GL.val = tl_guard_copy(&P, L.val, (size_t)A.nnz * sizeof(hspmv_real));
        GL.jas = tl_guard_copy(&P, L.jas, (size_t)L.nseg * sizeof(int32_t));
        GL.jan = tl_guard_copy(&P, L.jan, (size_t)L.nseg * sizeof(int32_t));
        int mapped = gx && G.colind && G.val && GL.val && GL.jas && GL.jan;
        CHECK(mapped, "mmap failed");
        for (int s = 0; s < nsets && mapped; s++)
            for (int f = FMT_CSR; f <= FMT_CSRL; f++) {
                char what[64];
                tl_kernel g = kernel_of(sets[s], f, &G, &GL, what), k = kernel_of(sets[s], f, &A, &L, what);
                snprintf(what, sizeof(what), "%s/%s, %lld at page end", sets[s]->isa,
                         fmt_name[f], (long long)tail_lens[t]);
                CHECK(tl_check_guarded(&A, &g, gx, &k, x) == 0, "%s", what);
            }
        tl_guard_free(&P);
        free(x);
        hspmv_csrl_free(&L);
        hspmv_csr_free(&A);
    }
}

/* The oracle can fail: a y that is right except for one row moved by three
   times that row's bound must be rejected (and the unmoved y accepted). */
static void ref_check_rejects_one_row_off_by_three_bounds(void)
{
    hspmv_csr A;
    int rc = csr_row_lengths(&A, 50, 100, tail_lens, NTAIL, 0, 91);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(100 * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc(50 * sizeof(hspmv_real));
    tl_fill(x, 100, 19);
    hspmv_ref_spmv(&A, x, y);
    CHECK(tl_matches_ref(&A, x, y, "reference itself"), "the reference fails its own check");
    int64_t i = 0;
    while (i < A.nrows && A.rowptr[i + 1] - A.rowptr[i] < 9) i++; /* a row with k >= 9 */
    CHECK(i < A.nrows, "no row with 9 entries");
    if (i < A.nrows) {
        long double bound = tl_row_bound(&A, x, i);
        hspmv_real keep = y[i];
        y[i] = (hspmv_real)((long double)y[i] + 3 * bound);
        fprintf(stderr, "    (the next line is the expected rejection)\n");
        CHECK(!tl_matches_ref(&A, x, y, "row moved by 3 bounds"),
              "a y off by 3 bounds in row %lld passed", (long long)i);
        y[i] = keep;
        y[i] = (hspmv_real)((long double)y[i] - 3 * bound);
        fprintf(stderr, "    (the next line is the expected rejection)\n");
        CHECK(!tl_matches_ref(&A, x, y, "row moved by -3 bounds"),
              "a y off by -3 bounds in row %lld passed", (long long)i);
    }
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(registry_lists_the_scalar_set_last);
    RUN(ref_check_rejects_one_row_off_by_three_bounds);
    RUN(every_kernel_matches_ref_on_row_lengths_0_to_33);
    RUN(every_kernel_matches_ref_on_segment_lengths_0_to_33);
    RUN(every_kernel_matches_ref_on_a_dense_row_of_1000);
    RUN(every_kernel_matches_ref_on_segments_of_500_to_2100);
    RUN(every_kernel_matches_ref_on_single_entry_segments_only);
    RUN(every_kernel_handles_empty_matrices);
    RUN(every_kernel_gives_one_calls_y_on_split_row_ranges);
    RUN(every_kernel_reads_nothing_past_the_arrays_ends);
    RUN(every_kernel_matches_ref_on_shared_matrices);
    CHECK_DONE();
}
