/* matrix_files.h — private: the file readers and writers below the public
   hspmv_csr_read and hspmv_csr_write (Matrix Market triplets, PETSc binary),
   for the CSR layer, the MPI layer, the programs and the tests. */
#ifndef HSPMV_MATRIX_FILES_H
#define HSPMV_MATRIX_FILES_H

#include <stddef.h>
#include <stdint.h>
#include "hspmv.h"

enum { HSPMV_GENERAL = 0, HSPMV_SYMMETRIC, HSPMV_SKEW_SYMMETRIC };
enum { HSPMV_FIELD_REAL = 0, HSPMV_FIELD_INTEGER, HSPMV_FIELD_PATTERN };

/* Coordinate triplets as read from a file. Symmetric kinds hold the stored
   triangle only (row >= col); hspmv_csr_from_coo mirrors them.
   Dimensions are limited to 2^31-1 (32-bit indices); nnz is 64-bit. */
typedef struct hspmv_coo {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* entries stored in row/col/val */
    int32_t *row;         /* nnz entries, 0-based */
    int32_t *col;         /* nnz entries, 0-based */
    hspmv_real *val;      /* nnz entries; 1 for pattern files */
    int symmetry;         /* HSPMV_GENERAL, HSPMV_SYMMETRIC, HSPMV_SKEW_SYMMETRIC */
    int field;            /* HSPMV_FIELD_REAL, _INTEGER, _PATTERN */
} hspmv_coo;

/* Reads a Matrix Market file, plain or gzip (detected by magic bytes), into
   *coo. On failure *coo is empty, nothing is leaked, and err names the file,
   the line and what was expected. A size line implying more memory (the
   triplets, their CSR and the x and y of a product) than physical memory,
   the cgroup limit or ulimit -v/-d leave is HSPMV_ERR_NOMEM before any
   allocation. opts and info may be NULL. Not collective. */
int hspmv_mtx_read(const char *path, hspmv_coo *coo, const hspmv_read_opts *opts,
                   hspmv_read_info *info, hspmv_error *err);

/* The same from a buffer in memory (plain text or gzip bytes); name is used
   in messages. */
int hspmv_mtx_read_mem(const char *name, const void *buf, size_t len, hspmv_coo *coo,
                       hspmv_read_info *info, hspmv_error *err);

/* Frees the arrays of *coo and zeroes it; accepts an empty or zeroed coo. */
void hspmv_coo_free(hspmv_coo *coo);

/* Writes A as a Matrix Market file, coordinate real general, each value in
   the fewest digits (15-17 in double, 6-9 in float) that read back to the
   same bits, so that hspmv_csr_read gives A again. */
int hspmv_mtx_write(const char *path, const hspmv_csr *A, hspmv_error *err);

/* ---- PETSc binary files ---------------------------------------------------
   PETSc's binary matrix format, the one MatView writes and MatLoad reads:
   class id 1211216, rows, columns, nonzero count, the row lengths, the
   column indices (0-based) and the values, all big-endian; integers of 4
   bytes (default PETSc builds, Debian's) or 8 (--with-64-bit-indices),
   values IEEE doubles (real PETSc builds). Also read: dense files written in
   PETSc's native format (count -1, values row by row: every entry kept, as
   the Matrix Market array format), and the count 2^31-1 that PETSc writes
   when a 32-bit file holds more entries than that. Rows whose columns are
   not ascending are sorted; a column twice in a row, a row length or column
   out of range, a non-finite value, a short file and a count that is not the
   row lengths' sum are errors naming the file, the row and the byte offset.
   Bytes after the matrix are ignored (PETSc files may hold more objects),
   except exactly 8 more per value: a complex PETSc build's file, refused as
   HSPMV_ERR_UNSUPPORTED like one of 4-byte (single-precision) values. */

/* 1 when the file starts with PETSc's matrix class id (4- or 8-byte
   integers), or another PETSc class id the PETSc reader refuses by name (a
   Vec's, a little-endian one); 0 when it does not or cannot be opened.
   Not collective. */
int hspmv_petsc_is_matrix_file(const char *path);

/* Reads a PETSc binary matrix into *A (any previous content is not freed).
   On failure *A is empty and err names the file, row and byte offset. */
int hspmv_petsc_read(const char *path, hspmv_csr *A, hspmv_error *err);

/* Writes A as a PETSc binary matrix with index_bytes-byte integers (4, or 0
   for 4: what Debian's PETSc reads; 8 for 64-bit-index builds) and double
   values. A must be a valid CSR with finite values. Every write and the
   close are checked; on failure the file is removed. */
int hspmv_petsc_write(const char *path, const hspmv_csr *A, int index_bytes, hspmv_error *err);

#endif
