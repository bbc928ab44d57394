/* csr16.h — CSR16: CSR whose column indices are signed 16-bit offsets from the row.

   Layout. As CSR, except that entry k of row i stores off[k] = colind[k] - i
   (i is the row index within this matrix, 0-based) instead of colind[k], so
   its column is i + off[k]. Every |off| <= 32767 (HSPMV_CSR16_MAXOFF); any
   shape works, rectangular and ghost blocks included, as long as each
   column lies that close to its row's index (hspmv_csr16_fits).

   Row pointers are 32-bit (rowptr32, unsigned) when nnz <= UINT32_MAX, the
   case for any one rank's block below 4 billion nonzeros, else 64-bit
   (rowptr). Exactly one of the two is non-NULL; kernels take both and use
   rowptr32 when it is there.

   Bytes per product (hspmv_csr16_bytes): nnz*(real+2) + (rows+1)*(4 or 8)
   + cols*real + rows*real. Per nonzero 10 B (double) / 6 B (float) against
   CSR's 12 / 8; per row 4 B of pointer against 8 (our CSR) or 4 (a naive
   32-bit CSR). 7-point Laplacian, double: 90 B per row vs CSR 108, naive 104. */
#ifndef HSPMV_CSR16_H
#define HSPMV_CSR16_H

#include "hspmv.h"

#define HSPMV_CSR16_MAXOFF 32767

typedef struct hspmv_csr16 {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    uint32_t *rowptr32;   /* nrows+1 entries, starts at 0, when nnz <= UINT32_MAX; else NULL */
    int64_t *rowptr;      /* nrows+1 entries, starts at 0, when rowptr32 is NULL; else NULL */
    int16_t *off;         /* nnz entries: column - row, in [-32767, 32767] */
    hspmv_real *val;      /* nnz entries */
} hspmv_csr16;

/* 1 when every entry of A has |colind - row| <= 32767, else 0. */
int hspmv_csr16_fits(const hspmv_csr *A);

/* Builds the CSR16 form of A (a copy; A is unchanged), with 32-bit row
   pointers when nnz allows. HSPMV_ERR_UNSUPPORTED when A does not fit. */
int hspmv_csr16_from_csr(const hspmv_csr *A, hspmv_csr16 *C, hspmv_error *err);

/* Allocates the arrays of C for a matrix of A's size without filling them,
   rp_bits 32 (needs nnz <= UINT32_MAX) or 64; then hspmv_csr16_fill_rows
   on ranges of rows that cover [0, nrows) fills them, e.g. one range per
   thread so that each thread first-touches its own rows. C->rowptr32[0] or
   C->rowptr[0] is set here. HSPMV_ERR_ARG for bad rp_bits. */
int hspmv_csr16_alloc(const hspmv_csr *A, int rp_bits, hspmv_csr16 *C, hspmv_error *err);

/* Fills rows [r0, r1) of C from A (pointers r0+1..r1, offsets, values).
   A must fit (hspmv_csr16_fits). */
void hspmv_csr16_fill_rows(const hspmv_csr *A, hspmv_csr16 *C, int64_t r0, int64_t r1);

/* Bytes one y = A*x moves by the model above. */
double hspmv_csr16_bytes(const hspmv_csr16 *C);

/* Frees the arrays of *C and zeroes it; accepts a zeroed C. */
void hspmv_csr16_free(hspmv_csr16 *C);

#endif
