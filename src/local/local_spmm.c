/* local_spmm.c — Y = op(A) X for a block of k vectors on a prepared matrix:
   the argument checks, the transposed copy's dispatch, the block kernels
   over the threads' row blocks, and the layouts.
   Row-major blocks (X[c*k + j]) go straight to the format's block kernel
   (kernels_spmm.h), every format but blocked COO, which is multiplied
   vector by vector (AUTO never picks it). Column-major blocks (vector j at
   j*n) run the same kernels with a row's sums in scalar registers (the
   matrix read once), which beat copying into row-major scratch blocks and
   back, and k one-vector products on the columns, on a stencil; on
   scattered columns (the panel format) each entry then misses k lines of
   X, and k one-vector products on the columns win by 4-5x
   (docs/results/2026-11-27-block-product.md). k == 1 is the one-vector
   product itself. Row-major y = A x streams Y's rows past the cache where
   they are whole lines and the product outgrows the last-level cache. */
#include <stdint.h>
#include <string.h>
#include "local.h"
#include "local_reorder.h"
#include "local_sym.h"
#include "local_part.h"
#include "kernels_spmm.h"
#include "util.h"

/* Rows [r0, r1) of Y = A X (add: +=) in the calling thread; how: the
   kernels' HSPMV_SPMM_* bits. */
static void spmm_rows(const hspmv_local *L, const hspmv_spmm_set *S, int64_t r0, int64_t r1, int k,
                      const hspmv_real *X, hspmv_real *Y, int add, int how)
{
    if (r1 <= r0) return;
    switch (L->format) {
    case HSPMV_FORMAT_CSR: S->csr(r0, r1, &L->csr, k, X, Y, add, how); break;
    case HSPMV_FORMAT_CSRL: S->csrl(r0, r1, &L->csrl, k, X, Y, add, how); break;
    case HSPMV_FORMAT_CSR16: S->csr16(r0, r1, &L->csr16, k, X, Y, add, how); break;
    case HSPMV_FORMAT_CSRVI: S->csrvi(r0, r1, &L->csrvi, k, X, Y, add, how); break;
    case HSPMV_FORMAT_CSRP: S->csrp(r0, r1, &L->csrp, k, X, Y, add, how); break;
    case HSPMV_FORMAT_CSRDU: S->csrdu(r0, r1, &L->csrdu, k, X, Y, add, how); break;
    case HSPMV_FORMAT_PANELS: S->panels(r0, r1, &L->panels, k, X, Y, add, how); break;
    default: break; /* blocked COO: spmm_by_columns */
    }
}

static int has_block_kernel(const hspmv_local *L) { return L->format != HSPMV_FORMAT_BCOO; }

/* Part `part` of `nparts` of the rows [r0, r1) (local_part.h). */
static void range_part(const hspmv_local *L, const hspmv_spmm_set *S, int64_t r0, int64_t r1, int part, int nparts,
                       int k, const hspmv_real *X, hspmv_real *Y, int add, int how)
{
    int64_t len = r1 - r0;
    spmm_rows(L, S, r0 + len * part / nparts, r0 + len * (part + 1) / nparts, k, X, Y, add, how);
}

/* Streaming stores of Y's rows: y = A x only, each row whole cache lines (k
   values a multiple of 64 bytes, Y aligned to 64), and a product that
   streams more than the last-level cache (hspmv_local_stream_y, the
   one-vector rule: Y's lines would have left the cache, so writing them
   without reading them first saves a quarter of the bytes at k = 8 on a
   stencil); HSPMV_TEST's spmm_stream=0|1 forces it off or on. */
static int stream_block(const hspmv_local *L, int k, const hspmv_real *Y, int add)
{
    hspmv_local_info in;
    if (add || ((size_t)k * sizeof(hspmv_real)) % 64 || (uintptr_t)Y % 64) return 0;
    if (L->spmm_stream_forced >= 0) return L->spmm_stream_forced;
    hspmv_local_get_info(L, &in); /* one vector's bytes, then k - 1 more rows of X and Y */
    return hspmv_local_stream_y(in.bytes + (double)(k - 1) * (double)(L->nrows + L->ncols) * sizeof(hspmv_real), -1);
}

/* Y = A X on the threads. Row-major: the row blocks (L->blocks), thread t
   taking blocks t, t+T, ..., so that the threads sweep the rows side by
   side and share one window of X's reused lines in the last-level cache.
   On the one-vector product's chunks (each thread its contiguous rows, as
   the column-major layout still runs) every thread keeps a window of its
   own, which at k = 8 (a 64-byte row of X) outgrows a core's L2 on a 3D
   stencil: 16 windows far apart instead of one shared (real-valued lap3d
   200, 16 threads, k = 8: blocks 1.22x faster, k = 2 and 4 1.04-1.08x;
   random columns 1.03-1.05x; docs/results/2026-11-28-block-rows.md). The
   matrix's pages were first touched by the chunks' threads: where one
   process spans NUMA domains, some blocks read across them (one rank per
   domain is the advice of docs/clusters.md). */
static void spmm_block(const hspmv_local *L, int part, int nparts, int k, const hspmv_real *X, hspmv_real *Y,
                       int add, int colmajor)
{
    /* kernel "auto" timed the one-vector kernels, where scalar loads may beat
       gathers; across a row's k values SIMD wins (scalar block kernels took
       2.3x as long at k = 8 on a random matrix, results file) */
    const hspmv_spmm_set *S = hspmv_spmm_find(L->ks_auto ? hspmv_kernel_find("auto")->isa : L->ks->isa, k);
    int T = L->threads;
    int how = colmajor ? HSPMV_SPMM_COLMAJOR : stream_block(L, k, Y, add) ? HSPMV_SPMM_STREAM : 0;
    const int64_t *rb = colmajor ? L->rows : L->blocks;
    int nb = colmajor ? T : L->nblocks;
    if (L->nrows == 0) return;
    if (T == 1) {
        range_part(L, S, 0, L->nrows, part, nparts, k, X, Y, add, how);
        return;
    }
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(b, nb) range_part(L, S, rb[b], rb[b + 1], part, nparts, k, X, Y, add, how);
}

/* Blocked COO: each vector on its own through the one-vector kernel,
   copied out of and back into the row-major block. */
static int spmm_by_columns(const hspmv_local *L, int k, const hspmv_real *X, hspmv_real *Y, int add,
                           hspmv_error *err)
{
    int64_t m = L->nrows, n = L->ncols;
    hspmv_real *x = hspmv_alloc_pages((size_t)(n ? n : 1), sizeof(hspmv_real));
    hspmv_real *y = hspmv_alloc_pages((size_t)(m ? m : 1), sizeof(hspmv_real));
    if (!x || !y) {
        hspmv_free(x);
        hspmv_free(y);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_spmm: out of memory for %d vectors", k);
    }
    for (int j = 0; j < k; j++) {
#pragma omp parallel for num_threads(L->threads) schedule(static)
        for (int64_t i = 0; i < n; i++) x[i] = X[i * k + j];
        hspmv_local_spmv_reordered(L, x, y, 0);
#pragma omp parallel for num_threads(L->threads) schedule(static)
        for (int64_t i = 0; i < m; i++) Y[i * k + j] = add ? Y[i * k + j] + y[i] : y[i];
    }
    hspmv_free(x);
    hspmv_free(y);
    return hspmv_ok(err);
}

/* Row-major Y = A X (add: +=) on any format. */
static int spmm_rowmajor(const hspmv_local *L, int k, const hspmv_real *X, hspmv_real *Y, int add, hspmv_error *err)
{
    if (!has_block_kernel(L)) return spmm_by_columns(L, k, X, Y, add, err);
    spmm_block(L, 0, 1, k, X, Y, add, 0);
    return hspmv_ok(err);
}

/* Column-major blocked COO and panels: the one-vector product on each column in place. */
static int spmm_columns_in_place(const hspmv_local *L, int k, const hspmv_real *X, hspmv_real *Y, int add,
                                 hspmv_error *err)
{
    for (int j = 0; j < k; j++)
        hspmv_local_spmv_reordered(L, X + (size_t)j * (size_t)L->ncols, Y + (size_t)j * (size_t)L->nrows, add);
    return hspmv_ok(err);
}

void hspmv_local_spmm_part(const hspmv_local *L, int part, int nparts, int k, const hspmv_real *X, hspmv_real *Y,
                           int add)
{
    if (k == 1) {
        hspmv_local_spmv_part(L, part, nparts, X, Y, add);
        return;
    }
    if (!has_block_kernel(L)) {
        if (part == 0) spmm_by_columns(L, k, X, Y, add, NULL);
        return;
    }
    if (nparts < 1) nparts = 1;
    spmm_block(L, part, nparts, k, X, Y, add, 0);
}

int hspmv_local_spmm(hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                     hspmv_error *err)
{
    if (!L || k < 1 || (flags & ~(HSPMV_TRANSPOSE | HSPMV_COL_MAJOR | HSPMV_REORDERED)) || !X || !Y)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_spmm: bad arguments (k = %d, flags = %d)", k, flags);
    if (hspmv_local_is_reordered(L) && !(flags & HSPMV_REORDERED))
        return hspmv_local_spmm_user(L, flags, k, X, Y, add, err);
    return hspmv_local_spmm_inner(L, flags & ~HSPMV_REORDERED, k, X, Y, add, err);
}

int hspmv_local_spmm_inner(hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                           hspmv_error *err)
{
    if (L->symmetric) return hspmv_local_sym_spmm(L, flags, k, X, Y, add, err);
    if (flags & HSPMV_TRANSPOSE) {
        int rc = hspmv_local_transposed(L, err);
        if (rc) return rc;
        L = L->T;
    }
    if (k == 1) {
        hspmv_local_spmv_reordered(L, X, Y, add);
        return hspmv_ok(err);
    }
    if (flags & HSPMV_COL_MAJOR) {
        /* scattered columns (the panel format): each entry would miss k lines of X */
        if (!has_block_kernel(L) || L->format == HSPMV_FORMAT_PANELS)
            return spmm_columns_in_place(L, k, X, Y, add, err);
        spmm_block(L, 0, 1, k, X, Y, add, 1);
        return hspmv_ok(err);
    }
    return spmm_rowmajor(L, k, X, Y, add, err);
}
