/* dist_alloc.c — a distributed matrix allocated (its communicator duplicated, rank 0's test
   hooks agreed) and destroyed, and the default split of x. */
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "dist_sym.h"
#include "node.h"
#include "util.h"

int hspmv_dist_alloc(MPI_Comm comm, hspmv_dist **Dout, hspmv_error *err)
{
    MPI_Comm c;
    int rc = HSPMV_OK, me, P;
    *Dout = NULL;
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS) return hspmv_err(err, HSPMV_ERR_MPI, "MPI_Comm_dup failed");
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &P);
    hspmv_dist *D = hspmv_calloc(1, sizeof(*D));
    if (D) {
        D->comm = c;
        D->rank = me;
        D->size = P;
        D->row_start = hspmv_calloc((size_t)P + 1, sizeof(int64_t));
        D->col_start = hspmv_calloc((size_t)P + 1, sizeof(int64_t));
    }
    if (!D || !D->row_start || !D->col_start)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for a distributed matrix of %d ranks", me, P);
    rc = hspmv_dist_agree(c, rc, err);
    if (!rc) rc = hspmv_dist_agree_test(c, D->test, err); /* rank 0's test hooks for every rank */
    if (rc) {
        if (D) {
            D->comm = MPI_COMM_NULL;
            hspmv_dist_destroy(&D);
        }
        MPI_Comm_free(&c);
        return rc;
    }
    *Dout = D;
    return HSPMV_OK;
}

void hspmv_dist_destroy(hspmv_dist **Dp)
{
    if (!Dp || !*Dp) return;
    hspmv_dist *D = *Dp;
    hspmv_local_destroy(&D->Lo);
    hspmv_dist_destroy(&D->tr);
    hspmv_node_free(&D->node); /* collective over the node when it holds a window */
    hspmv_local_destroy(&D->Lg);
    hspmv_dist_sym_free(D->sym);
    hspmv_free(D->row_start);
    hspmv_free(D->col_start);
    hspmv_free(D->perm);
    hspmv_free(D->file_row);
    hspmv_free(D->diag);
    hspmv_free(D->ghost_col);
    hspmv_free(D->ghost_row);
    hspmv_free(D->gy);
    hspmv_free(D->recv_rank);
    hspmv_free(D->recv_ptr);
    hspmv_free(D->send_rank);
    hspmv_free(D->send_ptr);
    hspmv_free(D->send_idx);
    hspmv_free(D->xg);
    hspmv_free(D->sendbuf);
    hspmv_free(D->work);
    hspmv_free(D->req);
    hspmv_dist_blk_free(D);
    if (D->comm != MPI_COMM_NULL) MPI_Comm_free(&D->comm);
    hspmv_free(D);
    *Dp = NULL;
}

/* Even split of the columns of a rectangular matrix; the rows' split when square. */
void hspmv_dist_column_layout(hspmv_dist *D)
{
    if (D->nrows == D->ncols) memcpy(D->col_start, D->row_start, sizeof(int64_t) * (size_t)(D->size + 1));
    else hspmv_partition_rows(D->ncols, D->size, D->col_start);
}
