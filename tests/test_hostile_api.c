/* test_hostile_api.c — the public calls of one rank given what a hostile
   caller gives them: NULL arrays with entries to hold, a rowptr that runs
   past nnz, absurd thread counts, PETSc files that are not matrices, and
   gzip data with trailing garbage or corrupt blocks. Each must be a clear
   error (the argument or the fault named), never a crash. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"
#include "util.h"
#include "matrix_files.h" /* hspmv_mtx_read_mem */
#ifndef HSPMV_NO_ZLIB
#include <zlib.h>
#endif

/* A 3 x 3 CSR of 4 entries held in the caller's arrays. */
static int64_t rp3[4] = {0, 2, 3, 4};
static int32_t ci3[4] = {0, 2, 1, 2};
static hspmv_real v3[4] = {1, 2, 3, 4};

static hspmv_csr small(void)
{
    hspmv_csr A = {3, 3, 4, rp3, ci3, v3};
    return A;
}

static void local_create_refuses_null_colind_or_val_with_entries(void)
{
    hspmv_csr A = small();
    hspmv_local *L = NULL;
    hspmv_error e;
    A.colind = NULL;
    int rc = hspmv_local_create(&A, NULL, &L, &e);
    CHECK(rc == HSPMV_ERR_ARG && !L && strstr(e.msg, "hspmv_local_create") && strstr(e.msg, "colind is NULL"),
          "NULL colind: %d %s", rc, e.msg);
    A = small();
    A.val = NULL;
    rc = hspmv_local_create(&A, NULL, &L, &e);
    CHECK(rc == HSPMV_ERR_ARG && !L && strstr(e.msg, "val is NULL"), "NULL val: %d %s", rc, e.msg);
    A = small();
    A.nnz = -1;
    rc = hspmv_local_create(&A, NULL, &L, &e);
    CHECK(rc == HSPMV_ERR_ARG && !L && strstr(e.msg, "nnz = -1"), "nnz -1: %d %s", rc, e.msg);
    rc = hspmv_local_create(NULL, NULL, &L, &e);
    CHECK(rc == HSPMV_ERR_ARG && !L, "NULL matrix: %d %s", rc, e.msg);
    A = small();
    rc = hspmv_local_create(&A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_ARG, "NULL out: %d %s", rc, e.msg);
    /* NULL colind and val are fine without entries */
    hspmv_csr Z = {3, 3, 0, (int64_t[4]){0, 0, 0, 0}, NULL, NULL};
    rc = hspmv_local_create(&Z, NULL, &L, &e);
    CHECK(rc == HSPMV_OK && L, "empty matrix without arrays: %d %s", rc, e.msg);
    hspmv_local_destroy(&L);
}

/* colind of exactly nnz entries ending at a page that cannot be read: a
   check that reads past it crashes the test. */
static int32_t *guarded_colind(int64_t nnz, void **map, size_t *len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), need = (size_t)nnz * sizeof(int32_t);
    size_t pages = (need + pg - 1) / pg + 1;
    char *m = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (mprotect(m + (pages - 1) * pg, pg, PROT_NONE) != 0) return NULL;
    *map = m;
    *len = pages * pg;
    return (int32_t *)(m + (pages - 1) * pg - need);
}

static void csr_check_compares_rowptr_with_nnz_before_reading_colind(void)
{
    void *map;
    size_t len;
    int32_t *ci = guarded_colind(4, &map, &len);
    if (!ci) {
        SKIP("no guard page (mmap/mprotect failed)");
        return;
    }
    memcpy(ci, ci3, sizeof(ci3));
    /* rowptr[nrows] far beyond nnz: the colind loop would run off the end */
    int64_t rp[4] = {0, 2, 3, 1 << 20};
    hspmv_csr A = {3, 3, 4, rp, ci, v3};
    hspmv_local *L = NULL;
    hspmv_error e;
    int rc = hspmv_local_create(&A, NULL, &L, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && !L && strstr(e.msg, "exceeds nnz = 4"), "past nnz at the end: %d %s", rc, e.msg);
    /* in the middle too */
    int64_t rp2[4] = {0, 1 << 20, 1 << 20, 4};
    A.rowptr = rp2;
    rc = hspmv_local_create(&A, NULL, &L, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && !L && strstr(e.msg, "rowptr[1]"), "past nnz in the middle: %d %s", rc, e.msg);
    /* the same check guards hspmv_csr_write */
    A.rowptr = rp;
    rc = hspmv_csr_write("/tmp/hspmv_hostile_never.mtx", &A, HSPMV_FILE_MTX, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && access("/tmp/hspmv_hostile_never.mtx", F_OK) != 0, "write: %d %s", rc, e.msg);
    munmap(map, len);
}

static void read_threads_beyond_the_bound_are_refused(void)
{
    hspmv_csr A;
    hspmv_error e;
    char path[] = "/tmp/hspmv_hostile_XXXXXX";
    int fd = mkstemp(path);
    const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n";
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "temp file");
    close(fd);
    hspmv_read_opts ro = {NULL, NULL, 100000};
    int rc = hspmv_csr_read(path, &A, &ro, NULL, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "100000 read threads") && A.nnz == 0, "100000: %d %s", rc, e.msg);
    ro.threads = -3;
    rc = hspmv_csr_read(path, &A, &ro, NULL, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "-3 read threads"), "-3: %d %s", rc, e.msg);
    /* the OpenMP default (OMP_NUM_THREADS=100000) is bounded alike */
    int saved = omp_get_max_threads();
    omp_set_num_threads(100000);
    rc = hspmv_csr_read(path, &A, NULL, NULL, &e);
    omp_set_num_threads(saved);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "OMP_NUM_THREADS"), "omp default: %d %s", rc, e.msg);
    ro.threads = hspmv_max_threads() < 4 ? hspmv_max_threads() : 4;
    rc = hspmv_csr_read(path, &A, &ro, NULL, &e);
    CHECK(rc == HSPMV_OK && A.nnz == 2, "a fair count still reads: %d %s", rc, e.msg);
    hspmv_csr_free(&A);
    unlink(path);
}

/* The void calls take NULL without a crash and touch nothing they cannot. */
static void void_calls_take_null(void)
{
    hspmv_csr A = small();
    hspmv_local *L = NULL;
    hspmv_local_info in;
    hspmv_real x[3] = {1, 2, 3}, y[3] = {7, 7, 7};
    hspmv_error e;
    CHECK(hspmv_local_create(&A, NULL, &L, &e) == HSPMV_OK, "create: %s", e.msg);
    hspmv_local_spmv(NULL, x, y, 0);
    hspmv_local_spmv(L, NULL, y, 0);
    hspmv_local_spmv(L, x, NULL, 0);
    CHECK(y[0] == 7 && y[1] == 7 && y[2] == 7, "y untouched by the refused calls");
    hspmv_local_spmv(L, x, y, 0);
    CHECK(y[0] == 7 && y[1] == 6 && y[2] == 12, "y = A x: %g %g %g", y[0], y[1], y[2]);
    memset(&in, 0xff, sizeof(in));
    hspmv_local_get_info(NULL, &in);
    CHECK(in.nrows == 0 && in.format_name == NULL, "info of NULL zeroed");
    hspmv_local_get_info(L, NULL);
    CHECK(hspmv_local_spmm(NULL, 0, 1, x, y, 0, &e) == HSPMV_ERR_ARG, "spmm NULL L");
    CHECK(hspmv_local_spmm(L, 0, 1, NULL, y, 0, &e) == HSPMV_ERR_ARG, "spmm NULL X");
    CHECK(hspmv_local_spmm(L, 0, 0, x, y, 0, &e) == HSPMV_ERR_ARG, "spmm k = 0");
    hspmv_local_destroy(&L);
    hspmv_local_destroy(NULL);
    hspmv_csr_free(NULL);
    hspmv_free(NULL);
    CHECK(hspmv_strerror(-1) && hspmv_strerror(HSPMV_NSTATUS + 5), "strerror out of range");
    CHECK(hspmv_csr_read(NULL, &A, NULL, NULL, &e) == HSPMV_ERR_ARG, "read NULL path");
    CHECK(hspmv_csr_read("/tmp/x.mtx", NULL, NULL, NULL, &e) == HSPMV_ERR_ARG, "read NULL csr");
    A = small();
    CHECK(hspmv_csr_write(NULL, &A, HSPMV_FILE_MTX, &e) == HSPMV_ERR_ARG, "write NULL path");
    CHECK(hspmv_csr_write("/tmp/hspmv_hostile_never.mtx", NULL, HSPMV_FILE_MTX, &e) == HSPMV_ERR_ARG, "write NULL A");
    CHECK(hspmv_csr_write("/tmp/hspmv_hostile_never.mtx", &A, 99, &e) == HSPMV_ERR_ARG &&
              access("/tmp/hspmv_hostile_never.mtx", F_OK) != 0, "write format 99: %s", e.msg);
    A.colind = NULL;
    CHECK(hspmv_csr_write("/tmp/hspmv_hostile_never.mtx", &A, HSPMV_FILE_MTX, &e) == HSPMV_ERR_ARG &&
              strstr(e.msg, "colind"), "write NULL colind: %s", e.msg);
    CHECK(hspmv_malloc((size_t)-1) == NULL && hspmv_malloc((size_t)1 << 62) == NULL, "absurd allocations: NULL");
    hspmv_opts_default(NULL);
}

/* Writes n bytes to a fresh temp file; its name in path (>= 32 bytes). */
static int temp_file(char *path, const void *b, size_t n)
{
    strcpy(path, "/tmp/hspmv_hostile_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    int ok = write(fd, b, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

static void petsc_vec_and_little_endian_files_are_named(void)
{
    /* a Vec: class id 1211214, length 3, three doubles (big-endian) */
    static const unsigned char vec[] = {0x00, 0x12, 0x7b, 0x4e, 0, 0, 0, 3, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
                                        0x40, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x08, 0, 0, 0, 0, 0, 0};
    /* a 2 x 2 matrix header of 4-byte integers written little-endian */
    static const unsigned char le[] = {0x50, 0x7b, 0x12, 0x00, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    /* a Vec of 8-byte integers */
    static const unsigned char vec64[] = {0, 0, 0, 0, 0x00, 0x12, 0x7b, 0x4e, 0, 0, 0, 0, 0, 0, 0, 0};
    char path[64];
    hspmv_csr A;
    hspmv_error e;
    CHECK(temp_file(path, vec, sizeof(vec)) == 0, "temp");
    int rc = hspmv_csr_read(path, &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "PETSc class id 1211214 (a Vec), not a matrix"), "vec: %d %s", rc, e.msg);
    unlink(path);
    CHECK(temp_file(path, vec64, sizeof(vec64)) == 0, "temp");
    rc = hspmv_csr_read(path, &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "(a Vec)"), "vec64: %d %s", rc, e.msg);
    unlink(path);
    CHECK(temp_file(path, le, sizeof(le)) == 0, "temp");
    rc = hspmv_csr_read(path, &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "little-endian PETSc file"), "le: %d %s", rc, e.msg);
    unlink(path);
}

#ifndef HSPMV_NO_ZLIB
/* gzip bytes of text (deflate with the gzip wrapper); free() them. */
static unsigned char *gz_bytes(const char *text, size_t len, size_t *out)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    unsigned char *b = malloc(cap);
    z.next_in = (Bytef *)text;
    z.avail_in = (uInt)len;
    z.next_out = b;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(b);
        return NULL;
    }
    return b;
}

/* Matrix Market text of n entries with varied values (so that inflated
   garbage is seldom a valid line); malloc'ed. */
static char *mtx_text(int n, size_t *len)
{
    char *t = malloc((size_t)n * 48 + 128);
    size_t k = (size_t)sprintf(t, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, n);
    uint64_t s = 7;
    for (int i = 0; i < n; i++) k += (size_t)sprintf(t + k, "%d %d %.17g\n", i + 1, (i * 7) % n + 1, tl_uniform(&s, -9, 9));
    *len = k;
    return t;
}
#endif

static void gzip_trailing_garbage_is_refused_and_zero_padding_read(void)
{
#ifdef HSPMV_NO_ZLIB
    SKIP("built without zlib");
#else
    size_t len, glen;
    char *text = mtx_text(300, &len), path[64];
    unsigned char *gz = gz_bytes(text, len, &glen), *b = malloc(glen + 64);
    hspmv_csr A;
    hspmv_coo c;
    hspmv_error e;
    memcpy(b, gz, glen);
    memcpy(b + glen, "garbage!", 8);
    CHECK(temp_file(path, b, glen + 8) == 0, "temp");
    int rc = hspmv_csr_read(path, &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "corrupt gzip data: trailing bytes") && strstr(e.msg, path),
          "trailing garbage: %d %s", rc, e.msg);
    unlink(path);
    rc = hspmv_mtx_read_mem("t.mtx.gz", b, glen + 1, &c, NULL, &e); /* one stray byte */
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "trailing bytes"), "one byte: %d %s", rc, e.msg);
    memset(b + glen, 0, 64);
    rc = hspmv_mtx_read_mem("t.mtx.gz", b, glen + 64, &c, NULL, &e);
    CHECK(rc == HSPMV_OK && c.nnz == 300, "zero padding (as gzip(1) skips it): %d %s", rc, e.msg);
    hspmv_coo_free(&c);
    /* two members (concatenated gzip): still one text */
    unsigned char *two = malloc(2 * glen);
    size_t half = len / 2;
    while (text[half - 1] != '\n') half++;
    size_t g1, g2;
    unsigned char *a1 = gz_bytes(text, half, &g1), *a2 = gz_bytes(text + half, len - half, &g2);
    memcpy(two, a1, g1);
    memcpy(two + g1, a2, g2);
    rc = hspmv_mtx_read_mem("t.mtx.gz", two, g1 + g2, &c, NULL, &e);
    CHECK(rc == HSPMV_OK && c.nnz == 300, "two members: %d %s", rc, e.msg);
    hspmv_coo_free(&c);
    free(a1);
    free(a2);
    free(two);
    free(b);
    free(gz);
    free(text);
#endif
}

/* Every byte of the compressed data flipped in turn: each read fails with a
   gzip message (corrupt data, or data that ends early), never with a text
   line's, although the corrupt block often inflates to garbage text first. */
static void gzip_corrupt_blocks_are_reported_as_corrupt_gzip_data(void)
{
#ifdef HSPMV_NO_ZLIB
    SKIP("built without zlib");
#else
    size_t len, glen;
    char *text = mtx_text(300, &len);
    unsigned char *gz = gz_bytes(text, len, &glen), *b = malloc(glen);
    int bad = 0, tried = 0;
    for (size_t off = 10; off < glen; off += 3) { /* after the header's time and OS bytes */
        hspmv_coo c;
        hspmv_error e;
        memcpy(b, gz, glen);
        b[off] ^= 0x5a;
        int rc = hspmv_mtx_read_mem("t.mtx.gz", b, glen, &c, NULL, &e);
        tried++;
        if (rc == HSPMV_ERR_FORMAT && (strstr(e.msg, "corrupt gzip data") || strstr(e.msg, "gzip data ends early")))
            continue;
        if (bad++ < 3) fprintf(stderr, "  byte %zu flipped: %d %s\n", off, rc, e.msg);
        if (rc == HSPMV_OK) hspmv_coo_free(&c);
    }
    CHECK(bad == 0, "%d of %d corruptions not reported as gzip faults", bad, tried);
    free(b);
    free(gz);
    free(text);
#endif
}

int main(void)
{
    RUN(local_create_refuses_null_colind_or_val_with_entries);
    RUN(csr_check_compares_rowptr_with_nnz_before_reading_colind);
    RUN(read_threads_beyond_the_bound_are_refused);
    RUN(void_calls_take_null);
    RUN(petsc_vec_and_little_endian_files_are_named);
    RUN(gzip_trailing_garbage_is_refused_and_zero_padding_read);
    RUN(gzip_corrupt_blocks_are_reported_as_corrupt_gzip_data);
    CHECK_DONE();
}
