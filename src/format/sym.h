/* sym.h — one-triangle storage of a symmetric or skew-symmetric matrix.

   Layout. A square matrix with a_ji = sign * a_ij (sign +1: symmetric,
   -1: skew-symmetric) is kept as its diagonal (diag, nrows values, zeros
   where A has none; all zero when skew) and its strictly lower triangle,
   row by row, columns ascending, every column below its row, values in
   val. The columns of row i, by `index`:
     HSPMV_SYM_IDX32:  ci[k], row i's entries rp[i]..rp[i+1]
     HSPMV_SYM_IDX16:  i - 65536 + off[k] (i - j <= 65535), likewise
     HSPMV_SYM_PAT:    i + pofs[pptr[p] + l], l = 0..len-1, p = pid[i] (at
                       most 256 row patterns, len = pptr[p+1] - pptr[p]);
                       no row pointers: row i's values follow row i-1's, and
                       sp[i / HSPMV_SYM_SLICE] is where the slice of
                       HSPMV_SYM_SLICE rows holding i starts in val. A
                       group of HSPMV_SYM_G rows starting at a multiple of
                       G, inside the matrix, whose rows share one pattern
                       (hspmv_sym_uniform) keeps its values interleaved:
                       entry l of row i0+r at val[start + l*G + r], so that
                       kernels multiply G rows at once with plain vector
                       loads of x, val and y (as CSRP's uniform slices).
   Row pointers (IDX32, IDX16) are 32-bit (rp32) when the triangle has at
   most UINT32_MAX entries, else 64-bit (rp); exactly one is non-NULL.

   y = A*x from it: row i adds diag[i]*x[i] + sum_k v[k]*x[j_k] to y[i]
   and sign*v[k]*x[i] to every y[j_k] (the mirrored entry).

   Bytes per product (hspmv_sym_bytes): nnz*(real + 4, 2 or 0) + rows*real
   (diagonal) + (rows+1)*(4 or 8) (IDX32, IDX16) or rows*1 + slices*8 (PAT)
   + cols*real (x) + 2*rows*real (y, read back by the mirrored adds and
   written) + 3*halo*real (local_sym.c: the threads' private parts of y,
   zeroed, added to and summed). nnz here is the strictly lower
   triangle's, about (nnz(A) - rows)/2. */
#ifndef HSPMV_SYM_H
#define HSPMV_SYM_H

#include "hspmv.h"

/* Largest i - j that 16-bit offsets hold. */
#define HSPMV_SYM_MAXDIST 65535
/* Row patterns at most, their offsets at most, rows per slice pointer. */
#define HSPMV_SYM_MAXPAT 256
#define HSPMV_SYM_MAXOFS 65536
#define HSPMV_SYM_SLICE 64
/* Rows of an interleaved group (the widest SIMD width; divides HSPMV_SYM_SLICE). */
#ifdef HSPMV_SINGLE
#define HSPMV_SYM_G 16
#else
#define HSPMV_SYM_G 8
#endif

/* hspmv_sym.index. */
enum { HSPMV_SYM_IDX32 = 0, HSPMV_SYM_IDX16, HSPMV_SYM_PAT };

typedef struct hspmv_sym {
    int64_t nrows;     /* square */
    int64_t nnz;       /* strictly lower entries */
    int sign;          /* +1 symmetric, -1 skew-symmetric */
    int index;         /* HSPMV_SYM_IDX32, _IDX16 or _PAT */
    uint32_t *rp32;    /* nrows+1 entries when nnz <= UINT32_MAX, else NULL */
    int64_t *rp;       /* nrows+1 entries when rp32 is NULL, else NULL */
    uint16_t *off;     /* IDX16: nnz entries, column = row - 65536 + off */
    int32_t *ci;       /* IDX32: nnz entries */
    uint8_t *pid;      /* PAT: nrows pattern numbers */
    int32_t *pptr;     /* PAT: npat+1 starts in pofs */
    int32_t *pofs;     /* PAT: each pattern's column - row, ascending (all < 0) */
    int npat;          /* PAT: patterns */
    int64_t *sp;       /* PAT: (nrows + SLICE - 1) / SLICE + 1 starts in val */
    hspmv_real *val;   /* nnz entries */
    hspmv_real *diag;  /* nrows entries */
} hspmv_sym;

/* PAT: 1 when rows [i, i+G) (i a multiple of G) lie in the matrix and share one pattern. */
static inline int hspmv_sym_uniform(const hspmv_sym *S, int64_t i)
{
    if (i + HSPMV_SYM_G > S->nrows) return 0;
    for (int r = 1; r < HSPMV_SYM_G; r++)
        if (S->pid[i + r] != S->pid[i]) return 0;
    return 1;
}

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

/* The row patterns of A's strictly lower triangle into P (index PAT;
   pid, pptr, pofs, npat allocated here): 1 when at most HSPMV_SYM_MAXPAT
   patterns of at most HSPMV_SYM_MAXOFS offsets in all hold every row,
   0 when not (P zeroed), -1 out of memory. Serial, O(nnz). */
int hspmv_sym_patterns(const hspmv_csr *A, hspmv_sym *P);

/* Builds S from A, which hspmv_sym_check found `sign`: pointers and
   arrays allocated here, rows [start[c], start[c+1]) filled by thread c
   of nchunks (first touch where they are multiplied); index as asked
   (IDX16: A must fit; PAT: S holds the patterns of hspmv_sym_patterns,
   which S keeps, and every start[c] but the last is a multiple of
   HSPMV_SYM_G). start must split by the triangle's rows: lrp
   (hspmv_sym_count) gives the pointers to split on. HSPMV_ERR_NOMEM. */
int hspmv_sym_from_csr(const hspmv_csr *A, int sign, int index, const int64_t *lrp, int nchunks,
                       const int64_t *start, hspmv_sym *S, hspmv_error *err);

/* lrp[i] = strictly lower entries of rows [0, i) of A, plus i (the diagonal
   counted as one entry a row, so that splitting on lrp balances the work);
   lrp has nrows+1 entries. */
void hspmv_sym_count(const hspmv_csr *A, int threads, int64_t *lrp);

/* Bytes one product moves by the model above, halo rows as given. */
double hspmv_sym_bytes(const hspmv_sym *S, int64_t halo);
/* The same before S is built: nrows, nnz strictly lower entries, index kind. */
double hspmv_sym_model(int64_t nrows, int64_t nnz, int index, int64_t halo);

/* Frees the arrays of *S and zeroes it; accepts a zeroed S. */
void hspmv_sym_free(hspmv_sym *S);

#endif
