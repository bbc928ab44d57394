/* test_petsc.c — PETSc binary files and the Matrix Market writer, serially:
   round trips of every shared and bundled matrix (4- and 8-byte integers,
   small pieces), hand-made files read entry for entry, every refusal with
   its row and byte, writer refusals, and the offsets of a matrix of 3e9
   entries. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"
#include "petsc_bin.h"
#include "petsc_files.h"
#include "csr.h"

static char tmpdir[256];

/* A path in this test's temp folder. */
static const char *tpath(const char *name)
{
    static char p[8][400];
    static int i;
    i = (i + 1) % 8;
    snprintf(p[i], sizeof(p[i]), "%s/%s", tmpdir, name);
    return p[i];
}

static int same_csr(const hspmv_csr *a, const hspmv_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) return 0;
    if (memcmp(a->rowptr, b->rowptr, sizeof(int64_t) * (size_t)(a->nrows + 1))) return 0;
    return (a->nnz == 0 || !memcmp(a->colind, b->colind, sizeof(int32_t) * (size_t)a->nnz)) &&
           (a->nnz == 0 || !memcmp(a->val, b->val, sizeof(hspmv_real) * (size_t)a->nnz));
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* A -> PETSc (isz) -> A', A -> Matrix Market -> A'', each the same CSR bit
   for bit; the PETSc file has exactly the bytes its layout says. */
static int round_trips(const hspmv_csr *A, const char *name, int i)
{
    (void)i;
    hspmv_error e;
    int ok = 1;
    for (int isz = 4; isz <= 8; isz += 4) {
        hspmv_csr B;
        const char *p = tpath(isz == 4 ? "rt32.petsc" : "rt64.petsc");
        int rc = hspmv_petsc_write(p, A, isz, &e);
        CHECK(rc == HSPMV_OK, "%s: write (%d-byte integers): %s", name, isz, e.msg);
        CHECK(file_size(p) == 4 * isz + A->nrows * isz + A->nnz * (isz + 8), "%s: %lld bytes", name,
              (long long)file_size(p));
        CHECK(hspmv_petsc_is_matrix_file(p), "%s: not told a PETSc file", name);
        rc = hspmv_petsc_read(p, &B, &e);
        CHECK(rc == HSPMV_OK, "%s: read back: %s", name, e.msg);
        ok &= rc == HSPMV_OK && same_csr(A, &B);
        CHECK(rc || same_csr(A, &B), "%s: PETSc round trip (%d-byte integers) changed the CSR", name, isz);
        hspmv_csr_free(&B);
        /* hspmv_csr_read tells the file by its class id */
        rc = hspmv_csr_read(p, &B, NULL, NULL, &e);
        CHECK(rc == HSPMV_OK && same_csr(A, &B), "%s: hspmv_csr_read of the PETSc file: %s", name, e.msg);
        hspmv_csr_free(&B);
    }
    hspmv_csr B;
    const char *m = tpath("rt.mtx");
    int rc = hspmv_mtx_write(m, A, &e);
    CHECK(rc == HSPMV_OK, "%s: Matrix Market write: %s", name, e.msg);
    CHECK(!hspmv_petsc_is_matrix_file(m), "%s: a Matrix Market file told a PETSc one", name);
    rc = tl_read_csr(m, &B);
    ok &= rc == HSPMV_OK && same_csr(A, &B);
    CHECK(rc || same_csr(A, &B), "%s: Matrix Market round trip changed the CSR", name);
    hspmv_csr_free(&B);
    return ok;
}

static void every_matrix_round_trips_through_petsc_and_matrix_market_bit_for_bit(void)
{
    int unread = 0;
    int n = tl_each_mtx(tl_shared_dir(), 1, round_trips, &unread);
    CHECK(unread == 0, "%d shared files unread", unread);
    CHECK(n > 0, "%s: %d read (%s)", tl_shared_dir(), n, tl_missing_hint(1));
    n = tl_each_mtx("matrices", 1, round_trips, &unread);
    CHECK(n > 0 && unread == 0, "bundled matrices: %d read, %d unread (%s)", n, unread, tl_missing_hint(0));
}

static void round_trips_hold_in_pieces_of_a_few_bytes(void)
{
    /* every section crosses many pieces, and pieces end inside rows */
    static const char *pieces[] = {"io_piece=8", "io_piece=16", "io_piece=40"};
    for (int t = 0; t < 3; t++) {
        hspmv_csr A;
        int64_t len[300];
        for (int i = 0; i < 300; i++) len[i] = i % 7 == 0 ? 0 : 1 + i % 13;
        CHECK(tl_csr_random(&A, 300, 97, len, 0, 0, 5 + t) == HSPMV_OK, "generator");
        setenv("HSPMV_TEST", pieces[t], 1);
        round_trips(&A, pieces[t], 0);
        unsetenv("HSPMV_TEST");
        hspmv_csr_free(&A);
    }
}

static int round_trip_check(const hspmv_csr *A, const char *name, uint64_t seed)
{
    (void)seed;
    return round_trips(A, name, 0);
}

static void empty_matrices_round_trip(void)
{
    CHECK(tl_on_empty_matrices(round_trip_check) == HSPMV_OK, "generator");
}

/* Reads a hand-made file; returns the status, e gets the message. */
static int read_spec(const pf_spec *s, size_t cut, const char *name, hspmv_csr *A, hspmv_error *e)
{
    pf_buf B = pf_build(s);
    if (pf_write(tpath(name), &B, cut ? cut : B.n)) return -1;
    return hspmv_petsc_read(tpath(name), A, e);
}

static void the_good_file_reads_entry_for_entry_with_either_integer_size(void)
{
    static const int64_t rp[] = {0, 2, 2, 5};
    static const int32_t ci[] = {0, 2, 1, 2, 3};
    static const double v[] = {1.5, -2.0, 3.0, 0.0, 4.25};
    for (int isz = 4; isz <= 8; isz += 4) {
        pf_spec s = pf_good(isz);
        hspmv_csr A;
        hspmv_error e;
        int rc = read_spec(&s, 0, "good.petsc", &A, &e);
        CHECK(rc == HSPMV_OK, "%d-byte integers: %s", isz, e.msg);
        if (rc) continue;
        CHECK(A.nrows == 3 && A.ncols == 4 && A.nnz == 5, "sizes %lld %lld %lld", (long long)A.nrows,
              (long long)A.ncols, (long long)A.nnz);
        for (int i = 0; i < 4; i++) CHECK(A.rowptr[i] == rp[i], "rowptr[%d] = %lld", i, (long long)A.rowptr[i]);
        for (int k = 0; k < 5; k++)
            CHECK(A.colind[k] == ci[k] && A.val[k] == (hspmv_real)v[k], "entry %d: %d %g", k, A.colind[k],
                  (double)A.val[k]);
        hspmv_csr_free(&A);
    }
}

static void unsorted_rows_are_sorted_with_their_values(void)
{
    pf_spec s = pf_good(4);
    s.col[2] = 3; s.col[3] = 1; s.col[4] = 2;
    s.val[2] = 30; s.val[3] = 10; s.val[4] = 20;
    hspmv_csr A;
    hspmv_error e;
    int rc = read_spec(&s, 0, "unsorted.petsc", &A, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    if (rc) return;
    CHECK(A.colind[2] == 1 && A.colind[3] == 2 && A.colind[4] == 3, "columns %d %d %d", A.colind[2], A.colind[3],
          A.colind[4]);
    CHECK(A.val[2] == 10 && A.val[3] == 20 && A.val[4] == 30, "values %g %g %g", (double)A.val[2],
          (double)A.val[3], (double)A.val[4]);
    CHECK(hspmv_csr_validate(&A, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_csr_free(&A);
    /* a long unsorted row takes the other sort */
    hspmv_csr L = {0};
    pf_buf B;
    B.n = 0;
    pf_int(&B, 4, 1211216); pf_int(&B, 4, 1); pf_int(&B, 4, 100); pf_int(&B, 4, 100); pf_int(&B, 4, 100);
    for (int k = 0; k < 100; k++) pf_int(&B, 4, (k * 37) % 100);
    for (int k = 0; k < 100; k++) pf_dbl(&B, (double)((k * 37) % 100) + 0.5);
    CHECK(pf_write(tpath("long.petsc"), &B, B.n) == 0, "write");
    rc = hspmv_petsc_read(tpath("long.petsc"), &L, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    for (int k = 0; !rc && k < 100; k++)
        CHECK(L.colind[k] == k && L.val[k] == (hspmv_real)(k + 0.5), "entry %d: %d %g", k, L.colind[k],
              (double)L.val[k]);
    hspmv_csr_free(&L);
}

static void a_dense_native_file_reads_as_every_entry(void)
{
    pf_spec s = pf_good(4);
    s.nnz = -1; s.nrows = 2; s.ncols = 3; s.nlen = 0; s.ncol = 0; s.nval = 6;
    for (int k = 0; k < 6; k++) s.val[k] = k - 2.5;
    hspmv_csr A;
    hspmv_error e;
    int rc = read_spec(&s, 0, "dense.petsc", &A, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    if (rc) return;
    CHECK(A.nrows == 2 && A.ncols == 3 && A.nnz == 6 && A.rowptr[1] == 3 && A.rowptr[2] == 6, "sizes");
    for (int k = 0; k < 6; k++)
        CHECK(A.colind[k] == k % 3 && A.val[k] == (hspmv_real)(k - 2.5), "entry %d: %d %g", k, A.colind[k],
              (double)A.val[k]);
    hspmv_csr_free(&A);
}

static void bytes_after_the_matrix_are_ignored(void)
{
    pf_spec s = pf_good(4);
    pf_buf B = pf_build(&s);
    pf_int(&B, 4, 1211214); /* a vector follows, as PETSc files may hold */
    pf_int(&B, 4, 1);
    pf_dbl(&B, 7.0);
    CHECK(pf_write(tpath("more.petsc"), &B, B.n) == 0, "write");
    hspmv_csr A;
    hspmv_error e;
    CHECK(hspmv_petsc_read(tpath("more.petsc"), &A, &e) == HSPMV_OK && A.nnz == 5, "%s", e.msg);
    hspmv_csr_free(&A);
}

static void every_spoiled_file_is_refused_naming_the_file_row_and_byte(void)
{
    pf_bad bad[64];
    int n = pf_bad_files(bad);
    for (int t = 0; t < n; t++) {
        hspmv_csr A;
        hspmv_error e = {0, ""};
        int rc = read_spec(&bad[t].s, bad[t].cut, "bad.petsc", &A, &e);
        CHECK(rc == bad[t].code, "%s: status %d, expected %d (%s)", bad[t].what, rc, bad[t].code, e.msg);
        CHECK(strstr(e.msg, tpath("bad.petsc")) != NULL, "%s: message without the file: %s", bad[t].what, e.msg);
        for (int w = 0; w < 3 && bad[t].words[w]; w++)
            CHECK(strstr(e.msg, bad[t].words[w]) != NULL, "%s: '%s' not in: %s", bad[t].what, bad[t].words[w], e.msg);
        CHECK(A.rowptr == NULL && A.colind == NULL && A.val == NULL && A.nnz == 0, "%s: A not empty", bad[t].what);
    }
}

static void empty_missing_and_directory_files_are_refused(void)
{
    hspmv_csr A;
    hspmv_error e;
    pf_buf B;
    B.n = 0;
    CHECK(pf_write(tpath("empty.petsc"), &B, 0) == 0, "write");
    CHECK(hspmv_petsc_read(tpath("empty.petsc"), &A, &e) == HSPMV_ERR_FORMAT && strstr(e.msg, "empty file"), "%s",
          e.msg);
    CHECK(hspmv_petsc_read(tpath("no-such.petsc"), &A, &e) == HSPMV_ERR_IO && strstr(e.msg, "cannot open") &&
              strstr(e.msg, "No such file"), "%s", e.msg);
    CHECK(hspmv_petsc_read(tmpdir, &A, &e) == HSPMV_ERR_IO && strstr(e.msg, "directory"), "%s", e.msg);
    CHECK(!hspmv_petsc_is_matrix_file(tpath("no-such.petsc")) && !hspmv_petsc_is_matrix_file(tmpdir) &&
              !hspmv_petsc_is_matrix_file(NULL), "probe");
}

#ifdef HSPMV_SINGLE
static void values_beyond_float_are_refused_in_single_precision(void)
{
    pf_spec s = pf_good(4);
    s.val[4] = 1e300;
    hspmv_csr A;
    hspmv_error e;
    CHECK(read_spec(&s, 0, "big.petsc", &A, &e) == HSPMV_ERR_FORMAT && strstr(e.msg, "row 2") &&
              strstr(e.msg, "out of the float range") && strstr(e.msg, "byte 80"), "%s", e.msg);
}
#endif

static void writers_refuse_bad_matrices_and_leave_no_file(void)
{
    hspmv_csr A;
    hspmv_error e;
    CHECK(tl_csr_random(&A, 20, 20, NULL, 4, 0, 3) == HSPMV_OK, "generator");
    const char *p = tpath("refused.petsc"), *m = tpath("refused.mtx");
    CHECK(hspmv_petsc_write(p, &A, 2, &e) == HSPMV_ERR_ARG && strstr(e.msg, "4 or 8"), "%s", e.msg);
    A.val[5] = (hspmv_real)strtod("inf", NULL);
    CHECK(hspmv_petsc_write(p, &A, 4, &e) == HSPMV_ERR_ARG && strstr(e.msg, "non-finite") && strstr(e.msg, "row 1"),
          "%s", e.msg);
    CHECK(hspmv_mtx_write(m, &A, &e) == HSPMV_ERR_ARG && strstr(e.msg, "not finite"), "%s", e.msg);
    A.val[5] = 1;
    int32_t c = A.colind[1];
    A.colind[1] = A.colind[0];
    CHECK(hspmv_petsc_write(p, &A, 4, &e) == HSPMV_ERR_ARG && strstr(e.msg, "row 0"), "%s", e.msg);
    CHECK(hspmv_mtx_write(m, &A, &e) != HSPMV_OK && strstr(e.msg, m), "%s", e.msg);
    A.colind[1] = c;
    CHECK(file_size(p) < 0 && file_size(m) < 0, "a refused matrix left a file");
    CHECK(hspmv_petsc_write(tpath("no/such/dir.petsc"), &A, 4, &e) == HSPMV_ERR_IO && strstr(e.msg, "cannot create"),
          "%s", e.msg);
    /* a device that refuses every byte: the write error is reported and the device stays */
    if (access("/dev/full", W_OK) == 0) {
        CHECK(hspmv_petsc_write("/dev/full", &A, 4, &e) == HSPMV_ERR_IO && strstr(e.msg, "write failed"), "%s", e.msg);
        CHECK(hspmv_mtx_write("/dev/full", &A, &e) == HSPMV_ERR_IO && strstr(e.msg, "write failed"), "%s", e.msg);
        CHECK(access("/dev/full", F_OK) == 0, "/dev/full was removed");
    }
    hspmv_csr_free(&A);
}

static void matrix_market_values_are_written_exactly(void)
{
    hspmv_real v[] = {(hspmv_real)0.1, (hspmv_real)(1.0 / 3), (hspmv_real)-0.0, (hspmv_real)1e-310,
                      (hspmv_real)1.7e308, (hspmv_real)-12345678, (hspmv_real)3.0e-45, (hspmv_real)2.5,
                      (hspmv_real)0x1.fffffffffffffp-1, (hspmv_real)123456789012.25};
    int n = (int)(sizeof(v) / sizeof(v[0]));
    hspmv_csr A = {0}, B;
    hspmv_error e;
    int64_t rp[2] = {0, n};
    int32_t ci[16];
    for (int k = 0; k < n; k++) ci[k] = k;
    A.nrows = 1;
    A.ncols = n;
    A.nnz = n;
    A.rowptr = rp;
    A.colind = ci;
    A.val = v;
    for (int k = 0; k < n; k++)
        if (!isfinite(v[k])) v[k] = 1; /* 1.7e308 in single */
    CHECK(hspmv_mtx_write(tpath("exact.mtx"), &A, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(tl_read_csr(tpath("exact.mtx"), &B) == HSPMV_OK && same_csr(&A, &B), "values changed");
    for (int k = 0; k < n && B.val; k++)
        CHECK(!memcmp(&B.val[k], &v[k], sizeof(hspmv_real)), "value %d: %.17g became %.17g", k, (double)v[k],
              (double)B.val[k]);
    hspmv_csr_free(&B);
}

/* The offsets and pieces of a matrix too large to make: 3e8 x 3e8 with 3e9
   entries (and 8-byte integers), split over P ranks, against 128-bit
   arithmetic done here; the 2^31-1 mark of 32-bit headers. */
static void offsets_of_three_billion_entries_are_exact(void)
{
    const int64_t nr = 300000000, nz = 3000000000LL;
    static const int Ps[] = {1, 7, 16, 1000};
    for (int isz = 4; isz <= 8; isz += 4) {
        petsc_file f = {"big", isz, 0, nr, nr, isz == 4 ? INT32_MAX : nz, -1, -1};
        hspmv_error e;
        CHECK(hspmv_petsc_check_total(&f, nz, &e) == HSPMV_OK && f.nnz == nz, "total: %s", e.msg);
        __int128 hdr = 4 * isz, cols = hdr + (__int128)nr * isz, vals = cols + (__int128)nz * isz;
        __int128 end = vals + (__int128)nz * 8;
        CHECK(end == (isz == 4 ? 37200000016LL : 50400000032LL), "file bytes");
        for (int t = 0; t < 4; t++) {
            int P = Ps[t];
            int64_t prev_col_end = (int64_t)cols, prev_val_end = (int64_t)vals, prev_len_end = (int64_t)hdr;
            for (int p = 0; p < P; p++) {
                int64_t r0 = nr * p / P, r1 = nr * (p + 1) / P;
                int64_t k0 = (int64_t)((__int128)nz * p / P), k1 = (int64_t)((__int128)nz * (p + 1) / P);
                petsc_ranges g;
                hspmv_petsc_ranges_of(&f, r0, r1, k0, k1, &g);
                int ok = g.len_off == (int64_t)(hdr + (__int128)r0 * isz) && g.len_bytes == (r1 - r0) * isz &&
                         g.col_off == (int64_t)(cols + (__int128)k0 * isz) && g.col_bytes == (k1 - k0) * isz &&
                         g.val_off == (int64_t)(vals + (__int128)k0 * 8) && g.val_bytes == (k1 - k0) * 8 &&
                         g.len_off == prev_len_end && g.col_off == prev_col_end && g.val_off == prev_val_end;
                CHECK(ok, "isz %d, %d ranks, rank %d: offsets", isz, P, p);
                if (!ok) break;
                prev_len_end = g.len_off + g.len_bytes;
                prev_col_end = g.col_off + g.col_bytes;
                prev_val_end = g.val_off + g.val_bytes;
                /* each call moves one piece: all below 2^31 bytes */
                int64_t piece = hspmv_petsc_piece_bytes(), sum = 0, calls = 0;
                for (int64_t b = 0; b < g.val_bytes; b += piece, calls++) sum += g.val_bytes - b < piece ? g.val_bytes - b : piece;
                CHECK(piece < ((int64_t)1 << 31) && sum == g.val_bytes && calls == (g.val_bytes + piece - 1) / piece,
                      "pieces");
            }
            CHECK(prev_len_end == (int64_t)cols && prev_col_end == (int64_t)vals && prev_val_end == (int64_t)end,
                  "isz %d, %d ranks: the ranges do not tile the file", isz, P);
            CHECK(hspmv_petsc_off_val(&f, nz) == (int64_t)end, "end offset");
        }
        /* the header's count: clipped to PETSc's mark in 32-bit files */
        unsigned char b[32];
        hspmv_petsc_encode_header(b, isz, nr, nr, nz);
        petsc_file h = {"big", 0, 0, 0, 0, 0, 0, (int64_t)end};
        CHECK(hspmv_petsc_parse_header(&h, b, sizeof(b), &e) == HSPMV_OK && h.isz == isz && h.nrows == nr, "%s", e.msg);
        CHECK(h.nnz_header == (isz == 4 ? INT32_MAX : nz), "header count %lld", (long long)h.nnz_header);
        CHECK(hspmv_petsc_check_total(&h, nz, &e) == HSPMV_OK, "3e9 entries under the header: %s", e.msg);
        h.nnz = -1;
        if (isz == 4) CHECK(hspmv_petsc_check_total(&h, INT32_MAX - 1LL, &e) == HSPMV_ERR_FORMAT, "below the mark");
    }
}

static int progress_calls;
static void note_progress(int64_t done, int64_t total, void *ctx)
{
    (void)ctx;
    progress_calls += done > 0 && done <= total;
}

static void csr_read_of_a_petsc_file_reports_progress_and_bytes(void)
{
    hspmv_csr A, B;
    hspmv_read_opts o = {note_progress, NULL, 0};
    hspmv_read_info in;
    hspmv_error e;
    CHECK(tl_csr_random(&A, 500, 500, NULL, 9, 0, 8) == HSPMV_OK, "generator");
    CHECK(hspmv_petsc_write(tpath("progress.petsc"), &A, 4, &e) == HSPMV_OK, "%s", e.msg);
    setenv("HSPMV_TEST", "io_piece=1024", 1);
    progress_calls = 0;
    CHECK(hspmv_csr_read(tpath("progress.petsc"), &B, &o, &in, &e) == HSPMV_OK && same_csr(&A, &B), "%s", e.msg);
    unsetenv("HSPMV_TEST");
    CHECK(progress_calls > 10 && in.bytes == file_size(tpath("progress.petsc")) && !in.gzip && !in.array,
          "%d progress calls, %lld bytes", progress_calls, (long long)in.bytes);
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

static void each_failed_allocation_gives_nomem_and_an_empty_csr(void)
{
    pf_spec s = pf_good(4);
    pf_buf B = pf_build(&s);
    CHECK(pf_write(tpath("alloc.petsc"), &B, B.n) == 0, "write");
    int nomem = 0;
    for (long n = 1; n <= 4; n++) {
        hspmv_csr A;
        hspmv_error e;
        hspmv_alloc_fail_after(n);
        int rc = hspmv_petsc_read(tpath("alloc.petsc"), &A, &e);
        hspmv_alloc_fail_after(0);
        nomem += rc == HSPMV_ERR_NOMEM;
        CHECK(rc == HSPMV_ERR_NOMEM || rc == HSPMV_OK, "allocation %ld: status %d: %s", n, rc, e.msg);
        CHECK(rc == HSPMV_OK || (A.rowptr == NULL && A.colind == NULL && A.val == NULL), "allocation %ld: A not empty", n);
        hspmv_csr_free(&A);
    }
    CHECK(nomem == 4, "%d of 4 failed allocations reported", nomem);
}

int main(void)
{
    const char *t = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpdir, sizeof(tmpdir), "%s/hspmv_petsc_XXXXXX", t);
    if (!mkdtemp(tmpdir)) {
        printf("cannot make a temp folder in %s: %s\n0 passed, 1 failed\n", t, strerror(errno));
        return 1;
    }
    RUN(every_matrix_round_trips_through_petsc_and_matrix_market_bit_for_bit);
    RUN(round_trips_hold_in_pieces_of_a_few_bytes);
    RUN(empty_matrices_round_trip);
    RUN(the_good_file_reads_entry_for_entry_with_either_integer_size);
    RUN(unsorted_rows_are_sorted_with_their_values);
    RUN(a_dense_native_file_reads_as_every_entry);
    RUN(bytes_after_the_matrix_are_ignored);
    RUN(every_spoiled_file_is_refused_naming_the_file_row_and_byte);
    RUN(empty_missing_and_directory_files_are_refused);
#ifdef HSPMV_SINGLE
    RUN(values_beyond_float_are_refused_in_single_precision);
#endif
    RUN(writers_refuse_bad_matrices_and_leave_no_file);
    RUN(matrix_market_values_are_written_exactly);
    RUN(offsets_of_three_billion_entries_are_exact);
    RUN(csr_read_of_a_petsc_file_reports_progress_and_bytes);
    RUN(each_failed_allocation_gives_nomem_and_an_empty_csr);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    CHECK_DONE();
}
