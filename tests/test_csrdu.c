/* test_csrdu.c — CSRDU (1-byte column deltas and row lengths with escapes):
   the conversion at every escape edge, and every kernel set this CPU runs
   (hspmv_kernel_sets) against the long-double reference with the docs/design.md
   bound: y = A*x (add = 0), y = y0 + A*x (add = 1), sub-ranges of rows cut
   anywhere (walks from every checkpoint) giving exactly what one call
   gives, no read past any array, a perturbed result caught. Matrices: jumps
   just under and over the escapes, rows of 254, 255 and 300 entries, every
   length 0..33 with and without escapes inside a vector, dense and empty
   rows, random and local columns, rectangular shapes, escapes at every lane
   of a vector (1..16 in one group, at group boundaries, first entries
   escaped), calls that start off the checkpoints, the bundled (fem3d_6
   among them) and the shared matrices. ISA-agnostic: it names kernels only through the
   registry, so the same file tests NEON under qemu-aarch64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csrdu.h"
#include "kernel_select.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

static void rundu(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y, int add)
{
    k->ks->csrdu(r0, r1, (const hspmv_csrdu *)k->mat, x, y, add);
}

/* A CSR from rows given as column lists: row i has n[i] columns cols[i][.]
   (ascending), values from the seed. */
static int csr_lists(hspmv_csr *A, int64_t nrows, int64_t ncols, const int32_t *const *cols, const int64_t *n,
                     uint64_t seed)
{
    int64_t nnz = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->ncols = ncols;
    for (int64_t i = 0; i < nrows; i++) nnz += n[i];
    A->rowptr = hspmv_calloc((size_t)nrows + 1, sizeof(int64_t));
    A->colind = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(nnz ? nnz : 1) * sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    A->nnz = nnz;
    for (int64_t i = 0, q = 0; i < nrows; i++) {
        for (int64_t t = 0; t < n[i]; t++) A->colind[q++] = cols[i][t];
        A->rowptr[i + 1] = q;
    }
    tl_fill(A->val, nnz, seed);
    return HSPMV_OK;
}

/* 1 when D holds exactly A, decoded the slow way (from row 0, no checkpoints). */
static int holds(const hspmv_csr *A, const hspmv_csrdu *D)
{
    int64_t k = 0, e = 0;
    int32_t c = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        if (i % HSPMV_CSRDU_CP == 0) {
            const hspmv_csrdu_cp *p = &D->cp[i / HSPMV_CSRDU_CP];
            if (p->k != k || p->e != e || p->c != c) return 0;
        }
        int64_t n = D->len[i] == HSPMV_CSRDU_LENESC ? D->esc[e++] : D->len[i];
        if (n != A->rowptr[i + 1] - A->rowptr[i] || k != A->rowptr[i]) return 0;
        if (n == 0) continue;
        c += D->d[k] == HSPMV_CSRDU_ESC1 ? D->esc[e++] : (int8_t)D->d[k];
        int32_t col = c;
        for (int64_t q = k; q < k + n; q++) {
            if (q > k) col += D->d[q] ? D->d[q] : D->esc[e++];
            if (col != A->colind[q] || D->val[q] != A->val[q]) return 0;
        }
        k += n;
    }
    return k == A->nnz && e == D->nesc;
}

/* Every set on D (A's CSRDU form): tl_kcheck_run's checks. Returns failures. */
static int check_kernels(const hspmv_csr *A, const hspmv_csrdu *D, const char *name, uint64_t seed)
{
    tl_kcheck T;
    tl_kernel k = {rundu, NULL, D, NULL};
    int rc = tl_kcheck_init(&T, A, seed), bad = rc ? 1 : tl_kcheck_sets(&T, k, sets, nsets, name, "csrdu");
    CHECK(bad == 0, "%s: setup failed (%d) or %d checks failed", name, rc, bad);
    tl_kcheck_free(&T);
    return bad;
}

/* Converts A and checks the layout and every kernel. */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    hspmv_csrdu D;
    hspmv_error e;
    int rc = hspmv_csrdu_from_csr(A, &D, &e), bad = 0;
    CHECK(rc == HSPMV_OK, "%s: conversion failed: %s", name, e.msg);
    if (rc) return 1;
    CHECK(holds(A, &D), "%s: CSRDU does not hold the matrix", name);
    CHECK(D.nesc == hspmv_csrdu_count_escapes(A, 0, A->nrows), "%s: escape count", name);
    bad += check_kernels(A, &D, name, seed);
    hspmv_csrdu_free(&D);
    return bad;
}

/* ---- tests ---------------------------------------------------------------- */

static void registry_has_a_csrdu_kernel_in_every_set(void)
{
    CHECK(nsets >= 1, "no kernel sets");
    for (int s = 0; s < nsets; s++) CHECK(sets[s]->csrdu, "%s has no csrdu kernel", sets[s]->isa);
}

/* Steps of 255 fit a byte, 256 escape; first columns 127 from the last
   row's fit, 128 escape (either way); lengths 254 fit, 255 and 300 escape;
   single-column jumps far beyond the escape. */
static void csrdu_escapes_exactly_the_numbers_a_byte_cannot_hold(void)
{
    static int32_t r0[] = {0, 255, 511, 512, 100000, 2999999}, r1[] = {127}, r2[] = {255},
                   r3[] = {127, 128}, r4[] = {0}, r5[] = {2999999}, r6[] = {2999872};
    static int32_t big[300];
    const int32_t *cols[12] = {r0, r1, r2, r3, NULL, r4, r5, r6, big, big, big, r4};
    int64_t n[12] = {6, 1, 1, 2, 0, 1, 1, 1, 254, 255, 300, 1};
    /* escapes: row 0: steps 256, 99488, 2899999 -> 3; row 1: +127 no; row 2: +128 yes;
       row 3: -128 yes; row 4 empty; row 5: -127 no; row 6: far yes; row 7: -127 no;
       row 8: 254 long, first -2999872 yes; row 9: length yes, first 0 no;
       row 10: length yes; row 11: 0 no */
    for (int j = 0; j < 300; j++) big[j] = 3 * j;
    hspmv_csr A;
    hspmv_csrdu D;
    int rc = csr_lists(&A, 12, 3000000, cols, n, 4);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_csrdu_from_csr(&A, &D, NULL);
    CHECK(rc == HSPMV_OK, "conversion failed (%d)", rc);
    if (rc == HSPMV_OK) {
        CHECK(D.nesc == 3 + 1 + 1 + 1 + 1 + 1 + 1, "%lld escapes, want 9", (long long)D.nesc);
        CHECK(D.len[8] == 254 && D.len[9] == HSPMV_CSRDU_LENESC && D.len[10] == HSPMV_CSRDU_LENESC,
              "lengths 254/255/300 stored as %d/%d/%d", D.len[8], D.len[9], D.len[10]);
        CHECK(D.d[1] == 255 && D.d[2] == 0 && D.d[6] == 127 && D.d[7] == HSPMV_CSRDU_ESC1,
              "bytes of row 0 and 1 wrong");
        CHECK(holds(&A, &D), "layout wrong");
        double r = sizeof(hspmv_real), want = (double)A.nnz * (r + 1) + 12 + 9 * 4 + 1.0 * sizeof(hspmv_csrdu_cp) + 3000000.0 * r + 12 * r;
        CHECK(hspmv_csrdu_bytes(&D) == want, "bytes %g, want %g", hspmv_csrdu_bytes(&D), want);
        check_kernels(&A, &D, "escapes", 5);
    }
    hspmv_csrdu_free(&D);
    CHECK(!D.d && !D.val && !D.len, "free did not zero");
    hspmv_csrdu_free(&D);
    hspmv_csr_free(&A);
}

static void csrdu_conversion_fails_cleanly_when_out_of_memory(void)
{
    hspmv_csr A;
    int rc = tl_csr_random(&A, 300, 5000, NULL, 9, 3, 5);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    for (long n = 1; n <= 5; n++) {
        hspmv_csrdu D;
        hspmv_alloc_fail_after(n);
        rc = hspmv_csrdu_from_csr(&A, &D, NULL);
        hspmv_alloc_fail_after(0);
        CHECK(rc == HSPMV_ERR_NOMEM && !D.d && !D.val && !D.len && !D.esc && !D.cp, "allocation %ld failing: rc %d", n, rc);
        hspmv_csrdu_free(&D);
    }
    hspmv_csr_free(&A);
}

/* Rows of every length 0..33 and a few long ones; columns in runs (small
   steps) or random over a wide range (escapes, also inside vectors). */
static void every_csrdu_kernel_matches_ref_on_row_lengths_0_to_33_with_and_without_escapes(void)
{
    int64_t lens[700];
    for (int i = 0; i < 700; i++) lens[i] = i % 97 == 5 ? 400 + i : (i * 7) % 34;
    static const int64_t widths[] = {300, 3000, 70000, 300000};
    for (int t = 0; t < 4; t++) {
        for (int runs = 0; runs <= 4; runs += 4) {
            hspmv_csr A;
            char name[64];
            int rc = tl_csr_random(&A, 700, widths[t], lens, 0, runs, 31 + (uint64_t)t);
            CHECK(rc == HSPMV_OK, "generator failed");
            if (rc) return;
            snprintf(name, sizeof(name), "lengths 0..33, %lld columns%s", (long long)widths[t], runs ? ", runs" : "");
            check_all_kernels(&A, name, 7 + (uint64_t)t);
            hspmv_csr_free(&A);
        }
    }
}

static void every_csrdu_kernel_matches_ref_on_dense_and_empty_rows(void)
{
    static const int64_t lens[] = {2000, 0, 0, 3, 1999, 0, 1, 513, 0};
    hspmv_csr A;
    int64_t rl[300];
    for (int i = 0; i < 300; i++) rl[i] = lens[i % 9];
    int rc = tl_csr_random(&A, 300, 2000, rl, 0, 0, 31);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "dense and empty rows", 9);
    hspmv_csr_free(&A);
}

static void every_csrdu_kernel_matches_ref_on_rectangular_and_empty_matrices(void)
{
    static const int64_t shapes[][3] = {{3000, 50, 5}, {50, 300000, 40}, {1, 70000, 300}, {257, 1, 1}};
    for (int t = 0; t < 4; t++) {
        hspmv_csr A;
        char name[64];
        int rc = tl_csr_random(&A, shapes[t][0], shapes[t][1], NULL, shapes[t][2], t & 1, 51 + (uint64_t)t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "%lld x %lld", (long long)shapes[t][0], (long long)shapes[t][1]);
        check_all_kernels(&A, name, 13 + (uint64_t)t);
        hspmv_csr_free(&A);
    }
    int rc = tl_on_empty_matrices(check_all_kernels);
    CHECK(rc == HSPMV_OK, "generator failed");
}

/* Escaped step at position t (1..len-1) of a row under pattern p: none,
   all, every other, the first or last lane of groups of 4 / 8 / 16 (the
   first group starts at the row's first entry, so lane = t % W), the upper
   half of a 16-lane group, or m consecutive ones (1..16 in one group). */
static int escaped_at(int p, int t, int m)
{
    switch (p) {
    case 0: return 0;
    case 1: return 1;
    case 2: return t % 2 == 0;
    case 3: return t % 4 == 0;
    case 4: return t % 4 == 3;
    case 5: return t % 8 == 0;
    case 6: return t % 8 == 7;
    case 7: return t % 16 == 0 || t % 16 == 15;
    case 8: return t % 16 >= 8;
    default: return t >= 1 && t <= m;
    }
}

/* Where the vector decode meets escapes: rows of every length 1..40 (shorter
   and longer than every W and SIMD_SHORT) under every pattern of
   escaped_at, first entries alternately near the previous row's first
   column (a byte) and far from it (the 0x80 escape), rows of 255 and 300
   entries (length escaped) with escapes inside; every kernel against the
   reference, and calls on random row ranges (walks that start off the
   checkpoints) giving exactly what one call gives. */
static void every_csrdu_kernel_matches_ref_with_escapes_at_every_lane(void)
{
    enum { NP = 10, MAXL = 40, NR = MAXL * NP + 2 };
    static int32_t store[NR][300];
    const int32_t *cols[NR];
    int64_t n[NR];
    int32_t first = 1000;
    uint64_t z = 12345;
    for (int r = 0; r < NR; r++) {
        int len = r < MAXL * NP ? r / NP + 1 : r == NR - 2 ? 255 : 300;
        int p = r < MAXL * NP ? r % NP : r == NR - 2 ? 9 : 1;
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        /* odd rows jump far (first-entry escape), even rows stay within a byte */
        first = r % 2 ? (int32_t)(1000 + (z >> 33) % 2000000) : first + (int32_t)((z >> 40) % 255) - 127;
        if (first < 0) first = 0;
        store[r][0] = first;
        for (int t = 1; t < len; t++) store[r][t] = store[r][t - 1] + (escaped_at(p, t, 1 + r % 16) ? 256 + t : 1 + t % 3);
        cols[r] = store[r];
        n[r] = len;
    }
    hspmv_csr A;
    hspmv_csrdu D;
    int rc = csr_lists(&A, NR, 2200000, cols, n, 61);
    rc = rc ? rc : hspmv_csrdu_from_csr(&A, &D, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    CHECK(D.nesc > 2500 && D.len[NR - 1] == HSPMV_CSRDU_LENESC && D.d[A.rowptr[1]] == HSPMV_CSRDU_ESC1,
          "%lld escapes; the patterns did not produce what they should", (long long)D.nesc);
    CHECK(holds(&A, &D), "layout wrong");
    check_kernels(&A, &D, "escapes at every lane", 63);
    hspmv_real *x = hspmv_malloc(2200000 * sizeof(hspmv_real)), *y = hspmv_malloc(NR * sizeof(hspmv_real)),
               *ys = hspmv_malloc(NR * sizeof(hspmv_real));
    CHECK(x && y && ys, "out of memory");
    tl_fill(x, 2200000, 67);
    for (int s = 0; s < nsets && x && y && ys; s++) {
        int bad = 0;
        sets[s]->csrdu(0, NR, &D, x, y, 0);
        for (int t = 0; t < 200; t++) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t r0 = (int64_t)((z >> 33) % NR), r1 = r0 + (int64_t)((z >> 13) % (uint64_t)(NR - r0 + 1));
            tl_fill_nan(ys, NR);
            sets[s]->csrdu(r0, r1, &D, x, ys, 0);
            bad += !tl_same_bits(y + r0, ys + r0, r1 - r0);
        }
        CHECK(bad == 0, "%s/csrdu: %d calls on random row ranges differ from one call", sets[s]->isa, bad);
    }
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(ys);
    hspmv_csrdu_free(&D);
    hspmv_csr_free(&A);
}

/* Threads cut anywhere: walks from every checkpoint, over empty rows and escapes. */
static void every_csrdu_kernel_gives_one_calls_y_on_split_row_ranges(void)
{
    int64_t lens[420], n = 420;
    for (int i = 0; i < n; i++) lens[i] = i % 11 == 3 ? 0 : i % 13 == 0 ? 300 : (i * 5) % 19;
    hspmv_csr A;
    hspmv_csrdu D;
    int rc = tl_csr_random(&A, n, 100000, lens, 0, 2, 71);
    rc = rc ? rc : hspmv_csrdu_from_csr(&A, &D, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    CHECK(D.ncp == 4 && D.nesc > 100, "%lld checkpoints, %lld escapes", (long long)D.ncp, (long long)D.nesc);
    hspmv_real *x = hspmv_malloc(100000 * sizeof(hspmv_real));
    tl_fill(x, 100000, 13);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {rundu, sets[s], &D, label};
        snprintf(label, sizeof(label), "%s/csrdu", sets[s]->isa);
        CHECK(tl_check_splits(&k, n, x) == 0, "%s: split ranges differ from one call", label);
    }
    hspmv_free(x);
    hspmv_csrdu_free(&D);
    hspmv_csr_free(&A);
}

/* Nothing past any array is read: the last row's entries end each array at a page that faults. */
static void every_csrdu_kernel_reads_nothing_past_the_arrays_ends(void)
{
    for (int64_t len = 1; len <= 33; len += 4) {
        hspmv_csr A;
        hspmv_csrdu D, Q;
        tl_guard Gd = {0};
        int64_t l3[3] = {0, 0, len};
        int rc = tl_csr_random(&A, 3, len, l3, 0, 0, 23 + (uint64_t)len);
        rc = rc ? rc : hspmv_csrdu_from_csr(&A, &D, NULL);
        CHECK(rc == HSPMV_OK && A.nnz == len, "setup failed");
        if (rc) return;
        hspmv_real *x = malloc((size_t)len * sizeof(hspmv_real));
        tl_fill(x, len, 17);
        Q = D;
        hspmv_real *gx = tl_guard_copy(&Gd, x, (size_t)len * sizeof(hspmv_real));
        Q.val = tl_guard_copy(&Gd, D.val, (size_t)len * sizeof(hspmv_real));
        Q.d = tl_guard_copy(&Gd, D.d, (size_t)len);
        Q.len = tl_guard_copy(&Gd, D.len, 3);
        Q.cp = tl_guard_copy(&Gd, D.cp, sizeof(hspmv_csrdu_cp));
        int mapped = gx && Q.val && Q.d && Q.len && Q.cp;
        CHECK(mapped, "mmap failed");
        for (int s = 0; s < nsets && mapped; s++) {
            char what[64];
            tl_kernel g = {rundu, sets[s], &Q, what}, k = {rundu, sets[s], &D, what};
            snprintf(what, sizeof(what), "%s/csrdu, %lld at page end", sets[s]->isa, (long long)len);
            CHECK(tl_check_guarded(&A, &g, gx, &k, x) == 0, "%s", what);
        }
        tl_guard_free(&Gd);
        free(x);
        hspmv_csrdu_free(&D);
        hspmv_csr_free(&A);
    }
}

static void ref_check_rejects_a_csrdu_y_off_by_three_bounds(void)
{
    hspmv_csr A;
    hspmv_csrdu D;
    int rc = tl_csr_random(&A, 30, 6000, NULL, 12, 3, 91);
    rc = rc ? rc : hspmv_csrdu_from_csr(&A, &D, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(6000 * sizeof(hspmv_real));
    tl_fill(x, 6000, 19);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {rundu, sets[s], &D, label};
        snprintf(label, sizeof(label), "%s/csrdu", sets[s]->isa);
        CHECK(tl_check_rejects(&A, &k, x, 0) == 0, "%s: the check did not tell y off by 3 bounds", label);
    }
    hspmv_free(x);
    hspmv_csrdu_free(&D);
    hspmv_csr_free(&A);
}

/* Index arithmetic past 2^32 values and 2^31 escapes: a walk that starts
   at a checkpoint with such counts lands where it should. */
static void csrdu_walk_arithmetic_holds_past_2_to_the_32(void)
{
    hspmv_csrdu D;
    uint8_t len[2] = {HSPMV_CSRDU_LENESC, 0}, d[3] = {HSPMV_CSRDU_ESC1, 0, 5};
    int32_t esc[3] = {3, 2000000000, 77};
    hspmv_csrdu_cp cp[2];
    memset(&D, 0, sizeof(D));
    cp[1].k = (int64_t)3 << 32;
    cp[1].e = ((int64_t)1 << 31) + 5;
    cp[1].c = 7;
    /* Checkpoint 1 (row 128) stands past 2^32 values and 2^31 escapes; the
       arrays are offset so that only the entries from there on exist: row
       128 has 3 entries (length escaped), its first column escaped
       (7 + 2000000000), one escaped step; row 129 is empty. */
    D.cp = cp;
    D.len = (uint8_t *)((uintptr_t)len - HSPMV_CSRDU_CP);
    D.esc = (int32_t *)((uintptr_t)esc - (uintptr_t)cp[1].e * sizeof(int32_t));
    D.d = (uint8_t *)((uintptr_t)d - (uintptr_t)cp[1].k);
    int64_t k, e;
    int32_t c;
    hspmv_csrdu_seek(&D, HSPMV_CSRDU_CP + 2, &k, &e, &c);
    CHECK(k == ((int64_t)3 << 32) + 3 && e == ((int64_t)1 << 31) + 8 && c == 2000000007,
          "walk ended at k %lld, e %lld, c %d", (long long)k, (long long)e, c);
}

/* One matrix of a folder: every matrix fits CSRDU. */
static int check_file(const hspmv_csr *A, const char *name, int i)
{
    check_all_kernels(A, name, 1000 + (uint64_t)i);
    return 1;
}

/* The decoder is the CPU's choice (the wide one on Intel x86, the byte
   steps elsewhere) unless a test sets one; the environment plays no part
   (HSPMV_CSRDU_DECODE is gone). */
static void csrdu_decoder_is_the_cpus_choice_or_the_one_set(void)
{
    int cpu = HSPMV_CSRDU_STEPS;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_is("intel")) cpu = HSPMV_CSRDU_WIDE;
#endif
    setenv("HSPMV_CSRDU_DECODE", cpu == HSPMV_CSRDU_WIDE ? "steps" : "wide", 1);
    hspmv_csrdu_set_decoder(-1);
    CHECK(hspmv_csrdu_decoder() == cpu, "decoder %d, expected the CPU's %d", hspmv_csrdu_decoder(), cpu);
    unsetenv("HSPMV_CSRDU_DECODE");
    for (int dec = HSPMV_CSRDU_STEPS; dec <= HSPMV_CSRDU_WIDE; dec++) {
        hspmv_csrdu_set_decoder(dec);
        CHECK(hspmv_csrdu_decoder() == dec, "decoder %d after setting %d", hspmv_csrdu_decoder(), dec);
    }
    hspmv_csrdu_set_decoder(7); /* out of range: back to the CPU's */
    CHECK(hspmv_csrdu_decoder() == cpu, "decoder %d after an out-of-range mode", hspmv_csrdu_decoder());
    hspmv_csrdu_set_decoder(-1);
}

static void check_folder(const char *dir, int shared) { CHECK_EACH_MTX(dir, shared, check_file); }

static void every_csrdu_kernel_matches_ref_on_bundled_matrices(void) { check_folder("matrices", 0); }

static void every_csrdu_kernel_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(registry_has_a_csrdu_kernel_in_every_set);
    RUN(csrdu_escapes_exactly_the_numbers_a_byte_cannot_hold);
    RUN(csrdu_conversion_fails_cleanly_when_out_of_memory);
    RUN(csrdu_walk_arithmetic_holds_past_2_to_the_32);
    RUN(ref_check_rejects_a_csrdu_y_off_by_three_bounds);
    RUN(csrdu_decoder_is_the_cpus_choice_or_the_one_set);
    for (int dec = HSPMV_CSRDU_STEPS; dec <= HSPMV_CSRDU_WIDE; dec++) { /* every column decoder (kernels_csrdu.h) */
        static const char *name[] = {"steps", "wide"};
        hspmv_csrdu_set_decoder(dec);
        printf("# csrdu column decoder: %s\n", name[dec]);
        RUN(every_csrdu_kernel_matches_ref_on_row_lengths_0_to_33_with_and_without_escapes);
        RUN(every_csrdu_kernel_matches_ref_on_dense_and_empty_rows);
        RUN(every_csrdu_kernel_matches_ref_on_rectangular_and_empty_matrices);
        RUN(every_csrdu_kernel_gives_one_calls_y_on_split_row_ranges);
        RUN(every_csrdu_kernel_matches_ref_with_escapes_at_every_lane);
        RUN(every_csrdu_kernel_reads_nothing_past_the_arrays_ends);
        RUN(every_csrdu_kernel_matches_ref_on_bundled_matrices);
        RUN(every_csrdu_kernel_matches_ref_on_shared_matrices);
    }
    hspmv_csrdu_set_decoder(-1);
    CHECK_DONE();
}
