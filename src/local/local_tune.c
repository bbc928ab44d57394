/* local_tune.c — kernel "auto": on a matrix big enough to time, each kernel
   set this CPU runs multiplies it a few times and the fastest is kept; and
   the timing of two prepared matrices against each other (AUTO's CSRDU). The
   registry's order (widest SIMD first) is only a guess: on some CPUs gathers
   lose to scalar loads (random columns on AMD Zen lose 2.5x with AVX-512). */
#include <time.h>
#include "local.h"
#include "util.h"

/* Rounds of timed products: each round times every set once, in turn, so
   that a drift of the machine's bandwidth (up to 30-50% within a job on the
   shared 16-core Xeon) touches every set alike; a set's time is its fastest
   round. With one set after the other, sets timed in a slow spell lost:
   kernel "auto" took the scalar CSR kernel on random columns, 15.0 ms,
   where AVX-512 ran 12.3 ms in the same job. */
enum { TUNE_ROUNDS = 5 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of one product with each of the n matrices (current kernels). */
static double time_group(hspmv_local *const *L, int n, hspmv_real *const *x, hspmv_real *const *y)
{
    double t0 = now();
    for (int i = 0; i < n; i++)
        if (L[i]) hspmv_local_spmv(L[i], x[i], y[i], 0);
    return now() - t0;
}

/* x[i] (all ones) and y[i] for each of the n matrices, first-touched as
   their products will touch them; 0 when out of memory (the caller frees
   what was made: free_vectors). */
static int make_vectors(hspmv_local *const *L, int n, hspmv_real **x, hspmv_real **y)
{
    for (int i = 0; i < n; i++) {
        if (!L[i]) continue;
        x[i] = hspmv_alloc_array((size_t)L[i]->ncols + 1, sizeof(hspmv_real));
        y[i] = hspmv_alloc_array((size_t)L[i]->nrows + 1, sizeof(hspmv_real));
        if (!x[i] || !y[i]) return 0;
        hspmv_local_touch(L[i], x[i], L[i]->ncols);
        hspmv_local_touch(L[i], y[i], L[i]->nrows);
        for (int64_t j = 0; j < L[i]->ncols; j++) x[i][j] = 1;
    }
    return 1;
}

static void free_vectors(int n, hspmv_real **x, hspmv_real **y)
{
    for (int i = 0; x && y && i < n; i++) {
        hspmv_free(x[i]);
        hspmv_free(y[i]);
    }
}

static void set_kernels(hspmv_local **L, int n, const hspmv_kernel_set *ks)
{
    for (int i = 0; i < n; i++)
        if (L[i]) L[i]->ks = ks;
}

int hspmv_local_time_kernels_in_step(hspmv_local **L, int n, double *t, int max, void (*sync)(void *), void *ctx)
{
    const hspmv_kernel_set *sets[8];
    int nsets = hspmv_kernel_sets(sets, 8), ok;
    int64_t nnz = 0;
    hspmv_real **x = NULL, **y = NULL;
    if (nsets > max) nsets = max;
    for (int i = 0; i < n; i++)
        if (L[i]) nnz += L[i]->nnz;
    if (!sync && (nsets < 1 || nnz == 0)) return 0;
    if (n > 0) {
        x = hspmv_calloc((size_t)n, sizeof(*x));
        y = hspmv_calloc((size_t)n, sizeof(*y));
    }
    ok = nnz > 0 && x && y && make_vectors(L, n, x, y);
    for (int r = -1; r < TUNE_ROUNDS; r++) /* round -1: untimed, to warm up */
        for (int s = 0; s < nsets; s++) {
            double ts = 0;
            if (ok) set_kernels(L, n, sets[s]);
            if (sync) sync(ctx);
            if (ok) ts = time_group(L, n, x, y);
            if (r == 0 || (r > 0 && ts < t[s])) t[s] = ts;
        }
    free_vectors(n, x, y);
    hspmv_free(x);
    hspmv_free(y);
    return ok ? nsets : 0;
}

int hspmv_local_time_kernels(hspmv_local **L, int n, double *t, int max)
{
    return hspmv_local_time_kernels_in_step(L, n, t, max, NULL, NULL);
}

void hspmv_local_use_kernels(hspmv_local **L, int n, int s)
{
    const hspmv_kernel_set *sets[8];
    int nsets = hspmv_kernel_sets(sets, 8);
    if (s >= 0 && s < nsets) set_kernels(L, n, sets[s]);
}

/* At a tie, the narrower vectors: on the 16-core Xeon, AVX-512 on every
   core never gained on memory-bound rows and lost where it was forced (16
   ranks of the real-valued lap3d 200, CSRP, launches interleaved: AVX2
   5.21 and 5.05 ms, AVX-512 6.58 and 6.00), yet timing in step sometimes
   took it, within the noise; benchmark-omp took AVX2 in every job. */
int hspmv_local_pick_kernels(const double *t, int ns)
{
    int best = 0, ref = ns >= 2 ? ns - 2 : 0;
    for (int s = 1; s < ns; s++)
        if (t[s] < t[best]) best = s;
    return ns > 0 && t[best] < 0.97 * t[ref] ? best : ref;
}

void hspmv_local_tune_group(hspmv_local **L, int n)
{
    double t[8];
    int64_t nnz = 0;
    int ns;
    for (int i = 0; i < n; i++)
        if (L[i]) nnz += L[i]->nnz;
    if (nnz < HSPMV_TUNE_MIN_NNZ) return;
    ns = hspmv_local_time_kernels(L, n, t, 8);
    hspmv_local_use_kernels(L, n, ns > 1 ? hspmv_local_pick_kernels(t, ns) : 0);
}

int hspmv_local_time_pair(hspmv_local *a, hspmv_local *b, double t[2])
{
    hspmv_local *L[2] = {a, b};
    hspmv_real *x[2] = {NULL, NULL}, *y[2] = {NULL, NULL};
    int ok = make_vectors(L, 2, x, y);
    for (int r = -1; ok && r < TUNE_ROUNDS; r++) /* round -1: untimed, to warm up */
        for (int i = 0; i < 2; i++) {
            double ts = time_group(&L[i], 1, &x[i], &y[i]);
            if (r == 0 || (r > 0 && ts < t[i])) t[i] = ts;
        }
    free_vectors(2, x, y);
    return ok;
}

void hspmv_local_tune_kernels(hspmv_local *L)
{
    hspmv_local_tune_group(&L, 1);
}
