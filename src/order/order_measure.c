/* order_measure.c — how local a matrix's numbering is: bandwidth, profile,
   mean distance from the diagonal and the fraction of entries within a
   cache-sized window of it (what `auto` decides by). */
#include <stdlib.h>
#include "cache.h"
#include "order.h"
#include "util.h"

int64_t hspmv_order_window(const char *test)
{
    long forced = hspmv_test_int(test, "reorder_window", 0);
    int64_t l2 = hspmv_caches_here()->bytes[2];
    if (forced > 0) return forced;
    if (l2 <= 0) l2 = 1 << 20;
    return l2 / (int64_t)sizeof(hspmv_real) / 2;
}

void hspmv_order_measure(const hspmv_csr *A, int64_t window, int threads, hspmv_order_stats *s)
{
    int64_t n = A->nrows, bw = 0, near = 0;
    double prof = 0, dist = 0;
    double scale = n > 0 ? (double)A->ncols / (double)n : 0;
    int square = A->nrows == A->ncols;
    threads = hspmv_order_threads(threads);
#pragma omp parallel for schedule(static, 4096) num_threads(threads) reduction(max : bw) \
    reduction(+ : near, prof, dist)
    for (int64_t i = 0; i < n; i++) {
        int64_t a = A->rowptr[i], b = A->rowptr[i + 1];
        int64_t d = square ? i : (int64_t)((double)i * scale);
        if (a < b && A->colind[a] < d) prof += (double)(d - A->colind[a]);
        for (int64_t k = a; k < b; k++) {
            int64_t e = llabs((long long)(A->colind[k] - d));
            bw = e > bw ? e : bw;
            dist += (double)e;
            near += e <= window;
        }
    }
    s->bandwidth = bw;
    s->profile = prof;
    s->mean_dist = A->nnz > 0 ? dist / (double)A->nnz : 0;
    s->local_frac = A->nnz > 0 ? (double)near / (double)A->nnz : 1;
    s->window = window;
}
