/* petsc_format.c — PETSc's binary matrix layout: the header, the byte
   offsets (64-bit), big-endian decoding with every check, and encoding.
   The serial and the MPI-IO readers share these, so their messages match. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "petsc_bin.h"

/* More entries than this are refused: offsets stay far from 2^63. */
#define PETSC_NNZ_LIMIT ((int64_t)1 << 58)

static inline uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static inline int64_t get_int(const unsigned char *p, int isz)
{
    return isz == 4 ? (int64_t)(int32_t)be32(p) : (int64_t)be64(p);
}

static inline void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline void put_int(unsigned char *p, int isz, int64_t v)
{
    if (isz == 4) {
        put32(p, (uint32_t)(int32_t)v);
    } else {
        put32(p, (uint32_t)((uint64_t)v >> 32));
        put32(p + 4, (uint32_t)v);
    }
}

int hspmv_petsc_sniff(const unsigned char *b, size_t n, int *isz)
{
    if (n >= 4 && be32(b) == PETSC_MAT_CLASSID) {
        *isz = 4;
        return 1;
    }
    if (n >= 8 && be64(b) == PETSC_MAT_CLASSID) {
        *isz = 8;
        return 1;
    }
    return 0;
}

/* 1 when b starts with class id `id` little-endian (a 4-byte integer, or
   the low half of an 8-byte one: the same first 4 bytes). */
static int petsc_id_le(const unsigned char *b, size_t n, uint32_t id)
{
    return n >= 4 && ((uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0]) == id;
}

int hspmv_petsc_sniff_any(const unsigned char *b, size_t n)
{
    int isz;
    if (hspmv_petsc_sniff(b, n, &isz)) return 1;
    if (n < 4) return 0;
    if (be32(b) == PETSC_VEC_CLASSID || (n >= 8 && be64(b) == PETSC_VEC_CLASSID)) return 1;
    return petsc_id_le(b, n, PETSC_MAT_CLASSID) || petsc_id_le(b, n, PETSC_VEC_CLASSID);
}

static int bad_class(const petsc_file *f, const unsigned char *b, size_t n, hspmv_error *err)
{
    if (n == 0) return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: empty file, not a PETSc binary matrix", f->name);
    if (n < 4)
        return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: %zu bytes, too short for a PETSc binary matrix", f->name, n);
    uint32_t id = be32(b);
    if (id == PETSC_VEC_CLASSID || (n >= 8 && be64(b) == PETSC_VEC_CLASSID))
        return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: PETSc class id %d (a Vec), not a matrix", f->name,
                         PETSC_VEC_CLASSID);
    if (petsc_id_le(b, n, PETSC_MAT_CLASSID) || petsc_id_le(b, n, PETSC_VEC_CLASSID))
        return hspmv_err(err, HSPMV_ERR_FORMAT,
                         "%s: little-endian PETSc file (class id %d byte-swapped); PETSc binary files are "
                         "big-endian", f->name, petsc_id_le(b, n, PETSC_MAT_CLASSID) ? PETSC_MAT_CLASSID
                                                                                       : PETSC_VEC_CLASSID);
    return hspmv_err(err, HSPMV_ERR_FORMAT,
                     "%s: not a PETSc binary matrix (its first 4 bytes are 0x%08x; a matrix starts with "
                     "class id %d = 0x%08x)", f->name, id, PETSC_MAT_CLASSID, PETSC_MAT_CLASSID);
}

int hspmv_petsc_parse_header(petsc_file *f, const unsigned char *b, size_t n, hspmv_error *err)
{
    int isz;
    if (!hspmv_petsc_sniff(b, n, &isz)) return bad_class(f, b, n, err);
    if (n < (size_t)(4 * isz))
        return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: truncated: %zu bytes, a PETSc matrix header needs %d",
                         f->name, n, 4 * isz);
    f->isz = isz;
    f->nrows = get_int(b + isz, isz);
    f->ncols = get_int(b + 2 * isz, isz);
    f->nnz_header = get_int(b + 3 * isz, isz);
    f->nnz = -1;
    f->dense = 0;
    const char *what[2] = {"row", "column"};
    int64_t sz[2] = {f->nrows, f->ncols};
    for (int d = 0; d < 2; d++) {
        if (sz[d] < 0)
            return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: negative %s count %lld (byte %d)", f->name, what[d],
                             (long long)sz[d], (d + 1) * isz);
        if (sz[d] > INT32_MAX)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "%s: %lld %ss exceed 2^31-1 (32-bit column indices)",
                             f->name, (long long)sz[d], what[d]);
    }
    if (f->nnz_header == -1) { /* MATRIX_BINARY_FORMAT_DENSE */
        f->dense = 1;
        f->nnz = f->nrows * f->ncols;
        if (f->nnz > PETSC_NNZ_LIMIT)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "%s: a dense %lld x %lld matrix is too large", f->name,
                             (long long)f->nrows, (long long)f->ncols);
    } else if (f->nnz_header < 0) {
        return hspmv_err(err, HSPMV_ERR_FORMAT,
                         "%s: nonzero count %lld (byte %d): neither a count nor -1 (dense)", f->name,
                         (long long)f->nnz_header, 3 * isz);
    }
    return hspmv_ok(err);
}

int64_t hspmv_petsc_header_bytes(const petsc_file *f) { return 4 * (int64_t)f->isz; }
int64_t hspmv_petsc_off_len(const petsc_file *f, int64_t i) { return hspmv_petsc_header_bytes(f) + i * f->isz; }
int64_t hspmv_petsc_off_col(const petsc_file *f, int64_t k) { return hspmv_petsc_off_len(f, f->nrows) + k * f->isz; }

int64_t hspmv_petsc_off_val(const petsc_file *f, int64_t k)
{
    if (f->dense) return hspmv_petsc_header_bytes(f) + k * PETSC_VAL_BYTES;
    return hspmv_petsc_off_col(f, f->nnz) + k * PETSC_VAL_BYTES;
}

int hspmv_petsc_check_size_lengths(const petsc_file *f, hspmv_error *err)
{
    if (f->size < 0 || f->dense) return hspmv_ok(err);
    int64_t need = hspmv_petsc_off_len(f, f->nrows);
    if (f->size < need)
        return hspmv_err(err, HSPMV_ERR_FORMAT,
                         "%s: truncated: the file has %lld bytes, but the header and %lld row lengths need %lld",
                         f->name, (long long)f->size, (long long)f->nrows, (long long)need);
    return hspmv_ok(err);
}

int hspmv_petsc_check_size(const petsc_file *f, hspmv_error *err)
{
    if (f->size < 0) return hspmv_ok(err);
    int64_t need = hspmv_petsc_off_val(f, f->nnz), n = f->nnz;
    /* the value size is not in the header: a file of exactly 4 or 16 bytes
       per value comes from a single-precision or a complex PETSc build */
    if (n > 0 && (f->size == need - 4 * n || f->size == need + 8 * n))
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                         "%s: %lld bytes hold %d-byte values (a %s PETSc build wrote it): only real double "
                         "values are read", f->name, (long long)f->size, f->size < need ? 4 : 16,
                         f->size < need ? "single-precision" : "complex");
    if (f->size >= need) return hspmv_ok(err);
    const char *where = f->dense || f->size >= hspmv_petsc_off_val(f, 0) ? "values"
                        : f->size >= hspmv_petsc_off_col(f, 0)         ? "column indices"
                                                                 : "row lengths";
    return hspmv_err(err, HSPMV_ERR_FORMAT,
                     "%s: truncated: the file has %lld bytes, but %lld x %lld with %lld entries needs %lld (it "
                     "ends inside the %s)", f->name, (long long)f->size, (long long)f->nrows,
                     (long long)f->ncols, (long long)f->nnz, (long long)need, where);
}

int hspmv_petsc_check_total(petsc_file *f, int64_t total, hspmv_error *err)
{
    int64_t h = f->nnz_header;
    if (f->isz == 4 && h == INT32_MAX) { /* PETSc writes min(count, 2^31-1) */
        if (total < h)
            return hspmv_err(err, HSPMV_ERR_FORMAT,
                             "%s: the row lengths add up to %lld entries, but the header (byte 12) says "
                             "2147483647, PETSc's mark for 2^31-1 or more", f->name, (long long)total);
    } else if (total != h) {
        return hspmv_err(err, HSPMV_ERR_FORMAT,
                         "%s: the row lengths add up to %lld entries, but the header (byte %d) says %lld", f->name,
                         (long long)total, 3 * f->isz, (long long)h);
    }
    if (total > PETSC_NNZ_LIMIT)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "%s: %lld entries are more than 2^58", f->name,
                         (long long)total);
    f->nnz = total;
    return hspmv_ok(err);
}

int64_t hspmv_petsc_nnz_most(const petsc_file *f)
{
    int64_t k = f->nnz >= 0 ? f->nnz : f->nnz_header, left;
    if (f->size < 0 || k <= 0) return k > 0 ? k : 0;
    if (f->dense) left = (f->size - hspmv_petsc_header_bytes(f)) / PETSC_VAL_BYTES;
    else left = (f->size - hspmv_petsc_off_col(f, 0)) / (f->isz + PETSC_VAL_BYTES);
    if (left < 0) left = 0;
    return left < k ? left : k;
}

int hspmv_petsc_check_memory(const petsc_file *f, int64_t piece, hspmv_error *err)
{
    const double r = sizeof(hspmv_real), n = (double)f->nrows;
    int64_t k = hspmv_petsc_nnz_most(f);
    double csr = 8 * (n + 1) + (4 + r) * (double)k, vec = r * (n + (double)f->ncols);
    char what[200];
    snprintf(what, sizeof(what), "a %lld x %lld matrix of %lld entries (CSR %.3g GB, x and y %.3g GB)",
             (long long)f->nrows, (long long)f->ncols, (long long)k, csr / 1e9, vec / 1e9);
    return hspmv_mem_check(csr + vec + (double)piece, f->name, 0, what, err);
}

void hspmv_petsc_ranges_of(const petsc_file *f, int64_t r0, int64_t r1, int64_t k0, int64_t k1, petsc_ranges *o)
{
    o->len_off = f->dense ? 0 : hspmv_petsc_off_len(f, r0);
    o->len_bytes = f->dense ? 0 : (r1 - r0) * f->isz;
    o->col_off = f->dense ? 0 : hspmv_petsc_off_col(f, k0);
    o->col_bytes = f->dense ? 0 : (k1 - k0) * f->isz;
    o->val_off = hspmv_petsc_off_val(f, k0);
    o->val_bytes = (k1 - k0) * PETSC_VAL_BYTES;
}

int64_t hspmv_petsc_piece_bytes(void)
{
    int64_t v = hspmv_test_int(hspmv_test_spec(), "io_piece", PETSC_PIECE_DEFAULT); /* 8..2^30 (settings.c) */
    return v & ~(int64_t)7;
}

/* The file row of entry k (the row whose entries hold it). */
static int64_t row_of(const petsc_rows *R, int64_t k)
{
    int64_t kk = k - R->k0, lo = 0, hi = R->n + 1; /* first j with rp[j] > kk */
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (R->rp[m] > kk) hi = m;
        else lo = m + 1;
    }
    return R->row0 + lo - 1;
}

int hspmv_petsc_decode_lengths(const petsc_file *f, const unsigned char *b, int64_t row0, int64_t n, int64_t *len,
                         hspmv_error *err)
{
    const int isz = f->isz;
    const int64_t nc = f->ncols;
    int bad = 0;
    if (isz == 4) {
        for (int64_t i = 0; i < n; i++) {
            int64_t v = (int32_t)be32(b + 4 * i);
            bad |= v < 0 || v > nc;
            len[i] = v;
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            int64_t v = (int64_t)be64(b + 8 * i);
            bad |= v < 0 || v > nc;
            len[i] = v;
        }
    }
    if (bad)
        for (int64_t i = 0; i < n; i++)
            if (len[i] < 0 || len[i] > nc)
                return hspmv_err(err, HSPMV_ERR_FORMAT,
                                 "%s: row %lld has length %lld (byte %lld), outside 0..%lld (the column count)",
                                 f->name, (long long)(row0 + i), (long long)len[i],
                                 (long long)hspmv_petsc_off_len(f, row0 + i), (long long)nc);
    return hspmv_ok(err);
}

int hspmv_petsc_decode_cols(const petsc_file *f, const unsigned char *b, int64_t k0, int64_t n, int32_t *col,
                      const petsc_rows *R, hspmv_error *err)
{
    const uint64_t nc = (uint64_t)f->ncols; /* negatives wrap above nc */
    int64_t badk = -1, badv = 0;
    if (f->isz == 4) {
        int bad = 0;
        for (int64_t k = 0; k < n; k++) {
            uint32_t v = be32(b + 4 * k);
            bad |= v >= nc;
            col[k] = (int32_t)v;
        }
        for (int64_t k = 0; bad && k < n; k++)
            if ((uint64_t)(uint32_t)col[k] >= nc) {
                badk = k;
                badv = col[k];
                break;
            }
    } else {
        for (int64_t k = 0; k < n; k++) {
            uint64_t v = be64(b + 8 * k);
            if (v >= nc) {
                badk = k;
                badv = (int64_t)v;
                break;
            }
            col[k] = (int32_t)v;
        }
    }
    if (badk >= 0)
        return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: row %lld: column index %lld (byte %lld) outside 0..%lld",
                         f->name, (long long)row_of(R, k0 + badk), (long long)badv,
                         (long long)hspmv_petsc_off_col(f, k0 + badk), (long long)f->ncols - 1);
    return hspmv_ok(err);
}

int hspmv_petsc_decode_vals(const petsc_file *f, const unsigned char *b, int64_t k0, int64_t n, hspmv_real *val,
                      const petsc_rows *R, hspmv_error *err)
{
    int bad = 0;
    for (int64_t k = 0; k < n; k++) {
        uint64_t u = be64(b + 8 * k);
        double d;
        memcpy(&d, &u, sizeof(d));
        hspmv_real v = (hspmv_real)d;
        bad |= !isfinite(v);
        val[k] = v;
    }
    if (!bad) return hspmv_ok(err);
    for (int64_t k = 0; k < n; k++) {
        if (isfinite(val[k])) continue;
        uint64_t u = be64(b + 8 * k);
        double d;
        memcpy(&d, &u, sizeof(d));
        long long row = (long long)row_of(R, k0 + k), at = (long long)hspmv_petsc_off_val(f, k0 + k);
        if (!isfinite(d))
            return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: row %lld: non-finite value %s (byte %lld): inf and nan "
                             "are not accepted", f->name, row, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf", at);
        return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: row %lld: value %.17g (byte %lld) is out of the float range",
                         f->name, row, d, at);
    }
    return hspmv_ok(err);
}

/* (column, value) pairs of one unsorted row, for qsort. */
typedef struct { int32_t c; hspmv_real v; } cv_pair;

static int cmp_pair(const void *a, const void *b)
{
    int32_t x = ((const cv_pair *)a)->c, y = ((const cv_pair *)b)->c;
    return (x > y) - (x < y);
}

/* Sorts one row by column; returns 0, or -1 when out of memory. */
static int sort_row(int32_t *c, hspmv_real *v, int64_t n)
{
    if (n <= 32) { /* insertion sort: short rows */
        for (int64_t i = 1; i < n; i++) {
            int32_t ck = c[i];
            hspmv_real vk = v[i];
            int64_t j = i - 1;
            for (; j >= 0 && c[j] > ck; j--) {
                c[j + 1] = c[j];
                v[j + 1] = v[j];
            }
            c[j + 1] = ck;
            v[j + 1] = vk;
        }
        return 0;
    }
    cv_pair *p = malloc(sizeof(*p) * (size_t)n);
    if (!p) return -1;
    for (int64_t i = 0; i < n; i++) p[i] = (cv_pair){c[i], v[i]};
    qsort(p, (size_t)n, sizeof(*p), cmp_pair);
    for (int64_t i = 0; i < n; i++) {
        c[i] = p[i].c;
        v[i] = p[i].v;
    }
    free(p);
    return 0;
}

int hspmv_petsc_sort_rows(const petsc_file *f, const petsc_rows *R, int32_t *col, hspmv_real *val, hspmv_error *err)
{
    const int64_t *rp = R->rp;
    for (int64_t i = 0; i < R->n; i++) {
        int64_t b = rp[i], e = rp[i + 1], k = b + 1;
        for (; k < e && col[k] > col[k - 1]; k++) {}
        if (k >= e) continue; /* strictly ascending: the usual case */
        if (col[k] != col[k - 1] && sort_row(col + b, val + b, e - b))
            return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory sorting row %lld", f->name,
                             (long long)(R->row0 + i));
        for (k = b + 1; k < e; k++)
            if (col[k] == col[k - 1])
                return hspmv_err(err, HSPMV_ERR_FORMAT, "%s: row %lld holds column %d twice (its columns start "
                                 "at byte %lld)", f->name, (long long)(R->row0 + i), col[k],
                                 (long long)hspmv_petsc_off_col(f, R->k0 + b));
    }
    return hspmv_ok(err);
}

void hspmv_petsc_dense_rows(const petsc_file *f, int64_t n, int64_t *rp, int32_t *col)
{
    rp[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < f->ncols; j++) col[i * f->ncols + j] = (int32_t)j;
        rp[i + 1] = rp[i] + f->ncols;
    }
}

void hspmv_petsc_encode_header(unsigned char *b, int isz, int64_t nrows, int64_t ncols, int64_t nnz)
{
    if (isz == 4 && nnz > INT32_MAX) nnz = INT32_MAX;
    put_int(b, isz, PETSC_MAT_CLASSID);
    put_int(b + isz, isz, nrows);
    put_int(b + 2 * isz, isz, ncols);
    put_int(b + 3 * isz, isz, nnz);
}

void hspmv_petsc_encode_lengths(const int64_t *rp, int64_t n, int isz, unsigned char *out)
{
    for (int64_t i = 0; i < n; i++) put_int(out + i * isz, isz, rp[i + 1] - rp[i]);
}

void hspmv_petsc_encode_cols(const int32_t *col, int64_t n, int isz, unsigned char *out)
{
    if (isz == 4)
        for (int64_t k = 0; k < n; k++) put32(out + 4 * k, (uint32_t)col[k]);
    else
        for (int64_t k = 0; k < n; k++) put_int(out + 8 * k, 8, col[k]);
}

void hspmv_petsc_encode_vals(const hspmv_real *val, int64_t n, unsigned char *out)
{
    for (int64_t k = 0; k < n; k++) {
        double d = (double)val[k];
        uint64_t u;
        memcpy(&u, &d, sizeof(u));
        put32(out + 8 * k, (uint32_t)(u >> 32));
        put32(out + 8 * k + 4, (uint32_t)u);
    }
}

int hspmv_petsc_check_writable(const char *name, const hspmv_csr *A, int64_t row0, hspmv_error *err)
{
    if (!A || A->nrows < 0 || A->ncols < 0 || A->ncols > INT32_MAX || A->nrows > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: bad matrix sizes", name);
    if (A->nrows > 0 && !A->rowptr) return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: rowptr is NULL", name);
    const int64_t *rp = A->rowptr;
    if (A->nrows > 0 && (rp[0] != 0 || rp[A->nrows] != A->nnz))
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: rowptr[0] = %lld and rowptr[nrows] = %lld, nnz = %lld",
                         name, (long long)rp[0], (long long)rp[A->nrows], (long long)A->nnz);
    if (A->nrows == 0 && A->nnz != 0)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: no rows but nnz = %lld", name, (long long)A->nnz);
    if (A->nnz > 0 && (!A->colind || !A->val))
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: colind or val is NULL", name);
    for (int64_t i = 0; i < A->nrows; i++) {
        if (rp[i + 1] < rp[i])
            return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: rowptr decreases at row %lld", name,
                             (long long)(row0 + i));
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            if (A->colind[k] < 0 || A->colind[k] >= A->ncols || (k > rp[i] && A->colind[k] <= A->colind[k - 1]))
                return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: row %lld: column %d outside 0..%lld or "
                                 "not ascending", name, (long long)(row0 + i), A->colind[k], (long long)A->ncols - 1);
            if (!isfinite(A->val[k]))
                return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: row %lld: column %d holds a non-finite "
                                 "value", name, (long long)(row0 + i), A->colind[k]);
        }
    }
    return hspmv_ok(err);
}
