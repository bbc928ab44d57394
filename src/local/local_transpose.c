/* local_transpose.c — the transposed copy of a prepared matrix, built on
   the first transposed product and kept in L->T: the matrix decoded back to
   CSR from its format (exactly: every entry, its value's bits), transposed
   by a counting sort and prepared like L. */
#include <string.h>
#include "local.h"
#include "kernels_csrdu.h" /* the CSRDU walk: hspmv_csrdu_len, _first_step */
#include "util.h"

/* Allocates A's arrays for nrows x ncols with nnz entries (rowptr zeroed). */
static int csr_alloc(hspmv_csr *A, int64_t nrows, int64_t ncols, int64_t nnz)
{
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = nnz;
    A->rowptr = hspmv_calloc((size_t)nrows + 1, sizeof(int64_t));
    A->colind = hspmv_alloc_array((size_t)(nnz ? nnz : 1), sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)(nnz ? nnz : 1), sizeof(hspmv_real));
    if (A->rowptr && A->colind && A->val) return HSPMV_OK;
    hspmv_csr_free(A);
    return HSPMV_ERR_NOMEM;
}

/* Row pointers of the formats that keep them in 32 or 64 bits. */
static int64_t rp_at(const uint32_t *rp32, const int64_t *rp, int64_t i)
{
    return rp32 ? (int64_t)rp32[i] : rp[i];
}

static void from_csrl(const hspmv_csrl *S, hspmv_csr *A)
{
    for (int64_t i = 0; i < S->nrows; i++) {
        int64_t k = S->valptr[i];
        A->rowptr[i + 1] = S->valptr[i + 1];
        for (int64_t s = S->segptr[i]; s < S->segptr[i + 1]; s++)
            for (int32_t j = 0; j < S->jan[s]; j++, k++) {
                A->colind[k] = S->jas[s] + j;
                A->val[k] = S->val[k];
            }
    }
}

static void from_csr16(const hspmv_csr16 *S, hspmv_csr *A)
{
    for (int64_t i = 0; i < S->nrows; i++) {
        int64_t e = rp_at(S->rowptr32, S->rowptr, i + 1);
        A->rowptr[i + 1] = e;
        for (int64_t k = rp_at(S->rowptr32, S->rowptr, i); k < e; k++) {
            A->colind[k] = (int32_t)(i + S->off[k]);
            A->val[k] = S->val[k];
        }
    }
}

static void from_csrvi(const hspmv_csrvi *S, hspmv_csr *A)
{
    for (int64_t i = 0; i < S->nrows; i++) {
        int64_t e = rp_at(S->rowptr32, S->rowptr, i + 1);
        A->rowptr[i + 1] = e;
        for (int64_t k = rp_at(S->rowptr32, S->rowptr, i); k < e; k++) {
            A->colind[k] = S->colind[k];
            A->val[k] = S->tab[S->code[k]];
        }
    }
}

/* CSRP: a mixed slice holds its rows one after another, a uniform one its
   G rows' entries interleaved (entry j of row r at sp + j*G + r). */
static void from_csrp(const hspmv_csrp *S, hspmv_csr *A)
{
    const int G = HSPMV_CSRP_G;
    for (int64_t i = 0; i < S->nrows; i++) {
        int p = S->pid[i];
        A->rowptr[i + 1] = A->rowptr[i] + (S->start[p + 1] - S->start[p]);
    }
    for (int64_t s = 0; s < S->nslices; s++) {
        int64_t r0 = s * G, r1 = r0 + G < S->nrows ? r0 + G : S->nrows, k = S->sp[s];
        for (int64_t i = r0; i < r1; i++) {
            int p = S->pid[i];
            int32_t n = S->start[p + 1] - S->start[p];
            for (int32_t j = 0; j < n; j++) {
                int64_t q = A->rowptr[i] + j;
                A->colind[q] = (int32_t)(i + S->ofs[S->start[p] + j]);
                A->val[q] = S->spat[s] == HSPMV_CSRP_MIXED ? S->val[k++] : S->val[S->sp[s] + (int64_t)j * G + (i - r0)];
            }
        }
    }
}

static void from_csrdu(const hspmv_csrdu *S, hspmv_csr *A)
{
    int64_t k = 0, e = 0;
    int32_t c = 0;
    for (int64_t i = 0; i < S->nrows; i++) {
        int64_t n = hspmv_csrdu_len(S, i, &e);
        A->rowptr[i + 1] = k + n;
        if (n == 0) continue;
        c += hspmv_csrdu_first_step(S, k, &e);
        int32_t col = c;
        for (int64_t q = k; q < k + n; q++) {
            if (q > k) col += S->d[q] ? S->d[q] : S->esc[e++];
            A->colind[q] = col;
            A->val[q] = S->val[q];
        }
        k += n;
    }
}

/* PANELS: row i's entries, panel after panel (panels are column ranges in
   order, so the row stays in column order). */
static void from_panels(const hspmv_panels *S, hspmv_csr *A)
{
    int64_t n1 = S->nrows + 1, k = 0;
    for (int64_t i = 0; i < S->nrows; i++) {
        for (int p = 0; p < S->npanels; p++) {
            int64_t e = rp_at(S->rowptr32 ? S->rowptr32 + p * n1 : NULL, S->rowptr ? S->rowptr + p * n1 : NULL, i + 1);
            for (int64_t q = rp_at(S->rowptr32 ? S->rowptr32 + p * n1 : NULL, S->rowptr ? S->rowptr + p * n1 : NULL, i);
                 q < e; q++, k++) {
                A->colind[k] = S->colind[q];
                A->val[k] = S->val[q];
            }
        }
        A->rowptr[i + 1] = k;
    }
}

/* Tile t's offsets: n local rows, then n local columns, w bytes each. */
static int32_t tile_off(const hspmv_bcoo *S, int64_t t, int64_t n, int64_t j)
{
    const uint8_t *p = S->idx + S->toff[t];
    uint16_t v;
    if (S->twidth[t] == 1) return p[j];
    memcpy(&v, p + 2 * j, 2);
    (void)n;
    return v;
}

/* BCOO: counted per row, then each tile row's tiles in order (blocks
   ascending, a tile's entries by row then column: each row stays sorted). */
static void from_bcoo(const hspmv_bcoo *S, hspmv_csr *A)
{
    for (int64_t t = 0; t < S->ntiles; t++) {
        int64_t n = S->tptr[t + 1] - S->tptr[t];
        for (int64_t j = 0; j < n; j++) A->rowptr[S->trow0[t] + tile_off(S, t, n, j) + 1]++;
    }
    for (int64_t i = 0; i < S->nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
    /* fill with a cursor per row: rowptr[i] moves up to rowptr[i+1], then back */
    for (int64_t t = 0; t < S->ntiles; t++) {
        int64_t n = S->tptr[t + 1] - S->tptr[t];
        for (int64_t j = 0; j < n; j++) {
            int64_t i = S->trow0[t] + tile_off(S, t, n, j), q = A->rowptr[i]++;
            A->colind[q] = S->tcol0[t] + tile_off(S, t, n, n + j);
            A->val[q] = S->val[S->tptr[t] + j];
        }
    }
    for (int64_t i = S->nrows; i > 0; i--) A->rowptr[i] = A->rowptr[i - 1];
    A->rowptr[0] = 0;
}

int hspmv_local_to_csr(const hspmv_local *L, hspmv_csr *A, hspmv_error *err)
{
    if (L->symmetric) /* its products never need it: A^T is A (or -A), local_sym.c */
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_to_csr: one-triangle storage is not decoded");
    if (csr_alloc(A, L->nrows, L->ncols, L->nnz) != HSPMV_OK)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_spmm: out of memory decoding %lld entries",
                         (long long)L->nnz);
    switch (L->format) {
    case HSPMV_FORMAT_CSR:
        memcpy(A->rowptr, L->csr.rowptr, sizeof(int64_t) * (size_t)(L->nrows + 1));
        if (L->nnz) {
            memcpy(A->colind, L->csr.colind, sizeof(int32_t) * (size_t)L->nnz);
            memcpy(A->val, L->csr.val, sizeof(hspmv_real) * (size_t)L->nnz);
        }
        break;
    case HSPMV_FORMAT_CSRL: from_csrl(&L->csrl, A); break;
    case HSPMV_FORMAT_CSR16: from_csr16(&L->csr16, A); break;
    case HSPMV_FORMAT_CSRVI: from_csrvi(&L->csrvi, A); break;
    case HSPMV_FORMAT_CSRP: from_csrp(&L->csrp, A); break;
    case HSPMV_FORMAT_CSRDU: from_csrdu(&L->csrdu, A); break;
    case HSPMV_FORMAT_PANELS: from_panels(&L->panels, A); break;
    default: from_bcoo(&L->bcoo, A); break;
    }
    return hspmv_ok(err);
}

/* Counting sort by column: row j of T holds column j's entries, by
   ascending row of A (so T's rows are sorted whatever order A's are in).
   With several threads, each takes a range of columns (balanced by
   entries) and scans all of A for them: every thread reads A's columns
   once, writes only its own rows of T, and the result is the one-thread
   one, bit for bit. */
int hspmv_local_csr_transpose(const hspmv_csr *A, hspmv_csr *T, int threads)
{
    int nt = threads > 1 && A->nnz >= ((int64_t)1 << 16) ? threads : 1;
    int64_t *cut = hspmv_alloc_array((size_t)nt + 1, sizeof(int64_t));
    if (!cut || csr_alloc(T, A->ncols, A->nrows, A->nnz) != HSPMV_OK) {
        hspmv_free(cut);
        return HSPMV_ERR_NOMEM;
    }
    for (int64_t k = 0; k < A->nnz; k++) T->rowptr[A->colind[k] + 1]++;
    for (int64_t j = 0; j < A->ncols; j++) T->rowptr[j + 1] += T->rowptr[j];
    hspmv_local_split(T->rowptr, T->nrows, nt, cut); /* column ranges balanced by entries */
#pragma omp parallel num_threads(nt)
    HSPMV_FOR_MY_CHUNKS(c, nt) {
        int64_t j0 = cut[c], j1 = cut[c + 1];
        int64_t *next = T->rowptr; /* rows [j0, j1) of T: their cursors are T's own entries */
        for (int64_t i = 0; i < A->nrows; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                int64_t j = A->colind[k];
                if (j < j0 || j >= j1) continue;
                int64_t q = next[j]++;
                T->colind[q] = (int32_t)i;
                T->val[q] = A->val[k];
            }
    }
    /* the cursors ended at the next row's start: shift back */
    for (int64_t j = A->ncols; j > 0; j--) T->rowptr[j] = T->rowptr[j - 1];
    T->rowptr[0] = 0;
    hspmv_free(cut);
    return HSPMV_OK;
}

/* A^T prepared with L's options: the format asked for at L's creation
   (AUTO's choice for A^T where that format cannot hold A^T), the kernel
   set L uses (asked for, or kept by its timing: A^T is not timed again)
   and its threads. */
int hspmv_local_transposed(hspmv_local *L, hspmv_error *err)
{
    hspmv_csr A = {0}, At = {0};
    hspmv_opts o;
    int rc;
    if (L->T) return hspmv_ok(err);
    if ((rc = hspmv_local_to_csr(L, &A, err)) != HSPMV_OK) return rc;
    rc = hspmv_local_csr_transpose(&A, &At, L->threads);
    hspmv_csr_free(&A);
    if (rc) return hspmv_err(err, rc, "hspmv_local_spmm: out of memory for the transposed copy (%lld entries)",
                             (long long)L->nnz);
    hspmv_opts_default(&o);
    o.format = L->asked_format;
    o.csrl_threshold = L->csrl_threshold;
    o.kernel = L->ks->isa;
    o.threads = L->threads;
    rc = hspmv_local_create(&At, &o, &L->T, err);
    if (rc == HSPMV_ERR_UNSUPPORTED && o.format != HSPMV_FORMAT_AUTO) { /* CSR16's offsets, CSRP's patterns */
        o.format = HSPMV_FORMAT_AUTO;
        rc = hspmv_local_create(&At, &o, &L->T, err);
    }
    hspmv_csr_free(&At);
    return rc;
}
