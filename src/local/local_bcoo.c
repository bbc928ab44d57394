/* local_bcoo.c — blocked COO arrays of a prepared matrix: converted, then
   copied so that each thread's tile rows lie on pages it touched first
   (huge pages where the system grants them). */
#include <string.h>
#include "local.h"
#include "util.h"

static int alloc_like(hspmv_bcoo *B, const hspmv_bcoo *S)
{
    *B = *S; /* sizes and shape; every pointer is replaced below */
    B->trptr = hspmv_alloc_array((size_t)S->ntr + 1, sizeof(int64_t));
    B->tptr = hspmv_alloc_array((size_t)S->ntiles + 1, sizeof(int64_t));
    B->toff = hspmv_alloc_array((size_t)S->ntiles, sizeof(int64_t));
    B->trow0 = hspmv_alloc_array((size_t)S->ntiles, sizeof(int32_t));
    B->tcol0 = hspmv_alloc_array((size_t)S->ntiles, sizeof(int32_t));
    B->twidth = hspmv_alloc_array((size_t)S->ntiles, 1);
    B->idx = hspmv_alloc_array((size_t)S->nidx + 64, 1);
    B->val = hspmv_alloc_array((size_t)S->nnz, sizeof(hspmv_real));
    if (!(B->trptr && B->tptr && B->toff && B->trow0 && B->tcol0 && B->twidth && B->idx && B->val))
        return 0;
    hspmv_local_advise(B->tptr, ((size_t)S->ntiles + 1) * sizeof(int64_t));
    hspmv_local_advise(B->idx, (size_t)S->nidx + 64);
    hspmv_local_advise(B->val, (size_t)S->nnz * sizeof(hspmv_real));
    return 1;
}

#define COPY(dst, src, lo, hi) \
    do { \
        if ((hi) > (lo)) memcpy((dst) + (lo), (src) + (lo), (size_t)((hi) - (lo)) * sizeof(*(src))); \
    } while (0)

/* Copies tile rows [t0, t1) of S into B; last: also the closing entries. */
static void copy_tile_rows(hspmv_bcoo *B, const hspmv_bcoo *S, int64_t t0, int64_t t1, int last)
{
    int64_t a = S->trptr[t0], b = S->trptr[t1]; /* tiles */
    int64_t i0 = a < S->ntiles ? S->toff[a] : S->nidx, i1 = b < S->ntiles ? S->toff[b] : S->nidx;
    COPY(B->trptr, S->trptr, t0, t1);
    COPY(B->tptr, S->tptr, a, b);
    COPY(B->toff, S->toff, a, b);
    COPY(B->trow0, S->trow0, a, b);
    COPY(B->tcol0, S->tcol0, a, b);
    COPY(B->twidth, S->twidth, a, b);
    COPY(B->idx, S->idx, i0, i1);
    COPY(B->val, S->val, S->tptr[a], S->tptr[b]);
    if (last) {
        B->trptr[S->ntr] = S->trptr[S->ntr];
        B->tptr[S->ntiles] = S->tptr[S->ntiles];
        memcpy(B->idx + S->nidx, S->idx + S->nidx, 64); /* the SIMD over-read padding */
    }
}

int hspmv_local_build_bcoo(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_bcoo S;
    int T = L->threads, rc = hspmv_bcoo_from_csr(A, &S, err);
    if (rc != HSPMV_OK) return rc;
    L->tiles = hspmv_alloc_array((size_t)T + 1, sizeof(int64_t));
    if (!L->tiles) goto nomem;
    hspmv_bcoo_chunks(&S, T, L->tiles);
    for (int c = 0; c < T; c++) hspmv_bcoo_rows(&S, L->tiles[c], L->tiles[c + 1], &L->rows[c], &L->rows[c + 1]);
    if (!alloc_like(&L->bcoo, &S)) goto nomem;
    /* scattered columns: x prefetched ahead of the gathers, as in PANELS (and
       a tile's gathers stay within its column block's pages, so 4 KiB pages
       under x cost little: the MPI layer's window) */
    _Static_assert(HSPMV_PANELS_XPF <= HSPMV_BCOO_MAX_XPF, "BCOO's prefetch distance");
    if (hspmv_panels_scattered(A)) L->bcoo.xpf = HSPMV_PANELS_XPF;
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T)
        copy_tile_rows(&L->bcoo, &S, L->tiles[c], L->tiles[c + 1], c == T - 1);
    hspmv_bcoo_free(&S);
    return hspmv_ok(err);
nomem:
    hspmv_bcoo_free(&S);
    hspmv_bcoo_free(&L->bcoo);
    return hspmv_err(err, HSPMV_ERR_NOMEM, "local BCOO: out of memory for %lld nonzeros",
                     (long long)A->nnz);
}
