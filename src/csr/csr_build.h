/* csr_build.h — private to src/csr and src/mpi: the one row sort and
   duplicate sum every CSR build uses, so that every reader (whole file,
   threads, MPI ranks) gives the same bits. */
#ifndef HSPMV_CSR_BUILD_H
#define HSPMV_CSR_BUILD_H

#include "util.h"

/* Sorts one row's (col, val) pairs by column and, among equal columns
   (duplicates of one entry), by value in IEEE total order (-0 before +0).
   The order of the input does not matter: a row gets the same bits however
   its entries were gathered (file order, threads, ranks). */
void hspmv_csr_sort_row(int32_t *c, hspmv_real *v, int64_t n);

/* Sums the duplicates of a sorted row in place (in the order the sort left
   them: ascending values) and returns the row's new length. When a sum is
   not finite and *bad is still 0, sets *bad = 1 and *badcol to its column. */
int64_t hspmv_csr_sum_row(int32_t *c, hspmv_real *v, int64_t n, int *bad, int32_t *badcol);

/* Every row of A sorted and summed in place, rowptr compacted, A->nnz
   updated. Returns the first row whose duplicates summed beyond the
   range (its column in *col), or -1. */
int64_t hspmv_csr_sort_and_sum(hspmv_csr *A, int32_t *col);

/* hspmv_csr_sort_and_sum with threads (csr_read_threads.c): rows sorted
   and summed in parallel, then compacted. A's rows are rows row0.. of the
   matrix (for the message). HSPMV_OK, HSPMV_ERR_NOMEM, or the duplicate
   fault of the first bad row (naming path). */
int hspmv_csr_sort_and_sum_threads(hspmv_csr *A, int threads, const char *path, int64_t row0, hspmv_error *err);

/* Exclusive prefix sum in place over a[0..n) with the total in a[n], by threads. */
void hspmv_prefix_sum_threads(int64_t *a, int64_t n, int threads);

/* The message for duplicates of (row, col) (0-based) summing beyond the
   range; path NULL: no file named. Returns HSPMV_ERR_FORMAT. */
int hspmv_csr_fault_dup(hspmv_error *err, const char *path, int64_t row, int32_t col);

#endif
