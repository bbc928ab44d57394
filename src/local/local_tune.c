/* local_tune.c — kernel "auto": on a matrix big enough to time, each kernel
   set this CPU runs multiplies it a few times and the fastest is kept. The
   registry's order (widest SIMD first) is only a guess: on some CPUs gathers
   lose to scalar loads (random columns on AMD Zen lose 2.5x with AVX-512). */
#include <time.h>
#include "local.h"
#include "util.h"

enum { TUNE_CALLS = 3 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fastest of TUNE_CALLS products with L's current kernels, after one untimed. */
static double time_set(const hspmv_local *L, const hspmv_real *x, hspmv_real *y)
{
    double best = 0;
    hspmv_local_spmv(L, x, y, 0);
    for (int k = 0; k < TUNE_CALLS; k++) {
        double t0 = now(), t;
        hspmv_local_spmv(L, x, y, 0);
        t = now() - t0;
        if (k == 0 || t < best) best = t;
    }
    return best;
}

void hspmv_local_tune_kernels(hspmv_local *L)
{
    const hspmv_kernel_set *sets[8], *keep = L->ks;
    int n = hspmv_kernel_sets(sets, 8);
    hspmv_real *x, *y;
    double tkeep = 0, tbest = 0;
    if (n < 2 || L->nnz < HSPMV_TUNE_MIN_NNZ) return;
    x = hspmv_alloc_array((size_t)L->ncols, sizeof(hspmv_real));
    y = hspmv_alloc_array((size_t)L->nrows, sizeof(hspmv_real));
    if (x && y) {
        const hspmv_kernel_set *best = keep;
        hspmv_local_touch(L, x, L->ncols);
        hspmv_local_touch(L, y, L->nrows);
        for (int64_t j = 0; j < L->ncols; j++) x[j] = 1;
        tkeep = tbest = time_set(L, x, y);
        for (int s = 0; s < n; s++) {
            double t;
            if (sets[s] == keep) continue;
            L->ks = sets[s];
            t = time_set(L, x, y);
            if (t < tbest) {
                tbest = t;
                best = sets[s];
            }
        }
        /* a win inside the timing noise is no reason to leave the registry's choice */
        L->ks = tbest < 0.97 * tkeep ? best : keep;
    }
    hspmv_free(x);
    hspmv_free(y);
}
