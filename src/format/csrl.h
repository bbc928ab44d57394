/* csrl.h — CSRL: CSR whose rows are stored as segments of consecutive columns. */
#ifndef HSPMV_CSRL_H
#define HSPMV_CSRL_H

#include "hspmv.h"

typedef struct hspmv_csrl {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    int64_t nseg;         /* segments (nzseg) */
    int64_t *segptr;      /* nrows+1 entries: first segment of each row, starts at 0 */
    int64_t *valptr;      /* nrows+1 entries: first value of each row (the CSR rowptr) */
    int32_t *jas;         /* nseg entries: first column of each segment, 0-based */
    int32_t *jan;         /* nseg entries: length of each segment, >= 1 */
    hspmv_real *val;      /* nnz entries, contiguous along segments */
} hspmv_csrl;

/* Number of maximal runs of consecutive columns in A (its nzseg). */
int64_t hspmv_csr_count_segments(const hspmv_csr *A);

/* Builds the CSRL form of A (a copy; A is unchanged). */
int hspmv_csrl_from_csr(const hspmv_csr *A, hspmv_csrl *L, hspmv_error *err);

/* Frees the arrays of *L and zeroes it. */
void hspmv_csrl_free(hspmv_csrl *L);

#endif
