/* order_scan.c — the threads an ordering step runs on, and the running sum
   of an array in place, in parallel: each thread sums its block, the block
   totals are summed in order, each thread adds the total before its block
   as it runs through it again. */
#include <stdlib.h>
#include "order.h"
#ifdef _OPENMP
#include <omp.h>
#endif

int hspmv_order_threads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

void hspmv_order_scan(int64_t *x, int64_t n, int threads)
{
    int64_t len = n + 1;
    int T = hspmv_order_threads(threads);
    if (T > 1 && len >= 65536) {
        int64_t part[257] = {0};
        if (T > 256) T = 256;
#pragma omp parallel num_threads(T)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
            int t = 0, nt = 1;
#endif
            int64_t lo = len * t / nt, hi = len * (t + 1) / nt, s = 0;
            for (int64_t k = lo; k < hi; k++) s += x[k];
            part[t + 1] = s;
#pragma omp barrier
            s = 0;
            for (int u = 0; u < t; u++) s += part[u + 1];
            for (int64_t k = lo; k < hi; k++) s += x[k], x[k] = s;
        }
        return;
    }
    for (int64_t k = 1; k < len; k++) x[k] += x[k - 1];
}
