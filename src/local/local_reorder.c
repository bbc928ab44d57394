/* local_reorder.c — hspmv_opts.reorder for one rank's matrix: the order is
   chosen (src/order), the permuted copy prepared as any matrix, and the
   caller's order kept at the interface by gathering x in and scattering y
   out around the product in the matrix's own order. */
#include <string.h>
#include "local.h"
#include "local_part.h"
#include "local_reorder.h"
#include "util.h"

int hspmv_local_is_reordered(const hspmv_local *L)
{
    return L && L->ord && L->ord->choice.rp;
}

void hspmv_local_order_free(hspmv_local_order **pord)
{
    hspmv_local_order *ord = *pord;
    if (!ord) return;
    hspmv_free(ord->choice.rp);
    hspmv_free(ord->choice.cp);
    hspmv_free(ord->xs);
    hspmv_free(ord->ys);
    hspmv_free(ord);
    *pord = NULL;
}

int hspmv_local_create_reordered(const hspmv_csr *A, const hspmv_opts *o, const char *test, hspmv_local **out,
                                 hspmv_error *err)
{
    hspmv_opts o2 = *o;
    hspmv_csr B;
    hspmv_local *L = NULL;
    hspmv_local_order *ord = hspmv_calloc(1, sizeof(*ord));
    int rc;
    if (!ord) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
    rc = hspmv_order_choose(A, o->reorder, test, o->threads, &ord->choice, &B, err);
    if (rc) {
        hspmv_free(ord);
        return rc;
    }
    o2.reorder = HSPMV_REORDER_NONE;
    rc = hspmv_local_create_test(ord->choice.rp ? &B : A, &o2, test, &L, err);
    hspmv_csr_free(&B);
    if (!rc && ord->choice.rp) {
        ord->xs = hspmv_alloc_pages(L->ncols ? (size_t)L->ncols : 1, sizeof(hspmv_real));
        ord->ys = hspmv_alloc_pages(L->nrows ? (size_t)L->nrows : 1, sizeof(hspmv_real));
        if (!ord->xs || !ord->ys) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for the "
                                                 "reordered product's vectors (%lld rows)", (long long)L->nrows);
        else {
            hspmv_local_touch(L, ord->xs, L->ncols);
            hspmv_local_touch(L, ord->ys, L->nrows);
        }
    }
    if (rc) {
        hspmv_local_order_free(&ord);
        hspmv_local_destroy(&L);
        return rc;
    }
    L->ord = ord;
    *out = L;
    return hspmv_ok(err);
}

/* dst[k] = src[p[k]] (in) or dst[p[k]] = src[k] (out; add: +=), k < n. */
static void permute(const hspmv_local *L, const int64_t *p, int64_t n, const hspmv_real *src, hspmv_real *dst,
                    int out, int add)
{
    if (!p) {
        if (add)
#pragma omp parallel for schedule(static) num_threads(L->threads)
            for (int64_t k = 0; k < n; k++) dst[k] += src[k];
        else if (dst != src) memcpy(dst, src, (size_t)n * sizeof(hspmv_real));
        return;
    }
    if (!out)
#pragma omp parallel for schedule(static) num_threads(L->threads)
        for (int64_t k = 0; k < n; k++) dst[k] = src[p[k]];
    else if (add)
#pragma omp parallel for schedule(static) num_threads(L->threads)
        for (int64_t k = 0; k < n; k++) dst[p[k]] += src[k];
    else
#pragma omp parallel for schedule(static) num_threads(L->threads)
        for (int64_t k = 0; k < n; k++) dst[p[k]] = src[k];
}

int hspmv_local_vec_order(const hspmv_local *L, int flags, const hspmv_real *src, hspmv_real *dst,
                          hspmv_error *err)
{
    int rows = (flags & HSPMV_ORDER_ROWS) != 0;
    int64_t n;
    if (!L) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_vec_order: L is NULL");
    n = rows ? L->nrows : L->ncols;
    if (flags & ~(HSPMV_ORDER_ROWS | HSPMV_ORDER_OUT))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_vec_order: unknown flags %d", flags);
    if (n > 0 && (!src || !dst)) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_vec_order: a NULL vector");
    const int64_t *p = hspmv_local_is_reordered(L) ? (rows ? L->ord->choice.rp : L->ord->choice.cp) : NULL;
    permute(L, p, n, src, dst, (flags & HSPMV_ORDER_OUT) != 0, 0);
    return hspmv_ok(err);
}

void hspmv_local_spmv(const hspmv_local *L, const hspmv_real *x, hspmv_real *y, int add)
{
    if (!hspmv_local_is_reordered(L)) {
        hspmv_local_spmv_reordered(L, x, y, add);
        return;
    }
    if (L->nrows == 0 || !y || (!x && L->ncols > 0)) return; /* documented: a no-op, as unordered */
    permute(L, L->ord->choice.cp, L->ncols, x, L->ord->xs, 0, 0);
    hspmv_local_spmv_reordered(L, L->ord->xs, L->ord->ys, 0);
    permute(L, L->ord->choice.rp, L->nrows, L->ord->ys, y, 1, add);
}

/* A block of k vectors (row-major X[i*k + j], or col-major X[j*n + i]) in or out through p. */
static void permute_block(const hspmv_local *L, const int64_t *p, int64_t n, int k, int colmajor,
                          const hspmv_real *src, hspmv_real *dst, int out, int add)
{
    if (colmajor) {
        for (int j = 0; j < k; j++)
            permute(L, p, n, src + (size_t)j * (size_t)n, dst + (size_t)j * (size_t)n, out, add);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(L->threads)
    for (int64_t i = 0; i < n; i++) {
        const hspmv_real *s = src + (size_t)(out ? i : p[i]) * (size_t)k;
        hspmv_real *d = dst + (size_t)(out ? p[i] : i) * (size_t)k;
        for (int j = 0; j < k; j++) d[j] = add ? d[j] + s[j] : s[j];
    }
}

int hspmv_local_spmm_user(hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                          hspmv_error *err)
{
    int tr = (flags & HSPMV_TRANSPOSE) != 0, cm = (flags & HSPMV_COL_MAJOR) != 0, rc;
    const int64_t *pin = tr ? L->ord->choice.rp : L->ord->choice.cp, *pout = tr ? L->ord->choice.cp : L->ord->choice.rp;
    int64_t nin = tr ? L->nrows : L->ncols, nout = tr ? L->ncols : L->nrows;
    hspmv_real *Xi = hspmv_alloc_pages(hspmv_bytes((size_t)(nin ? nin : 1), (size_t)k), sizeof(hspmv_real));
    hspmv_real *Yi = hspmv_alloc_pages(hspmv_bytes((size_t)(nout ? nout : 1), (size_t)k), sizeof(hspmv_real));
    if (!Xi || !Yi) {
        hspmv_free(Xi);
        hspmv_free(Yi);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_spmm: out of memory for the reordered blocks of %d vectors",
                         k);
    }
    permute_block(L, pin, nin, k, cm, X, Xi, 0, 0);
    rc = hspmv_local_spmm_inner(L, flags, k, Xi, Yi, 0, err);
    if (!rc) permute_block(L, pout, nout, k, cm, Yi, Y, 1, add);
    hspmv_free(Xi);
    hspmv_free(Yi);
    return rc;
}
