/* dist_transpose.c — Y = A^T X on a distributed matrix (PETSc's
   MatMultTranspose_MPIAIJ): the rank's rows transposed into an owned part
   (x-like rows) and a ghost part (one row per ghost column), whose results
   go back to the ghost columns' owners and are summed there: the p2p halo
   in reverse. Built on the first transposed call from the blocks of either
   halo mode (decoded back to entries), then kept. */
#include <limits.h>
#include <string.h>
#include "dist.h"
#include "local_calls.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

enum { TAG_TRANSPOSE = 12 };

struct hspmv_dist_tr {
    hspmv_local *To;   /* the owned part transposed: ncols_local x nrows_local; NULL when it has no entries */
    hspmv_local *Tg;   /* the ghost part transposed: nghost x nrows_local; NULL when it has no entries */
    int k;             /* vectors the buffers hold */
    hspmv_real *gv;    /* nghost*k: this rank's contributions to the ghost columns, sent to their owners */
    hspmv_real *rv;    /* send_ptr[nsend]*k: the contributions others send to this rank's columns */
    MPI_Request *req;  /* nrecv + nsend entries (at least 1) */
};

/* Where a block's columns point (how its column c becomes a global column). */
enum { COL_OWNED,     /* D->col_start[rank] + c */
       COL_GHOST,     /* D->ghost_col[c] (p2p ghost block) */
       COL_NODEVEC,   /* node-vector offset base + c (folded rows; node block, direct gathers) */
       COL_NODEIDX,   /* node-vector offset nsrc[c] (node block, copy gathers) */
       COL_OFFIDX,    /* og[c], the off-node ghost columns ascending (off-node block, copy gathers) */
       COL_GHAREA };  /* og[j] for ghost-area offset c = osrc[j] (off-node block, direct gathers) */

/* One prepared block of this rank's rows: row i is local row r0 + i, or row[i] when row is set. */
typedef struct piece {
    const hspmv_local *L;
    int64_t r0;
    const int64_t *row;
    int kind;
    int64_t base;
} piece;

/* What the column kinds need. */
typedef struct colmap {
    const hspmv_dist *D;
    const hspmv_node *N;
    int64_t *og;   /* N->no entries (node mode) */
    int64_t *inv;  /* N->gh_len entries: ghost-area offset -> index into og, -1: none (direct gathers) */
} colmap;

static int64_t node_global(const colmap *M, int64_t v)
{
    int q = hspmv_node_part_of(M->N, v);
    int r = M->N->member[q];
    return M->D->col_start[r] + v - M->N->part_off[q];
}

static int64_t global_col(const colmap *M, const piece *p, int64_t c)
{
    switch (p->kind) {
    case COL_OWNED: return M->D->col_start[M->D->rank] + c;
    case COL_GHOST: return M->D->ghost_col[c];
    case COL_NODEVEC: return node_global(M, p->base + c);
    case COL_NODEIDX: return node_global(M, M->N->nsrc[c]);
    case COL_OFFIDX: return M->og[c];
    default: return M->og[M->inv[c]];
    }
}

/* Index of global column c among the ghosts (D->ghost_col, ascending), -1 if absent. */
static int64_t ghost_index(const hspmv_dist *D, int64_t c)
{
    int64_t lo = 0, hi = D->nghost;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (D->ghost_col[m] < c) lo = m + 1;
        else hi = m;
    }
    return lo < D->nghost && D->ghost_col[lo] == c ? lo : -1;
}

/* The blocks holding this rank's entries, in either halo mode. */
static int list_pieces(const hspmv_dist *D, piece *p)
{
    int n = 0;
    const hspmv_node *N = D->node;
    if (D->halo == HSPMV_HALO_P2P) {
        if (D->Lo) p[n++] = (piece){D->Lo, 0, NULL, COL_OWNED, 0};
        if (D->Lg) p[n++] = (piece){D->Lg, 0, D->ghost_row, COL_GHOST, 0};
        return n;
    }
    if (D->Lo) p[n++] = (piece){D->Lo, N->orow0, NULL, COL_OWNED, 0};
    for (int r = 0; r < N->nfold; r++)
        if (N->fold_L[r]) p[n++] = (piece){N->fold_L[r], N->fold_first[r], NULL, COL_NODEVEC, N->fold_base[r]};
    int copy = N->gather == HSPMV_GATHER_COPY;
    if (N->nb.L) p[n++] = (piece){N->nb.L, 0, N->nb.row, copy ? COL_NODEIDX : COL_NODEVEC, 0};
    if (N->ob.L) p[n++] = (piece){N->ob.L, 0, N->ob.row, copy ? COL_OFFIDX : COL_GHAREA, 0};
    return n;
}

/* Node mode: the off-node ghost columns (ascending, as the off-node block
   numbers them) and, for direct gathers, the ghost-area offsets' inverse. */
static int colmap_make(const hspmv_dist *D, colmap *M)
{
    const hspmv_node *N = D->node;
    M->D = D;
    M->N = N;
    if (D->halo != HSPMV_HALO_NODE || N->no == 0) return HSPMV_OK;
    int64_t n = 0;
    M->og = hspmv_alloc_array((size_t)N->no, sizeof(int64_t));
    if (!M->og) return HSPMV_ERR_NOMEM;
    for (int64_t j = 0; j < D->nghost; j++)
        if (N->node_of[hspmv_dist_owner(D->col_start, D->size, D->ghost_col[j])] != N->node) {
            if (n == N->no) return HSPMV_ERR_UNSUPPORTED;
            M->og[n++] = D->ghost_col[j];
        }
    if (n != N->no) return HSPMV_ERR_UNSUPPORTED;
    if (N->gather == HSPMV_GATHER_COPY) return HSPMV_OK;
    M->inv = hspmv_alloc_array((size_t)(N->gh_len ? N->gh_len : 1), sizeof(int64_t));
    if (!M->inv) return HSPMV_ERR_NOMEM;
    for (int64_t a = 0; a < N->gh_len; a++) M->inv[a] = -1;
    for (int64_t j = 0; j < N->no; j++) M->inv[N->osrc[j]] = j;
    return HSPMV_OK;
}

/* This rank's entries as two row-CSRs: Ao (owned columns, local) and Ag
   (ghost columns, indices into D->ghost_col). Entries of a row need not be
   in column order (the transpose sorts). */
static int collect(const hspmv_dist *D, hspmv_csr *Ao, hspmv_csr *Ag, hspmv_error *err)
{
    piece p[4 + HSPMV_NODE_FOLD_RUNS];
    hspmv_csr B[4 + HSPMV_NODE_FOLD_RUNS];
    colmap M = {0};
    int np = list_pieces(D, p), rc = HSPMV_OK, me = D->rank;
    int64_t nl = D->nrows_local, cb = D->col_start[me], ce = D->col_start[me + 1], total = 0;
    memset(B, 0, sizeof(B));
    rc = colmap_make(D, &M);
    if (rc == HSPMV_ERR_UNSUPPORTED)
        hspmv_err(err, rc, "rank %d: the off-node columns do not match the node plan", me);
    else if (rc) hspmv_err(err, rc, "rank %d: out of memory for the transposed product", me);
    for (int i = 0; !rc && i < np; i++) {
        rc = hspmv_local_to_csr(p[i].L, &B[i], err);
        total += B[i].nnz;
    }
    if (!rc && total != D->nnz_owned + D->nnz_ghost)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: the blocks hold %lld entries, not %lld", me,
                       (long long)total, (long long)(D->nnz_owned + D->nnz_ghost));
    Ao->nrows = Ag->nrows = nl;
    Ao->ncols = ce - cb;
    Ag->ncols = D->nghost;
    if (!rc) {
        Ao->rowptr = hspmv_calloc((size_t)nl + 1, sizeof(int64_t));
        Ag->rowptr = hspmv_calloc((size_t)nl + 1, sizeof(int64_t));
        if (!Ao->rowptr || !Ag->rowptr) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    }
    /* count each local row's entries, then fill with a cursor per row */
    for (int i = 0; !rc && i < np; i++)
        for (int64_t r = 0; r < B[i].nrows; r++) {
            int64_t lr = p[i].row ? p[i].row[r] : p[i].r0 + r;
            for (int64_t q = B[i].rowptr[r]; q < B[i].rowptr[r + 1]; q++) {
                int64_t g = global_col(&M, &p[i], B[i].colind[q]);
                if (g >= cb && g < ce) Ao->rowptr[lr + 1]++;
                else Ag->rowptr[lr + 1]++;
            }
        }
    for (int64_t r = 0; !rc && r < nl; r++) {
        Ao->rowptr[r + 1] += Ao->rowptr[r];
        Ag->rowptr[r + 1] += Ag->rowptr[r];
    }
    if (!rc) {
        Ao->nnz = Ao->rowptr[nl];
        Ag->nnz = Ag->rowptr[nl];
        Ao->colind = hspmv_alloc_array((size_t)(Ao->nnz ? Ao->nnz : 1), sizeof(int32_t));
        Ao->val = hspmv_alloc_array((size_t)(Ao->nnz ? Ao->nnz : 1), sizeof(hspmv_real));
        Ag->colind = hspmv_alloc_array((size_t)(Ag->nnz ? Ag->nnz : 1), sizeof(int32_t));
        Ag->val = hspmv_alloc_array((size_t)(Ag->nnz ? Ag->nnz : 1), sizeof(hspmv_real));
        if (!Ao->colind || !Ao->val || !Ag->colind || !Ag->val)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    }
    for (int i = 0; !rc && i < np; i++)
        for (int64_t r = 0; !rc && r < B[i].nrows; r++) {
            int64_t lr = p[i].row ? p[i].row[r] : p[i].r0 + r;
            for (int64_t q = B[i].rowptr[r]; q < B[i].rowptr[r + 1]; q++) {
                int64_t g = global_col(&M, &p[i], B[i].colind[q]), j;
                if (g >= cb && g < ce) {
                    j = Ao->rowptr[lr]++;
                    Ao->colind[j] = (int32_t)(g - cb);
                    Ao->val[j] = B[i].val[q];
                } else if ((j = ghost_index(D, g)) >= 0) {
                    int64_t s = Ag->rowptr[lr]++;
                    Ag->colind[s] = (int32_t)j;
                    Ag->val[s] = B[i].val[q];
                } else {
                    rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: column %lld is no ghost", me, (long long)g);
                    break;
                }
            }
        }
    for (int64_t r = nl; !rc && r > 0; r--) { /* the cursors back to row starts */
        Ao->rowptr[r] = Ao->rowptr[r - 1];
        Ag->rowptr[r] = Ag->rowptr[r - 1];
    }
    if (!rc) Ao->rowptr[0] = Ag->rowptr[0] = 0;
    for (int i = 0; i < np; i++) hspmv_csr_free(&B[i]);
    hspmv_free(M.og);
    hspmv_free(M.inv);
    return rc;
}

/* *T = A^T prepared with the blocks' threads and kernel set (NULL when A has no entries). */
static int prepare(const hspmv_dist *D, const hspmv_csr *A, const char *isa, hspmv_local **T, hspmv_error *err)
{
    hspmv_csr At = {0};
    hspmv_opts o;
    int rc;
    if (A->nnz == 0) return HSPMV_OK;
    if (hspmv_local_csr_transpose(A, &At) != HSPMV_OK)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory transposing %lld entries", D->rank,
                         (long long)A->nnz);
    hspmv_opts_default(&o);
    o.threads = D->threads;
    o.kernel = isa;
    rc = hspmv_local_create_test(&At, &o, D->test, T, err);
    hspmv_csr_free(&At);
    return rc;
}

/* The kernel set the blocks use (agreed at creation). */
static const char *blocks_isa(const hspmv_dist *D)
{
    piece p[4 + HSPMV_NODE_FOLD_RUNS];
    hspmv_local_info li;
    if (list_pieces(D, p) == 0) return "auto";
    hspmv_local_get_info(p[0].L, &li);
    return li.isa;
}

void hspmv_dist_transpose_free(hspmv_dist *D)
{
    hspmv_dist_tr *t = D->tr;
    if (!t) return;
    hspmv_local_destroy(&t->To);
    hspmv_local_destroy(&t->Tg);
    hspmv_free(t->gv);
    hspmv_free(t->rv);
    hspmv_free(t->req);
    hspmv_free(t);
    D->tr = NULL;
}

/* Node mode keeps no rank-to-rank plan: it is made from the ghost columns
   (D->ghost_col) on the first transposed call. A failed attempt leaves
   none behind (the next call tries again). Collective, agreed. */
static int reverse_plan(hspmv_dist *D, hspmv_error *err)
{
    int rc = HSPMV_OK;
    int32_t *g;
    if (D->halo != HSPMV_HALO_NODE || D->recv_ptr) return HSPMV_OK;
    g = hspmv_alloc_array((size_t)(D->nghost ? D->nghost : 1), sizeof(int32_t));
    if (!g) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the transposed halo plan", D->rank);
    for (int64_t j = 0; g && j < D->nghost; j++) g[j] = (int32_t)D->ghost_col[j];
    if (!(rc = hspmv_dist_agree(D->comm, rc, err))) rc = hspmv_halo_p2p_plan(D, g, err);
    hspmv_free(g);
    if (rc) {
        hspmv_free(D->recv_rank);
        hspmv_free(D->recv_ptr);
        hspmv_free(D->send_rank);
        hspmv_free(D->send_ptr);
        hspmv_free(D->send_idx);
        hspmv_free(D->sendbuf);
        hspmv_free(D->req);
        D->recv_rank = D->send_rank = NULL;
        D->recv_ptr = D->send_ptr = NULL;
        D->send_idx = NULL;
        D->sendbuf = NULL;
        D->req = NULL;
        D->nrecv = D->nsend = 0;
    }
    return rc;
}

/* The transposed parts and buffers for k vectors, made when missing or
   too small. Collective, agreed (every rank passes the same k, so every
   rank comes here with the same history). */
static int setup(hspmv_dist *D, int k, hspmv_error *err)
{
    int rc = HSPMV_OK, me = D->rank;
    hspmv_dist_tr *t = D->tr;
    if (t && t->k >= k) return HSPMV_OK;
    if (!t) {
        hspmv_csr Ao = {0}, Ag = {0};
        const char *isa = blocks_isa(D);
        t = hspmv_calloc(1, sizeof(*t));
        if (!t) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the transposed product", me);
        if (!rc) rc = collect(D, &Ao, &Ag, err);
        if (!rc) rc = prepare(D, &Ao, isa, &t->To, err);
        if (!rc) rc = prepare(D, &Ag, isa, &t->Tg, err);
        hspmv_csr_free(&Ao);
        hspmv_csr_free(&Ag);
        D->tr = t;
        if (!(rc = hspmv_dist_agree(D->comm, rc, err))) rc = reverse_plan(D, err);
        if (rc) {
            hspmv_dist_transpose_free(D);
            return rc;
        }
    }
    /* buffers for k vectors */
    int64_t nr = D->send_ptr[D->nsend];
    hspmv_free(t->gv);
    hspmv_free(t->rv);
    hspmv_free(t->req);
    t->k = 0;
    t->gv = hspmv_alloc_pages((size_t)(D->nghost ? D->nghost * k : 1), sizeof(hspmv_real));
    t->rv = hspmv_alloc_pages((size_t)(nr ? nr * k : 1), sizeof(hspmv_real));
    t->req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    if (!t->gv || !t->rv || !t->req)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %d transposed vectors", me, k);
    else if ((D->nghost * k > INT_MAX || nr * k > INT_MAX))
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %d vectors of %lld ghosts pass a message's 2^31 values",
                       me, k, (long long)D->nghost);
    rc = hspmv_dist_agree(D->comm, rc, err);
    if (!rc) t->k = k;
    return rc;
}

/* One product of k row-major vectors: ghost contributions first, their
   messages started, the owned part meanwhile, then the received values
   added (in a fixed order: the same bits every call). */
static int product(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    hspmv_dist_tr *t = D->tr;
    int rc = HSPMV_OK, n = 0;
    int64_t nl = D->ncols_local;
    if (t->Tg) hspmv_local_spmm(t->Tg, 0, k, X, t->gv, 0, NULL);
    else if (D->nghost) memset(t->gv, 0, sizeof(hspmv_real) * (size_t)(D->nghost * k));
    for (int s = 0; s < D->nsend; s++) /* what this rank owns and others have as ghosts */
        if (MPI_Irecv(t->rv + D->send_ptr[s] * k, (int)((D->send_ptr[s + 1] - D->send_ptr[s]) * k), HSPMV_MPI_REAL,
                      D->send_rank[s], TAG_TRANSPOSE, D->comm, &t->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Isend(t->gv + D->recv_ptr[r] * k, (int)((D->recv_ptr[r + 1] - D->recv_ptr[r]) * k), HSPMV_MPI_REAL,
                      D->recv_rank[r], TAG_TRANSPOSE, D->comm, &t->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    if (!t->To) {
        if (nl) memset(Y, 0, sizeof(hspmv_real) * (size_t)(nl * k));
    } else if (k == 1) {
        for (int c = 0; c < D->npieces; c++) {
            int flag;
            hspmv_local_spmv_part(t->To, c, D->npieces, X, Y, 0);
            if (c + 1 < D->npieces && n) MPI_Testall(n, t->req, &flag, MPI_STATUSES_IGNORE);
        }
    } else {
        hspmv_local_spmm(t->To, 0, k, X, Y, 0, NULL);
    }
    if (n && MPI_Waitall(n, t->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    const int32_t *si = D->send_idx;
    const hspmv_real *rv = t->rv;
    int64_t nr = D->send_ptr[D->nsend];
    if (k == 1)
        for (int64_t e = 0; e < nr; e++) Y[si[e]] += rv[e];
    else
        for (int64_t e = 0; e < nr; e++)
            for (int j = 0; j < k; j++) Y[(int64_t)si[e] * k + j] += rv[e * k + j];
    if (rc) return hspmv_err(err, rc, "rank %d: the transposed halo exchange failed", D->rank);
    return hspmv_ok(err);
}

int hspmv_dist_spmm_transpose(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    int colmajor = (flags & HSPMV_COL_MAJOR) != 0 && k > 1;
    int rc = setup(D, colmajor ? 1 : k, err);
    if (rc) return rc;
    if (!colmajor) return product(D, k, X, Y, err);
    for (int j = 0; j < k && !rc; j++) /* column-major: one vector after another */
        rc = product(D, 1, X + (size_t)j * (size_t)D->nrows_local, Y + (size_t)j * (size_t)D->ncols_local, err);
    return rc;
}
