/* hspmv_petsc.c — MatCreateHspmv: a MATSHELL whose MatMult is hspmv_dist_spmv
   on the vectors' own arrays. */
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

static PetscErrorCode shell_mult(Mat S, Vec x, Vec y)
{
    shell *c;
    const PetscScalar *xa;
    PetscScalar *ya;
    PetscInt nx, ny;
    hspmv_error err;
    int rc;

    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(S, &c));
    PetscCall(VecGetLocalSize(x, &nx));
    PetscCall(VecGetLocalSize(y, &ny));
    PetscCheck(nx == c->ncols && ny == c->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "hspmv shell: vectors with %" PetscInt_FMT " / %" PetscInt_FMT " local entries, the matrix has %"
               PetscInt_FMT " columns / %" PetscInt_FMT " rows here (make them with MatCreateVecs)",
               nx, ny, c->ncols, c->nrows);
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
#if SAME_REAL
    rc = hspmv_dist_spmv(c->D, xa, ya, &err);
#else
    for (PetscInt i = 0; i < nx; i++) c->xs[i] = (hspmv_real)xa[i];
    rc = hspmv_dist_spmv(c->D, c->xs, c->ys, &err);
    for (PetscInt i = 0; i < ny; i++) ya[i] = (PetscScalar)c->ys[i];
#endif
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCheck(rc == HSPMV_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "hspmv_dist_spmv: %s", err.msg);
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
    PetscCall(MatShellSetOperation(*S, MATOP_DESTROY, (void (*)(void))shell_destroy));
    if (diag) PetscCall(MatShellSetOperation(*S, MATOP_GET_DIAGONAL, (void (*)(void))shell_get_diagonal));
    PetscFunctionReturn(0);
}
