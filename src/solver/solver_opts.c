/* solver_opts.c — solver defaults and the Jacobi diagonal of a matrix that
   rank 0 distributed. */
#include "solver.h"
#include "util.h"

void hspmv_solver_opts_default(hspmv_solver_opts *o)
{
    o->tol = 1e-8;
    o->maxit = 1000;
    o->diag = NULL;
    o->history = NULL;
    o->history_len = 0;
    o->monitor = NULL;
    o->monitor_ctx = NULL;
}

/* diag(A) in the file ordering on rank 0, scattered like a y vector. */
int hspmv_solver_diag_root(const hspmv_dist *D, const hspmv_csr *A, hspmv_real *diag,
                           hspmv_error *err)
{
    hspmv_dist_info in;
    hspmv_real *d = NULL;
    int rc = HSPMV_OK;
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_solver_diag_root: distributed matrix is NULL");
    hspmv_dist_get_info(D, &in);
    if (in.rank == 0) {
        if (!A || A->nrows != in.nrows || A->ncols != in.ncols)
            rc = hspmv_err(err, HSPMV_ERR_ARG, "hspmv_solver_diag_root: rank 0's matrix is missing "
                           "or not the distributed one's size");
        else if (!(d = hspmv_calloc((size_t)A->nrows + 1, sizeof(hspmv_real))))
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_solver_diag_root: out of memory");
        else
            for (int64_t i = 0; i < A->nrows; i++)
                for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                    if (A->colind[k] == i) d[i] += A->val[k];
    }
    /* the scatter agrees on rank 0's status first */
    int bad = rc != HSPMV_OK;
    MPI_Bcast(&bad, 1, MPI_INT, 0, hspmv_dist_get_comm(D));
    if (bad) {
        hspmv_error e = {rc, ""};
        if (in.rank == 0 && err) e = *err;
        MPI_Bcast(&e, (int)sizeof(e), MPI_BYTE, 0, hspmv_dist_get_comm(D));
        if (err) *err = e;
        hspmv_free(d);
        return e.code;
    }
    rc = hspmv_dist_scatter(D, HSPMV_VEC_ROWS, d, diag, err);
    hspmv_free(d);
    return rc;
}
