/* local_spmv_dot.c — y = A*x and x'y in one sweep: each thread multiplies
   its rows in blocks of a few thousand and sums x[i]*y[i] over a block
   while the block's y (just written) and x (just gathered around the
   diagonal) are still in cache, so CG's p'q costs no pass of its own. */
#include "local.h"
#include "local_part.h"
#include "local_reorder.h"
#include "local_sym.h"

enum { DOT_ROWS = 2048 }; /* 16 KB of y and of x in double: the L1/L2 of one core */

static double block_dot(const hspmv_real *x, const hspmv_real *y, int64_t a, int64_t b)
{
    double s = 0;
    _Pragma("omp simd reduction(+ : s)")
    for (int64_t i = a; i < b; i++) s += (double)x[i] * y[i];
    return s;
}

/* Rows [r0, r1): the product block by block, each block's sum after it. */
static double rows_dot(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y)
{
    /* blocked COO walks whole tile rows: one call for the range */
    int64_t step = L->format == HSPMV_FORMAT_BCOO ? (r1 > r0 ? r1 - r0 : 1) : DOT_ROWS;
    double s = 0;
    for (int64_t a = r0; a < r1; a += step) {
        int64_t b = r1 - a > step ? a + step : r1;
        hspmv_local_spmv_rows_cached(L, a, b, x, y);
        s += block_dot(x, y, a, b);
    }
    return s;
}

static void part_rows(const hspmv_local *L, int c, int part, int nparts, int64_t *a, int64_t *b)
{
    int64_t r0 = L->rows[c], len = L->rows[c + 1] - r0;
    *a = r0 + len * part / nparts;
    *b = r0 + len * (part + 1) / nparts;
}

/* With pieces that idle threads take: each piece's sum in its own slot,
   the slots added in piece order, so the sum does not depend on who ran what. */
static double pieces_dot(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y)
{
    int T = L->threads, S = L->pieces / nparts > 1 ? L->pieces / nparts : 1;
    hspmv_claim_word cw[T] __attribute__((aligned(64)));
    double sums[(size_t)T * (size_t)S];
    for (int c = 0; c < T; c++) cw[c].w = (uint64_t)S;
#pragma omp parallel num_threads(T)
    {
        int p;
        int64_t r0, r1;
        HSPMV_FOR_MY_CHUNKS(c, T)
        while ((p = hspmv_local_take_piece(&cw[c].w, 0)) >= 0) {
            hspmv_local_piece_rows(L, c, part, nparts, p, S, &r0, &r1);
            sums[c * S + p] = rows_dot(L, r0, r1, x, y);
        }
        for (int k = 1; k < T; k++) {
            int c = (hspmv_omp_thread() + k) % T;
            while ((p = hspmv_local_take_piece(&cw[c].w, 1)) >= 0) {
                hspmv_local_piece_rows(L, c, part, nparts, p, S, &r0, &r1);
                sums[c * S + p] = rows_dot(L, r0, r1, x, y);
            }
        }
    }
    double s = 0;
    for (int i = 0; i < T * S; i++) s += sums[i];
    return s;
}

double hspmv_local_spmv_dot_part(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y)
{
    int T = L ? L->threads : 1;
    if (!L || L->nrows == 0 || !y || !x) return 0;
    if (nparts < 1) nparts = 1;
    if (L->symmetric) { /* its rows take adds from later rows: the product, then the sum */
        if (part != 0) return 0;
        hspmv_local_spmv_reordered(L, x, y, 0);
        return block_dot(x, y, 0, L->nrows);
    }
    if (T == 1) {
        int64_t a, b;
        part_rows(L, 0, part, nparts, &a, &b);
        return rows_dot(L, a, b, x, y);
    }
    if (L->pieces > 1) return pieces_dot(L, part, nparts, x, y);
    double sums[T];
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) {
        int64_t a, b;
        part_rows(L, c, part, nparts, &a, &b);
        sums[c] = rows_dot(L, a, b, x, y);
    }
    double s = 0;
    for (int c = 0; c < T; c++) s += sums[c];
    return s;
}
