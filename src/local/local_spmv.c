/* local_spmv.c — y = A*x (or y += A*x) on a prepared matrix, whole or one
   part of every thread chunk at a time (local_part.h): one parallel region,
   each thread runs the kernel on the rows it was given at creation (in
   pieces that idle threads take, local_pieces.c, when it has them); and the
   first touch of a vector by the threads that will use it. Calls go down
   only: to local_pieces.c and local_rows.c. */
#include <string.h>
#include "local.h"
#include "local_part.h"
#include "local_reorder.h"
#include "local_sym.h"

/* Chunk c of y = A*x (add: y += A*x): its rows (whole tile rows in blocked COO). */
static void run_chunk(const hspmv_local *L, int c, const hspmv_real *x, hspmv_real *y, int add)
{
    hspmv_local_spmv_rows(L, L->rows[c], L->rows[c + 1], x, y, add);
}

/* hspmv_local_spmv (local_reorder.c) is this where L keeps the caller's order. */
void hspmv_local_spmv_reordered(const hspmv_local *L, const hspmv_real *x, hspmv_real *y, int add)
{
    if (!L || L->nrows == 0 || !y || (!x && L->ncols > 0)) return; /* documented: a no-op */
    int T = L->threads;
    if (L->symmetric) {
        hspmv_local_sym_spmv(L, x, y, add);
        return;
    }
    if (T == 1) {
        run_chunk(L, 0, x, y, add);
        return;
    }
    if (L->pieces > 1) {
        hspmv_local_run_pieces(L, 0, 1, x, y, add);
        return;
    }
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) run_chunk(L, c, x, y, add);
}

/* Part `part` of `nparts` of chunk c (local_part.h). */
static void chunk_part(const hspmv_local *L, int c, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                       int add)
{
    int64_t r0 = L->rows[c], len = L->rows[c + 1] - r0;
    int64_t a = r0 + len * part / nparts, b = r0 + len * (part + 1) / nparts;
    hspmv_local_spmv_rows(L, a, b, x, y, add);
}

void hspmv_local_spmv_part(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                           int add)
{
    int T = L->threads;
    if (nparts <= 1 || L->nrows == 0 || L->symmetric) { /* one triangle: no parts, part 0 does it all */
        if (part == 0) hspmv_local_spmv_reordered(L, x, y, add);
        return;
    }
    if (T == 1) {
        chunk_part(L, 0, part, nparts, x, y, add);
        return;
    }
    if (L->pieces > 1) {
        hspmv_local_run_pieces(L, part, nparts, x, y, add);
        return;
    }
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) chunk_part(L, c, part, nparts, x, y, add);
}

void hspmv_local_touch(const hspmv_local *L, hspmv_real *v, int64_t n)
{
    int T = L->threads;
    if (n <= 0) return;
    hspmv_local_advise(v, (size_t)n * sizeof(*v)); /* huge pages for x: gathers from 32 MB miss no TLB */
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) {
        /* rows' share of v: the same rows when n == nrows, else in proportion */
        int64_t a, b;
        if (n == L->nrows) {
            a = L->rows[c];
            b = L->rows[c + 1];
        } else if (L->nrows > 0) {
            a = (int64_t)((double)L->rows[c] / (double)L->nrows * (double)n);
            b = c == T - 1 ? n : (int64_t)((double)L->rows[c + 1] / (double)L->nrows * (double)n);
        } else {
            a = n / T * c + n % T * c / T;
            b = n / T * (c + 1) + n % T * (c + 1) / T;
        }
        if (b > a) memset(v + a, 0, (size_t)(b - a) * sizeof(*v));
    }
}
