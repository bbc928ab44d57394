/* csrdu.h — CSRDU: CSR whose column indices are 1-byte deltas, with an escape
   for the rare large jump, and 1-byte row lengths instead of row pointers.

   Column deltas in the spirit of CSR-DU (Kourtis, Goumas, Koziris,
   "Improving the performance of multithreaded sparse matrix-vector
   multiplication using index and value compression", ICPP 2008): within a
   row of a FEM or other locally numbered matrix, most columns lie a few
   places after the previous one, so one byte holds the step.

   Layout. Values val in CSR order. Each entry k has one byte d[k]:
   - the first entry of a row: its column minus the first column of the
     last non-empty row before it (0 for the first such row) as a signed
     byte in -127..127, else -128 (0x80) and the difference is the next
     number of esc;
   - a later entry: its column minus the previous one, 1..255, else 0 and
     the step is the next number of esc.
   len[i] is row i's length, 0..254, else 255 and the length is the next
   number of esc. esc holds these escaped numbers (int32) in the order a
   row-by-row walk meets them: a row's length, its first column, its steps.
   A walk can start at any row: checkpoint b (cp[b]) gives, for row
   b*HSPMV_CSRDU_CP, its first value, the escapes before it and the running
   first column; a kernel that starts at row r0 walks rows b*CP .. r0-1 of
   the byte streams from there without multiplying.

   Bytes per product (hspmv_csrdu_bytes): nnz*(real+1) + rows*1 + nesc*4 +
   checkpoints*24 + cols*real + rows*real: a little over real+1 B per
   nonzero where few steps escape (FEM matrices), against CSR16's real+2
   and CSR's real+4. */
#ifndef HSPMV_CSRDU_H
#define HSPMV_CSRDU_H

#include "hspmv.h"

#define HSPMV_CSRDU_CP 128     /* rows per checkpoint */
#define HSPMV_CSRDU_ESC1 0x80  /* d of a first entry whose difference is in esc */
#define HSPMV_CSRDU_LENESC 255 /* len of a row whose length is in esc */
#define HSPMV_CSRDU_ESC_SPARE 8 /* zeroed entries after esc[nesc - 1]: the SIMD kernels'
                                   byte steps read the next two escapes of every group,
                                   used or not */

/* Where a walk stands at row b*CP. */
typedef struct hspmv_csrdu_cp {
    int64_t k;   /* first value (and byte) of the row */
    int64_t e;   /* escaped numbers before the row */
    int32_t c;   /* first column of the last non-empty row before it (0: none) */
} hspmv_csrdu_cp;

typedef struct hspmv_csrdu {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    int64_t nesc;         /* escaped numbers */
    int64_t ncp;          /* checkpoints: ceil(nrows / CP) */
    uint8_t *len;         /* nrows entries (at least 1 allocated) */
    uint8_t *d;           /* nnz entries (at least 1 allocated) */
    int32_t *esc;         /* nesc entries and HSPMV_CSRDU_ESC_SPARE zeroed ones */
    hspmv_csrdu_cp *cp;   /* ncp entries (at least 1 allocated) */
    hspmv_real *val;      /* nnz entries (at least 1 allocated) */
} hspmv_csrdu;

/* The escaped numbers rows [r0, r1) of A need. */
int64_t hspmv_csrdu_count_escapes(const hspmv_csr *A, int64_t r0, int64_t r1);

/* Builds the CSRDU form of A (a copy; A is unchanged). */
int hspmv_csrdu_from_csr(const hspmv_csr *A, hspmv_csrdu *D, hspmv_error *err);

/* Allocates the arrays of D for A with nesc escaped numbers, without
   filling them; then hspmv_csrdu_fill_rows on ranges of rows that cover
   [0, nrows), each told the escapes before it, fills them (e.g. one range
   per thread, first-touching its rows). */
int hspmv_csrdu_alloc(const hspmv_csr *A, int64_t nesc, hspmv_csrdu *D, hspmv_error *err);

/* Fills rows [r0, r1) of D from A: lengths, delta bytes, values, escaped
   numbers from esc[e0] on (e0 = hspmv_csrdu_count_escapes(A, 0, r0)), and
   the checkpoints of the rows in the range. */
void hspmv_csrdu_fill_rows(const hspmv_csr *A, hspmv_csrdu *D, int64_t r0, int64_t r1, int64_t e0);

/* Bytes one y = A*x moves by the model above. */
double hspmv_csrdu_bytes(const hspmv_csrdu *D);

/* Frees the arrays of *D and zeroes it; accepts a zeroed D. */
void hspmv_csrdu_free(hspmv_csrdu *D);

#endif
