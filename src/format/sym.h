/* sym.h — one-triangle storage of a symmetric or skew-symmetric matrix.

   Layout. A square matrix with a_ji = sign * a_ij (sign +1: symmetric,
   -1: skew-symmetric) is kept as its diagonal (diag, nrows values, zeros
   where A has none; all zero when skew) and its strictly lower triangle in
   CSR form: row i's entries rp[i]..rp[i+1], columns ascending, every column
   below i. The column of entry k of row i is
     idx16:  i - 65536 + off[k]   (off = 65536 - (i - j), so i - j <= 65535)
     else:   ci[k]
   Row pointers are 32-bit (rp32) when the triangle has at most UINT32_MAX
   entries, else 64-bit (rp); exactly one is non-NULL.

   y = A*x from it: row i adds diag[i]*x[i] + sum_k v[k]*x[j_k] to y[i]
   and sign*v[k]*x[i] to every y[j_k] (the mirrored entry).

   Bytes per product (hspmv_sym_bytes): nnz*(real + 2 or 4) + rows*real
   (diagonal) + (rows+1)*(4 or 8) + cols*real (x) + 2*rows*real (y, read
   back by the mirrored adds and written) + 3*halo*real (local_sym.c: the
   threads' private parts of y, zeroed, added to and summed). nnz here is
   the strictly lower triangle's, about (nnz(A) - rows)/2. */
#ifndef HSPMV_SYM_H
#define HSPMV_SYM_H

#include "hspmv.h"

/* Largest i - j that 16-bit offsets hold. */
#define HSPMV_SYM_MAXDIST 65535

typedef struct hspmv_sym {
    int64_t nrows;     /* square */
    int64_t nnz;       /* strictly lower entries */
    int sign;          /* +1 symmetric, -1 skew-symmetric */
    int idx16;         /* 1: off holds the columns, else ci */
    uint32_t *rp32;    /* nrows+1 entries when nnz <= UINT32_MAX, else NULL */
    int64_t *rp;       /* nrows+1 entries when rp32 is NULL, else NULL */
    uint16_t *off;     /* idx16: nnz entries, column = row - 65536 + off */
    int32_t *ci;       /* !idx16: nnz entries */
    hspmv_real *val;   /* nnz entries */
    hspmv_real *diag;  /* nrows entries */
} hspmv_sym;

/* What hspmv_sym_check finds. */
enum { HSPMV_SYM_NONE = 0, HSPMV_SYM_PLUS = 1, HSPMV_SYM_SKEW = -1 };

/* +1 when A is square and a_ji == a_ij for every stored a_ij (the same
   pattern, equal values; explicit zeros count as entries), -1 when
   a_ji == -a_ij and the diagonal is absent or zero (skew-symmetric), else
   0 (a matrix that is both, all zeros, is +1). Checked with up to
   `threads` OpenMP threads over the rows: every entry below the diagonal
   looks its mirror up by binary search in its column's row, and the
   counts below and above the diagonal must agree. *fits16 (may be NULL)
   is set to 1 when every i - j of the lower triangle is at most
   HSPMV_SYM_MAXDIST. */
int hspmv_sym_check(const hspmv_csr *A, int threads, int *fits16);

/* Builds S from A, which hspmv_sym_check found `sign`: pointers and
   arrays allocated here, rows [start[c], start[c+1]) filled by thread c
   of nchunks (first touch where they are multiplied); idx16 asks for
   16-bit offsets (A must fit). start must split by the triangle's rows:
   hspmv_sym_count gives the pointers to split on. HSPMV_ERR_NOMEM. */
int hspmv_sym_from_csr(const hspmv_csr *A, int sign, int idx16, const int64_t *lrp, int nchunks,
                       const int64_t *start, hspmv_sym *S, hspmv_error *err);

/* lrp[i] = strictly lower entries of rows [0, i) of A, plus i (the diagonal
   counted as one entry a row, so that splitting on lrp balances the work);
   lrp has nrows+1 entries. */
void hspmv_sym_count(const hspmv_csr *A, int threads, int64_t *lrp);

/* Bytes one product moves by the model above, halo rows as given. */
double hspmv_sym_bytes(const hspmv_sym *S, int64_t halo);
/* The same before S is built: nrows, nnz strictly lower entries, 16-bit offsets or not. */
double hspmv_sym_model(int64_t nrows, int64_t nnz, int idx16, int64_t halo);

/* Frees the arrays of *S and zeroes it; accepts a zeroed S. */
void hspmv_sym_free(hspmv_sym *S);

#endif
