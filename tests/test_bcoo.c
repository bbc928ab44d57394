/* test_bcoo.c — blocked COO: conversion, chunking, and every kernel set this
   CPU runs against the long double reference (docs/design.md bound). */
#include <math.h>
#include <string.h>
#include "bcoo.h"
#include "check.h"
#include "kernel_select.h"
#include "testlib.h"
#include "alloc.h"

static const int64_t row_lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
#define NLENS ((int)(sizeof(row_lens) / sizeof(row_lens[0])))

/* Tile shapes every matrix is tried with: the automatic one (0 x 0), tiny
   uint8 tiles, lopsided ones, the widest. */
static const int32_t shapes[][2] = {{0, 0}, {16, 16}, {7, 300}, {300, 7}, {256, 256},
                                    {1000, 1000}, {65536, 65536}};
#define NSHAPES ((int)(sizeof(shapes) / sizeof(shapes[0])))

static const hspmv_kernel_set *sets_all[8];
static int nsets_all;

static int convert(const hspmv_csr *A, int32_t h, int32_t w, hspmv_bcoo *B)
{
    hspmv_error e;
    int rc = h ? hspmv_bcoo_from_csr_shape(A, h, w, B, &e) : hspmv_bcoo_from_csr(A, B, &e);
    if (rc) fprintf(stderr, "    conversion: %s\n", e.msg);
    return rc;
}

/* A with every value doubled (the reference of y = A*x followed by y += A*x). */
static int csr_doubled(const hspmv_csr *A, hspmv_csr *A2)
{
    *A2 = *A;
    A2->val = hspmv_malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof(hspmv_real));
    if (!A2->val) return HSPMV_ERR_NOMEM;
    for (int64_t k = 0; k < A->nnz; k++) A2->val[k] = 2 * A->val[k];
    return HSPMV_OK;
}

/* Structural invariants: pointers, origins inside the tile's blocks, widths honest. */
static int bcoo_valid(const hspmv_bcoo *B)
{
    if (B->trptr[0] != 0 || B->trptr[B->ntr] != B->ntiles || B->tptr[B->ntiles] != B->nnz)
        return 0;
    for (int64_t tr = 0; tr < B->ntr; tr++)
        for (int64_t t = B->trptr[tr]; t < B->trptr[tr + 1]; t++) {
            int64_t n = B->tptr[t + 1] - B->tptr[t];
            if (n < 1 || (B->toff[t] & 1) || B->trow0[t] / B->tile_h != tr) return 0;
            if (B->twidth[t] != 1 && B->twidth[t] != 2) return 0;
            if (t + 1 < B->ntiles && B->toff[t + 1] != B->toff[t] + 2 * B->twidth[t] * n) return 0;
        }
    return 1;
}

/* Every set, add = 0 and then add = 1, on one conversion of A. */
static void check_all_sets(const hspmv_csr *A, int32_t h, int32_t w, const char *name)
{
    const hspmv_kernel_set *sets[8];
    int nsets = hspmv_kernel_sets(sets, 8);
    hspmv_bcoo B;
    hspmv_csr A2;
    int64_t nx = A->ncols > 0 ? A->ncols : 1, ny = A->nrows > 0 ? A->nrows : 1;
    hspmv_real *x = hspmv_malloc((size_t)nx * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)ny * sizeof(hspmv_real));
    char what[256];
    CHECK(x && y && csr_doubled(A, &A2) == HSPMV_OK, "out of memory");
    if (!x || !y) goto out;
    CHECK(convert(A, h, w, &B) == HSPMV_OK, "%s %dx%d", name, (int)h, (int)w);
    CHECK(bcoo_valid(&B), "%s %dx%d: invariants", name, (int)h, (int)w);
    tl_fill(x, A->ncols, 42);
    for (int s = 0; s < nsets; s++) {
        for (int64_t i = 0; i < A->nrows; i++) y[i] = (hspmv_real)NAN; /* add=0 must overwrite */
        sets[s]->bcoo(0, B.nrows, &B, x, y, 0);
        snprintf(what, sizeof(what), "%s %s %dx%d add=0", name, sets[s]->isa, (int)B.tile_h,
                 (int)B.tile_w);
        CHECK(tl_matches_ref(A, x, y, what), "%s", what);
        sets[s]->bcoo(0, B.nrows, &B, x, y, 1);
        snprintf(what, sizeof(what), "%s %s %dx%d add=1", name, sets[s]->isa, (int)B.tile_h,
                 (int)B.tile_w);
        CHECK(tl_matches_ref(&A2, x, y, what), "%s", what);
    }
    hspmv_bcoo_free(&B);
    hspmv_free(A2.val);
out:
    hspmv_free(x);
    hspmv_free(y);
}

static void bcoo_matches_ref_on_shared_matrices(void)
{
    char **paths;
    int n = tl_list_mtx(tl_shared_dir(), &paths);
    if (n < 0) {
        CHECK(n >= 0, "%s missing (%s)", tl_shared_dir(), tl_missing_hint(1));
        return;
    }
    for (int f = 0; f < n; f++) {
        hspmv_csr A;
        if (tl_is_unsupported_shared(paths[f])) continue;
        if (tl_read_csr(paths[f], &A) != HSPMV_OK) {
            CHECK(0, "cannot read %s", paths[f]);
            continue;
        }
        for (int s = 0; s < NSHAPES; s++) check_all_sets(&A, shapes[s][0], shapes[s][1], paths[f]);
        hspmv_csr_free(&A);
    }
    tl_free_list(paths, n);
}

static void bcoo_matches_ref_on_every_row_length(void)
{
    int64_t nrows = 3 * NLENS * 7, len[3 * NLENS * 7];
    for (int64_t i = 0; i < nrows; i++) len[i] = row_lens[(i * 5) % NLENS];
    for (int runs = 0; runs <= 4; runs += 4) {
        hspmv_csr A;
        CHECK(tl_csr_random(&A, nrows, 400, len, 0, runs, 7 + runs) == HSPMV_OK, "random");
        for (int s = 0; s < NSHAPES; s++) check_all_sets(&A, shapes[s][0], shapes[s][1], "lengths");
        hspmv_csr_free(&A);
    }
    for (int l = 0; l < NLENS; l++) { /* every row the same length, each alone */
        hspmv_csr A;
        CHECK(tl_csr_random(&A, 120, 90, NULL, row_lens[l], 0, 100 + l) == HSPMV_OK, "random");
        check_all_sets(&A, 0, 0, "one length");
        check_all_sets(&A, 16, 16, "one length");
        check_all_sets(&A, 65536, 65536, "one length");
        hspmv_csr_free(&A);
    }
}

/* n x n with len distinct random columns per row, in O(nnz) (tl_csr_random
   walks every column of every row). */
static int csr_random_sparse(hspmv_csr *A, int64_t n, int len, uint64_t seed)
{
    uint64_t st = seed;
    memset(A, 0, sizeof(*A));
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc((size_t)(n + 1) * sizeof(int64_t));
    A->colind = hspmv_malloc((size_t)(n * len + 1) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(n * len + 1) * sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) {
        hspmv_csr_free(A);
        return HSPMV_ERR_NOMEM;
    }
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t *c = A->colind + A->rowptr[i];
        int m = 0;
        for (int j = 0; j < len; j++) { /* insertion into a sorted row, duplicates dropped */
            int32_t v = (int32_t)(tl_next(&st) % (uint64_t)n);
            int p = m;
            while (p > 0 && c[p - 1] > v) p--;
            if (p > 0 && c[p - 1] == v) continue;
            memmove(c + p + 1, c + p, (size_t)(m - p) * sizeof(int32_t));
            c[p] = v;
            m++;
        }
        for (int j = 0; j < m; j++) A->val[A->rowptr[i] + j] = (hspmv_real)tl_uniform(&st, -1, 1);
        A->rowptr[i + 1] = A->rowptr[i] + m;
    }
    A->nnz = A->rowptr[n];
    return HSPMV_OK;
}

static void bcoo_matches_ref_across_tile_rows_200k(void)
{
    hspmv_csr A;
    hspmv_bcoo B;
    CHECK(csr_random_sparse(&A, 200000, 3, 11) == HSPMV_OK, "random");
    CHECK(convert(&A, 65536, 65536, &B) == HSPMV_OK, "convert");
    CHECK(B.ntr == 4 && B.ntiles == 16, "ntr %lld ntiles %lld", (long long)B.ntr,
          (long long)B.ntiles);
    hspmv_bcoo_free(&B);
    check_all_sets(&A, 0, 0, "200k auto");
    check_all_sets(&A, 65536, 65536, "200k 65536");
    check_all_sets(&A, 40000, 9000, "200k 40000x9000");
    hspmv_csr_free(&A);
}

static int64_t count_width(const hspmv_bcoo *B, int w)
{
    int64_t n = 0;
    for (int64_t t = 0; t < B->ntiles; t++) n += B->twidth[t] == w;
    return n;
}

/* A 300 x 300 band: 256 x 256 blocks give uint8 tiles, one 65536 tile uint16;
   a tile whose entries sit in a 256 box takes uint8 even in a huge block. */
static void bcoo_takes_uint8_and_uint16_paths(void)
{
    hspmv_csr A;
    hspmv_bcoo B;
    int64_t len[300];
    for (int i = 0; i < 300; i++) len[i] = 3;
    CHECK(tl_csr_random(&A, 300, 300, len, 0, 3, 5) == HSPMV_OK, "random");
    CHECK(convert(&A, 256, 256, &B) == HSPMV_OK, "convert");
    CHECK(B.ntiles == 4 && count_width(&B, 1) == 4, "256: %lld tiles, %lld uint8",
          (long long)B.ntiles, (long long)count_width(&B, 1));
    CHECK(hspmv_bcoo_index_bytes(&B) == 2 * A.nnz + 4 * 25 + 3 * 8, "index bytes %lld",
          (long long)hspmv_bcoo_index_bytes(&B));
    hspmv_bcoo_free(&B);
    CHECK(convert(&A, 65536, 65536, &B) == HSPMV_OK, "convert");
    CHECK(B.ntiles == 1 && B.twidth[0] == 2, "65536: %lld tiles, width %d", (long long)B.ntiles,
          B.ntiles ? B.twidth[0] : 0);
    CHECK(hspmv_bcoo_index_bytes(&B) == 4 * A.nnz + 25 + 2 * 8, "index bytes");
    hspmv_bcoo_free(&B);
    check_all_sets(&A, 256, 256, "uint8 tiles");
    check_all_sets(&A, 65536, 65536, "uint16 tile");
    hspmv_csr_free(&A);

    { /* 255 rows, columns 1000..1254: uint8 inside a 65536 block */
        hspmv_csr S;
        CHECK(tl_csr_random(&S, 255, 255, NULL, 4, 0, 9) == HSPMV_OK, "random");
        for (int64_t k = 0; k < S.nnz; k++) S.colind[k] += 1000;
        S.ncols = 1255;
        CHECK(convert(&S, 65536, 65536, &B) == HSPMV_OK, "convert");
        CHECK(B.ntiles == 1 && B.twidth[0] == 1 && B.tcol0[0] >= 1000, "shifted box not uint8");
        hspmv_bcoo_free(&B);
        check_all_sets(&S, 65536, 65536, "shifted uint8 box");
        hspmv_csr_free(&S);
    }
}

static void bcoo_zeroes_empty_rows_and_handles_empty_matrices(void)
{
    static const int64_t dims[][2] = {{0, 0}, {0, 5}, {5, 0}, {10, 10}, {70000, 3}};
    for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
        hspmv_csr A;
        CHECK(tl_csr_random(&A, dims[d][0], dims[d][1], NULL, 0, 0, 1) == HSPMV_OK, "empty");
        for (int s = 0; s < NSHAPES; s++) check_all_sets(&A, shapes[s][0], shapes[s][1], "empty");
        hspmv_csr_free(&A);
    }
    { /* long stretches of empty rows between full ones */
        hspmv_csr A;
        int64_t *len = calloc(5000, sizeof(int64_t));
        for (int64_t i = 0; i < 5000; i += 997) len[i] = 17;
        CHECK(tl_csr_random(&A, 5000, 5000, len, 0, 0, 3) == HSPMV_OK, "random");
        for (int s = 0; s < NSHAPES; s++) check_all_sets(&A, shapes[s][0], shapes[s][1], "sparse rows");
        hspmv_csr_free(&A);
        free(len);
    }
}

/* Chunks cover the tile rows in order, balance nonzeros within one tile row,
   and computed one by one give exactly the one-call y. */
static void bcoo_chunks_computed_separately_equal_one_call(void)
{
    static const int nch[] = {1, 2, 3, 7, 64};
    const hspmv_kernel_set *sets[8];
    int nsets = hspmv_kernel_sets(sets, 8);
    hspmv_csr A;
    hspmv_bcoo B;
    int64_t len[20000];
    for (int i = 0; i < 20000; i++) len[i] = row_lens[(i / 300) % NLENS];
    CHECK(tl_csr_random(&A, 20000, 30000, len, 0, 0, 21) == HSPMV_OK, "random");
    CHECK(convert(&A, 256, 4096, &B) == HSPMV_OK, "convert");
    hspmv_real *x = hspmv_malloc(30000 * sizeof(hspmv_real));
    hspmv_real *y1 = hspmv_malloc(20000 * sizeof(hspmv_real));
    hspmv_real *y2 = hspmv_malloc(20000 * sizeof(hspmv_real));
    int64_t start[65], maxtr = 0;
    tl_fill(x, 30000, 3);
    for (int64_t tr = 0; tr < B.ntr; tr++) {
        int64_t z = B.tptr[B.trptr[tr + 1]] - B.tptr[B.trptr[tr]];
        if (z > maxtr) maxtr = z;
    }
    for (int s = 0; s < nsets; s++) {
        sets[s]->bcoo(0, B.nrows, &B, x, y1, 0);
        for (size_t c = 0; c < sizeof(nch) / sizeof(nch[0]); c++) {
            int T = nch[c];
            hspmv_bcoo_chunks(&B, T, start);
            CHECK(start[0] == 0 && start[T] == B.ntr, "%d chunks: ends", T);
            for (int i = 0; i < 20000; i++) y2[i] = (hspmv_real)NAN;
            for (int t = 0; t < T; t++) {
                int64_t z = B.tptr[B.trptr[start[t + 1]]] - B.tptr[B.trptr[start[t]]];
                CHECK(start[t] <= start[t + 1], "%d chunks: order", T);
                CHECK(llabs(z - B.nnz / T) <= maxtr, "%d chunks: chunk %d has %lld nnz", T, t,
                      (long long)z);
                int64_t r0, r1;
                hspmv_bcoo_rows(&B, start[t], start[t + 1], &r0, &r1);
                sets[s]->bcoo(r0, r1, &B, x, y2, 0);
            }
            CHECK(memcmp(y1, y2, 20000 * sizeof(hspmv_real)) == 0, "%s, %d chunks differ",
                  sets[s]->isa, T);
        }
        { /* a chunk writes its own rows and no others */
            int64_t r0, r1;
            for (int i = 0; i < 20000; i++) y2[i] = 7;
            hspmv_bcoo_rows(&B, 3, 5, &r0, &r1);
            sets[s]->bcoo(r0, r1, &B, x, y2, 0);
            for (int64_t i = 0; i < 20000; i++)
                if ((i < r0 || i >= r1) && y2[i] != 7) {
                    CHECK(0, "%s: row %lld outside [%lld, %lld) written", sets[s]->isa,
                          (long long)i, (long long)r0, (long long)r1);
                    break;
                }
            CHECK(memcmp(y1 + r0, y2 + r0, (size_t)(r1 - r0) * sizeof(hspmv_real)) == 0,
                  "%s: rows of the chunk differ", sets[s]->isa);
        }
    }
    hspmv_free(x);
    hspmv_free(y1);
    hspmv_free(y2);
    hspmv_bcoo_free(&B);
    hspmv_csr_free(&A);
}

static void runbcoo(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y, int add)
{
    k->ks->bcoo(r0, r1, (const hspmv_bcoo *)k->mat, x, y, add);
}

/* Ranges that cut tile rows anywhere (the MPI layer's shared rows, a
   thread's part of its chunk): within the bound, the bits one call gives
   (tl_kcheck's cuts and tl_check_splits' many cuts), rows outside left
   alone; every shape, uint8 and uint16 tiles, with x prefetch and without. */
static void bcoo_row_ranges_cut_tile_rows_and_give_one_calls_bits(void)
{
    enum { N = 400, NC = 70000 };
    static int64_t lens[N];
    hspmv_csr A;
    for (int i = 0; i < N; i++) lens[i] = i % 7 == 3 ? 0 : i % 97 == 0 ? 300 : (i * 11) % 41;
    CHECK(tl_csr_random(&A, N, NC, lens, 0, 0, 77) == HSPMV_OK, "random");
    hspmv_real *x = hspmv_malloc(NC * sizeof(hspmv_real));
    CHECK(x != NULL, "out of memory");
    if (!x) return;
    tl_fill(x, NC, 5);
    for (int sh = 0; sh < NSHAPES; sh++) {
        hspmv_bcoo B;
        if (convert(&A, shapes[sh][0], shapes[sh][1], &B) != HSPMV_OK) {
            CHECK(0, "convert %dx%d", (int)shapes[sh][0], (int)shapes[sh][1]);
            continue;
        }
        for (int xpf = 0; xpf <= 64; xpf += 64) {
            char name[64], label[96];
            tl_kcheck T;
            B.xpf = xpf;
            snprintf(name, sizeof(name), "random %dx%d xpf=%d", (int)B.tile_h, (int)B.tile_w, xpf);
            int rc = tl_kcheck_init(&T, &A, 9), bad = rc ? 1 : tl_kcheck_sets(&T, (tl_kernel){runbcoo, NULL, &B, NULL},
                                                                          sets_all, nsets_all, name, "bcoo");
            CHECK(bad == 0, "%s: setup failed (%d) or %d checks failed", name, rc, bad);
            tl_kcheck_free(&T);
            for (int s = 0; s < nsets_all; s++) {
                tl_kernel k = {runbcoo, sets_all[s], &B, label};
                snprintf(label, sizeof(label), "%s %s/bcoo", name, sets_all[s]->isa);
                CHECK(tl_check_splits(&k, N, x) == 0, "%s: split ranges differ from one call", label);
            }
        }
        hspmv_bcoo_free(&B);
    }
    hspmv_free(x);
    hspmv_csr_free(&A);
}

static void bcoo_check_catches_perturbed_y(void)
{
    const hspmv_kernel_set *sets[8];
    int nsets = hspmv_kernel_sets(sets, 8);
    hspmv_csr A;
    hspmv_bcoo B;
    hspmv_real x[500], y[400];
    CHECK(tl_csr_random(&A, 400, 500, NULL, 9, 0, 8) == HSPMV_OK, "random");
    CHECK(convert(&A, 0, 0, &B) == HSPMV_OK, "convert");
    tl_fill(x, 500, 1);
    for (int s = 0; s < nsets; s++) {
        sets[s]->bcoo(0, B.nrows, &B, x, y, 0);
        CHECK(tl_matches_ref(&A, x, y, "unperturbed"), "%s", sets[s]->isa);
        y[123] += (hspmv_real)1e-2 * (1 + fabs((double)y[123]));
        fprintf(stderr, "    (a failure is expected next)\n");
        CHECK(!tl_matches_ref(&A, x, y, "perturbed on purpose"), "%s: perturbed y passed",
              sets[s]->isa);
    }
    hspmv_bcoo_free(&B);
    hspmv_csr_free(&A);
}

static void bcoo_rejects_bad_shapes_and_survives_failed_allocations(void)
{
    hspmv_csr A;
    hspmv_bcoo B;
    hspmv_error e;
    CHECK(tl_csr_random(&A, 100, 100, NULL, 5, 0, 2) == HSPMV_OK, "random");
    CHECK(hspmv_bcoo_from_csr_shape(&A, 0, 16, &B, &e) == HSPMV_ERR_ARG, "0 rows accepted");
    CHECK(hspmv_bcoo_from_csr_shape(&A, 16, 65537, &B, &e) == HSPMV_ERR_ARG, "65537 accepted");
    for (long n = 1; n <= 12; n++) {
        int rc;
        hspmv_alloc_fail_after(n);
        rc = hspmv_bcoo_from_csr_shape(&A, 16, 16, &B, &e);
        hspmv_alloc_fail_after(0);
        CHECK(rc == HSPMV_OK || (rc == HSPMV_ERR_NOMEM && B.val == NULL && B.idx == NULL),
              "allocation %ld: rc %d", n, rc);
        hspmv_bcoo_free(&B);
    }
    hspmv_csr_free(&A);
}

int main(void)
{
    nsets_all = hspmv_kernel_sets(sets_all, 8);
    RUN(bcoo_matches_ref_on_shared_matrices);
    RUN(bcoo_matches_ref_on_every_row_length);
    RUN(bcoo_matches_ref_across_tile_rows_200k);
    RUN(bcoo_takes_uint8_and_uint16_paths);
    RUN(bcoo_zeroes_empty_rows_and_handles_empty_matrices);
    RUN(bcoo_chunks_computed_separately_equal_one_call);
    RUN(bcoo_row_ranges_cut_tile_rows_and_give_one_calls_bits);
    RUN(bcoo_check_catches_perturbed_y);
    RUN(bcoo_rejects_bad_shapes_and_survives_failed_allocations);
    CHECK_DONE();
}
