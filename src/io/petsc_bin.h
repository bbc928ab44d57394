/* petsc_bin.h — private: PETSc's binary matrix layout (what MatView writes
   and MatLoad reads), shared by the serial reader and writer (src/io) and
   the MPI-IO ones (src/mpi). No MPI here.

   Layout, every number big-endian, "int" being PetscInt (4 bytes in a
   default PETSc build such as Debian's, 8 with --with-64-bit-indices):
     int    MAT_FILE_CLASSID (1211216)
     int    rows, columns
     int    total nonzeros (-1: dense, "native" format: no lengths, no
            columns, rows*columns values row by row; a 32-bit file with
            2^31-1 means "that many or more", PETSc's mark when the count
            does not fit)
     int    row lengths [rows]
     int    column indices [nonzeros], 0-based
     double values [nonzeros]                                               */
#ifndef HSPMV_PETSC_BIN_H
#define HSPMV_PETSC_BIN_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"

#define PETSC_MAT_CLASSID 1211216
#define PETSC_VEC_CLASSID 1211214
#define PETSC_VAL_BYTES 8 /* values are IEEE doubles (PetscScalar of a real double build) */

/* Bytes staged per read or write call by default; every call moves less
   than 2^31 bytes. HSPMV_TEST's io_piece=BYTES lowers it for tests. */
#define PETSC_PIECE_DEFAULT ((int64_t)8 << 20)

/* What the header says, and the file's size. */
typedef struct petsc_file {
    const char *name;   /* for messages */
    int isz;            /* bytes per integer: 4 or 8 */
    int dense;          /* 1: values only, row-major (header count -1) */
    int64_t nrows, ncols;
    int64_t nnz_header; /* the header's count as written */
    int64_t nnz;        /* entries: rows*cols when dense, else the row lengths' sum once known (-1 before) */
    int64_t size;       /* bytes in the file, -1 when unknown (a pipe) */
} petsc_file;

/* Rows [row0, row0+n) whose entries are [k0 + rp[0], k0 + rp[n]): tells the
   row of an entry for messages. */
typedef struct petsc_rows {
    const int64_t *rp;
    int64_t n, row0, k0;
} petsc_rows;

/* Byte ranges in the file of rows [r0, r1) holding entries [k0, k1). */
typedef struct petsc_ranges {
    int64_t len_off, len_bytes; /* their row lengths (0 bytes when dense) */
    int64_t col_off, col_bytes; /* their column indices (0 bytes when dense) */
    int64_t val_off, val_bytes; /* their values */
} petsc_ranges;

/* 1 when the first n bytes of b start a PETSc matrix file (class id as a
   32- or 64-bit big-endian integer); *isz gets 4 or 8. */
int hspmv_petsc_sniff(const unsigned char *b, size_t n, int *isz);

/* 1 when b starts with any PETSc class id hspmv_petsc_parse_header names in
   its refusal: a matrix's, or a Vec's (1211214), big- or little-endian, so
   such a file gets the PETSc message rather than Matrix Market's. */
int hspmv_petsc_sniff_any(const unsigned char *b, size_t n);

/* Parses the header from the first n bytes of the file (n >= 32 unless the
   file is shorter); f->name and f->size must be set. */
int hspmv_petsc_parse_header(petsc_file *f, const unsigned char *b, size_t n, hspmv_error *err);

/* Offsets of the header's end, of row i's length, of entry k's column and of its value. */
int64_t hspmv_petsc_header_bytes(const petsc_file *f);
int64_t hspmv_petsc_off_len(const petsc_file *f, int64_t i);
int64_t hspmv_petsc_off_col(const petsc_file *f, int64_t k);
int64_t hspmv_petsc_off_val(const petsc_file *f, int64_t k);

/* The file must hold at least the header and the row lengths / the whole
   matrix (f->nnz known); refusals name the section where it ends. */
int hspmv_petsc_check_size_lengths(const petsc_file *f, hspmv_error *err);
int hspmv_petsc_check_size(const petsc_file *f, hspmv_error *err);

/* Sets f->nnz to the row lengths' sum total after checking it against the header. */
int hspmv_petsc_check_total(petsc_file *f, int64_t total, hspmv_error *err);

/* The entries the file can hold: the header's count (rows*cols when
   dense; the row lengths' sum once known), capped by what the bytes after
   the lengths can hold when the size is known (a 32-bit header's 2^31-1
   means "that many or more"). */
int64_t hspmv_petsc_nnz_most(const petsc_file *f);

/* What reading the whole file into CSR and multiplying takes (CSR for
   hspmv_petsc_nnz_most entries, x and y, the read buffer of piece bytes), refused
   with the figure before anything is allocated, as the Matrix Market
   reader refuses its size line (hspmv_mem_check). */
int hspmv_petsc_check_memory(const petsc_file *f, int64_t piece, hspmv_error *err);

/* Ranges of rows [r0, r1) with entries [k0, k1); 64-bit arithmetic throughout. */
void hspmv_petsc_ranges_of(const petsc_file *f, int64_t r0, int64_t r1, int64_t k0, int64_t k1, petsc_ranges *out);

/* Largest piece moved by one call (bytes, a multiple of 8, below 2^31):
   PETSC_PIECE_DEFAULT, or HSPMV_TEST's io_piece rounded down to 8. */
int64_t hspmv_petsc_piece_bytes(void);

/* Row lengths of rows [row0, row0+n) from b into len, each checked to lie in 0..ncols. */
int hspmv_petsc_decode_lengths(const petsc_file *f, const unsigned char *b, int64_t row0, int64_t n, int64_t *len,
                         hspmv_error *err);
/* Columns of entries [k0, k0+n) into col, each checked to lie in 0..ncols-1. */
int hspmv_petsc_decode_cols(const petsc_file *f, const unsigned char *b, int64_t k0, int64_t n, int32_t *col,
                      const petsc_rows *R, hspmv_error *err);
/* Values of entries [k0, k0+n) into val: finite, and inside float's range in single precision. */
int hspmv_petsc_decode_vals(const petsc_file *f, const unsigned char *b, int64_t k0, int64_t n, hspmv_real *val,
                      const petsc_rows *R, hspmv_error *err);
/* Sorts the rows whose columns are not ascending (values follow) and
   refuses a column twice in a row. */
int hspmv_petsc_sort_rows(const petsc_file *f, const petsc_rows *R, int32_t *col, hspmv_real *val, hspmv_error *err);
/* Dense files: rows [row0, row0+n) of ncols entries, columns 0..ncols-1. */
void hspmv_petsc_dense_rows(const petsc_file *f, int64_t n, int64_t *rp, int32_t *col);

/* Encoding for the writers: the header (the count clipped to 2^31-1 in
   32-bit files, as PETSc does), lengths from row pointers, columns, values. */
void hspmv_petsc_encode_header(unsigned char *b, int isz, int64_t nrows, int64_t ncols, int64_t nnz);
void hspmv_petsc_encode_lengths(const int64_t *rp, int64_t n, int isz, unsigned char *out);
void hspmv_petsc_encode_cols(const int32_t *col, int64_t n, int isz, unsigned char *out);
void hspmv_petsc_encode_vals(const hspmv_real *val, int64_t n, unsigned char *out);

/* Checks rows [row0, ...) of A before writing: a valid CSR with finite values.
   name is the file to be written. */
int hspmv_petsc_check_writable(const char *name, const hspmv_csr *A, int64_t row0, hspmv_error *err);

/* Opens path and parses its header (the file must also hold the row
   lengths); *fd is left just after the header. On failure nothing is open. */
int hspmv_petsc_open(const char *path, petsc_file *f, int *fd, hspmv_error *err);

/* The serial reader with hspmv_csr_read's options (progress) and info. */
int hspmv_petsc_read_opts(const char *path, hspmv_csr *A, const hspmv_read_opts *opts, hspmv_read_info *info,
                          hspmv_error *err);

#endif
