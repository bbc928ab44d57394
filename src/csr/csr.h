/* csr.h — private: building, checking and multiplying a plain CSR (below
   the prepared formats), and the correctness oracle every product is
   checked against (docs/design.md gives its bound). */
#ifndef HSPMV_CSR_H
#define HSPMV_CSR_H

#include <stdint.h>
#include "hspmv.h"
#include "util.h" /* hspmv_csr_validate */
#include "matrix_files.h" /* hspmv_coo */

/* Builds the general CSR of *coo in O(nnz + nrows): counting sort by row,
   columns sorted within rows, duplicates summed (in ascending order of their
   values, so the bits do not depend on the order of the triplets),
   symmetric and skew-symmetric triangles mirrored. *coo is left as it was.
   Duplicates whose sum is not finite: HSPMV_ERR_FORMAT naming the entry. */
int hspmv_csr_from_coo(const hspmv_coo *coo, hspmv_csr *csr, hspmv_error *err);

/* hspmv_csr_validate, the CSR type's own check, is in util.h (below every
   layer that makes or writes a CSR). */

/* y = A*x with the plain serial loop (the seed's naive kernel). */
void hspmv_csr_spmv_naive(const hspmv_csr *A, const hspmv_real *x, hspmv_real *y);

/* ---- the correctness oracle ----------------------------------------------- */

/* y = A*x accumulated in long double; kept plain, never tuned. */
void hspmv_ref_spmv(const hspmv_csr *A, const hspmv_real *x, hspmv_real *y);

/* Outcome of comparing a y with the reference. */
typedef struct hspmv_check {
    int64_t violations; /* rows with |y_i - ref_i| > c*k_i*eps*(|A||x|)_i + k_i*eta */
    int64_t first_bad;  /* first such row, -1 when none */
    double worst;       /* max over rows of |y_i - ref_i| / bound_i (0/0 = 0) */
    double max_rel;     /* max over rows of |y_i-ref_i| / (|A||x|)_i (the seed divided
                           by |ref_i|, meaningless where a row cancels to ~0) */
    double avg_rel;     /* the same, averaged over rows */
    int64_t overflows;  /* rows whose (|A||x|)_i exceeds the working precision's range: the
                           product is not representable there (y_i may be inf); not checked,
                           not violations: a fault of the data, not of the kernel */
    int64_t first_overflow; /* first such row, -1 when none */
} hspmv_check;

/* Unit roundoff of the working precision. */
double hspmv_eps(void);

/* Smallest normal number of the working precision (DBL_MIN or FLT_MIN):
   eta in the bound's absolute term, for products in the subnormal range. */
double hspmv_eta(void);

/* Compares y with the long double reference of A*x under the bound of
   docs/design.md with constant c (2 is the project's default):
   |y_i - ref_i| <= c*k_i*eps*(|A||x|)_i + k_i*eta, k_i the entries of row i.
   Returns the violation count; rows whose product overflows are counted in
   out->overflows instead. */
int64_t hspmv_ref_check(const hspmv_csr *A, const hspmv_real *x, const hspmv_real *y,
                        double c, hspmv_check *out);

#endif
