/* petsc_write.c — CSR to a PETSc binary matrix file (what MatLoad reads),
   serially, through one staging buffer; every write and the close are
   checked, and a file that could not be written whole is removed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "petsc_bin.h"
#include "matrix_files.h"

typedef struct writer {
    const char *name;
    int fd;
    int64_t pos;
} writer;

static int write_exact(writer *w, const unsigned char *b, int64_t n, hspmv_error *err)
{
    int64_t put = 0;
    while (put < n) {
        ssize_t m = write(w->fd, b + put, (size_t)(n - put));
        if (m < 0 && errno == EINTR) continue;
        if (m <= 0)
            return hspmv_err(err, HSPMV_ERR_IO, "%s: write failed at byte %lld: %s", w->name,
                             (long long)(w->pos + put), m < 0 ? strerror(errno) : "no progress");
        put += m;
    }
    w->pos += n;
    return hspmv_ok(err);
}

/* Encodes and writes n items of esz bytes in pieces: section 0 lengths, 1 columns, 2 values. */
static int write_section(writer *w, const hspmv_csr *A, int section, int isz, unsigned char *buf, int64_t piece,
                         hspmv_error *err)
{
    int64_t n = section == 0 ? A->nrows : A->nnz;
    int esz = section == 2 ? PETSC_VAL_BYTES : isz, rc;
    int64_t per = piece / esz;
    for (int64_t i = 0; i < n; i += per) {
        int64_t m = n - i < per ? n - i : per;
        if (section == 0) hspmv_petsc_encode_lengths(A->rowptr + i, m, isz, buf);
        else if (section == 1) hspmv_petsc_encode_cols(A->colind + i, m, isz, buf);
        else hspmv_petsc_encode_vals(A->val + i, m, buf);
        if ((rc = write_exact(w, buf, m * esz, err))) return rc;
    }
    return hspmv_ok(err);
}

int hspmv_petsc_write(const char *path, const hspmv_csr *A, int index_bytes, hspmv_error *err)
{
    int isz = index_bytes ? index_bytes : 4, rc;
    if (!path) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_petsc_write: no file name");
    if (isz != 4 && isz != 8)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: index_bytes %d: PETSc integers have 4 or 8 bytes", path,
                         index_bytes);
    if ((rc = hspmv_petsc_check_writable(path, A, 0, err))) return rc;
    int64_t piece = hspmv_petsc_piece_bytes();
    unsigned char *buf = hspmv_malloc((size_t)piece);
    if (!buf) return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory for a write buffer", path);
    writer w = {path, open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), 0};
    if (w.fd < 0) {
        hspmv_free(buf);
        return hspmv_err(err, HSPMV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    }
    struct stat st;
    int regular = fstat(w.fd, &st) == 0 && S_ISREG(st.st_mode); /* only a file of ours is removed on failure */
    hspmv_petsc_encode_header(buf, isz, A->nrows, A->ncols, A->nnz);
    rc = write_exact(&w, buf, 4 * isz, err);
    for (int s = 0; s < 3 && !rc; s++) rc = write_section(&w, A, s, isz, buf, piece, err);
    if (close(w.fd) != 0 && !rc)
        rc = hspmv_err(err, HSPMV_ERR_IO, "%s: closing after %lld bytes failed: %s", path, (long long)w.pos,
                       strerror(errno));
    hspmv_free(buf);
    if (rc && regular) unlink(path); /* never leave half a matrix behind (but never remove a device) */
    return rc;
}
