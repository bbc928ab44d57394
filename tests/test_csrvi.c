/* test_csrvi.c — CSRVI (CSR with value indexing: a table of at most 256
   distinct values and a 1-byte code per nonzero): the value count (serial
   and parallel, with its early stop), the conversion and its refusal at 257
   values, bitwise told-apart values (-0.0 and 0.0, one ulp apart), and every
   kernel set this CPU runs (hspmv_kernel_sets), in both row pointer widths,
   against the long-double reference with the docs/design.md bound: y = A*x
   (add = 0), y = y0 + A*x (add = 1), sub-ranges of rows giving exactly what
   one call gives, and the same bits as the set's CSR16 kernel (same sums in
   the same order). Also the AUTO choice through hspmv_local_create.
   ISA-agnostic: it names kernels only through the registry, so the same
   file tests NEON under qemu-aarch64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csr16.h"
#include "csrvi.h"
#include "kernel_select.h"
#include "local.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

/* Row lengths 0..MAXLEN exercise every tail: below, at and above one vector
   for 2, 4, 8 and 16 lanes, 4 unrolled vectors of 16, and more. */
#define MAXLEN 70

/* The set's CSRVI kernel on k->mat, rows [r0, r1). */
static void runvi(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                  int add)
{
    const hspmv_csrvi *C = k->mat;
    k->ks->csrvi(r0, r1, C->rowptr32, C->rowptr, C->colind, C->code, C->tab, C->ntab, x, y, add);
}

/* The set's CSR16 kernel on k->mat, rows [r0, r1). */
static void run16(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                  int add)
{
    const hspmv_csr16 *D = k->mat;
    k->ks->csr16(r0, r1, D->rowptr32, D->rowptr, D->off, D->val, x, y, add);
}

/* C with row pointers of rp_bits bits (A must have at most 256 values). */
static int csrvi_with(const hspmv_csr *A, int rp_bits, hspmv_csrvi *C)
{
    hspmv_csrvi_set S;
    int rc;
    memset(C, 0, sizeof(*C));
    if (!hspmv_csrvi_values(A, &S)) return HSPMV_ERR_UNSUPPORTED;
    rc = hspmv_csrvi_alloc(A, &S, rp_bits, C, NULL);
    if (rc == HSPMV_OK) hspmv_csrvi_fill_rows(A, &S, C, 0, A->nrows);
    return rc;
}

/* Value j of a pool of distinct values: +-(j+1)/7, distinct in float too. */
static hspmv_real pool(int j) { return (hspmv_real)((j % 2 ? -1.0 : 1.0) * (j + 1) / 7.0); }

/* Gives A exactly d distinct values (when nnz >= d), spread over the entries. */
static void set_values(hspmv_csr *A, int d, uint64_t seed)
{
    for (int64_t k = 0; k < A->nnz; k++) A->val[k] = pool((int)(((uint64_t)k * 7919u + seed) % (uint64_t)d));
}

/* Distinct values of A by bits, counted the slow way (stops above 300). */
static int count_distinct(const hspmv_csr *A)
{
    hspmv_real seen[301];
    int n = 0;
    for (int64_t k = 0; k < A->nnz && n <= 300; k++) {
        int j = 0;
        while (j < n && memcmp(&seen[j], &A->val[k], sizeof(hspmv_real))) j++;
        if (j == n) seen[n++] = A->val[k];
    }
    return n;
}

/* C holds A: same pointers and columns, tab[code[k]] has val[k]'s bits, the
   table sorted and of distinct bits. */
static int holds(const hspmv_csr *A, const hspmv_csrvi *C)
{
    if (C->nrows != A->nrows || C->ncols != A->ncols || C->nnz != A->nnz) return 0;
    if (C->ntab != count_distinct(A)) return 0;
    for (int c = 1; c < C->ntab; c++)
        if (!(C->tab[c - 1] < C->tab[c] || (C->tab[c - 1] == 0 && C->tab[c] == 0 && signbit(C->tab[c - 1]) &&
                                            !signbit(C->tab[c]))))
            return 0;
    for (int64_t i = 0; i <= A->nrows; i++)
        if ((C->rowptr32 ? (int64_t)C->rowptr32[i] : C->rowptr[i]) != A->rowptr[i]) return 0;
    for (int64_t k = 0; k < A->nnz; k++)
        if (C->colind[k] != A->colind[k] || C->code[k] >= C->ntab ||
            memcmp(&C->tab[C->code[k]], &A->val[k], sizeof(hspmv_real)))
            return 0;
    return 1;
}

/* Every set, both row pointer widths, on A (at most 256 values):
   tl_kcheck_run's checks; both widths give the same bits; and the set's
   CSR16 kernel gives the same bits when A fits CSR16. Returns the number of
   failed checks. */
static int check_all_kernels(const hspmv_csr *A, const char *name, uint64_t seed)
{
    tl_kcheck T;
    hspmv_csrvi C[2] = {{0}};
    hspmv_csr16 D = {0};
    int bad = 0, fits16 = hspmv_csr16_fits(A), rct = tl_kcheck_init(&T, A, seed);
    int rc32 = csrvi_with(A, 32, &C[0]), rc64 = csrvi_with(A, 64, &C[1]);
    int rc16 = fits16 ? hspmv_csr16_from_csr(A, &D, NULL) : HSPMV_OK;
    size_t yb = (size_t)(T.n > 0 ? T.n : 1) * sizeof(hspmv_real);
    hspmv_real *yw = hspmv_malloc(yb), *ys = hspmv_malloc(yb);
    if (!yw || !ys || rct || rc32 || rc64 || rc16 || !holds(A, &C[0]) || !holds(A, &C[1])) {
        CHECK(0, "%s: setup failed (invalid CSR or out of memory %d, conversion %d/%d/%d, or wrong content)",
              name, rct, rc32, rc64, rc16);
        bad++;
        goto out;
    }
    for (int s = 0; s < nsets; s++)
        for (int w = 0; w < 2; w++) {
            char label[256];
            tl_kernel k = {runvi, sets[s], &C[w], label}, k16 = {run16, sets[s], &D, label};
            snprintf(label, sizeof(label), "%s %s/csrvi rp%d", name, sets[s]->isa, w ? 64 : 32);
            int f = tl_kcheck_run(&T, &k);
            if (w == 0) memcpy(yw, T.y, (size_t)T.n * sizeof(hspmv_real));
            f += tl_kcheck_same(&T, yw, "64-bit row pointers give other bits than 32-bit");
            if (fits16) { /* the same products summed in the same order */
                tl_fill_nan(ys, T.n);
                k16.run(&k16, 0, T.n, T.x, ys, 0);
                f += tl_kcheck_same(&T, ys, "csrvi and csr16 give other bits");
            }
            CHECK(f == 0, "%s: %d checks failed", label, f);
            bad += f;
        }
out:
    hspmv_csrvi_free(&C[0]);
    hspmv_csrvi_free(&C[1]);
    hspmv_csr16_free(&D);
    tl_kcheck_free(&T);
    hspmv_free(yw);
    hspmv_free(ys);
    return bad;
}

/* Random CSR with rows of every length 0..MAXLEN (each once per MAXLEN+1
   rows, in a scrambled order), ncols columns, d distinct values. */
static int csr_lengths(hspmv_csr *A, int64_t nrows, int64_t ncols, int d, uint64_t seed)
{
    int64_t *len = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof(int64_t));
    int rc;
    if (!len) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < nrows; i++) len[i] = (i * 29) % (MAXLEN + 1);
    rc = tl_csr_random(A, nrows, ncols, len, 0, 0, seed);
    free(len);
    if (rc == HSPMV_OK) set_values(A, d, seed);
    return rc;
}

/* 1 when A's conversion is refused as it should be: UNSUPPORTED, a message,
   C zeroed; and hspmv_local_create refuses CSRVI while AUTO takes another
   format (CSR16 only when A fits it). */
static int refused(const hspmv_csr *A)
{
    hspmv_csrvi C;
    hspmv_error e;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_local_info info;
    int rc = hspmv_csrvi_from_csr(A, &C, &e), ok;
    ok = rc == HSPMV_ERR_UNSUPPORTED && !C.colind && !C.code && !C.tab && !C.rowptr && !C.rowptr32 &&
         strstr(e.msg, "256") != NULL;
    CHECK(ok, "from_csr: rc %d, message '%s'", rc, e.msg);
    hspmv_opts_default(&o);
    o.threads = 3;
    o.format = HSPMV_FORMAT_CSRVI;
    rc = hspmv_local_create(A, &o, &L, &e);
    CHECK(rc == HSPMV_ERR_UNSUPPORTED && !L && strstr(e.msg, "CSRVI") && strstr(e.msg, "256"),
          "explicit CSRVI: rc %d, message '%s'", rc, e.msg);
    ok = ok && rc == HSPMV_ERR_UNSUPPORTED && !L;
    hspmv_local_destroy(&L);
    o.format = HSPMV_FORMAT_AUTO;
    o.csrl_threshold = 0; /* never CSRL */
    rc = hspmv_local_create(A, &o, &L, &e);
    if (rc == HSPMV_OK) {
        hspmv_local_get_info(L, &info);
        CHECK(info.format != HSPMV_FORMAT_CSRVI && (info.format != HSPMV_FORMAT_CSR16 || hspmv_csr16_fits(A)),
              "AUTO on > 256 values: %s", info.format_name);
        ok = ok && info.format != HSPMV_FORMAT_CSRVI;
    } else {
        CHECK(0, "AUTO create failed: %s", e.msg);
        ok = 0;
    }
    hspmv_local_destroy(&L);
    return ok;
}

/* ---- tests ---------------------------------------------------------------- */

static void registry_has_a_csrvi_kernel_in_every_set(void)
{
    CHECK(nsets >= 1, "no kernel sets");
    for (int s = 0; s < nsets; s++) CHECK(sets[s]->csrvi, "%s has no csrvi kernel", sets[s]->isa);
}

static void csrvi_from_csr_stores_columns_codes_and_a_sorted_table(void)
{
    hspmv_csr A;
    hspmv_csrvi C;
    int rc = csr_lengths(&A, 200, 150, 5, 3);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    rc = hspmv_csrvi_from_csr(&A, &C, NULL);
    CHECK(rc == HSPMV_OK, "conversion failed (%d)", rc);
    if (rc == HSPMV_OK) {
        CHECK(C.rowptr32 && !C.rowptr && C.ntab == 5, "pointer width or table size (%d) wrong", C.ntab);
        CHECK(holds(&A, &C), "CSRVI differs from the CSR");
        CHECK(C.tab[0] == pool(3) && C.tab[4] == pool(4), "table not sorted: %g .. %g", (double)C.tab[0],
              (double)C.tab[4]);
        double r = sizeof(hspmv_real);
        double want = (double)A.nnz * 5 + 201.0 * 4 + 5 * r + 150 * r + 200 * r;
        CHECK(hspmv_csrvi_bytes(&C) == want, "bytes %g, want %g", hspmv_csrvi_bytes(&C), want);
    }
    hspmv_csrvi_free(&C);
    CHECK(!C.colind && !C.code && !C.tab && !C.rowptr32, "free did not zero");
    hspmv_csrvi_free(&C); /* twice is fine */
    hspmv_csr_free(&A);
}

static void csrvi_conversion_fails_cleanly_when_out_of_memory(void)
{
    hspmv_csr A;
    int rc = csr_lengths(&A, 50, 80, 3, 5);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    for (long n = 1; n <= 5; n++) {
        hspmv_csrvi C;
        hspmv_alloc_fail_after(n);
        rc = hspmv_csrvi_from_csr(&A, &C, NULL);
        hspmv_alloc_fail_after(0);
        CHECK(rc == HSPMV_ERR_NOMEM && !C.colind && !C.code && !C.tab && !C.rowptr32 && !C.rowptr,
              "allocation %ld failing: rc %d", n, rc);
        hspmv_csrvi_free(&C);
    }
    hspmv_csrvi_set S;
    hspmv_csrvi C;
    CHECK(hspmv_csrvi_values(&A, &S) == 1 && S.n == 3, "values");
    CHECK(hspmv_csrvi_alloc(&A, &S, 16, &C, NULL) == HSPMV_ERR_ARG, "16-bit row pointers accepted");
    hspmv_csr_free(&A);
}

/* 1, 2, 16, 17, 255 and 256 distinct values (the edges of the one- and
   two-register permutes in both precisions, and of the code) on rows of
   every length 0..70; 257 refused. */
static void every_csrvi_kernel_matches_ref_for_1_to_256_values_and_257_is_refused(void)
{
    static const int counts[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 255, 256};
    for (size_t t = 0; t < sizeof(counts) / sizeof(counts[0]); t++) {
        hspmv_csr A;
        char name[64];
        int rc = csr_lengths(&A, 3 * (MAXLEN + 1) + 5, 300, counts[t], 7 + t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        CHECK(count_distinct(&A) == counts[t], "%d values asked, %d made", counts[t], count_distinct(&A));
        snprintf(name, sizeof(name), "%d values, lengths 0..%d", counts[t], MAXLEN);
        check_all_kernels(&A, name, 20 + t);
        hspmv_csr_free(&A);
    }
    hspmv_csr A;
    int rc = csr_lengths(&A, 3 * (MAXLEN + 1) + 5, 300, 257, 9);
    CHECK(rc == HSPMV_OK && count_distinct(&A) == 257, "generator failed");
    if (rc) return;
    CHECK(refused(&A), "257 values accepted");
    hspmv_csr_free(&A);
    /* far columns and 257 values: AUTO takes neither CSRVI nor CSR16 */
    rc = tl_csr_random(&A, 100, 200000, NULL, 8, 0, 9);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    set_values(&A, 257, 4);
    CHECK(refused(&A), "a random 100 x 200000 matrix with 257 values accepted");
    hspmv_csr_free(&A);
}

/* -0.0 and 0.0, and values one ulp apart, are different values: codes of
   their own, each entry's exact bits in the table. */
static void csrvi_tells_values_apart_by_their_bits(void)
{
    hspmv_csr A;
    int rc = csr_lengths(&A, 100, 120, 4, 11);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
#ifdef HSPMV_SINGLE
    hspmv_real one = 1, up = nextafterf(one, 2), down = nextafterf(one, 0);
#else
    hspmv_real one = 1, up = nextafter(one, 2), down = nextafter(one, 0);
#endif
    hspmv_real vals[6] = {0.0, -0.0, one, up, down, -one};
    for (int64_t k = 0; k < A.nnz; k++) A.val[k] = vals[(k * 5) % 6];
    hspmv_csrvi C;
    rc = hspmv_csrvi_from_csr(&A, &C, NULL);
    CHECK(rc == HSPMV_OK && C.ntab == 6, "6 values by bits: rc %d, ntab %d", rc, C.ntab);
    if (rc == HSPMV_OK) {
        CHECK(holds(&A, &C), "an entry's bits are not its table value's");
        CHECK(signbit(C.tab[1]) && C.tab[1] == 0 && !signbit(C.tab[2]) && C.tab[2] == 0,
              "-0.0 must sort just before 0.0");
        CHECK(C.tab[3] == down && C.tab[4] == one && C.tab[5] == up, "ulp neighbours");
    }
    hspmv_csrvi_free(&C);
    check_all_kernels(&A, "+-0 and ulp neighbours", 5);
    hspmv_csr_free(&A);
}

/* The parallel count over thread chunks gives the serial set and stops on
   257 values wherever the 257th is. */
static void parallel_value_count_matches_serial_and_stops_at_257(void)
{
    static const int tc[] = {1, 2, 3, 4, 7, 16};
    hspmv_csr A;
    int64_t start[17];
    hspmv_csrvi_set S, P;
    int rc = csr_lengths(&A, 2000, 500, 256, 13);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    CHECK(hspmv_csrvi_values(&A, &S) == 1 && S.n == 256, "serial: %d", S.n);
    for (size_t t = 0; t < sizeof(tc) / sizeof(tc[0]); t++) {
        hspmv_local_split(A.rowptr, A.nrows, tc[t], start);
        CHECK(hspmv_local_csrvi_values(&A, tc[t], start, &P) == 1 && P.n == 256 &&
                  !memcmp(P.val, S.val, sizeof(S.val)),
              "%d threads: %d values, or another order", tc[t], P.n);
    }
    /* one new value at the start, the middle and the end */
    int64_t where[3] = {0, A.nnz / 2, A.nnz - 1};
    for (int w = 0; w < 3; w++) {
        hspmv_real keep = A.val[where[w]];
        A.val[where[w]] = 1000;
        for (size_t t = 0; t < sizeof(tc) / sizeof(tc[0]); t++) {
            hspmv_local_split(A.rowptr, A.nrows, tc[t], start);
            CHECK(hspmv_local_csrvi_values(&A, tc[t], start, &P) == 0, "%d threads: 257 values accepted",
                  tc[t]);
        }
        CHECK(hspmv_csrvi_values(&A, &S) == 0, "serial: 257 values accepted");
        A.val[where[w]] = keep;
    }
    hspmv_csr_free(&A);
}

/* Tall and wide shapes: columns anywhere (CSRVI keeps absolute columns). */
static void every_csrvi_kernel_matches_ref_on_rectangular_matrices(void)
{
    static const int64_t shapes[][2] = {{300, 50}, {50, 3000}, {4000, 100000}, {1, 70000}};
    for (int t = 0; t < 4; t++) {
        hspmv_csr A;
        char name[64];
        int rc = csr_lengths(&A, shapes[t][0], shapes[t][1], 20, 51 + (uint64_t)t);
        CHECK(rc == HSPMV_OK, "generator failed");
        if (rc) return;
        snprintf(name, sizeof(name), "%lld x %lld", (long long)shapes[t][0], (long long)shapes[t][1]);
        check_all_kernels(&A, name, 13 + (uint64_t)t);
        hspmv_csr_free(&A);
    }
}

static void every_csrvi_kernel_handles_empty_matrices_rows_and_columns(void)
{
    int rc = tl_on_empty_matrices(check_all_kernels);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    /* 5 of 8 rows empty, and columns 0..99 of 400 never used */
    int64_t len[99];
    for (int i = 0; i < 99; i++) len[i] = (i % 8 == 2) ? 7 : (i % 8 == 4) ? 40 : (i % 8 == 7) ? 1 : 0;
    hspmv_csr A;
    rc = tl_csr_random(&A, 99, 300, len, 0, 0, 62);
    CHECK(rc == HSPMV_OK, "generator failed");
    if (rc) return;
    for (int64_t k = 0; k < A.nnz; k++) A.colind[k] += 100;
    A.ncols = 400;
    set_values(&A, 3, 1);
    check_all_kernels(&A, "empty rows and columns", 14);
    hspmv_csr_free(&A);
}

/* Threads call kernels on sub-ranges: many cut points, empty ranges included. */
static void every_csrvi_kernel_gives_one_calls_y_on_split_row_ranges(void)
{
    int64_t n = 97;
    hspmv_csr A;
    hspmv_csrvi C[2] = {{0}};
    int rc = csr_lengths(&A, n, 200, 17, 71);
    rc = rc ? rc : csrvi_with(&A, 32, &C[0]);
    rc = rc ? rc : csrvi_with(&A, 64, &C[1]);
    CHECK(rc == HSPMV_OK, "setup failed");
    hspmv_real *x = hspmv_malloc(200 * sizeof(hspmv_real));
    tl_fill(x, 200, 13);
    for (int s = 0; s < nsets && rc == HSPMV_OK; s++)
        for (int w = 0; w < 2; w++) {
            char label[64];
            tl_kernel k = {runvi, sets[s], &C[w], label};
            snprintf(label, sizeof(label), "%s/csrvi rp%d", sets[s]->isa, w ? 64 : 32);
            CHECK(tl_check_splits(&k, n, x) == 0, "%s: split ranges differ from one call", label);
        }
    hspmv_free(x);
    hspmv_csrvi_free(&C[0]);
    hspmv_csrvi_free(&C[1]);
    hspmv_csr_free(&A);
}

/* Tails must not touch memory past the last column, code, table entry or x
   entry: row 2 of 3 (rows 0 and 1 empty) is columns 0..len-1, the last
   entries of every array, and each array the kernels read ends at a page
   that faults; tables of 1, 2, 9, 17, 33 and 255 values (every way of
   reading the table). */
static void every_csrvi_kernel_reads_nothing_past_the_arrays_ends(void)
{
    static const int ds[] = {1, 2, 9, 17, 33, 255};
    for (int di = 0; di < 6; di++)
        for (int64_t len = 1; len <= 40; len++) {
            int d = ds[di];
            hspmv_csr A;
            hspmv_csrvi C, G;
            tl_guard P = {0};
            int64_t l3[3] = {0, 0, len};
            int rc = tl_csr_random(&A, 3, len, l3, 0, 0, 23 + (uint64_t)len);
            if (rc == HSPMV_OK) set_values(&A, d, (uint64_t)len);
            rc = rc ? rc : hspmv_csrvi_from_csr(&A, &C, NULL);
            CHECK(rc == HSPMV_OK && A.nnz == len, "setup failed");
            if (rc) return;
            hspmv_real *x = malloc((size_t)len * sizeof(hspmv_real));
            tl_fill(x, len, 17);
            G = C;
            hspmv_real *gx = tl_guard_copy(&P, x, (size_t)len * sizeof(hspmv_real));
            G.colind = tl_guard_copy(&P, C.colind, (size_t)len * sizeof(int32_t));
            G.code = tl_guard_copy(&P, C.code, (size_t)len);
            G.tab = tl_guard_copy(&P, C.tab, (size_t)C.ntab * sizeof(hspmv_real));
            G.rowptr32 = tl_guard_copy(&P, C.rowptr32, 4 * sizeof(uint32_t));
            int mapped = gx && G.colind && G.code && G.tab && G.rowptr32;
            CHECK(mapped, "mmap failed");
            for (int s = 0; s < nsets && mapped; s++) {
                char what[80];
                tl_kernel g = {runvi, sets[s], &G, what}, k = {runvi, sets[s], &C, what};
                snprintf(what, sizeof(what), "%s/csrvi, %lld entries, %d values at page end", sets[s]->isa,
                         (long long)len, C.ntab);
                CHECK(tl_check_guarded(&A, &g, gx, &k, x) == 0, "%s", what);
            }
            tl_guard_free(&P);
            free(x);
            hspmv_csrvi_free(&C);
            hspmv_csr_free(&A);
        }
}

/* The check can fail: a CSRVI y that is right except for one row moved by
   three times that row's bound is rejected, for every set. */
static void ref_check_rejects_a_csrvi_y_off_by_three_bounds(void)
{
    hspmv_csr A;
    hspmv_csrvi C;
    int rc = csr_lengths(&A, 30, 60, 7, 91);
    rc = rc ? rc : hspmv_csrvi_from_csr(&A, &C, NULL);
    CHECK(rc == HSPMV_OK, "setup failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc(60 * sizeof(hspmv_real));
    tl_fill(x, 60, 19);
    int64_t i = 1; /* row 1 has 29 entries */
    CHECK(tl_row_bound(&A, x, i) > 0, "row %lld is empty", (long long)i);
    for (int s = 0; s < nsets; s++) {
        char label[64];
        tl_kernel k = {runvi, sets[s], &C, label};
        snprintf(label, sizeof(label), "%s/csrvi", sets[s]->isa);
        CHECK(tl_check_rejects(&A, &k, x, i) == 0, "%s: the check did not tell y off by 3 bounds", label);
    }
    hspmv_free(x);
    hspmv_csrvi_free(&C);
    hspmv_csr_free(&A);
}

/* AUTO through hspmv_local_create on a file: the format it picks. */
static int auto_format(const char *path, int *ntab)
{
    hspmv_csr A;
    hspmv_local *L = NULL;
    hspmv_local_info info;
    int f = -1;
    if (tl_read_csr(path, &A) != HSPMV_OK) return -1;
    if (hspmv_local_create(&A, NULL, &L, NULL) == HSPMV_OK) {
        hspmv_local_get_info(L, &info);
        f = info.format;
        *ntab = L->format == HSPMV_FORMAT_CSRVI ? L->csrvi.ntab : -1;
        CHECK(L->vals == NULL, "%s: the value set outlived create", path);
    }
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    return f;
}

/* Laplacians hold two values, but their rows repeat few patterns: CSRP,
   whose contiguous loads of x beat CSRVI's gathers (local_create.c); a
   banded matrix of long runs is CSRL's. */
static void local_auto_picks_csrp_on_two_valued_laplacians_and_csrl_on_banded(void)
{
    int nt = 0, f = auto_format("matrices/lap2d_64.mtx", &nt);
    if (f < 0) {
        SKIP("matrices/ is missing (run from the repository root)");
        return;
    }
    CHECK(f == HSPMV_FORMAT_CSRP, "lap2d: format %d", f);
    f = auto_format("matrices/lap3d27_10.mtx", &nt);
    CHECK(f == HSPMV_FORMAT_CSRP, "lap3d27: format %d", f);
    f = auto_format("matrices/banded_2000_w16.mtx", &nt);
    CHECK(f == HSPMV_FORMAT_CSRL, "banded: format %d", f);
    f = auto_format("matrices/random_3000_k8.mtx", &nt);
    CHECK(f == HSPMV_FORMAT_CSR16, "random (514 values): format %d", f);
}

/* hspmv_local with CSRVI: every set, 1..7 threads, add 0 and 1, info. */
static void local_csrvi_matches_ref_with_threads(void)
{
    hspmv_csr A, B;
    int rc = csr_lengths(&A, 500, 700, 40, 3);
    CHECK(rc == HSPMV_OK && tl_csr_augment(&A, &B) == HSPMV_OK, "generator failed");
    if (rc) return;
    hspmv_real *x = hspmv_malloc((700 + 500) * sizeof(hspmv_real)), *y = hspmv_malloc(500 * sizeof(hspmv_real));
    tl_fill(x, 1200, 4);
    for (int s = 0; s < nsets; s++)
        for (int t = 1; t <= 7; t += 2) {
            hspmv_opts o;
            hspmv_local *L = NULL;
            hspmv_local_info info;
            hspmv_error e;
            char what[80];
            hspmv_opts_default(&o);
            o.format = HSPMV_FORMAT_CSRVI;
            o.kernel = sets[s]->isa;
            o.threads = t;
            rc = hspmv_local_create(&A, &o, &L, &e);
            CHECK(rc == HSPMV_OK, "create: %s", e.msg);
            if (rc) continue;
            hspmv_local_get_info(L, &info);
            double r = sizeof(hspmv_real);
            CHECK(!strcmp(info.format_name, "csrvi") && info.bytes == (double)A.nnz * 5 + 501.0 * 4 + 40 * r +
                                                                       700 * r + 500 * r,
                  "info: %s, %g bytes", info.format_name, info.bytes);
            snprintf(what, sizeof(what), "local csrvi %s threads=%d", sets[s]->isa, t);
            tl_fill_nan(y, 500);
            hspmv_local_spmv(L, x, y, 0);
            CHECK(tl_matches_ref(&A, x, y, what), "%s add=0", what);
            memcpy(y, x + 700, 500 * sizeof(hspmv_real));
            hspmv_local_spmv(L, x, y, 1);
            CHECK(tl_matches_ref(&B, x, y, what), "%s add=1", what);
            hspmv_local_destroy(&L);
        }
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

/* One matrix of a folder: 1 when checked, 0 when refused. */
static int check_file(const hspmv_csr *A, const char *name, int i)
{
    hspmv_csrvi_set S;
    hspmv_csrvi C;
    if (!hspmv_csrvi_values(A, &S)) {
        CHECK(hspmv_csrvi_from_csr(A, &C, NULL) == HSPMV_ERR_UNSUPPORTED, "%s: over 256 values but converted",
              name);
        return 0;
    }
    check_all_kernels(A, name, 1000 + (uint64_t)i);
    return 1;
}

/* Every readable *.mtx in dir (those of at most 256 values through
   check_all_kernels, the others refused); skipped when dir is missing. */
static void check_folder(const char *dir, int shared) { CHECK_EACH_MTX(dir, shared, check_file); }

static void every_csrvi_kernel_matches_ref_on_bundled_matrices(void) { check_folder("matrices", 0); }

static void every_csrvi_kernel_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(registry_has_a_csrvi_kernel_in_every_set);
    RUN(csrvi_from_csr_stores_columns_codes_and_a_sorted_table);
    RUN(csrvi_conversion_fails_cleanly_when_out_of_memory);
    RUN(ref_check_rejects_a_csrvi_y_off_by_three_bounds);
    RUN(every_csrvi_kernel_matches_ref_for_1_to_256_values_and_257_is_refused);
    RUN(csrvi_tells_values_apart_by_their_bits);
    RUN(parallel_value_count_matches_serial_and_stops_at_257);
    RUN(every_csrvi_kernel_matches_ref_on_rectangular_matrices);
    RUN(every_csrvi_kernel_handles_empty_matrices_rows_and_columns);
    RUN(every_csrvi_kernel_gives_one_calls_y_on_split_row_ranges);
    RUN(every_csrvi_kernel_reads_nothing_past_the_arrays_ends);
    RUN(local_auto_picks_csrp_on_two_valued_laplacians_and_csrl_on_banded);
    RUN(local_csrvi_matches_ref_with_threads);
    RUN(every_csrvi_kernel_matches_ref_on_bundled_matrices);
    RUN(every_csrvi_kernel_matches_ref_on_shared_matrices);
    CHECK_DONE();
}
