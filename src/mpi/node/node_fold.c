/* node_fold.c — a stencil's boundary rows multiplied once, whole: the rows
   with entries in other ranks' columns of the node, owned entries and all,
   gathered from the node's x in the window, written straight into y.

   Why: split by rows, a 3D stencil's rank has one plane of rows at each
   end with one entry in a neighbour's plane. Kept apart, those entries
   cost a second pass after the owned block (y read and written again, a
   row and column index per entry): 16 ranks of the real-valued lap3d 200
   on the 16-core Xeon spent 0.45-0.6 ms a product on it, a tenth of the
   product, where one process of 16 threads reads each row once. Folded,
   the owned block skips those rows and each is read and written once, as
   in one process: the bytes of a product are the same as there.

   The folded rows are the first and last rows of the rank's (a gap of up
   to FOLD_GAP rows without node entries is taken along), each run its
   own prepared matrix whose columns are node-vector offsets (its own part
   included), so a run writes y[first..end) directly, no row map or
   buffer; the owned block is cut to the rows between them. Folded where
   every row with node entries lies in such a run and the runs hold at
   most a quarter of the rows: otherwise (random columns, power law,
   METIS's orderings) nothing changes. The runs go first in a product
   (node_spmv.c): the ranks' x parts are published at its start, and the
   owned rows shared after them (node_share.c) even out what the runs
   cost. A rank's runs wait only for the ranks whose parts they read (its
   neighbours, on a stencil), not for the node's last arrival: one rank
   late into a product then holds up two, not all. HSPMV_TEST's fold=0
   turns folding off. */
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

enum { FOLD_GAP = 64, FOLD_RUNS = HSPMV_NODE_FOLD_RUNS };

/* Where every row of B with entries lies in a prefix or a suffix of the
   rows (each grown across gaps of up to FOLD_GAP rows without entries):
   those runs (0, 1 or 2) in first/end and their rows in *rows; -1 when
   some row with entries lies between them. */
static int find_runs(const hspmv_csr *B, int64_t *first, int64_t *end, int64_t *rows)
{
    int64_t nl = B->nrows, lo = -1, hi = -1, pre = 0, suf = nl; /* rows [0, pre) and [suf, nl) */
    for (int64_t i = 0; i < nl; i++)
        if (B->rowptr[i + 1] > B->rowptr[i]) {
            if (lo < 0) lo = i;
            hi = i;
        }
    *rows = 0;
    if (lo < 0) return 0;
    if (lo <= FOLD_GAP) /* the prefix: as far as rows with entries follow within the gap */
        for (int64_t i = 0; i < nl && i - pre <= FOLD_GAP; i++)
            if (B->rowptr[i + 1] > B->rowptr[i]) pre = i + 1;
    if (nl - 1 - hi <= FOLD_GAP) /* the suffix, alike from the end */
        for (int64_t i = nl - 1; i >= pre && suf - 1 - i <= FOLD_GAP; i--)
            if (B->rowptr[i + 1] > B->rowptr[i]) suf = i;
    for (int64_t i = pre; i < suf; i++) /* every row with entries in one of them */
        if (B->rowptr[i + 1] > B->rowptr[i]) return -1;
    int n = 0;
    if (pre > 0) {
        first[n] = 0;
        end[n++] = pre;
    }
    if (suf < nl) {
        first[n] = suf;
        end[n++] = nl;
    }
    *rows = pre + nl - suf;
    return n;
}

/* Rows [r0, r1) of Ao and Bn as one CSR over node-vector offsets minus
   *base: Bn's entries below this rank's part, its own (Ao, shifted), Bn's
   above. *base is the lowest column, or the own column of row r0 when
   lower, so that a column keeps its offset from its row up to a constant:
   the formats that hold columns as offsets from the row (CSRP's patterns)
   see the owned block's, and x is the span the rows read, not the node's. */
static int run_csr(const hspmv_node *N, const hspmv_csr *Ao, const hspmv_csr *Bn, int64_t r0, int64_t r1,
                   hspmv_csr *R, int64_t *base)
{
    int64_t own = N->part_off[N->rank], k = 0, nnz = 0, lo = own + r0, hi = 0;
    for (int64_t i = r0; i < r1; i++) {
        nnz += Ao->rowptr[i + 1] - Ao->rowptr[i] + Bn->rowptr[i + 1] - Bn->rowptr[i];
        for (int64_t a = Bn->rowptr[i]; a < Bn->rowptr[i + 1]; a++) {
            int64_t c = N->nsrc[Bn->colind[a]];
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        for (int64_t a = Ao->rowptr[i]; a < Ao->rowptr[i + 1]; a++) {
            int64_t c = own + Ao->colind[a];
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
    }
    *base = lo;
    R->nrows = r1 - r0;
    R->ncols = hi >= lo ? hi - lo + 1 : 1;
    R->nnz = nnz;
    R->rowptr = hspmv_alloc_array((size_t)R->nrows + 1, sizeof(int64_t));
    R->colind = hspmv_alloc_array((size_t)(nnz ? nnz : 1), sizeof(int32_t));
    R->val = hspmv_alloc_array((size_t)(nnz ? nnz : 1), sizeof(hspmv_real));
    if (!R->rowptr || !R->colind || !R->val) return HSPMV_ERR_NOMEM;
    R->rowptr[0] = 0;
    for (int64_t i = r0; i < r1; i++) {
        for (int pass = 0; pass < 3; pass++) {
            const hspmv_csr *S = pass == 1 ? Ao : Bn;
            for (int64_t a = S->rowptr[i]; a < S->rowptr[i + 1]; a++) {
                int64_t c = pass == 1 ? own + S->colind[a] : N->nsrc[S->colind[a]];
                if (pass != 1 && (c < own) != (pass == 0)) continue;
                R->colind[k] = (int32_t)(c - lo);
                R->val[k++] = S->val[a];
            }
        }
        R->rowptr[i - r0 + 1] = k;
    }
    return HSPMV_OK;
}

/* Keeps rows [r0, r1) of A, in place (the owned block between the runs). */
static void keep_rows(hspmv_csr *A, int64_t r0, int64_t r1)
{
    int64_t k0 = A->rowptr[r0], nnz = A->rowptr[r1] - k0;
    memmove(A->colind, A->colind + k0, sizeof(*A->colind) * (size_t)nnz);
    memmove(A->val, A->val + k0, sizeof(*A->val) * (size_t)nnz);
    for (int64_t i = r0; i <= r1; i++) A->rowptr[i - r0] = A->rowptr[i] - k0;
    A->nrows = r1 - r0;
    A->nnz = nnz;
}

/* The distinct own columns the runs read (ascending), for the export list. */
static int own_columns(hspmv_node *N, const hspmv_csr *Ao, int64_t len)
{
    unsigned char *mark = hspmv_calloc((size_t)(len ? len : 1), 1);
    if (!mark) return HSPMV_ERR_NOMEM;
    for (int r = 0; r < N->nfold; r++)
        for (int64_t i = N->fold_first[r]; i < N->fold_end[r]; i++)
            for (int64_t a = Ao->rowptr[i]; a < Ao->rowptr[i + 1]; a++) mark[Ao->colind[a]] = 1;
    for (int64_t j = 0; j < len; j++) N->nfold_own += mark[j];
    N->fold_own = hspmv_alloc_array((size_t)(N->nfold_own ? N->nfold_own : 1), sizeof(int32_t));
    if (N->fold_own)
        for (int64_t j = 0, w = 0; j < len; j++)
            if (mark[j]) N->fold_own[w++] = (int32_t)j;
    hspmv_free(mark);
    return N->fold_own ? HSPMV_OK : HSPMV_ERR_NOMEM;
}

int hspmv_node_fold_plan(hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ao, const hspmv_csr *Bn, hspmv_error *err)
{
    int on = (int)hspmv_test_int(D->test, "fold", 1), rc = HSPMV_OK, n; /* the agreed string: fold=0 turns it off */
    int64_t first[FOLD_RUNS], end[FOLD_RUNS], rows = 0;
    if (!on || !Ao || Bn->nnz == 0 || N->vec_len > INT32_MAX) return hspmv_dist_agree(D->comm, rc, err);
    n = find_runs(Bn, first, end, &rows);
    if (n <= 0 || 4 * rows > Bn->nrows) return hspmv_dist_agree(D->comm, rc, err);
    N->fold_first = hspmv_alloc_array((size_t)n, sizeof(int64_t));
    N->fold_end = hspmv_alloc_array((size_t)n, sizeof(int64_t));
    N->fold_L = hspmv_calloc((size_t)n, sizeof(hspmv_local *));
    N->fold_csr = hspmv_calloc((size_t)n, sizeof(hspmv_csr));
    N->fold_base = hspmv_calloc((size_t)n, sizeof(int64_t));
    if (N->fold_first && N->fold_end && N->fold_L && N->fold_csr && N->fold_base) {
        N->nfold = n;
        N->fold_rows = rows;
        memcpy(N->fold_first, first, sizeof(first[0]) * (size_t)n);
        memcpy(N->fold_end, end, sizeof(end[0]) * (size_t)n);
        N->orow0 = first[0] == 0 ? end[0] : 0;
        N->orow1 = end[n - 1] == Bn->nrows ? first[n - 1] : Bn->nrows;
    }
    if (!N->nfold || own_columns(N, Ao, D->ncols_local) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory folding boundary rows", D->rank);
    return hspmv_dist_agree(D->comm, rc, err); /* on failure hspmv_node_free frees what was made */
}

/* The node ranks other than this one whose parts the runs' columns lie in
   (fold_src: ascending), from the runs as CSR. */
static int fold_sources(hspmv_node *N)
{
    unsigned char *mark = hspmv_calloc((size_t)N->size, 1);
    if (!mark) return HSPMV_ERR_NOMEM;
    for (int r = 0; r < N->nfold; r++) {
        const hspmv_csr *R = &N->fold_csr[r];
        for (int64_t a = 0; a < R->nnz; a++) mark[hspmv_node_part_of(N, N->fold_base[r] + R->colind[a])] = 1;
    }
    mark[N->rank] = 0;
    for (int q = 0; q < N->size; q++) N->nfold_src += mark[q];
    N->fold_src = hspmv_alloc_array((size_t)(N->nfold_src ? N->nfold_src : 1), sizeof(int));
    if (N->fold_src)
        for (int q = 0, w = 0; q < N->size; q++)
            if (mark[q]) N->fold_src[w++] = q;
    hspmv_free(mark);
    return N->fold_src ? HSPMV_OK : HSPMV_ERR_NOMEM;
}

int hspmv_node_fold_build(hspmv_dist *D, hspmv_node *N, hspmv_csr *Ao, hspmv_csr *Bn, hspmv_error *err)
{
    int rc = HSPMV_OK;
    for (int r = 0; !rc && r < N->nfold; r++)
        if (run_csr(N, Ao, Bn, N->fold_first[r], N->fold_end[r], &N->fold_csr[r], &N->fold_base[r]) != HSPMV_OK)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory folding boundary rows", D->rank);
    if (!rc && N->nfold && fold_sources(N) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory folding boundary rows", D->rank);
    if (!rc && N->nfold) { /* Bn's rows in the runs emptied, Ao cut to the rows between them */
        int64_t before = Bn->nnz, w = 0;
        for (int64_t i = 0; i < Bn->nrows; i++) {
            int64_t a = Bn->rowptr[i], e = Bn->rowptr[i + 1];
            Bn->rowptr[i] = w;
            if (i >= N->orow0 && i < N->orow1)
                for (; a < e; a++, w++) {
                    Bn->colind[w] = Bn->colind[a];
                    Bn->val[w] = Bn->val[a];
                }
        }
        Bn->rowptr[Bn->nrows] = w;
        Bn->nnz = w;
        N->fold_nnz_node = before - w;
        keep_rows(Ao, N->orow0, N->orow1);
    }
    return hspmv_dist_agree(D->comm, rc, err);
}

static int format_of(const hspmv_local *L)
{
    hspmv_local_info li;
    hspmv_local_get_info(L, &li);
    return li.format;
}

/* The runs in the owned block's format (AUTO would see scattered columns in
   a wide x and take PANELS, which on the real-valued lap3d 200 at 16x1 ran
   the folded rows 1.5x slower per entry than the owned block); where that
   format cannot hold a run, AUTO's choice, CSR where that is PANELS. */
int hspmv_node_fold_prepare(hspmv_node *N, const hspmv_opts *o, const hspmv_local *Lo, hspmv_error *err)
{
    int rc = HSPMV_OK;
    hspmv_opts of = *o;
    if (Lo) of.format = format_of(Lo);
    for (int r = 0; !rc && r < N->nfold; r++) {
        rc = hspmv_local_create_test(&N->fold_csr[r], &of, N->test, &N->fold_L[r], err);
        if (rc == HSPMV_ERR_UNSUPPORTED && of.format != o->format) { /* CSR16's offsets, say */
            hspmv_ok(err);
            rc = hspmv_local_create_test(&N->fold_csr[r], o, N->test, &N->fold_L[r], err);
        }
        if (!rc && format_of(N->fold_L[r]) == HSPMV_FORMAT_PANELS) {
            hspmv_opts oc = *o; /* the rows read near their own columns: no panels */
            oc.format = HSPMV_FORMAT_CSR;
            hspmv_local_destroy(&N->fold_L[r]);
            rc = hspmv_local_create_test(&N->fold_csr[r], &oc, N->test, &N->fold_L[r], err);
        }
        hspmv_csr_free(&N->fold_csr[r]);
    }
    return rc;
}

void hspmv_node_fold_mul(const hspmv_node *N, const hspmv_real *xb, hspmv_real *y)
{
    for (int r = 0; r < N->nfold; r++) /* a run starts and ends with a row with entries: never empty */
        hspmv_local_spmv(N->fold_L[r], xb + N->fold_base[r], y + N->fold_first[r], 0);
}

void hspmv_node_fold_free(hspmv_node *N)
{
    for (int r = 0; N->fold_L && r < N->nfold; r++) hspmv_local_destroy(&N->fold_L[r]);
    for (int r = 0; N->fold_csr && r < N->nfold; r++) hspmv_csr_free(&N->fold_csr[r]);
    hspmv_free(N->fold_L);
    hspmv_free(N->fold_csr);
    hspmv_free(N->fold_base);
    hspmv_free(N->fold_first);
    hspmv_free(N->fold_end);
    hspmv_free(N->fold_own);
    hspmv_free(N->fold_src);
}
