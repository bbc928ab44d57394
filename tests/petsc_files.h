/* petsc_files.h — hand-made PETSc binary files for the tests (serial and
   MPI): a small good matrix in 4- or 8-byte integers and every way to spoil
   it, built byte by byte, big-endian, without the library's encoder. */
#ifndef HSPMV_TEST_PETSC_FILES_H
#define HSPMV_TEST_PETSC_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hspmv.h"

typedef struct pf_buf {
    unsigned char b[4096];
    size_t n;
} pf_buf;

static inline void pf_int(pf_buf *B, int isz, int64_t v)
{
    for (int i = isz - 1; i >= 0; i--) B->b[B->n++] = (unsigned char)((uint64_t)v >> (8 * i));
}

static inline void pf_dbl(pf_buf *B, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    pf_int(B, 8, (int64_t)u);
}

/* The good matrix G, 3 x 4, 5 entries (an empty row, an explicit zero):
     row 0: (0, 1.5) (2, -2)      row 1: -      row 2: (1, 3) (2, 0) (3, 4.25)
   32-bit file: lengths at bytes 16+4i, columns at 28+4k, values at 48+8k, 88 bytes.
   64-bit file: lengths at 32+8i, columns at 56+8k, values at 96+8k, 136 bytes. */
typedef struct pf_spec {
    int isz;
    int64_t classid, nrows, ncols, nnz;
    int64_t len[8];
    int nlen;
    int64_t col[16];
    int ncol;
    double val[16];
    int nval;
} pf_spec;

static inline pf_spec pf_good(int isz)
{
    pf_spec s = {isz, 1211216, 3, 4, 5, {2, 0, 3}, 3, {0, 2, 1, 2, 3}, 5, {1.5, -2.0, 3.0, 0.0, 4.25}, 5};
    return s;
}

static inline pf_buf pf_build(const pf_spec *s)
{
    pf_buf B;
    B.n = 0;
    pf_int(&B, s->isz, s->classid);
    pf_int(&B, s->isz, s->nrows);
    pf_int(&B, s->isz, s->ncols);
    pf_int(&B, s->isz, s->nnz);
    for (int i = 0; i < s->nlen; i++) pf_int(&B, s->isz, s->len[i]);
    for (int k = 0; k < s->ncol; k++) pf_int(&B, s->isz, s->col[k]);
    for (int k = 0; k < s->nval; k++) pf_dbl(&B, s->val[k]);
    return B;
}

/* Writes the first n bytes of B (all when n > B->n); 0 on success. */
static inline int pf_write(const char *path, const pf_buf *B, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    if (n > B->n) n = B->n;
    size_t w = n ? fwrite(B->b, 1, n, f) : 0;
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* A spoiled file: what changes, the status the reader must give and words
   its message must hold (the file name is checked by the caller). */
typedef struct pf_bad {
    const char *what;
    pf_spec s;
    size_t cut; /* keep only this many bytes (0: all) */
    int code;   /* HSPMV_ERR_* */
    const char *words[3];
} pf_bad;

/* Fills bad[] with every spoiled variant of G; returns how many. */
static inline int pf_bad_files(pf_bad *bad)
{
    int n = 0;
    pf_spec g = pf_good(4), g8 = pf_good(8), s;
#define PF_ADD(w, spec, c, code_, a, b_, d)                                          \
    do {                                                                            \
        pf_bad x_ = {w, spec, c, code_, {a, b_, d}};                                \
        bad[n++] = x_;                                                              \
    } while (0)
    s = g; s.classid = 1211215;
    PF_ADD("wrong class id", s, 0, HSPMV_ERR_FORMAT, "not a PETSc binary matrix", "0x00127b4f", "1211216");
    s = g; s.classid = 1211214;
    PF_ADD("vector class id", s, 0, HSPMV_ERR_FORMAT, "PETSc class id 1211214 (a Vec), not a matrix", NULL, NULL);
    s = g; s.classid = 0x507b1200;
    PF_ADD("little-endian class id", s, 0, HSPMV_ERR_FORMAT, "little-endian PETSc file", NULL, NULL);
    PF_ADD("header cut at 12 bytes", g, 12, HSPMV_ERR_FORMAT, "truncated: 12 bytes", "needs 16", NULL);
    PF_ADD("three bytes", g, 3, HSPMV_ERR_FORMAT, "3 bytes, too short", NULL, NULL);
    s = g; s.nrows = -3;
    PF_ADD("negative rows", s, 0, HSPMV_ERR_FORMAT, "negative row count -3", "(byte 4)", NULL);
    s = g; s.ncols = -1;
    PF_ADD("negative columns", s, 0, HSPMV_ERR_FORMAT, "negative column count -1", "(byte 8)", NULL);
    s = g8; s.nrows = (int64_t)1 << 31;
    PF_ADD("2^31 rows", s, 0, HSPMV_ERR_UNSUPPORTED, "2147483648 rows exceed 2^31-1", NULL, NULL);
    s = g; s.nnz = -5;
    PF_ADD("count -5", s, 0, HSPMV_ERR_FORMAT, "nonzero count -5 (byte 12)", NULL, NULL);
    PF_ADD("cut in the row lengths", g, 22, HSPMV_ERR_FORMAT, "truncated", "3 row lengths need 28", NULL);
    PF_ADD("cut in the columns", g, 40, HSPMV_ERR_FORMAT, "truncated: the file has 40 bytes", "ends inside the column indices", NULL);
    PF_ADD("cut in the values", g, 80, HSPMV_ERR_FORMAT, "truncated: the file has 80 bytes", "needs 88", "inside the values");
    s = g; s.nnz = 6;
    PF_ADD("count is not the lengths' sum", s, 0, HSPMV_ERR_FORMAT, "add up to 5 entries", "(byte 12) says 6", NULL);
    s = g; s.len[2] = 5;
    PF_ADD("row longer than the columns", s, 0, HSPMV_ERR_FORMAT, "row 2 has length 5 (byte 24)", "outside 0..4", NULL);
    s = g; s.len[1] = -1; s.len[2] = 4;
    PF_ADD("negative row length", s, 0, HSPMV_ERR_FORMAT, "row 1 has length -1 (byte 20)", NULL, NULL);
    s = g; s.col[4] = 4;
    PF_ADD("column past the end", s, 0, HSPMV_ERR_FORMAT, "row 2: column index 4 (byte 44)", "outside 0..3", NULL);
    s = g; s.col[1] = -1;
    PF_ADD("negative column", s, 0, HSPMV_ERR_FORMAT, "row 0: column index -1 (byte 32)", NULL, NULL);
    s = g; s.val[3] = strtod("nan", NULL);
    PF_ADD("nan value", s, 0, HSPMV_ERR_FORMAT, "row 2: non-finite value nan (byte 72)", NULL, NULL);
    s = g; s.val[0] = -strtod("inf", NULL);
    PF_ADD("-inf value", s, 0, HSPMV_ERR_FORMAT, "row 0: non-finite value -inf (byte 48)", NULL, NULL);
    s = g; s.col[2] = 1; s.col[3] = 2; s.col[4] = 2;
    PF_ADD("column twice, ascending", s, 0, HSPMV_ERR_FORMAT, "row 2 holds column 2 twice", "start at byte 36", NULL);
    s = g; s.col[2] = 2; s.col[3] = 1; s.col[4] = 2;
    PF_ADD("column twice, unsorted", s, 0, HSPMV_ERR_FORMAT, "row 2 holds column 2 twice", NULL, NULL);
    s = g; s.nnz = 2147483647;
    PF_ADD("2^31-1 mark with 5 entries", s, 0, HSPMV_ERR_FORMAT, "add up to 5 entries", "PETSc's mark for 2^31-1 or more", NULL);
    s = g8; s.col[0] = (int64_t)1 << 32;
    PF_ADD("64-bit column past the end", s, 0, HSPMV_ERR_FORMAT, "row 0: column index 4294967296 (byte 56)", NULL, NULL);
    s = g8; s.len[0] = 9;
    PF_ADD("64-bit row length", s, 0, HSPMV_ERR_FORMAT, "row 0 has length 9 (byte 32)", NULL, NULL);
    s = g8; s.nnz = 7;
    PF_ADD("64-bit count", s, 0, HSPMV_ERR_FORMAT, "add up to 5 entries", "(byte 24) says 7", NULL);
    s = g; s.nnz = -1; s.nrows = 2; s.ncols = 3; s.nlen = 0; s.ncol = 0; s.nval = 5;
    PF_ADD("dense with a value missing", s, 0, HSPMV_ERR_FORMAT, "truncated", "inside the values", NULL);
    s = g; s.nval = 10; /* 16 bytes per value */
    PF_ADD("complex values", s, 0, HSPMV_ERR_UNSUPPORTED, "16-byte values", "complex PETSc build", NULL);
    PF_ADD("single-precision values", g, 68, HSPMV_ERR_UNSUPPORTED, "4-byte values", "single-precision", NULL);
#undef PF_ADD
    return n;
}

#endif
