/* node_block.c — the blocks beyond the owned one (node, off-node): kept to
   their non-empty rows, one-entry rows as a list, multiplied and freed; and
   the gathers of x entries into private buffers. */
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

/* Keeps B's rows with entries when they are at most half of the rows (as
   the p2p ghost block does): blk->row and gy, and A compressed in place. */
int hspmv_node_block_compress(hspmv_csr *A, node_block *blk)
{
    return hspmv_dist_compress_rows(A, &blk->row, &blk->gy, &blk->nrows);
}

/* The entries of A (compressed rows, blk->row) as row1/col1/val1 when
   every row holds exactly one, as the boundary rows of a 5- or 7-point
   stencil do: multiplied through L and gy, 16 ranks of the real-valued
   lap3d 200 spent 0.46-0.52 ms a product on 80 000 such rows (a tenth of
   the product; 68 bytes an entry moved: row pointer, row map, gy written
   and read), against 40 bytes this way. */
int hspmv_node_block_single(const hspmv_csr *A, node_block *blk)
{
    if (!blk->row || A->nnz != A->nrows || A->nrows > INT32_MAX) return HSPMV_OK;
    for (int64_t i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] != 1 || blk->row[i] > INT32_MAX) return HSPMV_OK;
    blk->row1 = hspmv_alloc_pages((size_t)A->nrows, sizeof(int32_t));
    blk->col1 = hspmv_alloc_pages((size_t)A->nrows, sizeof(int32_t));
    blk->val1 = hspmv_alloc_pages((size_t)A->nrows, sizeof(hspmv_real));
    if (!blk->row1 || !blk->col1 || !blk->val1) return HSPMV_ERR_NOMEM; /* hspmv_node_block_free frees them */
    for (int64_t i = 0; i < A->nrows; i++) {
        blk->row1[i] = (int32_t)blk->row[i];
        blk->col1[i] = A->colind[i];
        blk->val1[i] = A->val[i];
    }
    return HSPMV_OK;
}

/* A copy of blk's row bookkeeping (the two gather variants share rows). */
int hspmv_node_block_copy(const node_block *a, node_block *b)
{
    b->nrows = a->nrows;
    if (!a->row) return HSPMV_OK;
    b->row = hspmv_alloc_array((size_t)a->nrows, sizeof(int64_t));
    b->gy = hspmv_alloc_pages((size_t)a->nrows, sizeof(hspmv_real));
    if (!b->row || !b->gy) return HSPMV_ERR_NOMEM;
    memcpy(b->row, a->row, sizeof(int64_t) * (size_t)a->nrows);
    return HSPMV_OK;
}

void hspmv_node_block_free(node_block *B)
{
    hspmv_local_destroy(&B->L);
    hspmv_free(B->row);
    hspmv_free(B->gy);
    hspmv_free(B->row1);
    hspmv_free(B->col1);
    hspmv_free(B->val1);
    B->row = NULL;
    B->gy = NULL;
    B->row1 = B->col1 = NULL;
    B->val1 = NULL;
}

void hspmv_node_block_add(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads)
{
    hspmv_node_block_mul(B, x, y, threads, 1);
}

void hspmv_node_block_add_dot(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads,
                              const hspmv_real *xo, double *dot)
{
    if (!dot) {
        hspmv_node_block_mul(B, x, y, threads, 1);
        return;
    }
    if (!B->L) return;
    if (!B->row) { /* never with dot: hspmv_dist_dot_fused asks for compressed rows */
        hspmv_node_block_mul(B, x, y, threads, 1);
        return;
    }
    const int64_t *r = B->row, n = B->nrows;
    if (B->val1) {
        const int32_t *r1 = B->row1, *c1 = B->col1;
        const hspmv_real *v1 = B->val1;
        HSPMV_SHARES_DOT(threads, n, dot, {
            hspmv_real g = v1[i] * x[c1[i]];
            y[r1[i]] += g;
            s += (double)xo[r1[i]] * g;
        });
        return;
    }
    const hspmv_real *gy = B->gy;
    hspmv_local_spmv(B->L, x, B->gy, 0);
    HSPMV_SHARES_DOT(threads, n, dot, {
        y[r[i]] += gy[i];
        s += (double)xo[r[i]] * gy[i];
    });
}

void hspmv_node_block_mul(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads, int add)
{
    if (!B->L) return;
    if (!B->row) {
        hspmv_local_spmv(B->L, x, y, add);
        return;
    }
    const int64_t *r = B->row, n = B->nrows;
    const hspmv_real *gy = B->gy;
    if (B->val1) { /* one entry a row: rows differ, so entries may go to any thread */
        const int32_t *r1 = B->row1, *c1 = B->col1;
        const hspmv_real *v1 = B->val1;
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[r1[i]] += v1[i] * x[c1[i]];
        return;
    }
    hspmv_local_spmv(B->L, x, B->gy, 0);
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 32768)
    for (int64_t i = 0; i < n; i++) y[r[i]] += gy[i];
}

void hspmv_node_gather_copy(hspmv_real *dst, const hspmv_real *src, const int64_t *idx, int64_t n, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 32768)
    for (int64_t j = 0; j < n; j++) dst[j] = src[idx[j]];
}
