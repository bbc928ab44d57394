/* petsc_read.c — a PETSc binary matrix file (MatView's layout) to CSR,
   serially: the file is read in pieces through one staging buffer, every
   number checked as it is decoded, so the peak is the CSR plus the buffer. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "petsc_bin.h"
#include "matrix_files.h"

typedef struct reader {
    petsc_file f;
    int fd;
    int64_t pos;        /* bytes read so far */
    unsigned char *buf; /* staging, piece bytes */
    int64_t piece;
    const hspmv_read_opts *opts;
} reader;

/* Reads exactly n bytes into buf; a short file is a truncation inside `what`. */
static int read_exact(reader *r, void *buf, int64_t n, const char *what, hspmv_error *err)
{
    char *p = buf;
    int64_t got = 0;
    while (got < n) {
        ssize_t m = read(r->fd, p + got, (size_t)(n - got));
        if (m < 0 && errno == EINTR) continue;
        if (m < 0)
            return hspmv_err(err, HSPMV_ERR_IO, "%s: read error at byte %lld: %s", r->f.name,
                             (long long)(r->pos + got), strerror(errno));
        if (m == 0)
            return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: truncated: the file ends at byte %lld, inside the %s",
                             r->f.name, (long long)(r->pos + got), what);
        got += m;
    }
    r->pos += n;
    if (r->opts && r->opts->progress) r->opts->progress(r->pos, r->f.size, r->opts->progress_ctx);
    return hspmv_ok(err);
}

/* Row lengths into rp[1..nrows], then their prefix sums; checks the total. */
static int read_lengths(reader *r, int64_t *rp, hspmv_error *err)
{
    const petsc_file *f = &r->f;
    int64_t per = r->piece / f->isz, total = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < f->nrows; i += per) {
        int64_t n = f->nrows - i < per ? f->nrows - i : per;
        int rc = read_exact(r, r->buf, n * f->isz, "row lengths", err);
        if (!rc) rc = hspmv_petsc_decode_lengths(f, r->buf, i, n, rp + i + 1, err);
        if (rc) return rc;
        for (int64_t q = i + 1; q <= i + n; q++) rp[q] = total += rp[q];
    }
    return hspmv_petsc_check_total(&r->f, total, err);
}

/* Column indices (esz = f.isz) or values (8 bytes) of every entry. */
static int read_entries(reader *r, const petsc_rows *R, int32_t *col, hspmv_real *val, hspmv_error *err)
{
    const petsc_file *f = &r->f;
    int esz = col ? f->isz : PETSC_VAL_BYTES;
    int64_t per = r->piece / esz;
    for (int64_t k = 0; k < f->nnz; k += per) {
        int64_t n = f->nnz - k < per ? f->nnz - k : per;
        int rc = read_exact(r, r->buf, n * esz, col ? "column indices" : "values", err);
        if (!rc) rc = col ? hspmv_petsc_decode_cols(f, r->buf, k, n, col + k, R, err)
                          : hspmv_petsc_decode_vals(f, r->buf, k, n, val + k, R, err);
        if (rc) return rc;
    }
    return hspmv_ok(err);
}

/* Reads up to n bytes (fewer only at the end of the file). */
static int read_upto(int fd, const char *name, unsigned char *b, int64_t n, int64_t *got, hspmv_error *err)
{
    *got = 0;
    while (*got < n) {
        ssize_t m = read(fd, b + *got, (size_t)(n - *got));
        if (m < 0 && errno == EINTR) continue;
        if (m < 0) return hspmv_err(err, HSPMV_ERR_IO, "%s: read error: %s", name, strerror(errno));
        if (m == 0) break;
        *got += m;
    }
    return hspmv_ok(err);
}

int hspmv_petsc_open(const char *path, petsc_file *f, int *fdp, hspmv_error *err)
{
    struct stat st;
    unsigned char hdr[32];
    int64_t n = 0, m = 0;
    int isz = 4, rc, fd;
    memset(f, 0, sizeof(*f));
    f->name = path;
    *fdp = -1;
    if (!path) return hspmv_err(err, HSPMV_ERR_ARG, "no file name given");
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return hspmv_err(err, HSPMV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    int ok = fstat(fd, &st) == 0;
    if (ok && S_ISDIR(st.st_mode)) {
        close(fd);
        return hspmv_err(err, HSPMV_ERR_IO, "'%s' is a directory, not a matrix file", path);
    }
    f->size = ok && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
    /* 8 bytes tell 32- from 64-bit integers; then the rest of the header
       (no seeking back, so a pipe works too) */
    rc = read_upto(fd, path, hdr, 8, &n, err);
    if (!rc && hspmv_petsc_sniff(hdr, (size_t)n, &isz)) rc = read_upto(fd, path, hdr + n, 4 * isz - n, &m, err);
    if (!rc) rc = hspmv_petsc_parse_header(f, hdr, (size_t)(n + m), err);
    if (!rc) rc = hspmv_petsc_check_size_lengths(f, err);
    if (rc) {
        close(fd);
        return rc;
    }
    *fdp = fd;
    return hspmv_ok(err);
}

static int read_all(reader *r, hspmv_csr *A, hspmv_error *err)
{
    petsc_file *f = &r->f;
    int rc;
    r->pos = hspmv_petsc_header_bytes(f);
    A->nrows = f->nrows;
    A->ncols = f->ncols;
    A->rowptr = hspmv_alloc_array((size_t)f->nrows + 1, sizeof(int64_t));
    if (!A->rowptr)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory for %lld row pointers", f->name,
                         (long long)f->nrows);
    if (!f->dense && (rc = read_lengths(r, A->rowptr, err))) return rc;
    if ((rc = hspmv_petsc_check_size(f, err))) return rc;
    A->nnz = f->nnz;
    A->colind = hspmv_alloc_array((size_t)(f->nnz ? f->nnz : 1), sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)(f->nnz ? f->nnz : 1), sizeof(hspmv_real));
    if (!A->colind || !A->val)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory for %lld entries", f->name, (long long)f->nnz);
    petsc_rows R = {A->rowptr, f->nrows, 0, 0};
    if (f->dense) hspmv_petsc_dense_rows(f, f->nrows, A->rowptr, A->colind);
    else if ((rc = read_entries(r, &R, A->colind, NULL, err))) return rc;
    if ((rc = read_entries(r, &R, NULL, A->val, err))) return rc;
    if (!f->dense) return hspmv_petsc_sort_rows(f, &R, A->colind, A->val, err);
    return hspmv_ok(err);
}

int hspmv_petsc_read_opts(const char *path, hspmv_csr *A, const hspmv_read_opts *opts, hspmv_read_info *info,
                          hspmv_error *err)
{
    reader r;
    int rc;
    if (info) memset(info, 0, sizeof(*info));
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_petsc_read: A is NULL");
    memset(A, 0, sizeof(*A));
    memset(&r, 0, sizeof(r));
    if ((rc = hspmv_test_check(hspmv_test_spec(), err))) return rc; /* a bad test switch is refused */
    if ((rc = hspmv_petsc_open(path, &r.f, &r.fd, err))) return rc;
    r.opts = opts;
    r.piece = hspmv_petsc_piece_bytes();
    if ((rc = hspmv_petsc_check_memory(&r.f, r.piece, err))) { /* the header's sizes, before any allocation */
        close(r.fd);
        return rc;
    }
    r.buf = hspmv_malloc((size_t)r.piece);
    rc = r.buf ? read_all(&r, A, err) : hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory for a read buffer", path);
    hspmv_free(r.buf);
    close(r.fd);
    if (rc) {
        hspmv_csr_free(A);
        return rc;
    }
    if (info) {
        info->bytes = r.pos;
        info->array = r.f.dense;
    }
    return hspmv_ok(err);
}

int hspmv_petsc_read(const char *path, hspmv_csr *A, hspmv_error *err)
{
    return hspmv_petsc_read_opts(path, A, NULL, NULL, err);
}

/* Only regular files are looked at: reading the first bytes of a pipe
   would take them from the Matrix Market reader. */
int hspmv_petsc_is_matrix_file(const char *path)
{
    unsigned char b[8];
    struct stat st;
    int fd;
    /* only a regular file can be PETSc binary here; never open anything else
       (a FIFO without a writer would block the open) */
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return 0;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, b, sizeof(b)) : 0;
    close(fd);
    return n > 0 && hspmv_petsc_sniff_any(b, (size_t)n);
}
