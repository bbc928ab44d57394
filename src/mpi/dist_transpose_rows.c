/* dist_transpose_rows.c — this rank's entries decoded back from the
   prepared blocks of either halo mode (exactly: every entry, its value's
   bits) into an owned part (owned columns) and a ghost part (columns among
   D->ghost_col), for the transposed matrix (dist_transpose.c). */
#include <string.h>
#include "dist.h"
#include "dist_transpose.h"
#include "local_calls.h"
#include "node.h"
#include "util.h"

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

int hspmv_dist_tr_rows(const hspmv_dist *D, hspmv_csr *Ao, hspmv_csr *Ag, hspmv_error *err)
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

const char *hspmv_dist_tr_isa(const hspmv_dist *D)
{
    piece p[4 + HSPMV_NODE_FOLD_RUNS];
    hspmv_local_info li;
    if (list_pieces(D, p) == 0) return "auto";
    hspmv_local_get_info(p[0].L, &li);
    return li.isa;
}
