/* testlib.h — what many tests need: a seeded RNG of our own, the shared
   matrix folder, generated CSR matrices, and the reference check. */
#ifndef HSPMV_TESTLIB_H
#define HSPMV_TESTLIB_H

#include <stddef.h>
#include "hspmv.h"

/* splitmix64: reproducible, never rand(). */
uint64_t tl_next(uint64_t *state);
/* Uniform in [lo, hi). */
double tl_uniform(uint64_t *state, double lo, double hi);

/* Folder of the real SuiteSparse test matrices in the repository:
   matrices/suitesparse (see its README.md; the name "shared" is historical). */
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

/* Random CSR for many columns: len distinct uniform columns per row (at
   most ncols/2), drawn and sorted per row, so that the time does not grow
   with ncols as tl_csr_random's does; values in [-1, 1) from the seed. */
int tl_csr_wide_random(hspmv_csr *A, int64_t nrows, int64_t ncols, int64_t len, uint64_t seed);

/* x[i] in [-1, 1) from the seed. */
void tl_fill(hspmv_real *x, int64_t n, uint64_t seed);

/* Checks y against the reference of A*x with the docs/design.md bound (c = 2,
   with its absolute term k_i*eta); returns 1 when every row is within bound
   and no product overflows, else prints the first offence to stderr with
   `what` and returns 0. */
int tl_matches_ref(const hspmv_csr *A, const hspmv_real *x, const hspmv_real *y, const char *what);

/* B = [A | I], so that B*[x; y0] = y0 + A*x: an add=1 result checked against
   B's reference gets the docs/design.md bound with k_i+1 terms and |y0|_i +
   (|A||x|)_i. Returns HSPMV_OK or HSPMV_ERR_NOMEM (free B with hspmv_csr_free). */
int tl_csr_augment(const hspmv_csr *A, hspmv_csr *B);

/* y[0..n) = NaN, so a kernel that reads y before writing it is caught. */
void tl_fill_nan(hspmv_real *y, int64_t n);

/* 1 when a and b hold the same bits in their first n entries. */
int tl_same_bits(const hspmv_real *a, const hspmv_real *b, int64_t n);

/* Reads path into CSR; returns HSPMV_OK or the reader's status (message to stderr). */
int tl_read_csr(const char *path, hspmv_csr *A);

/* Fills sets[] with the kernel sets this CPU runs (hspmv_kernel_sets) and
   prints their names; returns how many. */
struct hspmv_kernel_set;
int tl_kernel_sets(const struct hspmv_kernel_set **sets, int max);

/* One kernel under test: run(k, r0, r1, x, y, add) computes rows [r0, r1)
   of y = A*x (add = 0) or y = y + A*x (add = 1) with set ks's kernel on mat,
   the matrix in that kernel's format; label names it in messages. */
typedef struct tl_kernel tl_kernel;
struct tl_kernel {
    void (*run)(const tl_kernel *k, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                int add);
    const struct hspmv_kernel_set *ks;
    const void *mat;
    const char *label;
};

/* What checking kernels on one CSR A needs: x = [x; y0] filled from the
   seed, B = [A | I] (tl_csr_augment), the cut points a = n/3 and b = n - n/4,
   and y (the add = 0 result of the last tl_kcheck_run), y1, ys. */
typedef struct tl_kcheck {
    const hspmv_csr *A;
    hspmv_csr B;
    hspmv_real *x, *y0, *y, *y1, *ys;
    int64_t n, a, b;
} tl_kcheck;

/* Validates A and sets T up; HSPMV_OK, the validation's status, or
   HSPMV_ERR_NOMEM. Free with tl_kcheck_free, also after a failure. */
int tl_kcheck_init(tl_kcheck *T, const hspmv_csr *A, uint64_t seed);
void tl_kcheck_free(tl_kcheck *T);

/* k on T's A: add = 0 (from NaN) and add = 1 within the docs/design.md bound;
   calls on [b,n) [0,a) [a,b) give bit for bit what one call gives, for
   add 0 and 1; a call on [a,b) leaves the rows outside it alone. Returns the
   number of failed checks, each printed to stderr. */
int tl_kcheck_run(tl_kcheck *T, const tl_kernel *k);

/* k (its run and mat) on T's A with each kernel set of sets[0..nsets):
   tl_kcheck_run with k.ks set in turn and the label "name isa/fmt".
   Returns the number of failed checks (each printed). */
int tl_kcheck_sets(tl_kcheck *T, tl_kernel k, const struct hspmv_kernel_set *const *sets, int nsets,
                   const char *name, const char *fmt);

/* 0 when T->y holds the bits of y, else prints what and returns 1. */
int tl_kcheck_same(const tl_kcheck *T, const hspmv_real *y, const char *what);

/* Threads call kernels on sub-ranges: k on n rows cut at many points
   (empty ranges included), from NaN, must give what one call gives.
   Returns the number of failed cuts, each printed to stderr. */
int tl_check_splits(const tl_kernel *k, int64_t n, const hspmv_real *x);

/* Copies of arrays that each end exactly at a page that cannot be read, so
   that a kernel reading one element past an array faults. */
typedef struct tl_guard {
    void *base[8];
    size_t len[8];
    int n;
} tl_guard;
/* The copy of bytes of src, or NULL (mmap failed or G full). */
void *tl_guard_copy(tl_guard *G, const void *src, size_t bytes);
/* Unmaps every copy. */
void tl_guard_free(tl_guard *G);

/* g (whose arrays and gx are guarded copies) against k (the same kernel on
   the plain arrays and x), both add = 0 on A's rows: g's y within the bound
   and the same bits as k's. Returns the number of failed checks (printed). */
int tl_check_guarded(const hspmv_csr *A, const tl_kernel *g, const hspmv_real *gx,
                     const tl_kernel *k, const hspmv_real *x);

/* Row i's bound by docs/design.md (c = 2): 2 k_i eps sum_j |a_ij x_j| + k_i eta. */
long double tl_row_bound(const hspmv_csr *A, const hspmv_real *x, int64_t i);

/* The check can fail: k's y is accepted, then with row i moved by three
   times its bound rejected. Returns the number of failed checks (printed). */
int tl_check_rejects(const hspmv_csr *A, const tl_kernel *k, const hspmv_real *x, int64_t i);

/* Calls fn(A, name, i) on every readable *.mtx in dir (the i-th of the
   sorted list; name without the folder), leaving out the unsupported shared
   files when skip_unsupported, and prints how many fn checked (returned 1)
   and refused (0). Returns how many were read (-1: no folder); *unread
   counts the files that could not be read (their messages printed). */
int tl_each_mtx(const char *dir, int skip_unsupported,
                int (*fn)(const hspmv_csr *A, const char *name, int i), int *unread);
/* What to do when a matrix folder is missing: the shared one or matrices/. */
const char *tl_missing_hint(int shared);

/* check(A, name, seed) on empty matrices: 0 x 0, 0 x 10 and 10 x 10 (10
   empty rows). Returns HSPMV_OK, or the generator's status when it failed. */
int tl_on_empty_matrices(int (*check)(const hspmv_csr *A, const char *name, uint64_t seed));

#endif
