/* triad_nt.c — a bandwidth probe for products that write with streaming
   stores: the triad a = b + 3c timed with plain stores (a's lines read
   before they are written) and with streaming stores (AVX-512 when
   compiled for it, else plain), 3 arrays of MiB each, the median of 20
   passes on OMP_NUM_THREADS threads. Prints probe=triad and
   probe=triad_nt lines: median_ms, gbs (3 arrays' bytes / time).
     triad_nt [MiB per array, default 512] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

enum { PASSES = 20 };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void plain(double *a, const double *b, const double *c, size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
}

static void streaming(double *a, const double *b, const double *c, size_t n)
{
#ifdef __AVX512F__
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i += 8)
        _mm512_stream_pd(a + i, _mm512_fmadd_pd(_mm512_set1_pd(3.0), _mm512_load_pd(c + i), _mm512_load_pd(b + i)));
    _mm_sfence();
#else
    plain(a, b, c, n);
#endif
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 512;
    size_t n = (size_t)(mib > 0 ? mib : 512) << 17; /* doubles: a multiple of 8 */
    double *a = aligned_alloc(64, n * 8), *b = aligned_alloc(64, n * 8), *c = aligned_alloc(64, n * 8);
    double t[2][PASSES];
    if (!a || !b || !c) {
        fprintf(stderr, "triad_nt: out of memory for 3 x %ld MiB\n", mib);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
    for (int p = 0; p < PASSES; p++) {
        double t0 = omp_get_wtime();
        plain(a, b, c, n);
        double t1 = omp_get_wtime();
        streaming(a, b, c, n);
        t[0][p] = t1 - t0, t[1][p] = omp_get_wtime() - t1;
    }
    for (int k = 0; k < 2; k++) {
        qsort(t[k], PASSES, sizeof(double), by_value);
        printf("probe=%s threads=%d mib=%zu median_ms=%.3f gbs=%.2f\n", k ? "triad_nt" : "triad",
               omp_get_max_threads(), n >> 17, t[k][PASSES / 2] * 1e3, 24.0 * (double)n / t[k][PASSES / 2] / 1e9);
    }
    int ok = a[n / 2] == 7.0; /* 1 + 3 * 2 */
    free(a), free(b), free(c);
    return ok ? 0 : 1;
}
