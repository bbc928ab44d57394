/* local_compress.c — CSRP, CSRDU and column-panel arrays of a prepared
   matrix, each thread writing (and so first-touching) the rows it will
   multiply; the parallel pattern collection and escape count that AUTO's
   byte models need. */
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "local.h"
#include "util.h"

/* Rows between two looks at the shared "too many" flag. */
enum { PATTERN_BLOCK = 4096 };

int hspmv_local_csrp_patterns(const hspmv_csr *A, int nchunks, const int64_t *start, hspmv_csrp_set *S)
{
    int over = 0, nomem = 0; /* read and written with __atomic: threads stop at their next block */
    hspmv_csrp_set_clear(S);
#pragma omp parallel num_threads(nchunks)
    {
        hspmv_csrp_set *mine = hspmv_malloc(sizeof(*mine)); /* about 70 KiB */
        int ok = mine != NULL;
        if (!ok) __atomic_store_n(&nomem, 1, __ATOMIC_RELAXED);
        else hspmv_csrp_set_clear(mine);
        HSPMV_FOR_MY_CHUNKS(c, nchunks)
        {
            for (int64_t i = start[c]; ok && i < start[c + 1]; i++) {
                if ((i - start[c]) % PATTERN_BLOCK == 0 && __atomic_load_n(&over, __ATOMIC_RELAXED)) ok = 0;
                else if (hspmv_csrp_set_add_row(mine, A, i) < 0) ok = 0;
            }
            if (!ok) break;
        }
        if (!ok) __atomic_store_n(&over, 1, __ATOMIC_RELAXED);
#pragma omp critical(hspmv_csrp_merge)
        {
            if (ok && !__atomic_load_n(&over, __ATOMIC_RELAXED) && !hspmv_csrp_set_merge(S, mine))
                __atomic_store_n(&over, 1, __ATOMIC_RELAXED);
        }
        hspmv_free(mine);
    }
    if (nomem) return -1;
    if (over) return 0;
    return hspmv_csrp_set_sort(S) ? 1 : -1; /* ids in pattern order, whatever the merge order was */
}

int hspmv_local_build_csrp(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_csrp *P = &L->csrp;
    int64_t *st = L->rows;
    int T = L->threads, rc;

    /* threads own whole slices: cut at the nearest multiple of G */
    for (int c = 1; c < T; c++) {
        int64_t r = (st[c] + HSPMV_CSRP_G / 2) / HSPMV_CSRP_G * HSPMV_CSRP_G;
        st[c] = r < st[c - 1] ? st[c - 1] : r > A->nrows ? A->nrows : r;
    }
    rc = hspmv_csrp_alloc(A, L->pats, P, err);
    if (rc != HSPMV_OK) return rc;
    hspmv_local_advise(P->val, (size_t)A->nnz * sizeof(hspmv_real));
    hspmv_local_advise(P->pid, (size_t)A->nrows);
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T)
    {
        int64_t s0 = st[c] / HSPMV_CSRP_G, s1 = (st[c + 1] + HSPMV_CSRP_G - 1) / HSPMV_CSRP_G;
        if (st[c + 1] > st[c]) hspmv_csrp_fill_slices(A, L->pats, P, s0, s1);
    }
    hspmv_csrp_count_mixed(P);
    P->stream_y = hspmv_local_stream_y(hspmv_csrp_bytes(P), L->stream_y_forced);
    return hspmv_ok(err);
}

void hspmv_local_csrdu_escapes(const hspmv_csr *A, int nchunks, const int64_t *start, int64_t *esc)
{
    esc[0] = 0;
#pragma omp parallel num_threads(nchunks)
    HSPMV_FOR_MY_CHUNKS(c, nchunks) esc[c + 1] = hspmv_csrdu_count_escapes(A, start[c], start[c + 1]);
    for (int c = 0; c < nchunks; c++) esc[c + 1] += esc[c];
}

int hspmv_local_build_csrdu(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_csrdu *D = &L->csrdu;
    const int64_t *st = L->rows;
    int T = L->threads;
    int rc = hspmv_csrdu_alloc(A, L->esc[T], D, err);
    if (rc != HSPMV_OK) return rc;
    hspmv_local_advise(D->val, (size_t)A->nnz * sizeof(hspmv_real));
    hspmv_local_advise(D->d, (size_t)A->nnz);
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) hspmv_csrdu_fill_rows(A, D, st[c], st[c + 1], L->esc[c]);
    return hspmv_ok(err);
}

int hspmv_local_build_panels(hspmv_local *L, const hspmv_csr *A, int npanels, hspmv_error *err)
{
    hspmv_panels *P = &L->panels;
    const int64_t *st = L->rows;
    int T = L->threads;
    int64_t *cnt;
    int rc = hspmv_panels_alloc(A, npanels, HSPMV_PANELS_XPF, P, err);
    if (rc != HSPMV_OK) return rc;
    cnt = hspmv_calloc((size_t)T * (size_t)npanels, sizeof(int64_t)); /* chunk c, panel p: cnt[c*P + p] */
    if (!cnt) {
        hspmv_panels_free(P);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "column panels: out of memory for %d threads", T);
    }
    hspmv_local_advise(P->colind, (size_t)A->nnz * sizeof(int32_t));
    hspmv_local_advise(P->val, (size_t)A->nnz * sizeof(hspmv_real));
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) hspmv_panels_count(A, P, st[c], st[c + 1], cnt + (size_t)c * npanels);
    /* where each chunk starts in each panel: panels one after another, chunks in order within */
    int64_t at = 0;
    for (int p = 0; p < npanels; p++)
        for (int c = 0; c < T; c++) {
            int64_t n = cnt[(size_t)c * npanels + p];
            cnt[(size_t)c * npanels + p] = at;
            at += n;
        }
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) hspmv_panels_fill_rows(A, P, st[c], st[c + 1], cnt + (size_t)c * npanels);
    hspmv_free(cnt);
    return hspmv_ok(err);
}

int hspmv_local_panel_count(int64_t ncols, int threads, const char *test)
{
    long forced = hspmv_test_int(test, "panels", 0);
    int64_t llc = hspmv_cache_llc_bytes(); /* cache.c: sysfs, else sysconf, else 32 MiB */
    double share, x = (double)ncols * sizeof(hspmv_real);
    int64_t p;
    (void)threads; /* every thread reads the same panel's piece at about the same time */
    if (forced > 0) return forced > HSPMV_PANELS_MAX ? HSPMV_PANELS_MAX : (int)forced;
    if (llc <= 0) return 1;
    share = (double)llc / 2; /* the other half for the streams of values, indices and y */
    p = (int64_t)(x / share) + (x > share * (int64_t)(x / share));
    return p < 1 ? 1 : p > HSPMV_PANELS_MAX ? HSPMV_PANELS_MAX : (int)p;
}

/* A y that the product's own streams would push out of the cache anyway is
   written without reading its lines first: 16-thread Xeon, real-valued
   lap3d 200 (585 MB a product) in CSRP, 10 interleaved launches: median
   4.45 ms with streaming stores against 4.66 without. */
int hspmv_local_stream_y(double bytes, int forced)
{
    int64_t llc = hspmv_cache_llc_bytes();
    if (forced >= 0) return forced;
    return llc > 0 && bytes > (double)llc;
}

void hspmv_local_cache_sharers(hspmv_local *L, int ranks)
{
    if (L && L->format == HSPMV_FORMAT_CSRP && !L->symmetric)
        L->csrp.stream_y =
            hspmv_local_stream_y(hspmv_csrp_bytes(&L->csrp) * (ranks > 1 ? ranks : 1), L->stream_y_forced);
}
