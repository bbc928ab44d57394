/* bench_util.h — what every benchmark program shares: clocks, medians,
   peak memory, a read-progress line, and dying with a clear message. */
#ifndef HSPMV_BENCH_UTIL_H
#define HSPMV_BENCH_UTIL_H

#include "hspmv.h"

/* Seconds on a monotonic clock. */
double bu_now(void);

/* Median, min and max of t[0..n) (t is reordered). */
void bu_stats(double *t, int n, double *median, double *min, double *max);

/* Peak resident memory of this process so far, in bytes. */
double bu_peak_rss(void);

/* Read options that print a progress line on stderr once a read has taken
   two seconds, only when stderr is a terminal. */
hspmv_read_opts bu_progress_opts(const char *path);

/* Prints "prog: message" and exits 1. */
void bu_die(const char *prog, const hspmv_error *e) __attribute__((noreturn));

/* The peers' input vector: x[j] = 1 + 0.001*(j % 1000); bu_x_at(j) is x[j]. */
void bu_fill_x(hspmv_real *x, int64_t n);
hspmv_real bu_x_at(int64_t j);

/* The peers' cross-check sums: ysum = sum y, ychk = sum y[i]*(1 + i%17). */
void bu_ysums(const hspmv_real *y, int64_t n, double *ysum, double *ychk);

/* Bytes one CSR SpMV moves by the stated model: values + 32-bit column
   indices + 64-bit row pointers + x read once + y written once. */
double bu_csr_bytes(const hspmv_csr *A);

/* Names of the HSPMV_FORMAT_* values, indexed by format ("auto", "csr", ...). */
extern const char *const bu_format_names[HSPMV_NFORMATS];

/* HSPMV_FORMAT_* for a name in bu_format_names, or -1. */
int bu_format_of(const char *name);

/* HSPMV_PART_* for "nnz", "rows" or "metis", or -1. */
int bu_partition_of(const char *name);

/* Parses a positive integer option value or dies naming the option. */
long bu_parse_long(const char *prog, const char *opt, const char *s);

#endif
