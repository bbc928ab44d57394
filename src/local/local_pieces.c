/* local_pieces.c — each thread's chunk cut into pieces that idle threads
   take: a thread runs its own pieces from the front, then takes the others'
   from the back, so a thread slowed down by its core or by where its part
   of the matrix lies in memory does not hold up the product.

   Why: on the 16-core Xeon VM (one NUMA node) a static split of equal
   nonzeros let some threads, and some ranks, run 1.3-1.5x longer than the
   rest, different ones each run (the same with and without huge pages);
   benchmark-omp on the real-valued lap3d 200 took 5.41-5.75 ms with one
   chunk per thread and 4.38-4.50 with 16 pieces per chunk (one job). */
#include <stdint.h>
#include "local.h"
#include "local_part.h"
#include "settings.h"

enum { MAX_PIECES = 16 };
#define PIECE_MIN_NNZ 16384 /* a piece's claim (one compare-and-swap) is noise beside this */

int hspmv_local_piece_count(const hspmv_local *L, const char *test)
{
    long forced = hspmv_test_int(test, "pieces", 0); /* 1..4096 (settings.c) */
    int64_t per = L->nnz / (L->threads > 0 ? L->threads : 1) / PIECE_MIN_NNZ;
    if (forced > 0) return (int)forced;
    if (L->threads <= 1) return 1;
    return per < 1 ? 1 : per > MAX_PIECES ? MAX_PIECES : (int)per;
}

int hspmv_local_take_piece(uint64_t *w, int back)
{
    uint64_t o = __atomic_load_n(w, __ATOMIC_RELAXED);
    for (;;) {
        uint32_t f = (uint32_t)(o >> 32), b = (uint32_t)o;
        if (f >= b) return -1;
        uint64_t n = back ? ((uint64_t)f << 32 | (b - 1)) : ((uint64_t)(f + 1) << 32 | b);
        /* relaxed: the region's closing barrier orders the writes to y */
        if (__atomic_compare_exchange_n(w, &o, n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return back ? (int)b - 1 : (int)f;
    }
}

/* Rows of piece p of S of chunk c's part: whole tile rows in blocked COO. */
void hspmv_local_piece_rows(const hspmv_local *L, int c, int part, int nparts, int p, int S, int64_t *r0, int64_t *r1)
{
    int64_t a = L->rows[c], len = L->rows[c + 1] - a, h = L->format == HSPMV_FORMAT_BCOO ? L->bcoo.tile_h : 1;
    int64_t pa = a + len * part / nparts, pb = a + len * (part + 1) / nparts, n = pb - pa;
    int64_t lo = pa + n * p / S, hi = pa + n * (p + 1) / S;
    if (h > 1) {
        if (p > 0) lo = lo / h * h > pa ? lo / h * h : pa;
        if (p + 1 < S) hi = hi / h * h > pa ? hi / h * h : pa;
    }
    *r0 = lo;
    *r1 = hi > lo ? hi : lo;
}

static void run_piece(const hspmv_local *L, int c, int part, int nparts, int p, int S, const hspmv_real *x,
                      hspmv_real *y, int add)
{
    int64_t r0, r1;
    hspmv_local_piece_rows(L, c, part, nparts, p, S, &r0, &r1);
    hspmv_local_spmv_rows(L, r0, r1, x, y, add);
}

void hspmv_local_run_pieces(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                            int add)
{
    int T = L->threads, S = L->pieces / nparts > 1 ? L->pieces / nparts : 1;
    hspmv_claim_word cw[T] __attribute__((aligned(64))); /* one a chunk */
    for (int c = 0; c < T; c++) cw[c].w = (uint64_t)S; /* front 0, back S */
#pragma omp parallel num_threads(T)
    {
        int p;
        HSPMV_FOR_MY_CHUNKS(c, T)
        while ((p = hspmv_local_take_piece(&cw[c].w, 0)) >= 0) run_piece(L, c, part, nparts, p, S, x, y, add);
        for (int k = 1; k < T; k++) { /* then the others' pieces, from the back */
            int c = (hspmv_omp_thread() + k) % T;
            while ((p = hspmv_local_take_piece(&cw[c].w, 1)) >= 0) run_piece(L, c, part, nparts, p, S, x, y, add);
        }
    }
}
