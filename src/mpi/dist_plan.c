/* dist_plan.c — the partition and p2p halo plan of a distributed matrix
   without its prepared blocks: the owned and ghost blocks handed back as
   CSR, for a caller that multiplies them elsewhere (the GPU path). */
#include <limits.h>
#include <string.h>
#include "dist.h"
#include "util.h"

/* Rows checked as the caller gave them: pointers from 0 and monotone,
   columns inside [0, ncols). Any order within a row is fine. */
static int check_rows(int me, const hspmv_csr *R, hspmv_error *err)
{
    if (!R) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: no rows given", me);
    if (R->nrows < 0 || R->ncols < 0 || R->ncols > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: %lld rows of %lld columns (columns at most 2^31-1)", me,
                         (long long)R->nrows, (long long)R->ncols);
    if (!R->rowptr || R->rowptr[0] != 0 || R->rowptr[R->nrows] != R->nnz)
        return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: row pointers do not run from 0 to nnz %lld", me,
                         (long long)R->nnz);
    if (R->nnz > 0 && (!R->colind || !R->val)) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: colind or val is NULL", me);
    for (int64_t i = 0; i < R->nrows; i++)
        if (R->rowptr[i + 1] < R->rowptr[i])
            return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: rowptr decreases at local row %lld", me, (long long)i);
    for (int64_t k = 0; k < R->nnz; k++)
        if (R->colind[k] < 0 || R->colind[k] >= R->ncols)
            return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: column %d of entry %lld outside [0, %lld)", me,
                             R->colind[k], (long long)k, (long long)R->ncols);
    return HSPMV_OK;
}

int hspmv_dist_plan_rows(MPI_Comm comm, const hspmv_csr *rows, hspmv_dist **Dout, hspmv_csr *Ao, hspmv_csr *Ag,
                         hspmv_error *err)
{
    hspmv_dist *D = NULL;
    int32_t *g = NULL;
    int64_t *all = NULL;
    int rc;
    if (!Dout || !Ao || !Ag) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_plan_rows: NULL output");
    *Dout = NULL;
    memset(Ao, 0, sizeof(*Ao));
    memset(Ag, 0, sizeof(*Ag));
    if ((rc = hspmv_dist_alloc(comm, &D, err))) return rc;
    int me = D->rank, P = D->size;
    rc = check_rows(me, rows, err);
    if (!rc && !(all = hspmv_alloc_array((size_t)P * 2, sizeof(int64_t))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    int64_t mine[2] = {rows->nrows, rows->ncols};
    if (MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the sizes failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    D->row_start[0] = 0;
    for (int p = 0; p < P; p++) {
        D->row_start[p + 1] = D->row_start[p] + all[2 * p];
        if (all[2 * p + 1] != all[1] && !rc) /* everyone compares with rank 0: the same answer everywhere */
            rc = hspmv_err(err, HSPMV_ERR_ARG, "ranks disagree on ncols: rank 0 has %lld, rank %d has %lld",
                           (long long)all[1], p, (long long)all[2 * p + 1]);
    }
    D->nrows = D->row_start[P];
    D->ncols = all[1];
    if (!rc && D->nrows > INT32_MAX)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "%lld rows in all exceed 2^31-1", (long long)D->nrows);
    if (rc) goto out;
    D->partition = HSPMV_PART_ROWS; /* the caller's rows, as given */
    D->halo = HSPMV_HALO_P2P;
    hspmv_dist_column_layout(D);
    int64_t cb = D->col_start[me], ce = D->col_start[me + 1];
    D->nrows_local = rows->nrows;
    D->ncols_local = ce - cb;
    if (hspmv_dist_split_blocks(rows, cb, ce, Ao, Ag, &g, &D->nghost) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory splitting %lld local rows into blocks", me,
                       (long long)rows->nrows);
    if (!rc) {
        D->nnz_owned = Ao->nnz;
        D->nnz_ghost = Ag->nnz;
        D->ghost_col = hspmv_alloc_array((size_t)(D->nghost ? D->nghost : 1), sizeof(int64_t));
        if (!D->ghost_col) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld ghosts", me,
                                          (long long)D->nghost);
        for (int64_t k = 0; !rc && k < D->nghost; k++) D->ghost_col[k] = g[k];
    }
    if (!rc && hspmv_halo_p2p_rows(D, Ag) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory compressing the ghost rows", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    int64_t nnz = rows->nnz;
    MPI_Allreduce(&nnz, &D->nnz, 1, MPI_INT64_T, MPI_SUM, D->comm);
    rc = hspmv_halo_p2p_plan(D, g, err); /* collective, agreed */
out:
    hspmv_free(g);
    hspmv_free(all);
    if (rc) {
        hspmv_csr_free(Ao);
        hspmv_csr_free(Ag);
        hspmv_dist_destroy(&D);
    }
    *Dout = D;
    return rc;
}
