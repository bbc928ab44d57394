/* test_csrp.c — CSRP (rows as pattern ids, slices of G rows interleaved when
   uniform): the conversion and its limits, and every kernel set this CPU
   runs (hspmv_kernel_sets) against the long-double reference with the
   docs/design.md bound: y = A*x (add = 0), y = y0 + A*x (add = 1), sub-ranges of
   rows cut anywhere (inside slices too) giving exactly what one call gives,
   no read past any array, and a perturbed result caught. Matrices: real-
   valued 2D/3D stencils, pattern runs of every length 0..33 and of 1000,
   empty rows, rectangular shapes, the bundled and the shared matrices.
   ISA-agnostic: it names kernels only through the registry, so the same
   file tests NEON under qemu-aarch64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csrp.h"
#include "kernel_select.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;
enum { G = HSPMV_CSRP_G };

static void runp(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y, int add)
{
    k->ks->csrp(r0, r1, (const hspmv_csrp *)k->mat, x, y, add);
}

/* Row i's columns are i + off[p][j] for the pattern p = pick(i) of pats
   (each ascending, ending at a sentinel INT32_MAX), those outside [0, ncols)
   dropped; values from the seed in [-1, 1). */
static int csr_patterns(hspmv_csr *A, int64_t nrows, int64_t ncols, const int32_t *const *pats,
                        int (*pick)(int64_t i), uint64_t seed)
{
    int64_t nnz = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->ncols = ncols;
    A->rowptr = hspmv_calloc((size_t)nrows + 1, sizeof(int64_t));
    if (!A->rowptr) return HSPMV_ERR_NOMEM;
    for (int pass = 0; pass < 2; pass++) {
        nnz = 0;
        for (int64_t i = 0; i < nrows; i++) {
            for (const int32_t *o = pats[pick(i)]; *o != INT32_MAX; o++) {
                int64_t c = i + *o;
                if (c < 0 || c >= ncols) continue;
                if (pass) A->colind[nnz] = (int32_t)c;
                nnz++;
            }
            A->rowptr[i + 1] = nnz;
        }
        if (!pass) {
            A->nnz = nnz;
            A->colind = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
            A->val = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(hspmv_real));
            if (!A->colind || !A->val) return HSPMV_ERR_NOMEM;
        }
    }
    tl_fill(A->val, nnz, seed);
    return HSPMV_OK;
}

/* An n^d grid stencil (d = 2: 5-point, d = 3: 7-point, or the 27-point
   one) with real values from the seed, as a PDE discretisation has. */
static int32_t sten[27 + 1];
static int pick0(int64_t i) { (void)i; return 0; }
static int csr_stencil(hspmv_csr *A, int64_t n, int d, int full, uint64_t seed)
{
    const int32_t *pats[1] = {sten};
    int m = 0;
    int64_t nn = d == 3 ? n * n * n : n * n;
    for (int dz = (d == 3 ? -1 : 0); dz <= (d == 3 ? 1 : 0); dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                if (full || abs(dx) + abs(dy) + abs(dz) <= 1) sten[m++] = (int32_t)(dx + n * (dy + n * dz));
    sten[m] = INT32_MAX;
    /* the grid's borders: columns of neighbours outside the grid dropped
       by hand, since the flat offsets wrap around rows of the grid */
    int rc = csr_patterns(A, nn, nn, pats, pick0, seed);
    if (rc) return rc;
    int64_t q = 0;
    for (int64_t i = 0, k = 0; i < nn; i++) {
        int64_t x = i % n, y = (i / n) % n, z = d == 3 ? i / (n * n) : 0;
        for (; k < A->rowptr[i + 1]; k++) {
            int64_t c = A->colind[k], cx = c % n, cy = (c / n) % n, cz = d == 3 ? c / (n * n) : 0;
            if (llabs(cx - x) > 1 || llabs(cy - y) > 1 || llabs(cz - z) > 1) continue;
            A->colind[q] = A->colind[k];
            A->val[q++] = A->val[k];
        }
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
    return HSPMV_OK;
}

/* The row of P's column k of row i, decoded the slow way: 1 when P holds
   exactly A (patterns, slices, values), else 0. */
static int holds(const hspmv_csr *A, const hspmv_csrp *P)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t s = i / G, a = s * G, k0 = A->rowptr[i], n = A->rowptr[i + 1] - k0;
        int p = P->pid[i];
        if (p >= P->npat || P->start[p + 1] - P->start[p] != n) return 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t pos;
            if (P->spat[s] != HSPMV_CSRP_MIXED)
                pos = P->sp[s] + j * G + (i - a);
            else {
                pos = P->sp[s] + j;
                for (int64_t r = a; r < i; r++) pos += P->start[P->pid[r] + 1] - P->start[P->pid[r]];
            }
            if (i + P->ofs[P->start[p] + j] != A->colind[k0 + j] || P->val[pos] != A->val[k0 + j]) return 0;
        }
    }
    return 1;
}

/* Every set on P (A's CSRP form): tl_kcheck_run's checks. Returns failures. */
static int check_kernels(const hspmv_csr *A, const hspmv_csrp *P, const char *name, uint64_t seed)
{
    tl_kcheck T;
    tl_kernel k = {runp, NULL, P, NULL};
    int rc = tl_kcheck_init(&T, A, seed), bad = rc ? 1 : tl_kcheck_sets(&T, k, sets, nsets, name, "csrp");
    CHECK(bad == 0, "%s: setup failed (%d) or %d checks failed", name, rc, bad);
    tl_kcheck_free(&T);
    return bad;
}

/* Converts A (which must fit) and checks the layout and every kernel, with
   plain and with streaming stores of y (tl_kcheck's y is 64-byte aligned). */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    hspmv_csrp P;
    hspmv_error e;
    char sname[200];
    int rc = hspmv_csrp_from_csr(A, &P, &e), bad = 0;
    CHECK(rc == HSPMV_OK, "%s: conversion failed: %s", name, e.msg);
    if (rc) return 1;
    CHECK(holds(A, &P), "%s: CSRP does not hold the matrix", name);
    CHECK(P.stream_y == 0, "%s: the conversion set stream_y", name);
    bad += check_kernels(A, &P, name, seed);
    P.stream_y = 1;
    snprintf(sname, sizeof(sname), "%s, streaming y", name);
    bad += check_kernels(A, &P, sname, seed);
    hspmv_csrp_free(&P);
    return bad;
}

/* ---- tests ---------------------------------------------------------------- */

static void registry_has_a_csrp_kernel_in_every_set(void)
{
    CHECK(nsets >= 1, "no kernel sets");
    for (int s = 0; s < nsets; s++) CHECK(sets[s]->csrp, "%s has no csrp kernel", sets[s]->isa);
}

static void csrp_holds_a_3d_stencil_in_27_patterns_and_mostly_uniform_slices(void)
{
    hspmv_csr A;
    hspmv_csrp P;
    int rc = csr_stencil(&A, 40, 3, 0, 5);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_csrp_from_csr(&A, &P, NULL);
    CHECK(rc == HSPMV_OK, "conversion failed (%d)", rc);
    if (rc == HSPMV_OK) {
        CHECK(P.npat == 27, "%d patterns, want 27", P.npat);
        CHECK(holds(&A, &P), "layout wrong");
        /* 40 rows per grid line: the slices that hold a line's ends are mixed */
        CHECK(P.nmixed > 0 && P.nmixed < P.nslices, "%lld of %lld slices mixed", (long long)P.nmixed,
              (long long)P.nslices);
        for (int p = 1; p < P.npat; p++) /* sorted: by length, then offsets */
            CHECK(P.start[p + 1] - P.start[p] >= P.start[p] - P.start[p - 1], "table not sorted by length");
        double r = sizeof(hspmv_real), want = (double)A.nnz * r + (double)P.nmixed * G +
                                              (double)P.nslices * 10 + P.start[P.npat] * 4.0 + (P.npat + 1) * 4.0 +
                                              2.0 * (double)A.nrows * r;
        CHECK(hspmv_csrp_bytes(&P) == want, "bytes %g, want %g", hspmv_csrp_bytes(&P), want);
        CHECK(hspmv_csrp_bytes(&P) < (double)A.nnz * (r + 4) + (double)A.nrows * (2 * r + 4),
              "not fewer bytes than a 32-bit CSR");
    }
    hspmv_csrp_free(&P);
    CHECK(!P.val && !P.pid && !P.sp, "free did not zero");
    hspmv_csrp_free(&P); /* twice is fine */
    hspmv_csr_free(&A);
}

/* 256 distinct patterns fit; 257 do not, and neither do patterns whose
   offsets add up to more than the table holds. */
static void csrp_takes_256_patterns_and_refuses_257_or_too_many_offsets(void)
{
    for (int npat = 256; npat <= 257; npat++) {
        hspmv_csr A;
        hspmv_csrp P;
        hspmv_error e;
        int rc;
        /* row i holds columns 0 and i: offsets (-i, 0), a pattern of its own */
        memset(&A, 0, sizeof(A));
        A.nrows = A.ncols = npat;
        A.rowptr = hspmv_malloc((size_t)(npat + 1) * sizeof(int64_t));
        A.colind = hspmv_malloc((size_t)(2 * npat) * sizeof(int32_t));
        A.val = hspmv_malloc((size_t)(2 * npat) * sizeof(hspmv_real));
        A.rowptr[0] = 0;
        for (int i = 0, q = 0; i < npat; i++) {
            if (i > 0) A.colind[q++] = 0;
            A.colind[q++] = i;
            A.rowptr[i + 1] = q;
        }
        A.nnz = A.rowptr[npat];
        tl_fill(A.val, A.nnz, 3);
        rc = hspmv_csrp_from_csr(&A, &P, &e);
        if (npat == 256) {
            CHECK(rc == HSPMV_OK && P.npat == 256, "256 patterns refused (%d)", rc);
            if (rc == HSPMV_OK) check_kernels(&A, &P, "256 patterns", 4);
        } else {
            CHECK(rc == HSPMV_ERR_UNSUPPORTED && e.msg[0] && !P.val, "257 patterns accepted (%d)", rc);
        }
        hspmv_csrp_free(&P);
        hspmv_csr_free(&A);
    }
    /* two rows of 9000 entries each, different: 18000 offsets > 16384 */
    hspmv_csr A;
    hspmv_csrp P;
    int64_t lens[2] = {9000, 9000};
    int rc = tl_csr_random(&A, 2, 20000, lens, 0, 0, 9);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_csrp_from_csr(&A, &P, NULL);
    CHECK(rc == HSPMV_ERR_UNSUPPORTED, "18000 offsets accepted (%d)", rc);
    hspmv_csrp_free(&P);
    hspmv_csr_free(&A);
}

static void csrp_conversion_fails_cleanly_when_out_of_memory(void)
{
    hspmv_csr A;
    int rc = csr_stencil(&A, 6, 2, 0, 2);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    for (long n = 1; n <= 8; n++) {
        hspmv_csrp P;
        hspmv_alloc_fail_after(n);
        rc = hspmv_csrp_from_csr(&A, &P, NULL);
        hspmv_alloc_fail_after(0);
        CHECK(rc == HSPMV_ERR_NOMEM && !P.val && !P.pid && !P.sp && !P.spat && !P.start && !P.ofs,
              "allocation %ld failing: rc %d", n, rc);
        hspmv_csrp_free(&P);
    }
    hspmv_csr_free(&A);
}

static void every_csrp_kernel_matches_ref_on_real_valued_stencils(void)
{
    static const int shapes[][3] = {{17, 3, 0}, {8, 3, 1}, {40, 2, 0}, {5, 3, 0}, {3, 2, 1}, {1, 3, 0}};
    for (int t = 0; t < 6; t++) {
        hspmv_csr A;
        char name[64];
        int rc = csr_stencil(&A, shapes[t][0], shapes[t][1], shapes[t][2], 20 + (uint64_t)t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "%dD %s-point stencil n=%d", shapes[t][1],
                 shapes[t][2] ? "27" : shapes[t][1] == 3 ? "7" : "5", shapes[t][0]);
        check_all_kernels(&A, name, 30 + (uint64_t)t);
        hspmv_csr_free(&A);
    }
}

/* Patterns of every length 0..33 (each a random set of offsets in +-60),
   in runs of 1..3G rows, so that slices are uniform, mixed, or cut by a run. */
static int32_t lenpat[34][35];
static int run_pick(int64_t i)
{
    static const int runs[] = {1, G, 3, 2 * G, G + 1, 5, 3 * G, 7};
    int64_t at = 0;
    for (int t = 0;; t++) {
        int64_t r = runs[t % 8];
        if (i < at + r) return t % 34;
        at += r;
    }
}
static void make_lenpats(uint64_t seed)
{
    uint64_t s = seed;
    for (int L = 0; L < 34; L++) {
        int m = 0;
        for (int32_t o = -60; o <= 60 && m < L; o++)
            if ((int64_t)(tl_next(&s) % (uint64_t)(61 - o)) < L - m) lenpat[L][m++] = o; /* Knuth's S */
        lenpat[L][m] = INT32_MAX;
    }
}

static void every_csrp_kernel_matches_ref_on_pattern_runs_of_length_0_to_33(void)
{
    const int32_t *pats[34];
    hspmv_csr A;
    make_lenpats(77);
    for (int L = 0; L < 34; L++) pats[L] = lenpat[L];
    int rc = csr_patterns(&A, 1300, 1300, pats, run_pick, 8);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "runs of lengths 0..33", 10);
    hspmv_csr_free(&A);
}

/* A pattern of 1000 entries (dense rows) in uniform and mixed slices, and
   rows of nothing between them. */
static int32_t dense[1002], empty[1] = {INT32_MAX}, one[2] = {0, INT32_MAX};
static int dense_pick(int64_t i) { return i % (5 * G) < 2 * G ? 0 : i % 3 == 0 ? 1 : 2; }
static void every_csrp_kernel_matches_ref_on_dense_and_empty_rows(void)
{
    const int32_t *pats[3] = {dense, empty, one};
    hspmv_csr A;
    for (int j = 0; j < 1000; j++) dense[j] = j; /* never cut by the border */
    dense[1000] = INT32_MAX;
    int rc = csr_patterns(&A, 12 * G + 3, 12 * G + 1003, pats, dense_pick, 12);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "dense and empty rows", 13);
    hspmv_csr_free(&A);
}

static void every_csrp_kernel_matches_ref_on_rectangular_matrices(void)
{
    static const int64_t shapes[][2] = {{300, 50}, {50, 3000}, {G, 7}, {G + 1, 1}};
    const int32_t *pats[34];
    make_lenpats(78);
    for (int L = 0; L < 34; L++) pats[L] = lenpat[L];
    for (int t = 0; t < 4; t++) {
        hspmv_csr A;
        char name[64];
        int rc = csr_patterns(&A, shapes[t][0], shapes[t][1], pats, run_pick, 51 + (uint64_t)t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "%lld x %lld", (long long)shapes[t][0], (long long)shapes[t][1]);
        check_all_kernels(&A, name, 14 + (uint64_t)t);
        hspmv_csr_free(&A);
    }
}

static int check_all_kernels_3(const hspmv_csr *A, const char *name, uint64_t seed)
{
    return check_all_kernels(A, name, seed);
}

static void every_csrp_kernel_handles_empty_matrices(void)
{
    int rc = tl_on_empty_matrices(check_all_kernels_3);
    CHECK(rc == HSPMV_OK, "generator failed");
}

/* Threads cut anywhere, inside slices too. */
static void every_csrp_kernel_gives_one_calls_y_on_split_row_ranges(void)
{
    const int32_t *pats[34];
    hspmv_csr A;
    hspmv_csrp P;
    make_lenpats(79);
    for (int L = 0; L < 34; L++) pats[L] = lenpat[L];
    int rc = csr_patterns(&A, 203, 203, pats, run_pick, 71);
    rc = rc ? rc : hspmv_csrp_from_csr(&A, &P, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(203 * sizeof(hspmv_real));
    tl_fill(x, 203, 13);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {runp, sets[s], &P, label};
        snprintf(label, sizeof(label), "%s/csrp", sets[s]->isa);
        CHECK(tl_check_splits(&k, 203, x) == 0, "%s: split ranges differ from one call", label);
    }
    hspmv_free(x);
    hspmv_csrp_free(&P);
    hspmv_csr_free(&A);
}

/* Nothing past any array is read: the last slice uniform (rows a multiple
   of G) or mixed, each array ending at a page that faults. */
static void every_csrp_kernel_reads_nothing_past_the_arrays_ends(void)
{
    static const int32_t band[] = {-2, -1, 0, INT32_MAX}; /* the last rows are interior ones */
    const int32_t *pats[1] = {band};
    for (int64_t n = 2 * G; n <= 2 * G + 3; n++) {
        hspmv_csr A;
        hspmv_csrp P, Q;
        tl_guard Gd = {0};
        int rc = csr_patterns(&A, n, n, pats, pick0, 23 + (uint64_t)n);
        rc = rc ? rc : hspmv_csrp_from_csr(&A, &P, NULL);
        CHECK(rc == HSPMV_OK, "setup failed");
        if (rc) return;
        hspmv_real *x = malloc((size_t)n * sizeof(hspmv_real));
        tl_fill(x, n, 17);
        Q = P;
        hspmv_real *gx = tl_guard_copy(&Gd, x, (size_t)n * sizeof(hspmv_real));
        Q.val = tl_guard_copy(&Gd, P.val, (size_t)P.nnz * sizeof(hspmv_real));
        Q.pid = tl_guard_copy(&Gd, P.pid, (size_t)n);
        Q.sp = tl_guard_copy(&Gd, P.sp, (size_t)(P.nslices + 1) * sizeof(int64_t));
        Q.spat = tl_guard_copy(&Gd, P.spat, (size_t)P.nslices * sizeof(uint16_t));
        Q.ofs = tl_guard_copy(&Gd, P.ofs, (size_t)P.start[P.npat] * sizeof(int32_t));
        Q.start = tl_guard_copy(&Gd, P.start, (size_t)(P.npat + 1) * sizeof(int32_t));
        int mapped = gx && Q.val && Q.pid && Q.sp && Q.spat && Q.ofs && Q.start;
        CHECK(mapped, "mmap failed");
        for (int s = 0; s < nsets && mapped; s++) {
            char what[64];
            tl_kernel g = {runp, sets[s], &Q, what}, k = {runp, sets[s], &P, what};
            snprintf(what, sizeof(what), "%s/csrp, %lld rows at page end", sets[s]->isa, (long long)n);
            CHECK(tl_check_guarded(&A, &g, gx, &k, x) == 0, "%s", what);
        }
        tl_guard_free(&Gd);
        free(x);
        hspmv_csrp_free(&P);
        hspmv_csr_free(&A);
    }
}

/* A real-valued 7-point stencil of n^3 rows and its CSRP form; non-zero
   (and a failed check) when either could not be made. */
static int stencil_csrp(hspmv_csr *A, hspmv_csrp *P, int64_t n)
{
    int rc = csr_stencil(A, n, 3, 0, 91);
    rc = rc ? rc : hspmv_csrp_from_csr(A, P, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    return rc;
}

/* Streaming stores give plain stores' bits wherever y lies: aligned to a
   line, one value off (plain stores then), and on a row range that starts
   inside a slice; add = 1 still adds. */
static void every_csrp_kernel_gives_plain_stores_bits_with_streaming_stores_on_any_y(void)
{
    hspmv_csr A;
    hspmv_csrp P;
    if (stencil_csrp(&A, &P, 11)) return;
    int64_t n = A.nrows, r0 = G + 3;
    size_t yb = (size_t)(n + G) * sizeof(hspmv_real);
    hspmv_real *x = hspmv_malloc((size_t)n * sizeof(hspmv_real)), *ref = hspmv_malloc(yb), *y = hspmv_malloc(yb);
    CHECK(x && ref && y, "out of memory");
    for (int s = 0; s < nsets && x && ref && y; s++) {
        static const int shift[] = {0, 1, G};
        tl_fill(x, n, 5);
        for (int add = 0; add <= 1; add++) {
            P.stream_y = 0;
            tl_fill(ref, n, 9);
            sets[s]->csrp(r0, n, &P, x, ref, add);
            for (int t = 0; t < 3; t++) {
                hspmv_real *ys = y + shift[t];
                P.stream_y = 1;
                tl_fill(ys, n, 9);
                sets[s]->csrp(r0, n, &P, x, ys, add);
                CHECK(tl_same_bits(ys, ref, n),
                      "%s/csrp: streaming stores, y shifted by %d, add=%d: differs from plain stores", sets[s]->isa,
                      shift[t], add);
            }
        }
    }
    hspmv_free(x);
    hspmv_free(ref);
    hspmv_free(y);
    hspmv_csrp_free(&P);
    hspmv_csr_free(&A);
}

/* The check can fail: a CSRP y right but for one row moved by three times
   its bound is rejected, for every set (row 2G+1: inside a uniform slice). */
static void ref_check_rejects_a_csrp_y_off_by_three_bounds(void)
{
    hspmv_csr A;
    hspmv_csrp P;
    if (stencil_csrp(&A, &P, 9)) return;
    hspmv_real *x = hspmv_malloc((size_t)A.ncols * sizeof(hspmv_real));
    tl_fill(x, A.ncols, 19);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {runp, sets[s], &P, label};
        snprintf(label, sizeof(label), "%s/csrp", sets[s]->isa);
        CHECK(tl_check_rejects(&A, &k, x, 9 * 9 + 9 + 4) == 0, "%s: the check did not tell y off by 3 bounds", label);
    }
    hspmv_free(x);
    hspmv_csrp_free(&P);
    hspmv_csr_free(&A);
}

/* Index arithmetic past 2^32 values: where a row of a mixed slice starts. */
static void csrp_row_start_arithmetic_holds_past_2_to_the_32(void)
{
    hspmv_csrp P;
    int32_t start[3] = {0, 3, 1000};
    uint8_t pid[G];
    int64_t sp[2] = {(int64_t)5 << 32, ((int64_t)5 << 32) + 10000};
    memset(&P, 0, sizeof(P));
    P.start = start;
    P.npat = 2;
    P.pid = pid;
    P.sp = sp;
    for (int r = 0; r < G; r++) pid[r] = (uint8_t)(r & 1);
    /* row G-1: the rows before it alternate 3 and 997 entries */
    int64_t want = ((int64_t)5 << 32) + (G / 2) * 3 + (G / 2 - 1) * 997;
    CHECK(hspmv_csrp_mixed_start(&P, G - 1) == want, "start %lld, want %lld",
          (long long)hspmv_csrp_mixed_start(&P, G - 1), (long long)want);
}

/* One matrix of a folder: 1 when checked, 0 when refused (too many patterns). */
static int check_file(const hspmv_csr *A, const char *name, int i)
{
    hspmv_csrp P;
    hspmv_error e;
    int rc = hspmv_csrp_from_csr(A, &P, &e);
    hspmv_csrp_free(&P);
    if (rc == HSPMV_ERR_UNSUPPORTED) {
        hspmv_csrp_set *S = hspmv_malloc(sizeof(*S));
        CHECK(S && hspmv_csrp_patterns(A, S) == 0, "%s: refused (%s) though its patterns fit", name, e.msg);
        hspmv_free(S);
        return 0;
    }
    check_all_kernels(A, name, 1000 + (uint64_t)i);
    return 1;
}

static void check_folder(const char *dir, int shared) { CHECK_EACH_MTX(dir, shared, check_file); }

static void every_csrp_kernel_matches_ref_on_bundled_matrices(void) { check_folder("matrices", 0); }

static void every_csrp_kernel_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(registry_has_a_csrp_kernel_in_every_set);
    RUN(csrp_holds_a_3d_stencil_in_27_patterns_and_mostly_uniform_slices);
    RUN(csrp_takes_256_patterns_and_refuses_257_or_too_many_offsets);
    RUN(csrp_conversion_fails_cleanly_when_out_of_memory);
    RUN(csrp_row_start_arithmetic_holds_past_2_to_the_32);
    RUN(ref_check_rejects_a_csrp_y_off_by_three_bounds);
    RUN(every_csrp_kernel_matches_ref_on_real_valued_stencils);
    RUN(every_csrp_kernel_matches_ref_on_pattern_runs_of_length_0_to_33);
    RUN(every_csrp_kernel_matches_ref_on_dense_and_empty_rows);
    RUN(every_csrp_kernel_matches_ref_on_rectangular_matrices);
    RUN(every_csrp_kernel_handles_empty_matrices);
    RUN(every_csrp_kernel_gives_one_calls_y_on_split_row_ranges);
    RUN(every_csrp_kernel_reads_nothing_past_the_arrays_ends);
    RUN(every_csrp_kernel_gives_plain_stores_bits_with_streaming_stores_on_any_y);
    RUN(every_csrp_kernel_matches_ref_on_bundled_matrices);
    RUN(every_csrp_kernel_matches_ref_on_shared_matrices);
    CHECK_DONE();
}
