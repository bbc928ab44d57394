/* test_panels.c — column panels with x prefetched ahead: the conversion, and
   every kernel set this CPU runs (hspmv_kernel_sets), with 1 to 5 panels
   and the prefetch on and off, against the long-double reference with the
   docs/design.md bound: y = A*x (add = 0), y = y0 + A*x (add = 1), sub-ranges of
   rows giving exactly what one call gives, no read past any array (the
   prefetches ahead stay in the padding), a perturbed result caught. On
   random and power-law-like rows of every length 0..33, dense and empty
   rows, rectangular shapes, the bundled and the shared matrices.
   ISA-agnostic: it names kernels only through the registry, so the same
   file tests NEON under qemu-aarch64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kernel_select.h"
#include "panels.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;
static const int counts[] = {1, 2, 5};
static const int dists[] = {0, HSPMV_PANELS_XPF};

static void runpn(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y, int add)
{
    k->ks->panels(r0, r1, (const hspmv_panels *)k->mat, x, y, add);
}

/* 1 when P holds exactly A: panel p's row i has A's entries of its columns, in order. */
static int holds(const hspmv_csr *A, const hspmv_panels *P)
{
    int64_t n1 = A->nrows + 1, total = 0;
    for (int p = 0; p < P->npanels; p++)
        for (int64_t i = 0; i < A->nrows; i++) {
            int64_t q = P->rowptr32 ? P->rowptr32[p * n1 + i] : P->rowptr[p * n1 + i];
            int64_t e = P->rowptr32 ? P->rowptr32[p * n1 + i + 1] : P->rowptr[p * n1 + i + 1];
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                if (A->colind[k] / P->width != p) continue;
                if (q >= e || P->colind[q] != A->colind[k] || P->val[q] != A->val[k]) return 0;
                q++;
            }
            if (q != e) return 0;
            total += e - (P->rowptr32 ? P->rowptr32[p * n1 + i] : P->rowptr[p * n1 + i]);
        }
    for (int j = 0; j < HSPMV_PANELS_PAD; j++)
        if (P->colind[A->nnz + j] != 0) return 0;
    return total == A->nnz;
}

/* Every panel count, prefetch distance and set on A. Returns failures. */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    tl_kcheck T;
    int bad = 0, rc = tl_kcheck_init(&T, A, seed);
    if (rc) {
        CHECK(0, "%s: setup failed (%d)", name, rc);
        tl_kcheck_free(&T);
        return 1;
    }
    for (int c = 0; c < 3; c++)
        for (int d = 0; d < 2; d++) {
            hspmv_panels P;
            hspmv_error e;
            rc = hspmv_panels_from_csr(A, counts[c], dists[d], &P, &e);
            CHECK(rc == HSPMV_OK, "%s: conversion failed: %s", name, e.msg);
            if (rc) {
                bad++;
                continue;
            }
            CHECK(holds(A, &P), "%s: %d panels do not hold the matrix", name, counts[c]);
            CHECK(P.rblock == (counts[c] > 1 ? HSPMV_PANELS_RBLOCK : 0), "%s: %d panels, row blocks of %lld", name,
                  counts[c], (long long)P.rblock);
            for (int b = 0; b < 3; b++) { /* as built, then row blocks of 1 and of 7 rows */
                static const int64_t rbs[] = {-1, 1, 7};
                char fmt[80];
                tl_kernel k = {runpn, NULL, &P, NULL};
                if (rbs[b] > 0) P.rblock = rbs[b];
                snprintf(fmt, sizeof(fmt), "panels P=%d xpf=%d rblock=%lld", counts[c], dists[d], (long long)P.rblock);
                int f = tl_kcheck_sets(&T, k, sets, nsets, name, fmt);
                CHECK(f == 0, "%s %s: %d checks failed", name, fmt, f);
                bad += f;
            }
            hspmv_panels_free(&P);
        }
    tl_kcheck_free(&T);
    return bad;
}

/* ---- tests ---------------------------------------------------------------- */

static void registry_has_a_panels_kernel_in_every_set(void)
{
    CHECK(nsets >= 1, "no kernel sets");
    for (int s = 0; s < nsets; s++) CHECK(sets[s]->panels, "%s has no panels kernel", sets[s]->isa);
}

static void panels_split_columns_and_count_their_bytes(void)
{
    hspmv_csr A;
    hspmv_panels P;
    hspmv_error e;
    int rc = tl_csr_random(&A, 100, 1001, NULL, 9, 0, 3);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_panels_from_csr(&A, 4, 32, &P, &e);
    CHECK(rc == HSPMV_OK && P.npanels == 4 && P.width == 251 && P.xpf == 32 && P.rowptr32, "layout (%d)", rc);
    if (rc == HSPMV_OK) {
        double r = sizeof(hspmv_real), want = (double)A.nnz * (r + 4) + 4 * 101.0 * 4 + 1001 * r + 100 * r * 7;
        CHECK(holds(&A, &P), "entries misplaced");
        CHECK(hspmv_panels_bytes(&P) == want, "bytes %g, want %g", hspmv_panels_bytes(&P), want);
    }
    hspmv_panels_free(&P);
    CHECK(!P.val && !P.colind, "free did not zero");
    hspmv_panels_free(&P);
    CHECK(hspmv_panels_from_csr(&A, 0, 0, &P, &e) == HSPMV_ERR_ARG && e.msg[0], "0 panels accepted");
    CHECK(hspmv_panels_from_csr(&A, HSPMV_PANELS_MAX + 1, 0, &P, &e) == HSPMV_ERR_ARG, "too many panels accepted");
    for (long n = 1; n <= 3; n++) {
        hspmv_alloc_fail_after(n);
        rc = hspmv_panels_from_csr(&A, 2, 64, &P, NULL);
        hspmv_alloc_fail_after(0);
        CHECK(rc == HSPMV_ERR_NOMEM && !P.val && !P.colind && !P.rowptr32, "allocation %ld failing: rc %d", n, rc);
        hspmv_panels_free(&P);
    }
    hspmv_csr_free(&A);
}

static void scattered_columns_are_told_from_a_band(void)
{
    hspmv_csr A;
    CHECK(tl_csr_wide_random(&A, 2000, 4000000, 8, 4) == HSPMV_OK, "generate");
    CHECK(hspmv_panels_scattered(&A), "random over 4M columns not scattered");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 2000, 2000, NULL, 8, 0, 4) == HSPMV_OK, "generate");
    CHECK(!hspmv_panels_scattered(&A), "2000 x 2000 random called scattered");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 0, 5, NULL, 0, 0, 4) == HSPMV_OK, "generate");
    CHECK(!hspmv_panels_scattered(&A), "empty matrix called scattered");
    hspmv_csr_free(&A);
}

static void ref_check_rejects_a_panels_y_off_by_three_bounds(void)
{
    hspmv_csr A;
    hspmv_panels P;
    int rc = tl_csr_random(&A, 30, 6000, NULL, 12, 0, 91);
    rc = rc ? rc : hspmv_panels_from_csr(&A, 3, 64, &P, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(6000 * sizeof(hspmv_real));
    tl_fill(x, 6000, 19);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {runpn, sets[s], &P, label};
        snprintf(label, sizeof(label), "%s/panels", sets[s]->isa);
        CHECK(tl_check_rejects(&A, &k, x, 0) == 0, "%s: the check did not tell y off by 3 bounds", label);
    }
    hspmv_free(x);
    hspmv_panels_free(&P);
    hspmv_csr_free(&A);
}

static void every_panels_kernel_matches_ref_on_row_lengths_0_to_33_dense_and_empty_rows(void)
{
    int64_t lens[400];
    for (int i = 0; i < 400; i++) lens[i] = i % 101 == 7 ? 2500 : i % 9 == 4 ? 0 : (i * 7) % 34;
    hspmv_csr A;
    int rc = tl_csr_random(&A, 400, 3000, lens, 0, 0, 31);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    check_all_kernels(&A, "lengths 0..33, dense and empty rows", 7);
    hspmv_csr_free(&A);
}

static void every_panels_kernel_matches_ref_on_rectangular_and_empty_matrices(void)
{
    static const int64_t shapes[][3] = {{2000, 50, 5}, {50, 300000, 40}, {1, 7, 3}, {3, 1, 1}};
    for (int t = 0; t < 4; t++) {
        hspmv_csr A;
        char name[64];
        int rc = tl_csr_random(&A, shapes[t][0], shapes[t][1], NULL, shapes[t][2], 0, 51 + (uint64_t)t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "%lld x %lld", (long long)shapes[t][0], (long long)shapes[t][1]);
        check_all_kernels(&A, name, 13 + (uint64_t)t);
        hspmv_csr_free(&A);
    }
    int rc = tl_on_empty_matrices(check_all_kernels);
    CHECK(rc == HSPMV_OK, "generator failed");
}

static void every_panels_kernel_gives_one_calls_y_on_split_row_ranges(void)
{
    int64_t lens[150];
    for (int i = 0; i < 150; i++) lens[i] = (i * 5) % 34;
    hspmv_csr A;
    hspmv_panels P;
    int rc = tl_csr_random(&A, 150, 5000, lens, 0, 0, 71);
    rc = rc ? rc : hspmv_panels_from_csr(&A, 3, 64, &P, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(5000 * sizeof(hspmv_real));
    tl_fill(x, 5000, 13);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {runpn, sets[s], &P, label};
        snprintf(label, sizeof(label), "%s/panels", sets[s]->isa);
        CHECK(tl_check_splits(&k, 150, x) == 0, "%s: split ranges differ from one call", label);
    }
    hspmv_free(x);
    hspmv_panels_free(&P);
    hspmv_csr_free(&A);
}

/* The last row's entries end the value array at a page that faults; the
   column array ends after its padding (the prefetches read into it). */
static void every_panels_kernel_reads_nothing_past_the_arrays_ends(void)
{
    for (int64_t len = 1; len <= 33; len += 4) {
        hspmv_csr A;
        hspmv_panels P, Q;
        tl_guard Gd = {0};
        int64_t l3[3] = {0, 0, len};
        int rc = tl_csr_random(&A, 3, len, l3, 0, 0, 23 + (uint64_t)len);
        rc = rc ? rc : hspmv_panels_from_csr(&A, 2, HSPMV_PANELS_PAD - 64, &P, NULL);
        CHECK(rc == HSPMV_OK && A.nnz == len, "setup failed");
        if (rc) return;
        hspmv_real *x = malloc((size_t)len * sizeof(hspmv_real));
        tl_fill(x, len, 17);
        Q = P;
        hspmv_real *gx = tl_guard_copy(&Gd, x, (size_t)len * sizeof(hspmv_real));
        Q.val = tl_guard_copy(&Gd, P.val, (size_t)len * sizeof(hspmv_real));
        Q.colind = tl_guard_copy(&Gd, P.colind, ((size_t)len + HSPMV_PANELS_PAD) * sizeof(int32_t));
        Q.rowptr32 = tl_guard_copy(&Gd, P.rowptr32, 2 * 4 * sizeof(uint32_t));
        int mapped = gx && Q.val && Q.colind && Q.rowptr32;
        CHECK(mapped, "mmap failed");
        for (int s = 0; s < nsets && mapped; s++) {
            char what[64];
            tl_kernel g = {runpn, sets[s], &Q, what}, k = {runpn, sets[s], &P, what};
            snprintf(what, sizeof(what), "%s/panels, %lld at page end", sets[s]->isa, (long long)len);
            CHECK(tl_check_guarded(&A, &g, gx, &k, x) == 0, "%s", what);
        }
        tl_guard_free(&Gd);
        free(x);
        hspmv_panels_free(&P);
        hspmv_csr_free(&A);
    }
}

static int check_file(const hspmv_csr *A, const char *name, int i)
{
    check_all_kernels(A, name, 1000 + (uint64_t)i);
    return 1;
}

static void check_folder(const char *dir, int shared) { CHECK_EACH_MTX(dir, shared, check_file); }

static void every_panels_kernel_matches_ref_on_bundled_matrices(void) { check_folder("matrices", 0); }

static void every_panels_kernel_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(registry_has_a_panels_kernel_in_every_set);
    RUN(panels_split_columns_and_count_their_bytes);
    RUN(scattered_columns_are_told_from_a_band);
    RUN(ref_check_rejects_a_panels_y_off_by_three_bounds);
    RUN(every_panels_kernel_matches_ref_on_row_lengths_0_to_33_dense_and_empty_rows);
    RUN(every_panels_kernel_matches_ref_on_rectangular_and_empty_matrices);
    RUN(every_panels_kernel_gives_one_calls_y_on_split_row_ranges);
    RUN(every_panels_kernel_reads_nothing_past_the_arrays_ends);
    RUN(every_panels_kernel_matches_ref_on_bundled_matrices);
    RUN(every_panels_kernel_matches_ref_on_shared_matrices);
    CHECK_DONE();
}
