/* bcoo_from_csr.c — CSR to blocked COO: tiles of one tile row by one column block. */
#include <stdlib.h>
#include <string.h>
#include "bcoo.h"
#include "util.h"

/* What one tile row holds in one column block while it is scanned. */
typedef struct blk {
    int64_t stamp;          /* tile row that last touched the block, -1 never */
    int64_t cnt;            /* entries (pass 1), then entries placed (pass 2) */
    int64_t tile;           /* tile number (pass 2) */
    int32_t rmin, rmax, cmin, cmax;
} blk;

typedef struct scan {
    int64_t nblk;   /* column blocks */
    blk *b;         /* nblk entries */
    int32_t *touch; /* blocks touched by the current tile row, ascending after scan */
    int64_t ntouch;
} scan;

static int cmp_i32(const void *a, const void *b)
{
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;
    return (p > q) - (p < q);
}

static int scan_open(scan *s, const hspmv_csr *A, int32_t tile_w)
{
    s->nblk = A->ncols > 0 ? (A->ncols + tile_w - 1) / tile_w : 1;
    s->b = hspmv_alloc_array((size_t)s->nblk, sizeof(blk));
    s->touch = hspmv_alloc_array((size_t)s->nblk, sizeof(int32_t));
    s->ntouch = 0;
    if (!s->b || !s->touch) return HSPMV_ERR_NOMEM;
    for (int64_t j = 0; j < s->nblk; j++) s->b[j].stamp = -1;
    return HSPMV_OK;
}

static void scan_close(scan *s)
{
    hspmv_free(s->b);
    hspmv_free(s->touch);
}

/* Counts tile row tr's entries per column block, with the blocks' extents. */
static void scan_tile_row(scan *s, const hspmv_csr *A, int64_t tr, int32_t tile_h, int32_t tile_w)
{
    int64_t r0 = tr * tile_h, r1 = r0 + tile_h < A->nrows ? r0 + tile_h : A->nrows;
    const int64_t *rp = A->rowptr;
    const int32_t *ci = A->colind;
    s->ntouch = 0;
    for (int64_t i = r0; i < r1; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int32_t c = ci[k];
            blk *b = &s->b[c / tile_w];
            if (b->stamp != tr) {
                b->stamp = tr;
                b->cnt = 0;
                b->rmin = (int32_t)i;
                b->cmin = b->cmax = c;
                s->touch[s->ntouch++] = c / tile_w;
            }
            b->cnt++;
            b->rmax = (int32_t)i;
            if (c < b->cmin) b->cmin = c;
            if (c > b->cmax) b->cmax = c;
        }
    }
    qsort(s->touch, (size_t)s->ntouch, sizeof(int32_t), cmp_i32);
}

static int width_of(const blk *b)
{
    return b->rmax - b->rmin < 256 && b->cmax - b->cmin < 256 ? 1 : 2;
}

static int64_t ntr_of(const hspmv_csr *A, int32_t tile_h)
{
    return (A->nrows + tile_h - 1) / tile_h;
}

/* Tiles and offset bytes of a shape (pass 1). */
static int count_tiles(const hspmv_csr *A, int32_t tile_h, int32_t tile_w, int64_t *ntiles,
                       int64_t *nidx)
{
    scan s;
    int rc = scan_open(&s, A, tile_w);
    *ntiles = *nidx = 0;
    for (int64_t tr = 0; rc == HSPMV_OK && tr < ntr_of(A, tile_h); tr++) {
        scan_tile_row(&s, A, tr, tile_h, tile_w);
        for (int64_t j = 0; j < s.ntouch; j++) {
            const blk *b = &s.b[s.touch[j]];
            *nidx += 2 * width_of(b) * b->cnt;
        }
        *ntiles += s.ntouch;
    }
    scan_close(&s);
    return rc;
}

static int64_t index_bytes(int64_t ntr, int64_t ntiles, int64_t nidx)
{
    return nidx + ntiles * (int64_t)(2 * sizeof(int64_t) + 2 * sizeof(int32_t) + 1) +
           (ntr + 1) * (int64_t)sizeof(int64_t);
}

int64_t hspmv_bcoo_shape_bytes(const hspmv_csr *A, int32_t tile_h, int32_t tile_w)
{
    int64_t ntiles, nidx;
    if (count_tiles(A, tile_h, tile_w, &ntiles, &nidx) != HSPMV_OK) return -1;
    return index_bytes(ntr_of(A, tile_h), ntiles, nidx);
}

void hspmv_bcoo_choose_shape(const hspmv_csr *A, int32_t *tile_h, int32_t *tile_w)
{
    static const int32_t cand[][2] = {{16384, 65536}, {4096, 4096}, {256, 256}};
    int64_t best = -1;
    int32_t hcap = 256; /* at least ~256 tile rows, so threads can be balanced */
    while (hcap < 16384 && (int64_t)hcap * 2 * 256 <= A->nrows) hcap *= 2;
    *tile_h = hcap < cand[0][0] ? hcap : cand[0][0];
    *tile_w = cand[0][1];
    for (size_t c = 0; c < sizeof(cand) / sizeof(cand[0]); c++) {
        int32_t h = hcap < cand[c][0] ? hcap : cand[c][0];
        int64_t b;
        if (A->ncols / cand[c][1] > ((int64_t)1 << 22)) continue; /* workspace too big */
        b = hspmv_bcoo_shape_bytes(A, h, cand[c][1]);
        if (b >= 0 && (best < 0 || b < best)) {
            best = b;
            *tile_h = h;
            *tile_w = cand[c][1];
        }
    }
}

int hspmv_bcoo_from_csr(const hspmv_csr *A, hspmv_bcoo *B, hspmv_error *err)
{
    int32_t h, w;
    hspmv_bcoo_choose_shape(A, &h, &w);
    return hspmv_bcoo_from_csr_shape(A, h, w, B, err);
}

/* Pass 2: origins, pointers and offsets of tile row tr's tiles, then its entries. */
static void fill_tile_row(scan *s, const hspmv_csr *A, int64_t tr, hspmv_bcoo *B, int64_t *nt,
                          int64_t *off)
{
    int64_t r0 = tr * B->tile_h, r1 = r0 + B->tile_h < A->nrows ? r0 + B->tile_h : A->nrows;
    scan_tile_row(s, A, tr, B->tile_h, B->tile_w);
    for (int64_t j = 0; j < s->ntouch; j++) {
        blk *b = &s->b[s->touch[j]];
        int64_t t = (*nt)++;
        B->trow0[t] = b->rmin;
        B->tcol0[t] = b->cmin;
        B->twidth[t] = (uint8_t)width_of(b);
        B->toff[t] = *off;
        B->tptr[t + 1] = B->tptr[t] + b->cnt;
        *off += 2 * B->twidth[t] * b->cnt;
        b->tile = t;
        b->cnt = 0;
    }
    B->trptr[tr + 1] = *nt;
    for (int64_t i = r0; i < r1; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t c = A->colind[k];
            blk *b = &s->b[c / B->tile_w];
            int64_t t = b->tile, p = b->cnt++, n = B->tptr[t + 1] - B->tptr[t];
            uint32_t lr = (uint32_t)(i - B->trow0[t]), lc = (uint32_t)(c - B->tcol0[t]);
            uint8_t *ix = B->idx + B->toff[t];
            B->val[B->tptr[t] + p] = A->val[k];
            if (B->twidth[t] == 1) {
                ix[p] = (uint8_t)lr;
                ix[n + p] = (uint8_t)lc;
            } else {
                uint16_t r16 = (uint16_t)lr, c16 = (uint16_t)lc;
                memcpy(ix + 2 * p, &r16, 2);
                memcpy(ix + 2 * (n + p), &c16, 2);
            }
        }
    }
}

int hspmv_bcoo_from_csr_shape(const hspmv_csr *A, int32_t tile_h, int32_t tile_w, hspmv_bcoo *B,
                              hspmv_error *err)
{
    int64_t ntiles, nidx, nt = 0, off = 0;
    scan s = {0};
    memset(B, 0, sizeof(*B));
    if (tile_h < 1 || tile_h > HSPMV_BCOO_MAX_TILE || tile_w < 1 || tile_w > HSPMV_BCOO_MAX_TILE)
        return hspmv_err(err, HSPMV_ERR_ARG, "BCOO conversion: tile shape %d x %d outside 1..65536",
                         (int)tile_h, (int)tile_w);
    if (count_tiles(A, tile_h, tile_w, &ntiles, &nidx) != HSPMV_OK) goto nomem;
    B->nrows = A->nrows;
    B->ncols = A->ncols;
    B->nnz = A->nnz;
    B->tile_h = tile_h;
    B->tile_w = tile_w;
    B->ntr = ntr_of(A, tile_h);
    B->ntiles = ntiles;
    B->nidx = nidx;
    B->trptr = hspmv_alloc_array((size_t)B->ntr + 1, sizeof(int64_t));
    B->tptr = hspmv_alloc_array((size_t)ntiles + 1, sizeof(int64_t));
    B->toff = hspmv_alloc_array((size_t)ntiles, sizeof(int64_t));
    B->trow0 = hspmv_alloc_array((size_t)ntiles, sizeof(int32_t));
    B->tcol0 = hspmv_alloc_array((size_t)ntiles, sizeof(int32_t));
    B->twidth = hspmv_alloc_array((size_t)ntiles, 1);
    B->idx = hspmv_calloc((size_t)nidx + 64, 1); /* SIMD loads may read up to 64 bytes past */
    B->val = hspmv_alloc_array((size_t)A->nnz, sizeof(hspmv_real));
    if (!B->trptr || !B->tptr || !B->toff || !B->trow0 || !B->tcol0 || !B->twidth || !B->idx ||
        !B->val || scan_open(&s, A, tile_w) != HSPMV_OK)
        goto nomem;
    B->trptr[0] = 0;
    B->tptr[0] = 0;
    for (int64_t tr = 0; tr < B->ntr; tr++) fill_tile_row(&s, A, tr, B, &nt, &off);
    scan_close(&s);
    return hspmv_ok(err);
nomem:
    scan_close(&s);
    hspmv_bcoo_free(B);
    return hspmv_err(err, HSPMV_ERR_NOMEM, "BCOO conversion: out of memory for %lld nonzeros",
                     (long long)A->nnz);
}

int64_t hspmv_bcoo_index_bytes(const hspmv_bcoo *B)
{
    return index_bytes(B->ntr, B->ntiles, B->nidx);
}

void hspmv_bcoo_rows(const hspmv_bcoo *B, int64_t t0, int64_t t1, int64_t *r0, int64_t *r1)
{
    int64_t a = t0 * B->tile_h, b = t1 * B->tile_h;
    *r0 = a < B->nrows ? a : B->nrows;
    *r1 = b < B->nrows ? b : B->nrows;
}

void hspmv_bcoo_chunks(const hspmv_bcoo *B, int nchunks, int64_t *start)
{
    int64_t tr = 0;
    start[0] = 0;
    for (int c = 1; c < nchunks; c++) {
        int64_t goal = (int64_t)((double)B->nnz * c / nchunks); /* nonzeros before chunk c */
        while (tr < B->ntr && B->tptr[B->trptr[tr + 1]] <= goal) tr++;
        /* tr is the tile row holding nonzero goal: start before or after it, nearer wins */
        if (tr < B->ntr && goal - B->tptr[B->trptr[tr]] > B->tptr[B->trptr[tr + 1]] - goal) tr++;
        start[c] = tr > start[c - 1] ? tr : start[c - 1];
    }
    start[nchunks] = B->ntr;
}

void hspmv_bcoo_free(hspmv_bcoo *B)
{
    if (!B) return;
    hspmv_free(B->trptr);
    hspmv_free(B->tptr);
    hspmv_free(B->toff);
    hspmv_free(B->trow0);
    hspmv_free(B->tcol0);
    hspmv_free(B->twidth);
    hspmv_free(B->idx);
    hspmv_free(B->val);
    memset(B, 0, sizeof(*B));
}
