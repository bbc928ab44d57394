/* mtx_write.c — CSR to a Matrix Market file (coordinate real general) with
   every value written in the fewest digits that read back to the same bits,
   so that writing and reading again gives the same CSR. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "matrix_files.h"
#include "util.h"

/* Decimal digits of v >= 0 into p; returns the end. */
static char *put_uint(char *p, uint64_t v)
{
    char t[24];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = t[--n];
    return p;
}

/* v as the reader will see it: parsed as a double, then rounded to hspmv_real. */
static int reads_back(const char *s, hspmv_real v)
{
    hspmv_real r = (hspmv_real)strtod(s, NULL);
    return memcmp(&r, &v, sizeof(r)) == 0;
}

/* The shortest of %.{lo..hi}g that reads back exactly; hex as the last resort. */
static char *put_real(char *p, hspmv_real v)
{
    double d = (double)v;
    if (d == floor(d) && fabs(d) < 1e15 && !(d == 0 && signbit(d))) { /* integers, the common stencil case */
        if (d < 0) *p++ = '-';
        return put_uint(p, (uint64_t)fabs(d));
    }
    int lo = sizeof(hspmv_real) == 8 ? 15 : 6, hi = sizeof(hspmv_real) == 8 ? 17 : 9;
    for (int q = lo; q <= hi; q++) {
        int n = snprintf(p, 40, "%.*g", q, d);
        if (reads_back(p, v)) return p + n;
    }
    return p + snprintf(p, 40, "%a", d);
}

int hspmv_mtx_write(const char *path, const hspmv_csr *A, hspmv_error *err)
{
    int rc;
    if (!path) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_mtx_write: no file name");
    if ((rc = hspmv_csr_validate(A, err))) {
        char m[sizeof(err->msg)];
        snprintf(m, sizeof(m), "%s", err ? err->msg : "");
        return hspmv_err(err, rc, "%s: not written: %s", path, m);
    }
    for (int64_t k = 0; k < A->nnz; k++)
        if (!isfinite(A->val[k]))
            return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: entry %lld is not finite", path, (long long)k);
    FILE *fp = fopen(path, "w");
    if (!fp) return hspmv_err(err, HSPMV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    struct stat st;
    int regular = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode); /* only a file of ours is removed */
    size_t cap = (size_t)1 << 20, len = 0;
    char *buf = malloc(cap);
    int nomem = !buf, bad = nomem;
    if (buf) {
        len = (size_t)snprintf(buf, cap, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
                               (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
        for (int64_t i = 0; i < A->nrows && !bad; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                if (len > cap - 128) {
                    bad |= fwrite(buf, 1, len, fp) != len;
                    len = 0;
                }
                char *p = buf + len;
                p = put_uint(p, (uint64_t)i + 1);
                *p++ = ' ';
                p = put_uint(p, (uint64_t)A->colind[k] + 1);
                *p++ = ' ';
                p = put_real(p, A->val[k]);
                *p++ = '\n';
                len = (size_t)(p - buf);
            }
        if (!bad) bad |= fwrite(buf, 1, len, fp) != len;
    }
    int saved = errno;
    bad |= ferror(fp) != 0;
    if (fclose(fp) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    free(buf);
    if (bad) {
        if (regular) remove(path);
        if (nomem) return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory for a write buffer", path);
        return hspmv_err(err, HSPMV_ERR_IO, "%s: write failed: %s", path, strerror(saved));
    }
    return hspmv_ok(err);
}
