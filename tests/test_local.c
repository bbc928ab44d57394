/* test_local.c — the prepared one-rank matrix (hspmv_local): every format
   (CSRVI on matrices of at most 256 distinct values) x
   every kernel set this CPU runs x 1, 2, 3, 4, 7 threads against the
   long-double reference with the docs/design.md bound, y = A*x and y += A*x; the
   automatic format choice; thread row chunks; bad input. Reads plain .mtx
   only and names kernels only through the registry, so the same file runs
   under qemu-aarch64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>
#include "check.h"
#include "local.h"
#include "local_part.h"
#include "testlib.h"
#include "alloc.h"
#include "cache.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

static const int thread_counts[] = {1, 2, 3, 4, 7};
#define NTHREADS (int)(sizeof(thread_counts) / sizeof(thread_counts[0]))
static const int formats[] = {HSPMV_FORMAT_CSR,   HSPMV_FORMAT_CSRL, HSPMV_FORMAT_BCOO,  HSPMV_FORMAT_CSR16,
                              HSPMV_FORMAT_CSRVI, HSPMV_FORMAT_CSRP, HSPMV_FORMAT_CSRDU, HSPMV_FORMAT_PANELS};
static const char *fmt_names[] = {"auto", "csr", "csrl", "bcoo", "csr16", "csrvi", "csrp", "csrdu", "panels"};
#define NFMT (int)(sizeof(formats) / sizeof(formats[0]))

/* Row lengths that exercise every SIMD tail (2, 4, 8, 16 lanes, unrolled by 4). */
static const int64_t tail_lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
#define NTAIL (int)(sizeof(tail_lens) / sizeof(tail_lens[0]))

static hspmv_opts opts_of(int format, const char *isa, int threads)
{
    hspmv_opts o;
    hspmv_opts_default(&o);
    o.format = format;
    o.kernel = isa;
    o.threads = threads;
    return o;
}

/* Every column within 32767 of its row: CSR16 can hold A. */
static int csr16_fits(const hspmv_csr *A)
{
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] - i > 32767 || i - A->colind[k] > 32767) return 0;
    return 1;
}

/* At most 256 distinct values: CSRVI can hold A. */
static int csrvi_fits(const hspmv_csr *A)
{
    hspmv_csrvi_set S;
    return hspmv_csrvi_values(A, &S);
}

/* At most 256 row patterns: CSRP can hold A. */
static int csrp_fits(const hspmv_csr *A)
{
    hspmv_csrp_set *S = hspmv_malloc(sizeof(*S));
    int ok = S && hspmv_csrp_patterns(A, S) == 1;
    hspmv_free(S);
    return ok;
}

/* 1 when format can hold A (CSR16, CSRVI and CSRP have limits). */
static int fits(const hspmv_csr *A, int format)
{
    return format == HSPMV_FORMAT_CSR16 ? csr16_fits(A)
           : format == HSPMV_FORMAT_CSRVI ? csrvi_fits(A)
           : format == HSPMV_FORMAT_CSRP  ? csrp_fits(A)
                                          : 1;
}

/* Rounds A's values to multiples of 1/8 (at most 17 distinct in [-1, 1)),
   so that every format, CSRVI included, can hold it. */
static void quantize(hspmv_csr *A)
{
    for (int64_t k = 0; k < A->nnz; k++) A->val[k] = (hspmv_real)(floor((double)A->val[k] * 8 + 0.5) / 8);
}

static int64_t max_row_nnz(const hspmv_csr *A)
{
    int64_t m = 0;
    for (int64_t i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > m) m = A->rowptr[i + 1] - A->rowptr[i];
    return m;
}

/* L's thread chunks cover rows [0, nrows) once, in order. */
static int chunks_cover(const hspmv_local *L)
{
    if (L->rows[0] != 0 || L->rows[L->threads] != L->nrows) return 0;
    for (int c = 0; c < L->threads; c++)
        if (L->rows[c + 1] < L->rows[c]) return 0;
    return 1;
}

/* Every format x kernel set x thread count on A: y = A*x from a NaN-filled y,
   y = y0 + A*x, the info fields, the chunks, and the same bits for every
   thread count of one format and set. Returns the failed checks. */
static int check_matrix(const hspmv_csr *A, const char *name, uint64_t seed)
{
    int64_t n = A->nrows, m = A->ncols;
    int bad = 0;
    size_t yb = (size_t)(n > 0 ? n : 1) * sizeof(hspmv_real);
    hspmv_real *x = hspmv_malloc((size_t)(m + n + 1) * sizeof(hspmv_real)); /* [x; y0] */
    hspmv_real *y0 = x + m, *y = hspmv_malloc(yb), *y1 = hspmv_malloc(yb), *yt1 = hspmv_malloc(yb);
    hspmv_csr B;
    char what[300];
    if (!x || !y || !y1 || !yt1 || tl_csr_augment(A, &B) != HSPMV_OK) {
        CHECK(0, "%s: out of memory in setup", name);
        bad++;
        goto out;
    }
    tl_fill(x, m, seed);
    tl_fill(y0, n, seed + 1);
    for (int f = 0; f < NFMT; f++) {
        if (!fits(A, formats[f])) continue; /* refusals: test_csr16, test_csrvi, test_csrp */
        for (int s = 0; s < nsets; s++) {
            for (int t = 0; t < NTHREADS; t++) {
                hspmv_opts o = opts_of(formats[f], sets[s]->isa, thread_counts[t]);
                hspmv_local *L = NULL;
                hspmv_local_info info;
                hspmv_error e;
                int rc = hspmv_local_create(A, &o, &L, &e), ok;
                snprintf(what, sizeof(what), "%s %s/%s threads=%d", name, fmt_names[formats[f]],
                         sets[s]->isa, thread_counts[t]);
                if (rc != HSPMV_OK) {
                    CHECK(rc == HSPMV_OK, "%s: create failed: %s", what, e.msg);
                    bad++;
                    continue;
                }
                hspmv_local_get_info(L, &info);
                ok = info.format == formats[f] && info.threads == thread_counts[t] &&
                     !strcmp(info.isa, sets[s]->isa) && info.nnz == A->nnz && info.nrows == n &&
                     info.ncols == m && (info.bytes > 0 || n + m == 0) && chunks_cover(L);
                CHECK(ok, "%s: info says %s/%s threads=%d nnz=%lld", what, info.format_name, info.isa,
                      info.threads, (long long)info.nnz);
                bad += !ok;
                tl_fill_nan(y, n);
                hspmv_local_spmv(L, x, y, 0);
                ok = tl_matches_ref(A, x, y, what);
                CHECK(ok, "%s add=0", what);
                bad += !ok;
                /* each row is summed by one thread in one order: same bits for any thread count */
                if (t == 0) memcpy(yt1, y, (size_t)n * sizeof(hspmv_real));
                ok = n == 0 || !memcmp(y, yt1, (size_t)n * sizeof(hspmv_real));
                CHECK(ok, "%s: differs from 1 thread", what);
                bad += !ok;
                memcpy(y1, y0, (size_t)n * sizeof(hspmv_real));
                hspmv_local_spmv(L, x, y1, 1);
                ok = tl_matches_ref(&B, x, y1, what);
                CHECK(ok, "%s add=1", what);
                bad += !ok;
                hspmv_local_destroy(&L);
                CHECK(L == NULL, "%s: destroy left the pointer set", what);
            }
        }
    }
out:
    hspmv_csr_free(&B);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(y1);
    hspmv_free(yt1);
    return bad;
}

static void check_folder(const char *dir, int must_exist)
{
    char **paths;
    int n = tl_list_mtx(dir, &paths), tried = 0;
    if (n < 0) {
        if (must_exist) CHECK(n >= 0, "folder %s missing", dir);
        else SKIP("%s missing", dir);
        return;
    }
    for (int i = 0; i < n; i++) {
        hspmv_csr A;
        if (tl_is_unsupported_shared(paths[i])) continue;
        if (tl_read_csr(paths[i], &A) != HSPMV_OK) {
            CHECK(0, "could not read %s", paths[i]);
            continue;
        }
        check_matrix(&A, paths[i], 11 + (uint64_t)i);
        hspmv_csr_free(&A);
        tried++;
    }
    CHECK(tried > 0 || !must_exist, "no matrices in %s", dir);
    tl_free_list(paths, n);
}

static void local_matches_ref_on_shared_matrices(void) { check_folder(tl_shared_dir(), 1); }

static void local_matches_ref_on_bundled_matrices(void) { check_folder("matrices", 1); }

/* Rows of every tail length, empty rows among them, scattered and in runs. */
static void local_matches_ref_on_tails_and_empty_rows(void)
{
    int64_t n = 3 * NTAIL + 5, len[3 * NTAIL + 5];
    for (int64_t i = 0; i < n; i++) len[i] = tail_lens[(i * 5) % NTAIL];
    len[n - 1] = 0; /* an empty last row */
    for (int runs = 0; runs <= 40; runs += 40) {
        hspmv_csr A;
        char name[64];
        CHECK(tl_csr_random(&A, n, 300, len, 0, runs, 7 + runs) == HSPMV_OK, "generate");
        snprintf(name, sizeof(name), "tails runs=%d", runs);
        check_matrix(&A, name, 3);
        hspmv_csr_free(&A);
    }
}

/* Bigger random matrices: long rows, a dense row, long segments. */
static void local_matches_ref_on_long_rows_and_segments(void)
{
    int64_t n = 500, len[500];
    uint64_t s = 99;
    hspmv_csr A;
    for (int64_t i = 0; i < n; i++) len[i] = (int64_t)(tl_next(&s) % 70);
    len[17] = 2000; /* dense row (clipped to ncols) */
    len[18] = 0;
    CHECK(tl_csr_random(&A, n, 2000, len, 0, 200, 5) == HSPMV_OK, "generate");
    check_matrix(&A, "long rows runs=200", 4);
    hspmv_csr_free(&A);
}

static void local_matches_ref_on_rectangular(void)
{
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 40, 1000, NULL, 37, 6, 21) == HSPMV_OK, "generate wide");
    check_matrix(&A, "wide 40x1000", 8);
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 1000, 30, NULL, 5, 0, 22) == HSPMV_OK, "generate tall");
    check_matrix(&A, "tall 1000x30", 9);
    hspmv_csr_free(&A);
}

/* The generated matrices above with values rounded to 17 levels: every
   format, CSRVI included, on them. */
static void local_matches_ref_with_few_distinct_values(void)
{
    int64_t n = 500, len[500];
    uint64_t s = 99;
    hspmv_csr A;
    for (int64_t i = 0; i < n; i++) len[i] = (int64_t)(tl_next(&s) % 70);
    len[17] = 2000;
    CHECK(tl_csr_random(&A, n, 2000, len, 0, 200, 5) == HSPMV_OK, "generate");
    quantize(&A);
    CHECK(csrvi_fits(&A), "quantized matrix has more than 256 values");
    check_matrix(&A, "long rows, 17 values", 4);
    hspmv_csr_free(&A);
    for (int64_t i = 0; i < 3 * NTAIL + 5; i++) len[i] = tail_lens[(i * 5) % NTAIL];
    CHECK(tl_csr_random(&A, 3 * NTAIL + 5, 300, len, 0, 0, 7) == HSPMV_OK, "generate");
    quantize(&A);
    check_matrix(&A, "tails, 17 values", 3);
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 40, 100000, NULL, 37, 6, 21) == HSPMV_OK, "generate wide");
    quantize(&A);
    check_matrix(&A, "wide 40x100000, 17 values", 8);
    hspmv_csr_free(&A);
}

static void local_handles_zero_rows(void)
{
    hspmv_csr A;
    memset(&A, 0, sizeof(A));
    A.ncols = 5; /* 0 x 5, no rowptr at all */
    check_matrix(&A, "0x5 without rowptr", 1);
    CHECK(tl_csr_random(&A, 0, 0, NULL, 0, 0, 1) == HSPMV_OK, "generate 0x0");
    check_matrix(&A, "0x0", 2);
    hspmv_csr_free(&A);
}

static void local_handles_more_threads_than_rows(void)
{
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 3, 50, NULL, 9, 3, 4) == HSPMV_OK, "generate");
    check_matrix(&A, "3 rows", 6); /* up to 7 threads */
    for (int s = 0; s < nsets; s++) {
        hspmv_opts o = opts_of(HSPMV_FORMAT_CSR, sets[s]->isa, 64);
        hspmv_local *L = NULL;
        hspmv_real x[50], y[3];
        tl_fill(x, 50, 1);
        CHECK(hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK, "64 threads, 3 rows");
        if (!L) continue;
        CHECK(chunks_cover(L), "chunks");
        hspmv_local_spmv(L, x, y, 0);
        CHECK(tl_matches_ref(&A, x, y, "64 threads"), "64 threads, 3 rows, %s", sets[s]->isa);
        hspmv_local_destroy(&L);
    }
    hspmv_csr_free(&A);
}

static int auto_format(const char *path, double threshold, double *ratio)
{
    hspmv_csr A;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_local_info info;
    int f = -1;
    if (tl_read_csr(path, &A) != HSPMV_OK) return -1;
    hspmv_opts_default(&o);
    o.symmetric = HSPMV_SYMMETRIC_NO; /* the full formats' rule (test_sym.c tests one triangle) */
    if (threshold >= 0) o.csrl_threshold = threshold;
    if (hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK) {
        hspmv_local_get_info(L, &info);
        f = info.format;
        *ratio = info.seg_ratio;
    }
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    return f;
}

static void local_auto_picks_csrl_on_banded(void)
{
    double r = -1;
    int f = auto_format("matrices/banded_2000_w16.mtx", -1, &r);
    CHECK(f == HSPMV_FORMAT_CSRL, "banded: format %d, nzseg/nnz %.3f", f, r);
    CHECK(r > 0 && r < 0.3, "banded nzseg/nnz %.3f", r);
}

static void local_auto_picks_csr16_on_random_that_fits(void)
{
    double r = -1;
    int f = auto_format("matrices/random_3000_k8.mtx", -1, &r);
    CHECK(f == HSPMV_FORMAT_CSR16, "random 3000: format %d, nzseg/nnz %.3f", f, r);
    CHECK(r > 0.9, "random nzseg/nnz %.3f", r);
}

/* Columns more than 32767 from their row: CSR16 cannot hold it, so AUTO
   takes CSR and asking for CSR16 is refused. */
static void local_auto_picks_csr_when_columns_are_far_and_csr16_is_refused(void)
{
    hspmv_csr A;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_local_info info;
    hspmv_error e;
    CHECK(tl_csr_random(&A, 200, 100000, NULL, 3, 0, 17) == HSPMV_OK, "random matrix");
    CHECK(!csr16_fits(&A), "generator put every column near its row");
    hspmv_opts_default(&o);
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_OK, "create: %s", e.msg);
    if (L) {
        hspmv_local_get_info(L, &info);
        CHECK(info.format == HSPMV_FORMAT_CSR, "wide random: format %d", info.format);
    }
    hspmv_local_destroy(&L);
    o.format = HSPMV_FORMAT_CSR16;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_UNSUPPORTED && !L, "CSR16 not refused");
    CHECK(strstr(e.msg, "32767") != NULL, "message '%s'", e.msg);
    hspmv_csr_free(&A);
}

/* A's format under AUTO with 3 threads (and its info), checked against the
   reference; -1 when create fails. */
static int auto_of(const hspmv_csr *A, hspmv_local_info *info)
{
    hspmv_opts o = opts_of(HSPMV_FORMAT_AUTO, "auto", 3);
    hspmv_local *L = NULL;
    hspmv_real *x = hspmv_malloc((size_t)(A->ncols + 1) * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)(A->nrows + 1) * sizeof(hspmv_real));
    int f = -1;
    if (x && y && hspmv_local_create(A, &o, &L, NULL) == HSPMV_OK) {
        hspmv_local_get_info(L, info);
        tl_fill(x, A->ncols, 5);
        tl_fill_nan(y, A->nrows);
        hspmv_local_spmv(L, x, y, 0);
        f = tl_matches_ref(A, x, y, info->format_name) ? info->format : -2;
    }
    hspmv_local_destroy(&L);
    hspmv_free(x);
    hspmv_free(y);
    return f;
}

/* Real values on a stencil: too many for CSRVI; 27 patterns for 1728 rows: CSRP. */
static void local_auto_picks_csrp_on_a_real_valued_stencil(void)
{
    hspmv_csr A;
    hspmv_local_info info;
    int f;
    CHECK(tl_read_csr("matrices/lap3d_12.mtx", &A) == HSPMV_OK, "read");
    tl_fill(A.val, A.nnz, 77);
    f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_CSRP, "real-valued 3D stencil: format %d", f);
    if (f == HSPMV_FORMAT_CSRP)
        CHECK(info.bytes < (double)A.nnz * 10 + 1729.0 * 4 + 2 * 1728.0 * sizeof(hspmv_real),
              "CSRP's %g bytes not below CSR16's", info.bytes);
    quantize(&A); /* few values: still CSRP, whose rows repeat their patterns */
    f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_CSRP, "quantized 3D stencil: format %d", f);
    hspmv_csr_free(&A);
}

/* CSRP stores y with streaming stores only where the product's bytes, times
   the processes said to share the cache, exceed the last-level cache, or
   where HSPMV_TEST's stream_y forces it; the product stays exact either way. */
static void local_streams_y_only_past_the_last_level_cache(void)
{
    hspmv_csr A;
    hspmv_local *L = NULL;
    hspmv_local_info in;
    hspmv_opts o = opts_of(HSPMV_FORMAT_CSRP, "auto", 2);
    long llc = (long)hspmv_cache_llc_bytes(); /* the library's figure (cache.c) */
    CHECK(tl_read_csr("matrices/lap3d_12.mtx", &A) == HSPMV_OK, "read");
    tl_fill(A.val, A.nnz, 78);
    unsetenv("HSPMV_TEST");
    int rc = hspmv_local_create(&A, &o, &L, NULL);
    CHECK(rc == HSPMV_OK, "create");
    if (rc == HSPMV_OK) {
        hspmv_local_get_info(L, &in);
        CHECK(in.format == HSPMV_FORMAT_CSRP && !in.stream_y, "a 1728-row block streams y (format %d)", in.format);
        int sharers = llc > 0 ? (int)(llc / in.bytes) + 1 : 1 << 20; /* their bytes together: more than the cache */
        hspmv_local_cache_sharers(L, sharers);
        hspmv_local_get_info(L, &in);
        CHECK(in.stream_y == (llc > 0), "%d sharers of %ld bytes of cache: stream_y %d", sharers, llc, in.stream_y);
        hspmv_real *x = hspmv_malloc((size_t)A.ncols * sizeof(hspmv_real));
        hspmv_real *y = hspmv_malloc((size_t)A.nrows * sizeof(hspmv_real));
        CHECK(x && y, "out of memory");
        if (x && y) {
            tl_fill(x, A.ncols, 6);
            tl_fill_nan(y, A.nrows);
            hspmv_local_spmv(L, x, y, 0);
            CHECK(tl_matches_ref(&A, x, y, "csrp, streaming y"), "product with streaming stores off the bound");
        }
        hspmv_free(x);
        hspmv_free(y);
        hspmv_local_cache_sharers(L, 1);
        hspmv_local_get_info(L, &in);
        CHECK(!in.stream_y, "one sharer again: stream_y %d", in.stream_y);
        hspmv_local_destroy(&L);
    }
    setenv("HSPMV_TEST", "stream_y=1", 1); /* forced: even a small block */
    rc = hspmv_local_create(&A, &o, &L, NULL);
    if (rc == HSPMV_OK) hspmv_local_get_info(L, &in);
    CHECK(rc == HSPMV_OK && in.stream_y, "HSPMV_TEST=stream_y=1: not streaming");
    hspmv_local_destroy(&L);
    setenv("HSPMV_TEST", "stream_y=0", 1);
    hspmv_local_cache_sharers(NULL, 1); /* accepts NULL */
    rc = hspmv_local_create(&A, &o, &L, NULL);
    if (rc == HSPMV_OK) {
        hspmv_local_cache_sharers(L, 1 << 30);
        hspmv_local_get_info(L, &in);
    }
    CHECK(rc == HSPMV_OK && !in.stream_y, "HSPMV_TEST=stream_y=0: streaming anyway");
    hspmv_local_destroy(&L);
    unsetenv("HSPMV_TEST");
    hspmv_csr_free(&A);
}

/* A zeroed n x n A with room for k entries a row (rowptr zeroed);
   HSPMV_ERR_NOMEM when an array could not be had. */
static int square_room(hspmv_csr *A, int64_t n, int64_t k)
{
    memset(A, 0, sizeof(*A));
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_calloc((size_t)n + 1, sizeof(int64_t));
    A->colind = hspmv_malloc((size_t)(n * k) * sizeof(int32_t));
    A->val = hspmv_malloc((size_t)(n * k) * sizeof(hspmv_real));
    return A->rowptr && A->colind && A->val ? HSPMV_OK : HSPMV_ERR_NOMEM;
}

/* n rows of different patterns with columns near each other (a FEM
   matrix's shape): 20-24 distinct columns in i-60 .. i+60, in steps of 1..5. */
static int local_columns(hspmv_csr *A, int64_t n, uint64_t s)
{
    int64_t nnz = 0;
    if (square_room(A, n, 24)) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = i - 60 + (int64_t)(tl_next(&s) % 10), m = 20 + (int64_t)(tl_next(&s) % 5);
        for (int64_t t = 0; t < m && c < n; t++, c += 1 + (int64_t)(tl_next(&s) % 5))
            if (c >= 0) A->colind[nnz++] = (int32_t)c;
        A->rowptr[i + 1] = nnz;
    }
    A->nnz = nnz;
    tl_fill(A->val, nnz, 6);
    return HSPMV_OK;
}

/* Too many patterns for CSRP; CSRDU's byte per index beats CSR16's two
   (a matrix too small for AUTO to time CSRDU against CSR16). */
static void local_auto_picks_csrdu_on_local_columns_with_many_patterns(void)
{
    hspmv_csr A;
    hspmv_local_info info;
    int rc = local_columns(&A, 3000, 5);
    CHECK(rc == HSPMV_OK, "allocate");
    if (rc) return;
    CHECK(!csrp_fits(&A) && csr16_fits(&A), "the generator's rows share patterns or reach far");
    int f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_CSRDU, "local columns, many patterns: format %d", f);
    hspmv_csr_free(&A);
}

/* The 7-point stencil on an n^3 grid, values quantized to eighths (few
   distinct values: CSRVI holds it, and so does CSRP: 27 patterns). */
static int stencil7(hspmv_csr *A, int64_t n)
{
    int64_t N = n * n * n, nnz = 0;
    if (square_room(A, N, 7)) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < N; i++) {
        int64_t x = i % n, y = i / n % n, z = i / (n * n);
        const int64_t nb[7][2] = {{z > 0, -n * n}, {y > 0, -n}, {x > 0, -1}, {1, 0},
                                  {x < n - 1, 1}, {y < n - 1, n}, {z < n - 1, n * n}};
        for (int t = 0; t < 7; t++)
            if (nb[t][0]) A->colind[nnz++] = (int32_t)(i + nb[t][1]);
        A->rowptr[i + 1] = nnz;
    }
    A->nnz = nnz;
    tl_fill(A->val, nnz, 9);
    quantize(A);
    return HSPMV_OK;
}

/* Few values on rows that repeat their patterns: CSRP, not CSRVI, in both
   precisions and whatever the kernels (a rule, not a timing); few values
   on rows of many patterns: CSRVI in double. */
static void local_auto_prefers_csrp_to_csrvi_where_patterns_repeat(void)
{
    hspmv_csr A;
    hspmv_local_info info;
    hspmv_opts o = opts_of(HSPMV_FORMAT_AUTO, "scalar", 2);
    hspmv_local *L = NULL;
    int rc = stencil7(&A, 56);
    CHECK(rc == HSPMV_OK, "allocate");
    if (rc) return;
    CHECK(A.nnz >= HSPMV_TUNE_MIN_NNZ && csrp_fits(&A) && csrvi_fits(&A), "generator: %lld nonzeros", (long long)A.nnz);
    int f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_CSRP && !strcmp(info.format_name, "csrp"), "quantized stencil: format %d (%s)", f,
          f >= 0 ? info.format_name : "off the reference");
    rc = hspmv_local_create(&A, &o, &L, NULL);
    CHECK(rc == HSPMV_OK && L && L->format == HSPMV_FORMAT_CSRP, "fixed kernels: format %d", L ? L->format : -1);
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    rc = local_columns(&A, 3000, 5);
    CHECK(rc == HSPMV_OK, "allocate");
    if (rc) return;
    quantize(&A);
    CHECK(!csrp_fits(&A) && csrvi_fits(&A), "the generator's rows share patterns, or too many values");
    f = auto_of(&A, &info);
    CHECK(f == (sizeof(hspmv_real) == 8 ? HSPMV_FORMAT_CSRVI : f) && f >= 0, "few values, many patterns: format %d", f);
    hspmv_csr_free(&A);
}

/* On a matrix big enough to time, AUTO's CSRDU is timed against CSR16 and
   CSR and the fastest kept (any may win on a given machine): the one kept
   multiplies right and reports itself; with a fixed kernel set nothing is
   timed and the model's CSRDU stays. */
static void local_auto_times_csrdu_against_csr16_on_a_big_matrix(void)
{
    hspmv_csr A;
    hspmv_local_info info;
    hspmv_opts o = opts_of(HSPMV_FORMAT_AUTO, "scalar", 2);
    hspmv_local *L = NULL;
    int rc = local_columns(&A, 60000, 7);
    CHECK(rc == HSPMV_OK, "allocate");
    if (rc) return;
    CHECK(A.nnz >= HSPMV_TUNE_MIN_NNZ && !csrp_fits(&A) && csr16_fits(&A), "generator: %lld nonzeros", (long long)A.nnz);
    int f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_CSRDU || f == HSPMV_FORMAT_CSR16 || f == HSPMV_FORMAT_CSR,
          "timed choice: format %d (-2: off the reference)", f);
    CHECK(f < 0 || !strcmp(info.format_name, f == HSPMV_FORMAT_CSRDU ? "csrdu" : f == HSPMV_FORMAT_CSR ? "csr" : "csr16"),
          "info names %s", info.format_name);
    rc = hspmv_local_create(&A, &o, &L, NULL);
    CHECK(rc == HSPMV_OK && L && L->format == HSPMV_FORMAT_CSRDU, "fixed kernels: format %d", L ? L->format : -1);
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
}

/* Random columns over 4M (32 MB of x in double) in short rows are
   scattered: column panels, as many as HSPMV_TEST's panels says, x
   prefetched HSPMV_PANELS_XPF entries ahead. */
static void local_auto_picks_panels_on_scattered_columns(void)
{
    hspmv_csr A;
    hspmv_local_info info;
    int f;
    CHECK(tl_csr_wide_random(&A, 3000, 4000000, 6, 8) == HSPMV_OK, "generate");
    f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_PANELS && info.npanels >= 1 && info.xpf == HSPMV_PANELS_XPF,
          "random over 4M columns: format %d, %d panels, x prefetched %d ahead", f, info.npanels, info.xpf);
    setenv("HSPMV_TEST", "panels=3", 1);
    f = auto_of(&A, &info);
    CHECK(f == HSPMV_FORMAT_PANELS && info.npanels == 3 && info.xpf == HSPMV_PANELS_XPF,
          "HSPMV_TEST=panels=3: format %d, %d panels, x prefetched %d ahead", f, info.npanels, info.xpf);
    unsetenv("HSPMV_TEST");
    hspmv_csr_free(&A);
    /* long rows (300 entries) over the same columns: the gathers of a row overlap anyway, no panels */
    CHECK(tl_csr_wide_random(&A, 200, 4000000, 300, 8) == HSPMV_OK, "generate");
    f = auto_of(&A, &info);
    CHECK(f >= 0 && f != HSPMV_FORMAT_PANELS, "rows of 300 over 4M columns: format %d", f);
    hspmv_csr_free(&A);
    /* the same count of columns near the diagonal: no panels */
    CHECK(tl_csr_random(&A, 3000, 3000, NULL, 6, 0, 8) == HSPMV_OK, "generate");
    f = auto_of(&A, &info);
    CHECK(f >= 0 && f != HSPMV_FORMAT_PANELS, "3000 x 3000 random: format %d", f);
    hspmv_csr_free(&A);
}

/* What AUTO takes on a two-valued stencil or band: CSRVI's 5 bytes per
   nonzero in double; in single CSRP's 4 (a float and no index) are fewer. */
static const int two_valued = HSPMV_FORMAT_CSRP; /* few values on repeating rows */

static void local_auto_respects_threshold(void)
{
    double r;
    /* banded and lap2d hold two values: CSRVI (double) or CSRP (single) once CSRL is off; random 514: CSR16 */
    CHECK(auto_format("matrices/banded_2000_w16.mtx", 0.0, &r) == two_valued, "threshold 0: CSRVI / CSRP");
    CHECK(auto_format("matrices/random_3000_k8.mtx", 0.0, &r) == HSPMV_FORMAT_CSR16, "threshold 0: CSR16");
    CHECK(auto_format("matrices/random_3000_k8.mtx", 1.01, &r) == HSPMV_FORMAT_CSRL,
          "threshold 1.01: CSRL");
    /* just below and just above the matrix's own ratio */
    auto_format("matrices/lap2d_64.mtx", -1, &r);
    CHECK(auto_format("matrices/lap2d_64.mtx", r, &r) == two_valued, "threshold = ratio: CSRVI / CSRP");
    CHECK(auto_format("matrices/lap2d_64.mtx", r + 1e-9, &r) == HSPMV_FORMAT_CSRL,
          "threshold above ratio: CSRL");
}

static void local_unknown_kernel_is_unsupported(void)
{
    hspmv_csr A;
    hspmv_opts o;
    hspmv_local *L = (hspmv_local *)&o; /* must be reset to NULL */
    hspmv_error e;
    const char *absent = hspmv_kernel_find("neon") ? "avx2" : "neon";
    CHECK(tl_csr_random(&A, 10, 10, NULL, 3, 0, 1) == HSPMV_OK, "generate");
    hspmv_opts_default(&o);
    o.kernel = "sse9";
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_UNSUPPORTED, "unknown name");
    CHECK(L == NULL && strstr(e.msg, "sse9") && strstr(e.msg, "unknown"), "message: %s", e.msg);
    o.kernel = absent;
    if (!hspmv_kernel_find(absent)) {
        CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_UNSUPPORTED, "%s on this CPU", absent);
        CHECK(L == NULL && strstr(e.msg, absent) && strstr(e.msg, "not supported"), "message: %s", e.msg);
    }
    hspmv_csr_free(&A);
}

/* Chunks cover every row once and hold at most avg + (longest row) nonzeros. */
static void local_thread_chunks_cover_rows_and_balance(void)
{
    static const int tc[] = {1, 2, 3, 4, 7, 16, 100};
    int64_t n = 2000, len[2000];
    uint64_t s = 3;
    for (int64_t i = 0; i < n; i++) len[i] = (int64_t)(tl_next(&s) % 20) * (i % 7 != 0);
    len[100] = 900;
    len[1999] = 500;
    for (int v = 0; v < 3; v++) {
        hspmv_csr A;
        if (v < 2) CHECK(tl_csr_random(&A, n, 1000, v ? len : NULL, 8, 0, 9) == HSPMV_OK, "generate");
        else CHECK(tl_read_csr("matrices/powerlaw_2000_k6.mtx", &A) == HSPMV_OK, "read");
        quantize(&A); /* CSRVI too */
        for (size_t t = 0; t < sizeof(tc) / sizeof(tc[0]); t++) {
            for (int f = 0; f < NFMT; f++) {
                hspmv_opts o = opts_of(formats[f], "scalar", tc[t]);
                hspmv_local *L = NULL;
                /* CSRP cuts at the nearest whole slice: up to G/2 rows more */
                double avg = (double)A.nnz / tc[t],
                       maxr = (double)max_row_nnz(&A) * (formats[f] == HSPMV_FORMAT_CSRP ? HSPMV_CSRP_G / 2 + 1 : 1);
                if (!fits(&A, formats[f])) continue;
                CHECK(hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK, "create");
                if (!L) continue;
                CHECK(chunks_cover(L), "matrix %d threads %d: chunks do not cover the rows", v, tc[t]);
                if (formats[f] == HSPMV_FORMAT_BCOO) { /* tile rows: checked by test_bcoo */
                    hspmv_local_destroy(&L);
                    continue;
                }
                for (int c = 0; c < tc[t]; c++) {
                    double k = (double)(A.rowptr[L->rows[c + 1]] - A.rowptr[L->rows[c]]);
                    CHECK(k <= avg + maxr, "matrix %d threads %d chunk %d: %g nnz > %g + %g", v, tc[t], c,
                          k, avg, maxr);
                }
                hspmv_local_destroy(&L);
            }
        }
        hspmv_csr_free(&A);
    }
}

static void local_rejects_bad_input(void)
{
    hspmv_csr A;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_error e;
    CHECK(tl_csr_random(&A, 10, 10, NULL, 3, 0, 1) == HSPMV_OK, "generate");
    hspmv_opts_default(&o);
    CHECK(hspmv_local_create(NULL, &o, &L, &e) == HSPMV_ERR_ARG, "NULL matrix");
    CHECK(hspmv_local_create(&A, &o, NULL, &e) == HSPMV_ERR_ARG, "NULL out");
    o.format = 9;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_ARG && !L, "format 9");
    hspmv_opts_default(&o);
    o.threads = -1;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_ARG && !L, "-1 threads");
    hspmv_opts_default(&o);
    o.csrl_threshold = NAN;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_ARG && !L, "NaN threshold");
    hspmv_opts_default(&o);
    A.colind[2] = 10; /* column outside 0..9 */
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_FORMAT && !L, "bad column: %s", e.msg);
    hspmv_csr_free(&A);
}

/* Thread counts the OpenMP runtime cannot serve (100000 crashed libgomp,
   50000 made it exit from inside the library) are refused with a message,
   asked for directly or through omp_get_max_threads(). */
static void local_refuses_thread_counts_past_the_limit(void)
{
    hspmv_csr A;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_error e;
    int lim = hspmv_max_threads();
    CHECK(lim >= 256 && lim >= 8 * omp_get_num_procs(), "limit %d", lim);
    CHECK(tl_csr_random(&A, 10, 10, NULL, 3, 0, 1) == HSPMV_OK, "generate");
    const int bad[] = {lim + 1, 50000, 100000, 2147483647};
    for (int k = 0; k < 4; k++) {
        hspmv_opts_default(&o);
        o.threads = bad[k];
        int rc = hspmv_local_create(&A, &o, &L, &e);
        CHECK(rc == HSPMV_ERR_ARG && !L && strstr(e.msg, "threads") && strstr(e.msg, "allowed"), "%d threads: %d %s",
              bad[k], rc, e.msg);
        hspmv_local_destroy(&L);
    }
    hspmv_opts_default(&o);
    o.threads = lim; /* the limit itself is served */
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_OK, "%d threads: %s", lim, e.msg);
    hspmv_local_destroy(&L);
    int saved = omp_get_max_threads();
    omp_set_num_threads(100000); /* what OMP_NUM_THREADS=100000 gives */
    hspmv_opts_default(&o);
    int rc = hspmv_local_create(&A, &o, &L, &e);
    omp_set_num_threads(saved);
    CHECK(rc == HSPMV_ERR_ARG && !L && strstr(e.msg, "OMP_NUM_THREADS"), "default threads: %d %s", rc, e.msg);
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
}

static void local_defaults_and_null_opts(void)
{
    hspmv_opts o;
    hspmv_csr A;
    hspmv_local *L = NULL;
    hspmv_local_info info;
    hspmv_opts_default(&o);
    CHECK(o.format == HSPMV_FORMAT_AUTO && o.csrl_threshold == 0.3 && !strcmp(o.kernel, "auto") &&
              o.threads == 0 && o.partition == HSPMV_PART_NNZ,
          "defaults");
    CHECK(tl_csr_random(&A, 100, 100, NULL, 4, 0, 1) == HSPMV_OK, "generate");
    CHECK(hspmv_local_create(&A, NULL, &L, NULL) == HSPMV_OK, "NULL opts");
    if (L) {
        hspmv_local_get_info(L, &info);
        CHECK(info.threads >= 1 && !strcmp(info.isa, sets[0]->isa), "threads %d isa %s", info.threads,
              info.isa);
        CHECK(info.bytes_formula && *info.bytes_formula, "formula");
    }
    hspmv_local_destroy(&L);
    hspmv_local_destroy(&L); /* NULL is fine */
    hspmv_local_destroy(NULL);
    hspmv_csr_free(&A);
}

/* A copy of A survives A being freed: the prepared matrix owns its arrays. */
static void local_owns_its_arrays(void)
{
    hspmv_csr A, C;
    hspmv_real x[300], y[200];
    for (int f = 0; f < NFMT; f++) {
        hspmv_opts o = opts_of(formats[f], "auto", 3);
        hspmv_local *L = NULL;
        CHECK(tl_csr_random(&A, 200, 300, NULL, 12, 4, 8) == HSPMV_OK, "generate"); /* 200 patterns: CSRP too */
        CHECK(tl_csr_random(&C, 200, 300, NULL, 12, 4, 8) == HSPMV_OK, "generate");
        quantize(&A); /* CSRVI too */
        quantize(&C);
        CHECK(hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK, "create");
        hspmv_csr_free(&A);
        tl_fill(x, 300, 2);
        if (L) hspmv_local_spmv(L, x, y, 0);
        CHECK(L && tl_matches_ref(&C, x, y, fmt_names[formats[f]]), "%s after freeing A",
              fmt_names[formats[f]]);
        hspmv_local_destroy(&L);
        hspmv_csr_free(&C);
    }
}

static void local_touch_zeroes_vectors(void)
{
    hspmv_csr A;
    hspmv_real v[1000];
    CHECK(tl_csr_random(&A, 500, 700, NULL, 6, 0, 3) == HSPMV_OK, "generate");
    quantize(&A); /* CSRVI too */
    for (int f = 0; f < NFMT; f++) {
        hspmv_opts o = opts_of(formats[f], "auto", 7);
        hspmv_local *L = NULL;
        if (!fits(&A, formats[f])) continue;
        CHECK(hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK, "create");
        if (!L) continue;
        for (int64_t n = 0; n <= 1000; n += 100) { /* fewer, as many (500) and more entries than rows */
            int64_t nz = 0;
            for (int i = 0; i < 1000; i++) v[i] = 1;
            hspmv_local_touch(L, v, n);
            for (int i = 0; i < 1000; i++) nz += (v[i] == 0);
            CHECK(nz == n, "%s: touched %lld of %lld", fmt_names[formats[f]],
                  (long long)nz, (long long)n);
        }
        hspmv_local_destroy(&L);
    }
    hspmv_csr_free(&A);
}

/* Each allocation of create fails in turn: NOMEM, L left NULL, nothing else
   (leaks show under make sanitize). */
static void local_create_survives_allocation_failure(void)
{
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 300, 300, NULL, 5, 3, 4) == HSPMV_OK, "generate");
    quantize(&A); /* CSRVI too */
    for (int f = 0; f < NFMT; f++) {
        int rc = HSPMV_ERR_NOMEM;
        if (!fits(&A, formats[f])) continue;
        for (long k = 1; k < 100 && rc == HSPMV_ERR_NOMEM; k++) {
            hspmv_opts o = opts_of(formats[f], "auto", 3);
            hspmv_local *L = NULL;
            hspmv_alloc_fail_after(k);
            rc = hspmv_local_create(&A, &o, &L, NULL);
            hspmv_alloc_fail_after(0);
            CHECK(rc == HSPMV_OK || (rc == HSPMV_ERR_NOMEM && L == NULL), "%s: failure %ld gave %d",
                  fmt_names[formats[f]], k, rc);
            hspmv_local_destroy(&L);
        }
        CHECK(rc == HSPMV_OK, "%s never succeeded", fmt_names[formats[f]]);
    }
    hspmv_csr_free(&A);
}

/* Kernel "auto" on a matrix big enough to be timed picks one of this CPU's
   sets, and the product is right; a named kernel is never replaced. */
static void local_auto_kernel_is_timed_on_big_matrix(void)
{
    hspmv_csr A;
    hspmv_local *L = NULL;
    hspmv_local_info info;
    hspmv_opts o;
    int64_t n = HSPMV_TUNE_MIN_NNZ / 16 + 1000;
    const char *runner = getenv("HSPMV_RUNNER"); /* set by make test-aarch64: qemu */
    if (runner && *runner) { /* timing a million entries per kernel set under emulation: 50 s, and the
                                timings say nothing of the CPU; the native runs check the choice */
        SKIP("run under %s: the kernel sets' timings would be the emulator's", runner);
        return;
    }
    hspmv_real *x = hspmv_malloc((size_t)n * sizeof(hspmv_real)), *y = hspmv_malloc((size_t)n * sizeof(hspmv_real));
    CHECK(x && y && tl_csr_random(&A, n, n, NULL, 16, 0, 12) == HSPMV_OK, "generate");
    hspmv_opts_default(&o);
    o.threads = 2;
    CHECK(hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK, "create");
    if (L) {
        int known = 0;
        hspmv_local_get_info(L, &info);
        for (int s = 0; s < nsets; s++) known |= !strcmp(info.isa, sets[s]->isa);
        CHECK(known, "isa %s", info.isa);
        tl_fill(x, n, 5);
        hspmv_local_spmv(L, x, y, 0);
        CHECK(tl_matches_ref(&A, x, y, "tuned"), "tuned kernels (%s)", info.isa);
        hspmv_local_destroy(&L);
    }
    o.kernel = sets[nsets - 1]->isa;
    CHECK(hspmv_local_create(&A, &o, &L, NULL) == HSPMV_OK, "create");
    if (L) {
        hspmv_local_get_info(L, &info);
        CHECK(!strcmp(info.isa, sets[nsets - 1]->isa), "asked %s, got %s", sets[nsets - 1]->isa, info.isa);
        hspmv_local_destroy(&L);
    }
    hspmv_csr_free(&A);
    hspmv_free(x);
    hspmv_free(y);
}

/* The kept set from timings: the fastest where it beats the narrowest
   vector set (the one before scalar) by 3% or more, else that set. */
static void local_kernel_pick_prefers_the_narrower_set_at_a_tie(void)
{
    const double wide_tie[3] = {1.00, 1.02, 3.0}, wide_wins[3] = {0.90, 1.00, 3.0}, scalar_wins[3] = {1.0, 1.0, 0.5},
                 narrow_wins[3] = {1.10, 1.00, 3.0}, two_tie[2] = {1.00, 0.99}, two_scalar[2] = {1.0, 0.5};
    CHECK(hspmv_local_pick_kernels(wide_tie, 3) == 1, "a 2%% lead of the widest set is a tie: the narrower kept");
    CHECK(hspmv_local_pick_kernels(wide_wins, 3) == 0, "a 10%% lead of the widest set wins");
    CHECK(hspmv_local_pick_kernels(scalar_wins, 3) == 2, "scalar twice as fast wins");
    CHECK(hspmv_local_pick_kernels(narrow_wins, 3) == 1, "the narrower set, fastest, kept");
    CHECK(hspmv_local_pick_kernels(two_tie, 2) == 0, "one vector set and scalar at a tie: the vector set");
    CHECK(hspmv_local_pick_kernels(two_scalar, 2) == 1, "one vector set, scalar twice as fast: scalar");
    CHECK(hspmv_local_pick_kernels(two_tie, 1) == 0, "one set: that one");
}

/* Pieces (local_pieces.c): claims from both ends of a chunk's word. */
static void local_pieces_are_taken_once_from_both_ends(void)
{
    uint64_t w = 5; /* pieces [0, 5) */
    int got[5] = {hspmv_local_take_piece(&w, 0), hspmv_local_take_piece(&w, 1), hspmv_local_take_piece(&w, 1),
                  hspmv_local_take_piece(&w, 0), hspmv_local_take_piece(&w, 0)};
    CHECK(got[0] == 0 && got[1] == 4 && got[2] == 3 && got[3] == 1 && got[4] == 2, "order %d %d %d %d %d", got[0],
          got[1], got[2], got[3], got[4]);
    CHECK(hspmv_local_take_piece(&w, 0) == -1 && hspmv_local_take_piece(&w, 1) == -1, "a piece after the last");
    w = 0;
    CHECK(hspmv_local_take_piece(&w, 1) == -1, "a piece of an empty chunk");
}

/* With its chunks cut into pieces that idle threads take, every format and
   kernel set gives the static split's y bit for bit (and the reference's),
   whole and in parts, also with more pieces than rows. Products repeat, so
   that threads (more than the cores) take each other's pieces. */
static void local_pieces_match_the_static_split(void)
{
    static const int piece_counts[] = {3, 64};
    static const int thr[] = {2, 3, 7};
    hspmv_csr A;
    int64_t rowlen[997];
    uint64_t seed = 41;
    for (int i = 0; i < 997; i++) rowlen[i] = (int64_t)(tl_next(&seed) % 40) * (i % 13 != 5); /* empty rows too */
    rowlen[400] = 997; /* a dense row */
    CHECK(tl_csr_random(&A, 997, 997, rowlen, 0, 4, 42) == HSPMV_OK, "generate");
    int64_t n = A.nrows;
    size_t yb = (size_t)n * sizeof(hspmv_real);
    hspmv_real *x = hspmv_malloc((size_t)A.ncols * sizeof(hspmv_real)), *y0 = hspmv_malloc(yb), *y = hspmv_malloc(yb);
    tl_fill(x, A.ncols, 43);
    char what[200];
    for (int f = 0; f < NFMT && x && y0 && y; f++) {
        if (!fits(&A, formats[f])) continue;
        for (int s = 0; s < nsets; s++)
            for (int t = 0; t < 3; t++) {
                hspmv_opts o = opts_of(formats[f], sets[s]->isa, thr[t]);
                hspmv_local *L = NULL;
                setenv("HSPMV_TEST", "pieces=1", 1);
                int rc = hspmv_local_create(&A, &o, &L, NULL);
                if (rc == HSPMV_OK) hspmv_local_spmv(L, x, y0, 0);
                hspmv_local_destroy(&L);
                for (int k = 0; k < 2 && rc == HSPMV_OK; k++) {
                    char pc[24];
                    snprintf(pc, sizeof(pc), "pieces=%d", piece_counts[k]);
                    setenv("HSPMV_TEST", pc, 1);
                    rc = hspmv_local_create(&A, &o, &L, NULL);
                    snprintf(what, sizeof(what), "%s/%s threads=%d %s", fmt_names[formats[f]], sets[s]->isa,
                             thr[t], pc);
                    for (int rep = 0; rep < 20 && rc == HSPMV_OK; rep++) {
                        int nparts = rep % 2 ? 3 : 1;
                        tl_fill_nan(y, n);
                        for (int part = 0; part < nparts; part++) hspmv_local_spmv_part(L, part, nparts, x, y, 0);
                        int ok = !memcmp(y, y0, yb) && tl_matches_ref(&A, x, y, what);
                        CHECK(ok, "%s parts=%d: differs from the static split", what, nparts);
                        if (!ok) break;
                    }
                    hspmv_local_destroy(&L);
                }
                CHECK(rc == HSPMV_OK, "%s: create failed", what);
            }
    }
    unsetenv("HSPMV_TEST");
    hspmv_free(x);
    hspmv_free(y0);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

/* The comparison can fail: one perturbed entry is caught. */
static void local_perturbed_result_is_caught(void)
{
    hspmv_csr A;
    hspmv_local *L = NULL;
    hspmv_real x[400], y[400];
    CHECK(tl_csr_random(&A, 400, 400, NULL, 9, 0, 6) == HSPMV_OK, "generate");
    CHECK(hspmv_local_create(&A, NULL, &L, NULL) == HSPMV_OK, "create");
    tl_fill(x, 400, 1);
    if (L) hspmv_local_spmv(L, x, y, 0);
    CHECK(tl_matches_ref(&A, x, y, "unperturbed"), "unperturbed");
    y[123] *= (hspmv_real)(1 + 1e-3);
    fprintf(stderr, "    (one mismatch expected below)\n");
    CHECK(!tl_matches_ref(&A, x, y, "perturbed on purpose"), "perturbed y passed");
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
}

int main(void)
{
    nsets = hspmv_kernel_sets(sets, 8);
    printf("kernel sets:");
    for (int s = 0; s < nsets; s++) printf(" %s", sets[s]->isa);
    printf("\n");
    RUN(local_matches_ref_on_tails_and_empty_rows);
    RUN(local_matches_ref_on_long_rows_and_segments);
    RUN(local_matches_ref_on_rectangular);
    RUN(local_matches_ref_with_few_distinct_values);
    RUN(local_handles_zero_rows);
    RUN(local_handles_more_threads_than_rows);
    RUN(local_matches_ref_on_bundled_matrices);
    RUN(local_matches_ref_on_shared_matrices);
    RUN(local_auto_picks_csrl_on_banded);
    RUN(local_auto_picks_csr16_on_random_that_fits);
    RUN(local_auto_picks_csr_when_columns_are_far_and_csr16_is_refused);
    RUN(local_auto_picks_csrp_on_a_real_valued_stencil);
    RUN(local_auto_picks_csrdu_on_local_columns_with_many_patterns);
    RUN(local_streams_y_only_past_the_last_level_cache);
    RUN(local_auto_times_csrdu_against_csr16_on_a_big_matrix);
    RUN(local_auto_prefers_csrp_to_csrvi_where_patterns_repeat);
    RUN(local_auto_picks_panels_on_scattered_columns);
    RUN(local_auto_respects_threshold);
    RUN(local_unknown_kernel_is_unsupported);
    RUN(local_thread_chunks_cover_rows_and_balance);
    RUN(local_rejects_bad_input);
    RUN(local_refuses_thread_counts_past_the_limit);
    RUN(local_defaults_and_null_opts);
    RUN(local_owns_its_arrays);
    RUN(local_touch_zeroes_vectors);
    RUN(local_create_survives_allocation_failure);
    RUN(local_auto_kernel_is_timed_on_big_matrix);
    RUN(local_kernel_pick_prefers_the_narrower_set_at_a_tie);
    RUN(local_pieces_are_taken_once_from_both_ends);
    RUN(local_pieces_match_the_static_split);
    RUN(local_perturbed_result_is_caught);
    CHECK_DONE();
}
