/* local_part.h — what the MPI layer needs of a prepared matrix beyond
   hspmv.h (private): one part of its product (the owned block is
   multiplied part by part, with message progress in between, without
   splitting the matrix into separately allocated pieces), and its creation
   under a given HSPMV_TEST string. */
#ifndef HSPMV_LOCAL_PART_H
#define HSPMV_LOCAL_PART_H

#include "hspmv.h"

/* hspmv_local_create under the HSPMV_TEST string test (settings.h) instead
   of this process's: a distributed matrix passes rank 0's, so that every
   rank plans alike. A bad string is refused (HSPMV_ERR_ARG naming the
   pair); hspmv_local_create is this with hspmv_test_spec(). */
int hspmv_local_create_test(const hspmv_csr *A, const hspmv_opts *o, const char *test, hspmv_local **L,
                            hspmv_error *err);

/* Part `part` of `nparts` of y = A*x (add: y += A*x): in each thread's row
   chunk, the rows [r0 + len*part/nparts, r0 + len*(part+1)/nparts). Calling
   it for every part gives the same y, bit for bit, as hspmv_local_spmv. */
void hspmv_local_spmv_part(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                           int add);

/* Part `part` of `nparts` of the row-major block product Y = A X of k
   vectors (X[c*k + j], add: Y += A X; local_spmm.c): in each of the
   block product's row blocks (local.h) [b0, b1), the rows
   [b0 + len*part/nparts, b0 + len*(part+1)/nparts); k == 1 is
   hspmv_local_spmv_part. A blocked COO matrix (no block kernel) does the
   whole product in part 0. */
void hspmv_local_spmm_part(const hspmv_local *L, int part, int nparts, int k, const hspmv_real *X, hspmv_real *Y,
                           int add);

/* Rows [r0, r1) of y = A*x (add: y += A*x), in the calling thread only
   (every format has row-range kernels; not one-triangle storage, whose
   rows take adds from the rows after them: the MPI layer's blocks never
   have it, hspmv_dist_build asks for both triangles). */
void hspmv_local_spmv_rows(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                           int add);

/* hspmv_local_spmv_rows, y = A*x, with y stored through the cache (no
   streaming stores): for a caller that reads those rows of y next. */
void hspmv_local_spmv_rows_cached(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y);

/* Part `part` of `nparts` of y = A*x (as hspmv_local_spmv_part, the same y
   bit for bit) and the sum over those rows of x[i]*y[i] (a square
   matrix: x indexed as the rows), each block of rows summed while it is in
   cache (local_spmv_dot.c). The sum is in double, in a fixed order for a
   given matrix and thread count. One-triangle storage: the product, then
   one pass for the sum. */
double hspmv_local_spmv_dot_part(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y);

/* A range's word on its own cache line: pieces [front, back) are left,
   w = front << 32 | back (a thread's pieces, local_pieces.c; a thread's
   chunks of its rank, node_share.c). */
typedef struct hspmv_claim_word {
    uint64_t w;
    char pad[56];
} hspmv_claim_word;

/* Takes the front piece (back = 0) or the back piece (back = 1) of a range
   whose word is *word: the piece's number, or -1 when none is left.
   Atomic, relaxed: the caller's closing barrier orders what the pieces
   wrote. */
int hspmv_local_take_piece(uint64_t *word, int back);

#endif
