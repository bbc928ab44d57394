/* petsc_shell.c — PETSc's Krylov solvers on an hspmv matrix: the matrix is a
   MATSHELL whose MatMult is hspmv_dist_spmv (hspmv_petsc.c), solved with
   KSPCG and KSPGMRES, and the same matrix as PETSc's own MPIAIJ solved
   beside it from the same right-hand side: the iteration counts must match,
   and the time per iteration of the two is compared.
     mpirun -n 4 ./petsc_shell [-problem lap2d|convdiff] [-m 100] [-conv 0.5]
                               [-f matrix.mtx] [-ksp_list cg,gmres] [-jacobi]
                               [-rtol 1e-8] [-maxit 10000] [-reps 3] [-its_tol 0] [PETSc options]
   lap2d: 5-point Laplacian on an m x m grid (SPD). convdiff: the same with
   upwind convection of strength conv in x and y (nonsymmetric). -f: a Matrix
   Market file, read by every rank, which keeps its own rows (fine for an
   example; hspmv_dist_read reads on rank 0 only). Rows are split as PETSc
   splits them (PetscSplitOwnership); b = A*1, x0 = 0. -jacobi: PCJACOBI
   for both (the shell answers MatGetDiagonal), else PCNONE. Other PETSc
   options (-ksp_gmres_restart 50, -ksp_monitor, ...) reach both solvers.
   Prints a table and one bench=petsc-shell key=value line per solver;
   exit status 1 when the counts differ by more than -its_tol (default 0: CG
   and GMRES match exactly; BiCGStab's erratic residual can move by a few
   iterations with the rounding of the product), a solve fails or the two
   products disagree. Before the solves, MatMultTranspose and MatMatMult by
   a dense matrix of 3 columns (packed, and with a leading dimension of the
   local rows + 3) are compared with MPIAIJ's too: a line each; a
   MatMultTranspose this hspmv cannot do is reported, not counted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <petscksp.h>
#include "hspmv_petsc.h"

static const char help[] = "hspmv matrix as a PETSc MATSHELL, compared with MPIAIJ.\n";

/* This rank's rows [lo, lo+n) of the global matrix, CSR with global columns. */
typedef struct rows {
    PetscInt N, lo, n;
    PetscInt *ptr, *col; /* n+1, nnz: for MatCreateMPIAIJWithArrays */
    PetscScalar *val;
    int64_t *ptr64, *col64; /* the same for hspmv_dist_create */
    hspmv_real *valh, *diag;
} rows;

/* 5-point stencil on an m x m grid: diagonal 4 + 2c, west and south
   -1 - c (upwind convection), east and north -1; c = 0 is the Laplacian. */
static PetscErrorCode make_grid(PetscInt m, PetscReal c, rows *R)
{
    PetscInt k = 0;

    PetscFunctionBeginUser;
    for (PetscInt i = R->lo; i < R->lo + R->n; i++) {
        PetscInt r = i / m, q = i % m;
        R->ptr[i - R->lo] = k;
        if (r > 0) R->col[k] = i - m, R->val[k++] = -1 - c;
        if (q > 0) R->col[k] = i - 1, R->val[k++] = -1 - c;
        R->col[k] = i, R->val[k++] = 4 + 2 * c;
        if (q < m - 1) R->col[k] = i + 1, R->val[k++] = -1;
        if (r < m - 1) R->col[k] = i + m, R->val[k++] = -1;
    }
    R->ptr[R->n] = k;
    PetscFunctionReturn(0);
}

static PetscErrorCode split_rows(PetscInt N, rows *R)
{
    PetscInt n = PETSC_DECIDE, N2 = N, lo = 0;

    PetscFunctionBeginUser;
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &n, &N2));
    PetscCallMPI(MPI_Exscan(&n, &lo, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    int me;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &me));
    R->N = N;
    R->lo = me ? lo : 0;
    R->n = n;
    PetscFunctionReturn(0);
}

/* The grid problems: every rank makes its own rows. */
static PetscErrorCode grid_rows(PetscInt m, PetscReal c, rows *R)
{
    PetscFunctionBeginUser;
    PetscCheck(m >= 2 && m <= 46340, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-m must be 2..46340, not %" PetscInt_FMT, m);
    PetscCall(split_rows(m * m, R));
    PetscCall(PetscMalloc3(R->n + 1, &R->ptr, 5 * R->n + 1, &R->col, 5 * R->n + 1, &R->val));
    PetscCall(make_grid(m, c, R));
    PetscFunctionReturn(0);
}

/* A file: every rank reads it (hspmv_csr_read) and keeps its rows. */
static PetscErrorCode file_rows(const char *path, rows *R)
{
    hspmv_csr A = {0};
    hspmv_error err;
    int rc = hspmv_csr_read(path, &A, NULL, NULL, &err), any;

    PetscFunctionBeginUser;
    PetscCallMPI(MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCheck(!any, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "%s", rc ? err.msg : "reading the matrix failed on another rank");
    PetscCheck(A.nrows == A.ncols, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "%s: %lld x %lld is not square", path,
               (long long)A.nrows, (long long)A.ncols);
    PetscCheck(A.nnz < PETSC_MAX_INT, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s: %lld entries do not fit PetscInt",
               path, (long long)A.nnz);
    PetscCall(split_rows((PetscInt)A.nrows, R));
    int64_t b = A.rowptr[R->lo], nnz = A.rowptr[R->lo + R->n] - b;
    PetscCall(PetscMalloc3(R->n + 1, &R->ptr, nnz + 1, &R->col, nnz + 1, &R->val));
    for (PetscInt i = 0; i <= R->n; i++) R->ptr[i] = (PetscInt)(A.rowptr[R->lo + i] - b);
    for (int64_t k = 0; k < nnz; k++) R->col[k] = A.colind[b + k], R->val[k] = A.val[b + k];
    hspmv_csr_free(&A);
    PetscFunctionReturn(0);
}

/* hspmv's copies of the rows (64-bit indices, hspmv_real) and the diagonal. */
static PetscErrorCode hspmv_rows(rows *R)
{
    PetscInt nnz = R->ptr[R->n];

    PetscFunctionBeginUser;
    PetscCall(PetscMalloc4(R->n + 1, &R->ptr64, nnz + 1, &R->col64, nnz + 1, &R->valh, R->n + 1, &R->diag));
    for (PetscInt i = 0; i <= R->n; i++) R->ptr64[i] = R->ptr[i];
    for (PetscInt k = 0; k < nnz; k++) R->col64[k] = R->col[k], R->valh[k] = (hspmv_real)R->val[k];
    for (PetscInt i = 0; i < R->n; i++) {
        R->diag[i] = 0;
        for (PetscInt k = R->ptr[i]; k < R->ptr[i + 1]; k++)
            if (R->col[k] == R->lo + i) R->diag[i] += R->valh[k];
    }
    PetscFunctionReturn(0);
}

typedef struct outcome {
    PetscInt its;
    KSPConvergedReason reason;
    PetscReal rnorm, err, ms_per_it;
} outcome;

/* One solve of A x = b from x = 0, timed (max over ranks). */
static PetscErrorCode solve_once(KSP ksp, Vec b, Vec x, outcome *o, double *secs)
{
    double t, tmax;

    PetscFunctionBeginUser;
    PetscCall(VecZeroEntries(x));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t = MPI_Wtime();
    PetscCall(KSPSolve(ksp, b, x));
    t = MPI_Wtime() - t;
    PetscCallMPI(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    *secs = tmax;
    PetscCall(KSPGetIterationNumber(ksp, &o->its));
    PetscCall(KSPGetConvergedReason(ksp, &o->reason));
    PetscCall(KSPGetResidualNorm(ksp, &o->rnorm));
    PetscCall(VecShift(x, -1.0)); /* x* = 1 */
    PetscCall(VecNorm(x, NORM_INFINITY, &o->err));
    PetscFunctionReturn(0);
}

static PetscErrorCode make_ksp(Mat A, const char *type, PetscBool jacobi, PetscReal rtol, PetscInt maxit, KSP *ksp)
{
    PC pc;

    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
    PetscCall(KSPSetOperators(*ksp, A, A));
    PetscCall(KSPSetType(*ksp, type));
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, jacobi ? PCJACOBI : PCNONE));
    PetscCall(KSPSetTolerances(*ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, maxit));
    PetscCall(KSPSetFromOptions(*ksp));
    PetscCall(KSPSetUp(*ksp));
    PetscFunctionReturn(0);
}

/* max|P - Q| <= eps * max|Q| for two vectors (d: scratch); prints the line. */
static PetscErrorCode vec_agree(Vec p, Vec q, PetscReal eps, const char *what, int *bad)
{
    PetscReal dn, qn;

    PetscFunctionBeginUser;
    PetscCall(VecAXPY(p, -1.0, q));
    PetscCall(VecNorm(p, NORM_INFINITY, &dn));
    PetscCall(VecNorm(q, NORM_INFINITY, &qn));
    int ok = dn <= eps * (qn > 0 ? qn : 1);
    *bad |= !ok;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: max|hspmv - MPIAIJ| = %.3e (|y| = %.3e): %s\n", what, (double)dn,
                          (double)qn, ok ? "ok" : "DIFFER"));
    PetscFunctionReturn(0);
}

/* C = S*B and A*B for a random dense B of K columns whose leading
   dimension is the local rows + pad, twice (the second call reuses C),
   compared by their largest row sums. */
static PetscErrorCode matmat_agree(Mat S, Mat A, PetscInt K, PetscInt pad, PetscReal eps, int *bad)
{
    Mat B, C1, C2;
    PetscInt n, N;
    PetscRandom rnd;
    PetscReal dn = 0, cn = 0;
    char what[96];

    PetscFunctionBeginUser;
    PetscCall(MatGetLocalSize(S, NULL, &n));
    PetscCall(MatGetSize(S, NULL, &N));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
    PetscCall(MatSetSizes(B, n, PETSC_DECIDE, N, K));
    PetscCall(MatSetType(B, MATDENSE));
    if (pad) PetscCall(MatDenseSetLDA(B, n + pad));
    PetscCall(MatSetUp(B));
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetFromOptions(rnd));
    PetscCall(MatSetRandom(B, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(MatMatMult(S, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C1));
    PetscCall(MatMatMult(S, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C1));
    PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C2));
    PetscCall(MatAXPY(C1, -1.0, C2, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(C1, NORM_INFINITY, &dn));
    PetscCall(MatNorm(C2, NORM_INFINITY, &cn));
    int ok = dn <= eps * (cn > 0 ? cn : 1);
    *bad |= !ok;
    snprintf(what, sizeof(what), "MatMatMult, %d dense columns%s", (int)K, pad ? ", leading dimension rows + 3" : "");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: max row sum |hspmv - MPIAIJ| = %.3e (of C: %.3e): %s\n", what,
                          (double)dn, (double)cn, ok ? "ok" : "DIFFER"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&C1));
    PetscCall(MatDestroy(&C2));
    PetscFunctionReturn(0);
}

/* MatMultTranspose (reported, not counted, where this hspmv has no
   transposed product) and MatMatMult of the shell against MPIAIJ's. */
static PetscErrorCode more_products_agree(Mat S, Mat A, PetscReal eps, int *bad)
{
    Vec u, v1, v2;
    PetscRandom rnd;

    PetscFunctionBeginUser;
    PetscCall(MatCreateVecs(S, &v1, &u));
    PetscCall(VecDuplicate(v1, &v2));
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetFromOptions(rnd));
    PetscCall(VecSetRandom(u, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    PetscErrorCode te = MatMultTranspose(S, u, v1);
    PetscCall(PetscPopErrorHandler());
    if (te) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatMultTranspose: not available in this hspmv (error %d)\n",
                              (int)te));
    } else {
        PetscCall(MatMultTranspose(A, u, v2));
        PetscCall(vec_agree(v1, v2, eps, "MatMultTranspose", bad));
    }
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&v1));
    PetscCall(VecDestroy(&v2));
    PetscCall(matmat_agree(S, A, 3, 0, eps, bad));
    PetscCall(matmat_agree(S, A, 3, 3, eps, bad));
    PetscFunctionReturn(0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    char problem[32] = "lap2d", file[PETSC_MAX_PATH_LEN] = "", list[256] = "cg,gmres";
    PetscInt m = 100, reps = 3, maxit = 10000, its_tol = 0;
    PetscReal conv = 0.5, rtol = 1e-8;
    PetscBool jacobi = PETSC_FALSE, have_file;
    rows R = {0};
    int me, P, bad = 0;

    PetscCall(PetscInitialize(&argc, &argv, NULL, help));
    MPI_Comm_rank(PETSC_COMM_WORLD, &me);
    MPI_Comm_size(PETSC_COMM_WORLD, &P);
    PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof(problem), NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-f", file, sizeof(file), &have_file));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_list", list, sizeof(list), NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxit", &maxit, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-its_tol", &its_tol, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-conv", &conv, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-jacobi", &jacobi, NULL));
    PetscCheck(reps >= 1 && reps <= 1000, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps must be 1..1000");
    PetscCheck(maxit >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-maxit must be 1 or more");
    PetscCheck(rtol > 0 && rtol < 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rtol must be in (0, 1)");

    /* the rows, then the same matrix twice: hspmv (as a shell) and MPIAIJ */
    const char *name = problem;
    if (have_file) {
        PetscCall(file_rows(file, &R));
        name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    } else if (!strcmp(problem, "lap2d")) PetscCall(grid_rows(m, 0, &R));
    else if (!strcmp(problem, "convdiff")) PetscCall(grid_rows(m, conv, &R));
    else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-problem must be lap2d or convdiff, not '%s'", problem);
    PetscCall(hspmv_rows(&R));

    hspmv_dist *D = NULL;
    hspmv_error err;
    int rc = hspmv_dist_create(PETSC_COMM_WORLD, R.n, R.N, -1, R.ptr64, R.col64, R.valh, NULL, &D, &err);
    PetscCheck(rc == HSPMV_OK, PETSC_COMM_WORLD, PETSC_ERR_LIB, "hspmv_dist_create: %s", err.msg);
    Mat S, A;
    PetscCall(MatCreateHspmv(D, R.diag, &S));
    PetscCall(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, R.n, R.n, R.N, R.N, R.ptr, R.col, R.val, &A));
    PetscInt nnz_local = R.ptr[R.n], nnz;
    PetscCallMPI(MPI_Allreduce(&nnz_local, &nnz, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));

    /* b = A*1 by PETSc; the two products of a random vector must agree */
    Vec b, x, y1, y2;
    PetscReal dn, yn;
    PetscCall(MatCreateVecs(S, &x, &b));
    PetscCall(VecDuplicate(b, &y1));
    PetscCall(VecDuplicate(b, &y2));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, b));
    PetscRandom rnd;
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetFromOptions(rnd));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(MatMult(S, x, y1));
    PetscCall(MatMult(A, x, y2));
    PetscCall(VecAXPY(y1, -1.0, y2));
    PetscCall(VecNorm(y1, NORM_INFINITY, &dn));
    PetscCall(VecNorm(y2, NORM_INFINITY, &yn));
    PetscReal eps = sizeof(hspmv_real) == 4 ? 1e-5 : 1e-12;
    int products_agree = dn <= eps * (yn > 0 ? yn : 1);
    bad |= !products_agree;

    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "petsc_shell: %s, %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %d ranks, hspmv %s, "
                          "PETSc %d.%d.%d, pc %s, rtol %g\n"
                          "  MatMult: max|hspmv - MPIAIJ| = %.3e (|y| = %.3e): %s\n",
                          name, R.N, nnz, P, sizeof(hspmv_real) == 4 ? "single" : "double", PETSC_VERSION_MAJOR,
                          PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, jacobi ? "jacobi" : "none", (double)rtol,
                          (double)dn, (double)yn, products_agree ? "ok" : "DIFFER"));
    PetscCall(more_products_agree(S, A, eps, &bad));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-7s %9s %9s %12s %12s %10s %10s %9s %10s\n", "ksp", "its hspmv",
                          "its aij", "rnorm hspmv", "rnorm aij", "ms/it hspmv", "ms/it aij", "aij/hspmv",
                          "err hspmv"));

    /* each solver on both matrices, interleaved, reps times */
    for (char *type = list, *next; type && *type; type = next) {
        next = strchr(type, ',');
        if (next) *next++ = '\0';
        KSP ks, ka;
        outcome os = {0}, oa = {0};
        double *ts, *ta, t;
        PetscCall(PetscMalloc2(reps, &ts, reps, &ta));
        PetscCall(make_ksp(S, type, jacobi, rtol, maxit, &ks));
        PetscCall(make_ksp(A, type, jacobi, rtol, maxit, &ka));
        for (PetscInt r = 0; r < reps; r++) {
            PetscCall(solve_once(ks, b, x, &os, &t));
            ts[r] = 1e3 * t / (os.its > 0 ? os.its : 1);
            PetscCall(solve_once(ka, b, x, &oa, &t));
            ta[r] = 1e3 * t / (oa.its > 0 ? oa.its : 1);
        }
        qsort(ts, (size_t)reps, sizeof(double), cmp_double);
        qsort(ta, (size_t)reps, sizeof(double), cmp_double);
        os.ms_per_it = ts[reps / 2];
        oa.ms_per_it = ta[reps / 2];
        PetscInt dits = os.its > oa.its ? os.its - oa.its : oa.its - os.its;
        int ok = dits <= its_tol && os.reason > 0 && oa.reason > 0;
        bad |= !ok;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-7s %9" PetscInt_FMT " %9" PetscInt_FMT " %12.4e %12.4e %10.4f %10.4f %9.3f %10.2e%s\n",
                              type, os.its, oa.its, (double)os.rnorm, (double)oa.rnorm, os.ms_per_it, oa.ms_per_it,
                              oa.ms_per_it / os.ms_per_it, (double)os.err,
                              ok ? "" : dits > its_tol ? "  ITERATIONS DIFFER" : "  NOT CONVERGED"));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "bench=petsc-shell matrix=%s rows=%" PetscInt_FMT " nnz=%" PetscInt_FMT " ranks=%d ksp=%s pc=%s "
                              "its_hspmv=%" PetscInt_FMT " its_aij=%" PetscInt_FMT " reason_hspmv=%d reason_aij=%d "
                              "rnorm_hspmv=%.6e rnorm_aij=%.6e ms_it_hspmv=%.6f ms_it_aij=%.6f aij_over_hspmv=%.4f "
                              "err_hspmv=%.3e err_aij=%.3e mult_diff=%.3e match=%d\n",
                              name, R.N, nnz, P, type, jacobi ? "jacobi" : "none", os.its, oa.its, (int)os.reason,
                              (int)oa.reason, (double)os.rnorm, (double)oa.rnorm, os.ms_per_it, oa.ms_per_it,
                              oa.ms_per_it / os.ms_per_it, (double)os.err, (double)oa.err, (double)dn, ok));
        PetscCall(KSPDestroy(&ks));
        PetscCall(KSPDestroy(&ka));
        PetscCall(PetscFree2(ts, ta));
    }

    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDestroy(&A));
    hspmv_dist_destroy(&D);
    PetscCall(PetscFree3(R.ptr, R.col, R.val));
    PetscCall(PetscFree4(R.ptr64, R.col64, R.valh, R.diag));
    PetscCall(PetscFinalize());
    return bad;
}
