/* dist_info.c — what a distributed matrix looks like, its layout, its timing. */
#include <string.h>
#include "dist.h"
#include "dist_sym.h"
#include "node.h"
#include "util.h"

void hspmv_dist_get_info(const hspmv_dist *D, hspmv_dist_info *info)
{
    if (!D || !info) { /* nothing to read or nowhere to write: zeroed when info can take it */
        if (info) memset(info, 0, sizeof(*info));
        return;
    }
    *info = D->info;
    if (!info->read_note) info->read_note = "";
}

void hspmv_dist_get_ranges(const hspmv_dist *D, int64_t *row_start, int64_t *col_start)
{
    if (!D) return;
    size_t b = sizeof(int64_t) * (size_t)(D->size + 1);
    if (row_start) memcpy(row_start, D->row_start, b);
    if (col_start) memcpy(col_start, D->col_start, b);
}

void hspmv_dist_get_file_index(const hspmv_dist *D, int which, int64_t *index)
{
    if (!D || !index || (which != HSPMV_VEC_ROWS && which != HSPMV_VEC_COLS)) return;
    int64_t n = which == HSPMV_VEC_ROWS ? D->nrows_local : D->ncols_local;
    int64_t b = which == HSPMV_VEC_ROWS ? D->row_start[D->rank] : D->col_start[D->rank];
    /* METIS matrices are square and renumber rows and columns alike */
    for (int64_t i = 0; i < n; i++) index[i] = D->file_row ? D->file_row[i] : b + i;
}

MPI_Comm hspmv_dist_get_comm(const hspmv_dist *D) { return D ? D->comm : MPI_COMM_NULL; }

void hspmv_dist_get_timing(hspmv_dist *D, hspmv_dist_timing *t, int reset)
{
    if (!D || !t) {
        if (t) memset(t, 0, sizeof(*t));
        return;
    }
    *t = D->timing;
    if (D->tr) { /* the transposed products' own */
        hspmv_dist_timing a;
        hspmv_dist_get_timing(D->tr, &a, reset);
        t->calls += a.calls;
        t->total_s += a.total_s;
        t->post_s += a.post_s;
        t->owned_s += a.owned_s;
        t->wait_s += a.wait_s;
        t->ghost_s += a.ghost_s;
        t->sync_s += a.sync_s;
    }
    if (!reset) return;
    memset(&D->timing, 0, sizeof(D->timing));
    if (D->node) {
        memset(D->node->share_s, 0, sizeof(D->node->share_s));
        memset(D->node->share_nnz, 0, sizeof(D->node->share_nnz));
    }
}

static void empty_info(hspmv_local_info *li, int64_t nrows, int64_t ncols)
{
    memset(li, 0, sizeof(*li));
    li->format_name = "none";
    li->isa = "-";
    li->bytes_formula = "-";
    li->nrows = nrows;
    li->ncols = ncols;
}

static void empty_info_of(hspmv_local_info *li, const hspmv_local *L, int64_t nrows, int64_t ncols)
{
    if (L) hspmv_local_get_info(L, li);
    else empty_info(li, nrows, ncols);
}

/* The info, agreed once. */
int hspmv_dist_fill_info(hspmv_dist *D, hspmv_error *err)
{
    hspmv_dist_info *in = &D->info;
    hspmv_node *N = D->node;
    int me = D->rank, P = D->size, rc = HSPMV_OK;
    in->rank = me;
    in->nranks = P;
    in->partition = D->partition;
    in->permuted = D->permuted;
    in->nrows = D->nrows;
    in->ncols = D->ncols;
    in->row_begin = D->row_start[me];
    in->row_end = D->row_start[me + 1];
    in->col_begin = D->col_start[me];
    in->col_end = D->col_start[me + 1];
    in->nrows_local = D->nrows_local;
    in->ncols_local = D->ncols_local;
    in->nnz_owned = D->nnz_owned;
    in->nnz_ghost = D->nnz_ghost;
    in->nnz_local = D->nnz_owned + D->nnz_ghost;
    in->nghost = D->nghost;
    in->halo = D->halo;
    empty_info_of(&in->owned, D->Lo, D->nrows_local, D->ncols_local);
    in->owned.nrows = D->nrows_local;
    in->nnodes = N->nnodes;
    in->node = N->node;
    in->node_ranks = N->size;
    in->gather = "";
    if (D->halo == HSPMV_HALO_P2P) {
        in->nsend = D->send_ptr[D->nsend];
        in->nrecv_ranks = D->nrecv;
        in->nsend_ranks = D->nsend;
        empty_info_of(&in->ghost, D->Lg, D->nghost_rows, D->nghost);
        if (D->sym) { /* the lower ghost block, plain CSR in sym/ (no prepared matrix) */
            in->ghost.format = HSPMV_FORMAT_CSR;
            in->ghost.format_name = "csr";
            in->ghost.nnz = D->sym->nnz;
            in->ghost.nrows = D->sym->nrows;
        }
    } else {
        in->nsend = N->send_ptr[N->nsend];
        in->nrecv_ranks = N->nrecv;
        in->nsend_ranks = N->nsend;
        empty_info_of(&in->ghost, N->nb.L, N->nb.nrows, N->gather == HSPMV_GATHER_COPY ? N->nn : N->vec_len);
        in->gather = N->gather == HSPMV_GATHER_COPY ? "copy" : N->gather == HSPMV_GATHER_SHARE ? "share" : "direct";
        in->owned_in_node = N->merged;
        in->replica = N->replica;
        in->owned_share = N->otail;
    }
    D->threads = in->owned.threads > 0 ? in->owned.threads : in->ghost.threads > 0 ? in->ghost.threads : 1;
    int64_t mx[2] = {in->nnz_local, in->nghost}, gmx[2];
    int64_t drop = D->sym ? D->sym->dropped : 0;
    int64_t sm[8] = {in->nnz_local + drop, in->nghost, N->inter_entries, N->inter_entries_p2p, N->inter_msgs,
                     N->inter_msgs_p2p, D->halo == HSPMV_HALO_NODE ? N->fold_rows : 0, drop}, gsm[8];
    double chk = D->sym ? D->sym->check_s : 0, gchk = 0;
    int fc[HSPMV_NFORMATS] = {0}, gfc[HSPMV_NFORMATS];
    if (in->owned.nnz > 0 && in->owned.format >= 0 && in->owned.format < HSPMV_NFORMATS) fc[in->owned.format] = 1;
    if (MPI_Allreduce(mx, gmx, 2, MPI_INT64_T, MPI_MAX, D->comm) != MPI_SUCCESS ||
        MPI_Allreduce(sm, gsm, 8, MPI_INT64_T, MPI_SUM, D->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&chk, &gchk, 1, MPI_DOUBLE, MPI_MAX, D->comm) != MPI_SUCCESS ||
        MPI_Allreduce(fc, gfc, HSPMV_NFORMATS, MPI_INT, MPI_SUM, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce of the matrix info failed", me);
    else {
        in->nnz_max = gmx[0];
        in->halo_max = gmx[1];
        in->nnz = gsm[0];
        in->halo_total = gsm[1];
        in->internode_entries_node = gsm[2];
        in->internode_entries_p2p = gsm[3];
        in->internode_msgs_node = gsm[4];
        in->internode_msgs_p2p = gsm[5];
        in->fold_rows_total = gsm[6];
        in->symmetric = D->sym ? D->sym->sign : 0;
        in->sym_dropped = gsm[7];
        in->sym_check_s = gchk;
        memcpy(in->format_counts, gfc, sizeof(gfc));
        D->nnz = gsm[0];
    }
    return hspmv_dist_agree(D->comm, rc, err);
}
