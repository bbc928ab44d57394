/* bench_stream.h — a STREAM-triad bandwidth probe (a[i] = b[i] + s*c[i]) with
   a chosen number of OpenMP threads, so that SpMV GB/s can be quoted as a
   fraction of the bandwidth measured in the same run on the same threads. */
#ifndef HSPMV_BENCH_STREAM_H
#define HSPMV_BENCH_STREAM_H

#include <stddef.h>

typedef struct bs_triad_result {
    int threads;        /* threads observed inside the parallel region */
    size_t array_bytes; /* bytes of each of the three double arrays */
    int reps;           /* timed passes (after one untimed pass) */
    double median_gbs;  /* STREAM counting: 3 * array_bytes per pass, no write-allocate */
    double min_gbs, max_gbs;
} bs_triad_result;

/* The same transparent-huge-page hint the library gives its matrix arrays
   for x, y and the probe's arrays. */
void bs_advise_huge(void *p, size_t bytes);

/* MiB of this process's memory now on transparent huge pages (Linux
   /proc/self/smaps_rollup), -1 when unknown. */
double bs_huge_mib(void);

/* Bytes of last-level cache the CPUs this process may run on reach
   together (hspmv_cache_reach of src/util/cache.h: each distinct cache in
   sysfs once; else sysconf's figure, at most 16 MiB a CPU; else 32 MiB);
   *source (may be NULL) says which. */
size_t bs_llc_bytes(const char **source);

/* Array size the probe uses by default: the three arrays together 4x
   bs_llc_bytes (each 4/3 of it, in whole 2 MiB pages), each at least 16 MiB
   and at most 1/16 of the physical memory. */
size_t bs_default_array_bytes(void);

/* Triad over three arrays of array_bytes each (0: bs_default_array_bytes()),
   first-touched and run with schedule(static) on `threads` threads, reps
   timed passes. Returns 0, or -1 when the arrays cannot be allocated. */
int bs_triad(int threads, size_t array_bytes, int reps, bs_triad_result *r);

#endif
