/* hspmv_petsc.c — MatCreateHspmv: a MATSHELL whose MatMult is hspmv_dist_spmv
   on the vectors' own arrays, MatMultTranspose the transposed product, and
   C = A*B for a dense B (MatMatMult, MatProduct AB) the block product. */
#include <stdio.h>
#include <string.h>
#include "hspmv_petsc.h"

#if defined(PETSC_USE_COMPLEX)
#error "hspmv is real: build it against a real PETSc (Debian: petsc-dev is real double)"
#endif
/* PetscScalar and hspmv_real the same type: vectors are shared, never copied */
#if (defined(HSPMV_SINGLE) && defined(PETSC_USE_REAL_SINGLE)) || \
    (!defined(HSPMV_SINGLE) && defined(PETSC_USE_REAL_DOUBLE))
#define SAME_REAL 1
#else
#define SAME_REAL 0
#endif

typedef struct shell {
    hspmv_dist *D;
    PetscInt nrows, ncols;   /* this rank's rows and x entries */
    PetscScalar *diag;       /* NULL or nrows entries */
    hspmv_real *xs, *ys;     /* scratch when the reals differ (SAME_REAL 0) */
} shell;

/* y = A x (flags 0: x has this rank's columns, y its rows) or y = A^T x
   (HSPMV_TRANSPOSE: x has its rows, y its columns), through the reals'
   scratch when they differ (SAME_REAL 0). */
static PetscErrorCode shell_apply(Mat S, Vec x, Vec y, int flags)
{
    shell *c;
    const PetscScalar *xa;
    PetscScalar *ya;
    PetscInt nx, ny;
    hspmv_error err;
    int rc, tr = flags == HSPMV_TRANSPOSE;
    PetscInt nin, nout;

    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(S, &c));
    nin = tr ? c->nrows : c->ncols;
    nout = tr ? c->ncols : c->nrows;
    PetscCall(VecGetLocalSize(x, &nx));
    PetscCall(VecGetLocalSize(y, &ny));
    if (!tr)
        PetscCheck(nx == nin && ny == nout, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                   "hspmv shell: vectors with %" PetscInt_FMT " / %" PetscInt_FMT " local entries, the matrix has %"
                   PetscInt_FMT " columns / %" PetscInt_FMT " rows here (make them with MatCreateVecs)",
                   nx, ny, c->ncols, c->nrows);
    else
        PetscCheck(nx == nin && ny == nout, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                   "hspmv shell: MatMultTranspose with %" PetscInt_FMT " / %" PetscInt_FMT " local entries, the "
                   "matrix has %" PetscInt_FMT " rows / %" PetscInt_FMT " columns here", nx, ny, c->nrows, c->ncols);
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
#if SAME_REAL
    rc = hspmv_dist_spmm(c->D, flags, 1, xa, ya, &err);
#else
    hspmv_real *in = tr ? c->ys : c->xs, *out = tr ? c->xs : c->ys;
    for (PetscInt i = 0; i < nx; i++) in[i] = (hspmv_real)xa[i];
    rc = hspmv_dist_spmm(c->D, flags, 1, in, out, &err);
    for (PetscInt i = 0; i < ny; i++) ya[i] = (PetscScalar)out[i];
#endif
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCheck(rc == HSPMV_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s",
               tr ? "hspmv_dist_spmm (transposed)" : "hspmv_dist_spmv", err.msg);
    PetscFunctionReturn(0);
}

static PetscErrorCode shell_mult(Mat S, Vec x, Vec y)
{
    PetscFunctionBeginUser;
    PetscCall(shell_apply(S, x, y, 0));
    PetscFunctionReturn(0);
}

static PetscErrorCode shell_mult_transpose(Mat S, Vec x, Vec y)
{
    PetscFunctionBeginUser;
    PetscCall(shell_apply(S, x, y, HSPMV_TRANSPOSE));
    PetscFunctionReturn(0);
}

/* C = A*B, B dense (K columns, column-major with a leading dimension): the
   product's C is dense with B's column split and A's rows. */
static PetscErrorCode shell_ab_symbolic(Mat S, Mat B, Mat C, void **data)
{
    PetscInt M, K, m, k;

    PetscFunctionBeginUser;
    PetscCall(MatGetSize(S, &M, NULL));
    PetscCall(MatGetSize(B, NULL, &K));
    PetscCall(MatGetLocalSize(S, &m, NULL));
    PetscCall(MatGetLocalSize(B, NULL, &k));
    PetscCall(MatSetSizes(C, m, k, M, K)); /* what PETSc may have set already */
    PetscCall(MatSetUp(C));
    *data = NULL;
    PetscFunctionReturn(0);
}

/* One hspmv_dist_spmm of all K columns (HSPMV_COL_MAJOR) on the dense
   arrays themselves when they are packed (leading dimension = local rows)
   and the reals agree, else through packed copies. */
static PetscErrorCode shell_ab_numeric(Mat S, Mat B, Mat C, void *data)
{
    shell *c;
    const PetscScalar *ba;
    PetscScalar *ca;
    PetscInt K, nb, mc, ldb, ldc;
    hspmv_error err;
    int rc;

    PetscFunctionBeginUser;
    (void)data;
    PetscCall(MatShellGetContext(S, &c));
    PetscCall(MatGetSize(B, NULL, &K));
    PetscCall(MatGetLocalSize(B, &nb, NULL));
    PetscCall(MatGetLocalSize(C, &mc, NULL));
    PetscCheck(nb == c->ncols && mc == c->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "hspmv shell: MatMatMult with B of %" PetscInt_FMT " and C of %" PetscInt_FMT " local rows, the matrix "
               "has %" PetscInt_FMT " columns / %" PetscInt_FMT " rows here", nb, mc, c->ncols, c->nrows);
    PetscCall(MatDenseGetLDA(B, &ldb));
    PetscCall(MatDenseGetLDA(C, &ldc));
    PetscCall(MatDenseGetArrayRead(B, &ba));
    PetscCall(MatDenseGetArrayWrite(C, &ca));
    if (K > 0 && SAME_REAL && ldb == nb && ldc == mc) {
        rc = hspmv_dist_spmm(c->D, HSPMV_COL_MAJOR, (int)K, (const hspmv_real *)ba, (hspmv_real *)ca, &err);
    } else if (K > 0) { /* hspmv_dist_spmm is collective: every rank calls it, with or without copies */
        hspmv_real *xs = hspmv_malloc(sizeof(hspmv_real) * (size_t)(nb * K + 1));
        hspmv_real *ys = hspmv_malloc(sizeof(hspmv_real) * (size_t)(mc * K + 1));
        for (PetscInt j = 0; xs && j < K; j++)
            for (PetscInt i = 0; i < nb; i++) xs[j * nb + i] = (hspmv_real)ba[j * ldb + i];
        rc = xs && ys ? hspmv_dist_spmm(c->D, HSPMV_COL_MAJOR, (int)K, xs, ys, &err) : HSPMV_ERR_NOMEM;
        if (!xs || !ys) snprintf(err.msg, sizeof(err.msg), "hspmv shell: no memory for %d packed columns", (int)K);
        for (PetscInt j = 0; rc == HSPMV_OK && j < K; j++)
            for (PetscInt i = 0; i < mc; i++) ca[j * ldc + i] = (PetscScalar)ys[j * mc + i];
        hspmv_free(xs);
        hspmv_free(ys);
    } else {
        rc = HSPMV_OK;
    }
    PetscCall(MatDenseRestoreArrayWrite(C, &ca));
    PetscCall(MatDenseRestoreArrayRead(B, &ba));
    PetscCheck(rc == HSPMV_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "hspmv_dist_spmm: %s", err.msg);
    PetscFunctionReturn(0);
}

static PetscErrorCode shell_get_diagonal(Mat S, Vec d)
{
    shell *c;
    PetscScalar *da;

    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(S, &c));
    PetscCheck(c->diag, PetscObjectComm((PetscObject)S), PETSC_ERR_SUP,
               "hspmv shell: no diagonal was given to MatCreateHspmv");
    PetscCall(VecGetArrayWrite(d, &da));
    memcpy(da, c->diag, sizeof(PetscScalar) * (size_t)c->nrows);
    PetscCall(VecRestoreArrayWrite(d, &da));
    PetscFunctionReturn(0);
}

static PetscErrorCode shell_destroy(Mat S)
{
    shell *c;

    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(S, &c));
    PetscCall(PetscFree(c->diag));
    hspmv_free(c->xs);
    hspmv_free(c->ys);
    PetscCall(PetscFree(c));
    PetscFunctionReturn(0);
}

PetscErrorCode MatCreateHspmv(hspmv_dist *D, const hspmv_real *diag, Mat *S)
{
    hspmv_dist_info info;
    shell *c;

    PetscFunctionBeginUser;
    hspmv_dist_get_info(D, &info);
    PetscCall(PetscNew(&c));
    c->D = D;
    c->nrows = (PetscInt)info.nrows_local;
    c->ncols = (PetscInt)info.ncols_local;
    PetscCheck((int64_t)c->nrows == info.nrows_local && (int64_t)info.nrows == (PetscInt)info.nrows,
               PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "hspmv shell: %lld rows do not fit PetscInt",
               (long long)info.nrows);
    if (diag) {
        PetscCall(PetscMalloc1(c->nrows, &c->diag));
        for (PetscInt i = 0; i < c->nrows; i++) c->diag[i] = (PetscScalar)diag[i];
    }
#if !SAME_REAL
    c->xs = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
    c->ys = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    PetscCheck(c->xs && c->ys, PETSC_COMM_SELF, PETSC_ERR_MEM, "hspmv shell: no memory for scratch vectors");
#endif
    PetscCall(MatCreateShell(hspmv_dist_get_comm(D), c->nrows, c->ncols, (PetscInt)info.nrows,
                             (PetscInt)info.ncols, c, S));
    PetscCall(MatShellSetOperation(*S, MATOP_MULT, (void (*)(void))shell_mult));
    PetscCall(MatShellSetOperation(*S, MATOP_MULT_TRANSPOSE, (void (*)(void))shell_mult_transpose));
    PetscCall(MatShellSetOperation(*S, MATOP_DESTROY, (void (*)(void))shell_destroy));
    /* MATDENSE: the sequential or the MPI dense type, as the communicator's size says */
    PetscCall(MatShellSetMatProductOperation(*S, MATPRODUCT_AB, shell_ab_symbolic, shell_ab_numeric, NULL, MATDENSE,
                                             MATDENSE));
    if (diag) PetscCall(MatShellSetOperation(*S, MATOP_GET_DIAGONAL, (void (*)(void))shell_get_diagonal));
    PetscFunctionReturn(0);
}
