/* csrvi.h — CSRVI: CSR with value indexing, a table of the distinct values and a 1-byte code per nonzero.

   Value indexing after Kourtis, Goumas, Koziris, "Optimizing sparse
   matrix-vector multiplication using index and value compression", ACM
   Computing Frontiers 2008 (CSR-VI). Stencils, graph and pattern matrices
   and integer-valued matrices hold few distinct values, so storing each
   nonzero's value (8 or 4 bytes) wastes most of the value stream.

   Layout. As CSR, with absolute 32-bit column indices colind, except that
   entry k's value is tab[code[k]]: tab holds the ntab <= 256 distinct
   values (HSPMV_CSRVI_MAXTAB) of the matrix, code one byte per nonzero.
   Values are told apart by their bits, so -0.0 and 0.0 (and two values one
   ulp apart) get codes of their own and every product is the same as CSR's
   v[k]*x[colind[k]] to the bit. The table is sorted (by value, -0.0 before
   0.0), so a matrix's codes do not depend on how many threads built them.

   Row pointers are 32-bit (rowptr32, unsigned) when nnz <= UINT32_MAX, else
   64-bit (rowptr), exactly as CSR16 (csr16.h): one of the two is non-NULL.

   Bytes per product (hspmv_csrvi_bytes): nnz*(4+1) + (rows+1)*(4 or 8)
   + ntab*real + cols*real + rows*real. Per nonzero 5 B against CSR16's 10 / 6
   and CSR's 12 / 8 (double / float). 7-point Laplacian, double: 55 B per row
   vs CSR16 90, CSR 108. */
#ifndef HSPMV_CSRVI_H
#define HSPMV_CSRVI_H

#include "hspmv.h"

#define HSPMV_CSRVI_MAXTAB 256 /* distinct values a 1-byte code can name */
#define HSPMV_CSRVI_SLOTS 512  /* hash slots of a value set: a power of 2, >= 2*MAXTAB */

typedef struct hspmv_csrvi {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    uint32_t *rowptr32;   /* nrows+1 entries, starts at 0, when nnz <= UINT32_MAX; else NULL */
    int64_t *rowptr;      /* nrows+1 entries, starts at 0, when rowptr32 is NULL; else NULL */
    int32_t *colind;      /* nnz entries: column, as CSR */
    uint8_t *code;        /* nnz entries: index into tab */
    hspmv_real *tab;      /* ntab distinct values, ascending (max(ntab, 1) allocated) */
    int ntab;             /* 0..256 */
} hspmv_csrvi;

/* A set of at most 256 values told apart by their bits: open addressing
   over HSPMV_CSRVI_SLOTS slots. About 7 KiB; one per thread when values are
   counted in parallel (local_build.c), merged afterwards. */
typedef struct hspmv_csrvi_set {
    int n;                                 /* values held, <= 256 */
    int16_t idx[HSPMV_CSRVI_SLOTS];        /* -1: empty slot, else index into val */
    uint64_t key[HSPMV_CSRVI_SLOTS];       /* the bits of val[idx[slot]] */
    hspmv_real val[HSPMV_CSRVI_MAXTAB];    /* the values, in insertion order (sorted by sort) */
} hspmv_csrvi_set;

/* Empties S. */
void hspmv_csrvi_set_clear(hspmv_csrvi_set *S);

/* Adds v[0..n) to S. Returns 1, or 0 as soon as S would need more than 256
   values (S then holds 256 of them and the rest of v is not looked at). */
int hspmv_csrvi_set_add(hspmv_csrvi_set *S, const hspmv_real *v, int64_t n);

/* Adds T's values to S; 1, or 0 when the union has more than 256. */
int hspmv_csrvi_set_merge(hspmv_csrvi_set *S, const hspmv_csrvi_set *T);

/* Sorts S's values ascending (-0.0 before 0.0, by their bits for equal
   numbers) and renumbers: S->val[c] is then code c. */
void hspmv_csrvi_set_sort(hspmv_csrvi_set *S);

/* v's index in S->val (its code once sorted), or -1 when S lacks it. */
int hspmv_csrvi_set_find(const hspmv_csrvi_set *S, hspmv_real v);

/* Collects A's distinct values into S, sorted. Returns 1, or 0 (early, S
   incomplete) when A has more than 256. */
int hspmv_csrvi_values(const hspmv_csr *A, hspmv_csrvi_set *S);

/* Builds the CSRVI form of A (a copy; A is unchanged), with 32-bit row
   pointers when nnz allows. HSPMV_ERR_UNSUPPORTED when A has more than 256
   distinct values. */
int hspmv_csrvi_from_csr(const hspmv_csr *A, hspmv_csrvi *C, hspmv_error *err);

/* Allocates the arrays of C for a matrix of A's size without filling them,
   copies the table from S (A's values, sorted: hspmv_csrvi_values or the
   parallel count in local_build.c), rp_bits 32 (needs nnz <= UINT32_MAX)
   or 64; then hspmv_csrvi_fill_rows on ranges of rows that cover
   [0, nrows) fills them, e.g. one range per thread so that each thread
   first-touches its own rows. C->rowptr32[0] or C->rowptr[0] is set here.
   HSPMV_ERR_ARG for bad rp_bits. */
int hspmv_csrvi_alloc(const hspmv_csr *A, const hspmv_csrvi_set *S, int rp_bits, hspmv_csrvi *C,
                      hspmv_error *err);

/* Fills rows [r0, r1) of C from A (pointers r0+1..r1, columns, codes); S is
   the set C's table came from, and holds every value of A. */
void hspmv_csrvi_fill_rows(const hspmv_csr *A, const hspmv_csrvi_set *S, hspmv_csrvi *C, int64_t r0,
                           int64_t r1);

/* Bytes one y = A*x moves by the model above. */
double hspmv_csrvi_bytes(const hspmv_csrvi *C);

/* Frees the arrays of *C and zeroes it; accepts a zeroed C. */
void hspmv_csrvi_free(hspmv_csrvi *C);

#endif
