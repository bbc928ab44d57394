/* test_kernels.c — every kernel set this CPU runs (hspmv_kernel_sets), CSR and
   CSRL, checked against the long-double reference with the DESIGN.md bound:
   y = A*x (add = 0), y = y0 + A*x (add = 1), and sub-ranges of rows giving
   exactly what one call gives. ISA-agnostic: it names kernels only through
   the registry, so the same file tests NEON under qemu-aarch64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "csrl.h"
#include "kernel_select.h"
#include "testlib.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

/* The row lengths (and segment lengths) that exercise every tail: below,
   at and above one vector for 2, 4, 8 and 16 lanes, and 4 unrolled vectors. */
static const int64_t tail_lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
#define NTAIL (int)(sizeof(tail_lens) / sizeof(tail_lens[0]))

enum { FMT_CSR, FMT_CSRL };
static const char *fmt_name[] = {"csr", "csrl"};

static void kernel_run(const hspmv_kernel_set *ks, int fmt, const hspmv_csr *A,
                       const hspmv_csrl *L, int64_t r0, int64_t r1, const hspmv_real *x,
                       hspmv_real *y, int add)
{
    if (fmt == FMT_CSR)
        ks->csr(r0, r1, A->rowptr, A->colind, A->val, x, y, add);
    else
        ks->csrl(r0, r1, L->segptr, L->valptr, L->jas, L->jan, L->val, x, y, add);
}

/* Every set, both formats, on A: add=0 and add=1 within the bound; calls on
   [0,a) [a,b) [b,n) give bit for bit what one call gives; a call on [a,b)
   leaves the rows outside it alone. Returns the number of failed checks. */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    int64_t n = A->nrows, m = A->ncols, a = n / 3, b = n - n / 4;
    int bad = 0;
    size_t yb = (size_t)(n > 0 ? n : 1) * sizeof(hspmv_real);
    hspmv_real *x = hspmv_malloc((size_t)(m + n + 1) * sizeof(hspmv_real)); /* [x; y0] */
    hspmv_real *y0 = x + m, *y = hspmv_malloc(yb), *y1 = hspmv_malloc(yb), *ys = hspmv_malloc(yb);
    hspmv_csrl L;
    hspmv_csr B;
    char what[256];
    int rcv = hspmv_csr_validate(A, NULL);
    int rcl = hspmv_csrl_from_csr(A, &L, NULL), rcb = tl_csr_augment(A, &B);
    if (!x || !y || !y1 || !ys || rcv || rcl || rcb) {
        CHECK(0, "%s: setup failed (invalid CSR %d, CSRL conversion %d, or out of memory)", name,
              rcv, rcl);
        bad++;
        goto out;
    }
    tl_fill(x, m, seed);
    tl_fill(y0, n, seed + 1);
    for (int s = 0; s < nsets; s++) {
        for (int f = FMT_CSR; f <= FMT_CSRL; f++) {
            const hspmv_kernel_set *ks = sets[s];
            int ok;
            /* add = 0: y must not be read, so start from NaN */
            tl_fill_nan(y, n);
            kernel_run(ks, f, A, &L, 0, n, x, y, 0);
            snprintf(what, sizeof(what), "%s %s/%s add=0", name, ks->isa, fmt_name[f]);
            ok = tl_matches_ref(A, x, y, what);
            CHECK(ok, "%s", what);
            bad += !ok;
            /* add = 1 against the reference of [A | I] * [x; y0] */
            memcpy(y1, y0, (size_t)n * sizeof(hspmv_real));
            kernel_run(ks, f, A, &L, 0, n, x, y1, 1);
            snprintf(what, sizeof(what), "%s %s/%s add=1", name, ks->isa, fmt_name[f]);
            ok = tl_matches_ref(&B, x, y1, what);
            CHECK(ok, "%s", what);
            bad += !ok;
            /* threads: three sub-ranges give what one call gives */
            for (int add = 0; add <= 1; add++) {
                if (add)
                    memcpy(ys, y0, (size_t)n * sizeof(hspmv_real));
                else
                    tl_fill_nan(ys, n);
                kernel_run(ks, f, A, &L, b, n, x, ys, add);
                kernel_run(ks, f, A, &L, 0, a, x, ys, add);
                kernel_run(ks, f, A, &L, a, b, x, ys, add);
                ok = tl_same_bits(ys, add ? y1 : y, n);
                CHECK(ok, "%s %s/%s add=%d: rows [0,%lld) [%lld,%lld) [%lld,%lld) differ from one call",
                      name, ks->isa, fmt_name[f], add, (long long)a, (long long)a, (long long)b,
                      (long long)b, (long long)n);
                bad += !ok;
            }
            /* a call on [a,b) writes only rows a..b-1 */
            memcpy(ys, y0, (size_t)n * sizeof(hspmv_real));
            kernel_run(ks, f, A, &L, a, b, x, ys, 0);
            ok = tl_same_bits(ys, y0, a) && tl_same_bits(ys + b, y0 + b, n - b) &&
                 tl_same_bits(ys + a, y + a, b - a);
            CHECK(ok, "%s %s/%s: a call on rows [%lld,%lld) wrote outside them or differs",
                  name, ks->isa, fmt_name[f], (long long)a, (long long)b);
            bad += !ok;
        }
    }
out:
    hspmv_csrl_free(&L);
    hspmv_csr_free(&B);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(y1);
    hspmv_free(ys);
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

static void setup_kernel_sets(void)
{
    nsets = hspmv_kernel_sets(sets, 8);
    printf("  kernel sets on this CPU:");
    for (int s = 0; s < nsets; s++) printf(" %s", sets[s]->isa);
    printf("\n");
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

static void every_kernel_matches_ref_on_shared_matrices(void)
{
    char **paths;
    int n = tl_list_mtx(tl_shared_dir(), &paths), done = 0;
    if (n < 0) {
        SKIP("%s is missing (set HSPMV_SHARED_MATRICES)", tl_shared_dir());
        return;
    }
    for (int i = 0; i < n; i++) {
        hspmv_csr A;
        const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
        if (tl_is_unsupported_shared(paths[i])) continue;
        int rc = tl_read_csr(paths[i], &A);
        CHECK(rc == HSPMV_OK, "%s: read failed (%d)", base, rc);
        if (rc != HSPMV_OK) continue;
        check_all_kernels(&A, base, 1000 + (uint64_t)i);
        hspmv_csr_free(&A);
        done++;
    }
    CHECK(done > 0, "no matrices in %s", tl_shared_dir());
    printf("  %d shared matrices checked\n", done);
    tl_free_list(paths, n);
}

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
    static const int64_t zero[] = {0};
    hspmv_csr A;
    int64_t shapes[3][2] = {{0, 0}, {0, 10}, {10, 10}}; /* the last: 10 empty rows */
    for (int t = 0; t < 3; t++) {
        char name[64];
        int rc = csr_row_lengths(&A, shapes[t][0], shapes[t][1], zero, 1, 0, 61);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "empty %lldx%lld", (long long)shapes[t][0],
                 (long long)shapes[t][1]);
        check_all_kernels(&A, name, 12);
        hspmv_csr_free(&A);
    }
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
    hspmv_real *y = hspmv_malloc((size_t)n * sizeof(hspmv_real));
    hspmv_real *ys = hspmv_malloc((size_t)n * sizeof(hspmv_real));
    tl_fill(x, 200, 13);
    for (int s = 0; s < nsets && rc == HSPMV_OK; s++)
        for (int f = FMT_CSR; f <= FMT_CSRL; f++) {
            tl_fill_nan(y, n);
            kernel_run(sets[s], f, &A, &L, 0, n, x, y, 0);
            for (int64_t a = 0; a <= n; a += 8)
                for (int64_t b = a; b <= n; b += 13) {
                    tl_fill_nan(ys, n);
                    kernel_run(sets[s], f, &A, &L, b, n, x, ys, 0);
                    kernel_run(sets[s], f, &A, &L, a, a, x, ys, 0); /* empty: a no-op */
                    kernel_run(sets[s], f, &A, &L, a, b, x, ys, 0);
                    kernel_run(sets[s], f, &A, &L, 0, a, x, ys, 0);
                    CHECK(tl_same_bits(y, ys, n), "%s/%s: [0,%lld) [%lld,%lld) [%lld,%lld)",
                          sets[s]->isa, fmt_name[f], (long long)a, (long long)a,
                          (long long)b, (long long)b, (long long)n);
                }
        }
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(ys);
    hspmv_csrl_free(&L);
    hspmv_csr_free(&A);
}

/* Maps bytes so that they end exactly at a page that cannot be read: a kernel
   reading one element past its array faults. *base and *len are for munmap. */
static void *at_page_end(const void *src, size_t bytes, void **base, size_t *len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + pg - 1) / pg * pg;
    char *p = mmap(NULL, data + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (mprotect(p + data, pg, PROT_NONE) != 0) {
        munmap(p, data + pg);
        return NULL;
    }
    *base = p;
    *len = data + pg;
    memcpy(p + data - bytes, src, bytes);
    return p + data - bytes;
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
        void *base[6] = {0};
        size_t len[6] = {0};
        hspmv_real y[3], yref[3];
        int rc = csr_tail_at_end(&A, tail_lens[t]);
        rc = rc ? rc : hspmv_csrl_from_csr(&A, &L, NULL);
        CHECK(rc == HSPMV_OK, "setup failed");
        if (rc) return;
        hspmv_real *x = malloc((size_t)A.ncols * sizeof(hspmv_real));
        tl_fill(x, A.ncols, 17);
        G = A;
        GL = L;
        hspmv_real *gx = at_page_end(x, (size_t)A.ncols * sizeof(hspmv_real), &base[0], &len[0]);
        G.colind = at_page_end(A.colind, (size_t)A.nnz * sizeof(int32_t), &base[1], &len[1]);
        G.val = at_page_end(A.val, (size_t)A.nnz * sizeof(hspmv_real), &base[2], &len[2]);
        GL.val = at_page_end(L.val, (size_t)A.nnz * sizeof(hspmv_real), &base[3], &len[3]);
        GL.jas = at_page_end(L.jas, (size_t)L.nseg * sizeof(int32_t), &base[4], &len[4]);
        GL.jan = at_page_end(L.jan, (size_t)L.nseg * sizeof(int32_t), &base[5], &len[5]);
        int mapped = gx && G.colind && G.val && GL.val && GL.jas && GL.jan;
        CHECK(mapped, "mmap failed");
        for (int s = 0; s < nsets && mapped; s++)
            for (int f = FMT_CSR; f <= FMT_CSRL; f++) {
                char what[64];
                kernel_run(sets[s], f, &G, &GL, 0, 3, gx, y, 0); /* faults if it overreads */
                kernel_run(sets[s], f, &A, &L, 0, 3, x, yref, 0);
                snprintf(what, sizeof(what), "%s/%s, %lld at page end", sets[s]->isa,
                         fmt_name[f], (long long)tail_lens[t]);
                CHECK(tl_matches_ref(&A, x, y, what), "%s", what);
                CHECK(tl_same_bits(y, yref, 3), "%s differs from the unguarded call", what);
            }
        for (int k = 0; k < 6; k++)
            if (base[k]) munmap(base[k], len[k]);
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
        long double absax = 0;
        int64_t k_i = A.rowptr[i + 1] - A.rowptr[i];
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            absax += fabsl((long double)A.val[k] * x[A.colind[k]]);
        long double bound = 2.0L * k_i * hspmv_eps() * absax;
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
    setup_kernel_sets();
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
