/* bench_stream.c — STREAM-triad probe: a[i] = b[i] + s*c[i], static schedule,
   arrays first-touched by the threads that use them, median of timed passes. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bench_stream.h"
#include "cache.h"
#include "bench_util.h"
#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_num_threads(void) { return 1; }
#endif

void bs_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (p && bytes >= ((size_t)4 << 20) && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

double bs_huge_mib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "AnonHugePages: %lf", &kb) == 1) break;
    if (f) fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

size_t bs_llc_bytes(const char **source)
{
    cpu_set_t set;
    int64_t r;
    if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) < 1) {
        CPU_ZERO(&set);
        CPU_SET(0, &set);
    }
    r = hspmv_cache_reach("/sys/devices/system/cpu", &set, source);
    return r > 0 ? (size_t)r : (size_t)HSPMV_CACHE_DEFAULT_L3;
}

size_t bs_default_array_bytes(void)
{
    size_t mib2 = (size_t)2 << 20, b = (4 * bs_llc_bytes(NULL) / 3 + mib2 - 1) / mib2 * mib2, lo = (size_t)16 << 20;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t hi = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 16 / mib2 * mib2 : b;
    b = b > lo ? b : lo;
    return b < hi || hi < lo ? b : hi;
}

int bs_triad(int threads, size_t array_bytes, int reps, bs_triad_result *r)
{
    size_t bytes = array_bytes ? array_bytes : bs_default_array_bytes();
    long n = (long)(bytes / sizeof(double));
    double *a = hspmv_malloc(bytes), *b = hspmv_malloc(bytes), *c = hspmv_malloc(bytes);
    double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof(double)), s = 3.0;
    int seen = 0;
    if (!a || !b || !c || !t || reps < 1) {
        hspmv_free(a);
        hspmv_free(b);
        hspmv_free(c);
        free(t);
        return -1;
    }
    bs_advise_huge(a, bytes);
    bs_advise_huge(b, bytes);
    bs_advise_huge(c, bytes);
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        seen = omp_get_num_threads();
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) {
            a[i] = 1.0;
            b[i] = 2.0;
            c[i] = 0.5;
        }
    }
    for (int k = -1; k < reps; k++) { /* pass -1 is the untimed warm-up */
        double t0 = bu_now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        if (k >= 0) t[k] = bu_now() - t0;
    }
    r->threads = seen;
    r->array_bytes = (size_t)n * sizeof(double);
    r->reps = reps;
    for (int k = 0; k < reps; k++) t[k] = 3.0 * (double)r->array_bytes / t[k] / 1e9;
    bu_stats(t, reps, &r->median_gbs, &r->min_gbs, &r->max_gbs);
    if (a[n / 2] != 2.0 + s * 0.5) r->median_gbs = -1; /* checks its own result, like STREAM */
    hspmv_free(a);
    hspmv_free(b);
    hspmv_free(c);
    free(t);
    return 0;
}
