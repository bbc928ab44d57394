/* testlib.h — what many tests need: a seeded RNG of our own, the shared
   matrix folder, generated CSR matrices, and the reference check. */
#ifndef HSPMV_TESTLIB_H
#define HSPMV_TESTLIB_H

#include "hspmv.h"

/* splitmix64: reproducible, never rand(). */
uint64_t tl_next(uint64_t *state);
/* Uniform in [lo, hi). */
double tl_uniform(uint64_t *state, double lo, double hi);

/* Folder of the real test matrices: $HSPMV_SHARED_MATRICES, else ../shared/matrices. */
const char *tl_shared_dir(void);
/* Sorted list of *.mtx files in dir (full paths); returns the count, -1 if dir is missing.
   Free with tl_free_list. */
int tl_list_mtx(const char *dir, char ***paths);
void tl_free_list(char **paths, int n);
/* 1 for the shared files that are complex or hermitian (not supported). */
int tl_is_unsupported_shared(const char *path);

/* Random CSR, columns sorted and distinct within rows. rowlen[i] entries in
   row i (clipped to ncols); rowlen NULL: every row gets `len` entries. When
   runs > 0 the columns come in runs of consecutive columns of up to that length. */
int tl_csr_random(hspmv_csr *A, int64_t nrows, int64_t ncols, const int64_t *rowlen,
                  int64_t len, int runs, uint64_t seed);

/* x[i] in [-1, 1) from the seed. */
void tl_fill(hspmv_real *x, int64_t n, uint64_t seed);

/* Checks y against the reference of A*x with the DESIGN.md bound (c = 2);
   returns 1 when every row is within bound, else prints the first offence to
   stderr with `what` and returns 0. */
int tl_matches_ref(const hspmv_csr *A, const hspmv_real *x, const hspmv_real *y, const char *what);

/* B = [A | I], so that B*[x; y0] = y0 + A*x: an add=1 result checked against
   B's reference gets the DESIGN.md bound with k_i+1 terms and |y0|_i +
   (|A||x|)_i. Returns HSPMV_OK or HSPMV_ERR_NOMEM (free B with hspmv_csr_free). */
int tl_csr_augment(const hspmv_csr *A, hspmv_csr *B);

/* y[0..n) = NaN, so a kernel that reads y before writing it is caught. */
void tl_fill_nan(hspmv_real *y, int64_t n);

/* 1 when a and b hold the same bits in their first n entries. */
int tl_same_bits(const hspmv_real *a, const hspmv_real *b, int64_t n);

/* Reads path into CSR; returns HSPMV_OK or the reader's status (message to stderr). */
int tl_read_csr(const char *path, hspmv_csr *A);

#endif
