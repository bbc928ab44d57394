/* local_sym.c — one-triangle storage of a prepared matrix (sym.h): whether
   to keep it, building it, and y = A*x from it with threads that never
   write the same y at once. Thread c owns rows [r0, r1) = rows[c..c+1]:
   its rows' own sums and the mirrored adds that land in [r0, r1) go to y
   directly (no other thread writes there: a row's mirrored adds land
   below it, and the other threads' rows below r0 reach only their own or
   lower rows); the mirrored adds that land below r0 go to a private
   part of y, rows [lo, r0) with lo the lowest column in the thread's rows
   (for a banded or mesh matrix, about a bandwidth), summed into y after a
   barrier, each row by the thread that owns it, the threads' parts in
   ascending order (the same bits for the same thread count). RACE's level
   colouring (Alappat et al., ACM TOPC 2020) was the other candidate; this
   one needs no reordering and its extra bytes are 3 per private row. */
#include <string.h>
#include <time.h>
#include "local.h"
#include "local_sym.h"
#include "util.h"

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* L->hlo[c]: the lowest column of chunk c's strictly lower entries, or its
   first row when that is lower; the private rows of chunk c are [hlo[c], rows[c]). */
static int64_t find_halos(hspmv_local *L, const hspmv_csr *A)
{
    int64_t total = 0;
    for (int c = 0; c < L->threads; c++) {
        int64_t r0 = L->rows[c], lo = r0;
        for (int64_t i = r0; i < L->rows[c + 1]; i++)
            if (A->rowptr[i + 1] > A->rowptr[i] && A->colind[A->rowptr[i]] < lo) lo = A->colind[A->rowptr[i]];
        L->hlo[c] = c == 0 ? r0 : lo; /* chunk 0 has no rows below it */
        total += r0 - L->hlo[c];
    }
    return total;
}

/* The private parts, each allocated and first touched by its thread. */
static int alloc_halos(hspmv_local *L)
{
    int T = L->threads, bad = 0;
#pragma omp parallel num_threads(T) reduction(| : bad)
    HSPMV_FOR_MY_CHUNKS(c, T) {
        int64_t h = L->rows[c] - L->hlo[c];
        if (h > 0) {
            L->hbuf[c] = hspmv_alloc_array((size_t)h, sizeof(hspmv_real));
            if (L->hbuf[c]) memset(L->hbuf[c], 0, (size_t)h * sizeof(hspmv_real));
            else bad = 1;
        }
    }
    return !bad;
}

/* AUTO takes row patterns where rows repeat them at least this often (as CSRP_REUSE). */
#define PAT_REUSE 8

/* The index kind from o->format: AUTO row patterns where they repeat
   (PAT_REUSE), else 16-bit offsets where they fit, else 32-bit columns;
   CSRP, CSR16, CSR ask for one; UNSUPPORTED for the others and for one
   that cannot hold A. *P gets the patterns when PAT is taken. */
static int pick_index(const hspmv_csr *A, const hspmv_opts *o, int fits16, hspmv_sym *P, int *index,
                      hspmv_error *err)
{
    int f = o->format;
    if (f == HSPMV_FORMAT_AUTO || f == HSPMV_FORMAT_CSRP) {
        int rc = hspmv_sym_patterns(A, P);
        if (rc < 0) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for row patterns");
        if (rc > 0 && (f == HSPMV_FORMAT_CSRP || A->nrows >= PAT_REUSE * (int64_t)P->npat)) {
            *index = HSPMV_SYM_PAT;
            return HSPMV_OK;
        }
        hspmv_sym_free(P);
        if (f == HSPMV_FORMAT_CSRP)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_create: symmetric yes with format CSRP, "
                             "but the lower triangle has more than %d row patterns or %d offsets in them",
                             HSPMV_SYM_MAXPAT, HSPMV_SYM_MAXOFS);
    }
    if (f == HSPMV_FORMAT_AUTO || f == HSPMV_FORMAT_CSR16) {
        if (!fits16 && f == HSPMV_FORMAT_CSR16)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_create: symmetric yes with format CSR16, "
                             "but an entry lies more than %d columns below its row", HSPMV_SYM_MAXDIST);
        *index = fits16 ? HSPMV_SYM_IDX16 : HSPMV_SYM_IDX32;
        return HSPMV_OK;
    }
    if (f == HSPMV_FORMAT_CSR) {
        *index = HSPMV_SYM_IDX32;
        return HSPMV_OK;
    }
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_create: symmetric yes keeps one triangle with "
                     "row patterns, 16- or 32-bit indices (format auto, csrp, csr16 or csr), not format %d", f);
}

/* AUTO keeps one triangle when its model moves fewer bytes than the least
   any full storage can: its values alone, x and y once. */
static int pays(const hspmv_local *L, int64_t lower, int index, int64_t halo)
{
    double r = sizeof(hspmv_real);
    return hspmv_sym_model(L->nrows, lower, index, halo) < (double)L->nnz * r + (double)(L->ncols + L->nrows) * r;
}

int hspmv_local_sym_prepare(hspmv_local *L, const hspmv_csr *A, const hspmv_opts *o, hspmv_error *err)
{
    int ask = o->symmetric, kind, fits16 = 0, index = 0, rc;
    int64_t *lrp = NULL, halo;
    double t0;
    if (ask < HSPMV_SYMMETRIC_AUTO || ask > HSPMV_SYMMETRIC_YES)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: unknown symmetric %d", ask);
    if (ask == HSPMV_SYMMETRIC_NO || (ask == HSPMV_SYMMETRIC_AUTO && o->format != HSPMV_FORMAT_AUTO))
        return HSPMV_OK;
    if (A->nrows != A->ncols || A->nrows == 0) {
        if (ask == HSPMV_SYMMETRIC_AUTO) return HSPMV_OK;
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_create: symmetric yes needs a square matrix "
                         "with rows, not %lld x %lld", (long long)A->nrows, (long long)A->ncols);
    }
    t0 = seconds();
    kind = hspmv_sym_check(A, L->threads, &fits16);
    L->sym_check_s = seconds() - t0;
    if (kind == HSPMV_SYM_NONE) {
        if (ask == HSPMV_SYMMETRIC_AUTO) return HSPMV_OK;
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_create: symmetric yes asked for, but the "
                         "matrix is neither symmetric nor skew-symmetric in pattern and values");
    }
    if ((rc = pick_index(A, o, fits16, &L->sym, &index, err)) != HSPMV_OK) return rc;
    lrp = hspmv_alloc_array((size_t)A->nrows + 1, sizeof(int64_t));
    L->hlo = hspmv_calloc((size_t)L->threads, sizeof(int64_t));
    L->hbuf = hspmv_calloc((size_t)L->threads, sizeof(hspmv_real *));
    if (!lrp || !L->hlo || !L->hbuf) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for one triangle's pointers");
        goto out;
    }
    hspmv_sym_count(A, L->threads, lrp);
    hspmv_local_split(lrp, A->nrows, L->threads, L->rows); /* balanced by the triangle's entries */
    if (index == HSPMV_SYM_PAT) /* whole groups of interleaved rows a thread */
        for (int c = 1; c < L->threads; c++) L->rows[c] -= L->rows[c] % HSPMV_SYM_G;
    halo = find_halos(L, A);
    if (ask == HSPMV_SYMMETRIC_AUTO && !pays(L, lrp[A->nrows] - A->nrows, index, halo)) {
        hspmv_local_split(A->rowptr, A->nrows, L->threads, L->rows); /* back to the full split */
        rc = HSPMV_OK;
        goto out;
    }
    if ((rc = hspmv_sym_from_csr(A, kind, index, lrp, L->threads, L->rows, &L->sym, err)) != HSPMV_OK) goto out;
    if (!alloc_halos(L)) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for %lld private rows of y",
                       (long long)halo);
        goto out;
    }
    L->symmetric = kind;
    L->sym_halo = halo;
    L->format = index == HSPMV_SYM_PAT ? HSPMV_FORMAT_CSRP : index == HSPMV_SYM_IDX16 ? HSPMV_FORMAT_CSR16
                                                                                 : HSPMV_FORMAT_CSR;
    L->pieces = 1;
    rc = HSPMV_OK;
out:
    hspmv_free(lrp);
    if (!L->symmetric) hspmv_local_sym_free(L);
    return rc;
}

void hspmv_local_sym_spmv(const hspmv_local *L, const hspmv_real *x, hspmv_real *y, int add)
{
    int T = L->threads;
    const hspmv_sym *S = &L->sym;
    if (T == 1) {
        L->ks->sym(0, L->nrows, 0, S, x, y, NULL, 0, add);
        return;
    }
#pragma omp parallel num_threads(T)
    {
        HSPMV_FOR_MY_CHUNKS(c, T) {
            int64_t r0 = L->rows[c], h = r0 - L->hlo[c];
            if (h > 0) memset(L->hbuf[c], 0, (size_t)h * sizeof(hspmv_real));
            L->ks->sym(r0, L->rows[c + 1], r0, S, x, y, L->hbuf[c], L->hlo[c], add);
        }
#pragma omp barrier
        HSPMV_FOR_MY_CHUNKS(u, T) { /* the private parts that reach u's rows, in order */
            int64_t a = L->rows[u], b = L->rows[u + 1];
            for (int c = u + 1; c < T; c++) {
                int64_t lo = L->hlo[c] > a ? L->hlo[c] : a, hi = L->rows[c] < b ? L->rows[c] : b;
                const hspmv_real *h = L->hbuf[c];
                for (int64_t j = lo; j < hi; j++) y[j] += h[j - L->hlo[c]];
            }
        }
    }
}

int hspmv_local_sym_spmm(const hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                         hspmv_error *err)
{
    int64_t n = L->nrows;
    hspmv_real s = (flags & HSPMV_TRANSPOSE) && L->symmetric < 0 ? -1 : 1; /* A^T = -A when skew */
    hspmv_real *xt = hspmv_alloc_array((size_t)n, sizeof(hspmv_real));
    hspmv_real *yt = hspmv_alloc_array((size_t)n, sizeof(hspmv_real));
    int cm = (flags & HSPMV_COL_MAJOR) != 0;
    if (!xt || !yt) {
        hspmv_free(xt);
        hspmv_free(yt);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_spmm: out of memory for two vectors of %lld",
                         (long long)n);
    }
    for (int v = 0; v < k; v++) { /* one vector at a time through copies */
#pragma omp parallel for num_threads(L->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) xt[i] = cm ? X[(size_t)v * (size_t)n + (size_t)i] : X[(size_t)i * (size_t)k + (size_t)v];
        hspmv_local_sym_spmv(L, xt, yt, 0);
#pragma omp parallel for num_threads(L->threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) {
            hspmv_real *p = cm ? &Y[(size_t)v * (size_t)n + (size_t)i] : &Y[(size_t)i * (size_t)k + (size_t)v];
            *p = add ? *p + s * yt[i] : s * yt[i];
        }
    }
    hspmv_free(xt);
    hspmv_free(yt);
    return hspmv_ok(err);
}

void hspmv_local_sym_free(hspmv_local *L)
{
    for (int c = 0; L->hbuf && c < L->threads; c++) hspmv_free(L->hbuf[c]);
    hspmv_free(L->hbuf);
    hspmv_free(L->hlo);
    hspmv_sym_free(&L->sym);
    L->hbuf = NULL;
    L->hlo = NULL;
    L->symmetric = 0;
    L->sym_halo = 0;
}
