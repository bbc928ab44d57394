/* petsc_check.c — hspmv's PETSc binary files against PETSc itself (Debian's
   petsc-dev): a file MatView writes (AIJ, and dense in both layouts) reads in
   hspmv as the Matrix Market file did, serially and with MPI-IO; a file
   hspmv writes loads with MatLoad holding the same entries, and MatMult on
   it meets the docs/design.md bound; both write the same bytes.
     mpirun -n P petsc_check TMPDIR matrix.mtx...   (tests/petsc_io/run.sh) */
#include <petscmat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hspmv.h"
#include "testlib.h"
#include "matrix_files.h"

static int me, P, passed, failed;
static MPI_Comm comm;

/* One check's outcome, agreed over the ranks. */
static void verdict(int ok, const char *name, const char *what)
{
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) passed++;
    else failed++;
    if (me == 0) printf("%s %s at %d ranks: %s\n", all ? "ok  " : "FAIL", name, P, what);
    fflush(stdout);
}

/* PETSc's AIJ matrix of A (every rank holds all of A; PETSc's default row split). */
static PetscErrorCode petsc_mat(const hspmv_csr *A, Mat *M)
{
    PetscInt m = PETSC_DECIDE, n = PETSC_DECIDE, Mg = (PetscInt)A->nrows, Ng = (PetscInt)A->ncols, rend = 0;
    PetscFunctionBeginUser;
    PetscCall(PetscSplitOwnership(comm, &m, &Mg));
    PetscCall(PetscSplitOwnership(comm, &n, &Ng));
    PetscCallMPI(MPI_Scan(&m, &rend, 1, MPIU_INT, MPI_SUM, comm));
    PetscInt rs = rend - m, off = (PetscInt)A->rowptr[rs], z = (PetscInt)A->rowptr[rend] - off;
    PetscInt *ia, *ja;
    PetscScalar *va;
    PetscCall(PetscMalloc3(m + 1, &ia, z > 0 ? z : 1, &ja, z > 0 ? z : 1, &va));
    for (PetscInt i = 0; i <= m; i++) ia[i] = (PetscInt)A->rowptr[rs + i] - off;
    for (PetscInt k = 0; k < z; k++) {
        ja[k] = A->colind[off + k];
        va[k] = A->val[off + k];
    }
    PetscCall(MatCreate(comm, M));
    PetscCall(MatSetSizes(*M, m, n, Mg, Ng));
    PetscCall(MatSetType(*M, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(*M, ia, ja, va));
    PetscCall(MatMPIAIJSetPreallocationCSR(*M, ia, ja, va));
    PetscCall(PetscFree3(ia, ja, va));
    PetscFunctionReturn(0);
}

static PetscErrorCode view_binary(Mat M, const char *path, int native)
{
    PetscViewer v;
    PetscFunctionBeginUser;
    PetscCall(PetscViewerCreate(comm, &v));
    PetscCall(PetscViewerSetType(v, PETSCVIEWERBINARY));
    PetscCall(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE));
    PetscCall(PetscViewerFileSetMode(v, FILE_MODE_WRITE));
    PetscCall(PetscViewerFileSetName(v, path));
    if (native) PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_NATIVE));
    PetscCall(MatView(M, v));
    if (native) PetscCall(PetscViewerPopFormat(v));
    PetscCall(PetscViewerDestroy(&v));
    PetscFunctionReturn(0);
}

static PetscErrorCode load_binary(const char *path, Mat *M)
{
    PetscViewer v;
    PetscFunctionBeginUser;
    PetscCall(PetscViewerBinaryOpen(comm, path, FILE_MODE_READ, &v));
    PetscCall(MatCreate(comm, M));
    PetscCall(MatSetType(*M, MATAIJ));
    PetscCall(MatLoad(*M, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscFunctionReturn(0);
}

static int same_csr(const hspmv_csr *a, const hspmv_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) return 0;
    return !memcmp(a->rowptr, b->rowptr, sizeof(int64_t) * (size_t)(a->nrows + 1)) &&
           !memcmp(a->colind, b->colind, sizeof(int32_t) * (size_t)a->nnz) &&
           !memcmp(a->val, b->val, sizeof(hspmv_real) * (size_t)a->nnz);
}

/* The rows PETSc holds on this rank are A's, entry for entry and bit for bit. */
static int same_rows(Mat M, const hspmv_csr *A)
{
    PetscInt rs, re, Mg, Ng;
    int ok = 1;
    MatGetSize(M, &Mg, &Ng);
    MatGetOwnershipRange(M, &rs, &re);
    ok &= Mg == A->nrows && Ng == A->ncols;
    for (PetscInt i = rs; ok && i < re; i++) {
        PetscInt nc;
        const PetscInt *c;
        const PetscScalar *v;
        MatGetRow(M, i, &nc, &c, &v);
        ok &= nc == A->rowptr[i + 1] - A->rowptr[i];
        for (PetscInt j = 0; ok && j < nc; j++) {
            int64_t k = A->rowptr[i] + j;
            ok &= c[j] == A->colind[k] && !memcmp(&v[j], &A->val[k], sizeof(double));
        }
        MatRestoreRow(M, i, &nc, &c, &v);
    }
    return ok;
}

/* PETSc's y = M*x, gathered on rank 0 and checked against the reference of A. */
static PetscErrorCode matmult_ok(Mat M, const hspmv_csr *A, int *ok)
{
    Vec x, y, y0;
    VecScatter sc;
    PetscInt lo, hi;
    PetscScalar *xa;
    const PetscScalar *ya;
    PetscFunctionBeginUser;
    hspmv_real *xg = malloc(sizeof(hspmv_real) * (size_t)(A->ncols + 1));
    tl_fill(xg, A->ncols, 11);
    PetscCall(MatCreateVecs(M, &x, &y));
    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    PetscCall(VecGetArray(x, &xa));
    for (PetscInt j = lo; j < hi; j++) xa[j - lo] = xg[j];
    PetscCall(VecRestoreArray(x, &xa));
    PetscCall(MatMult(M, x, y));
    PetscCall(VecScatterCreateToZero(y, &sc, &y0));
    PetscCall(VecScatterBegin(sc, y, y0, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, y, y0, INSERT_VALUES, SCATTER_FORWARD));
    *ok = 1;
    if (me == 0) {
        PetscCall(VecGetArrayRead(y0, &ya));
        *ok = tl_matches_ref(A, xg, ya, "PETSc MatMult on the file hspmv wrote");
        PetscCall(VecRestoreArrayRead(y0, &ya));
    }
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(VecDestroy(&y0));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    free(xg);
    PetscFunctionReturn(0);
}

/* hspmv's MPI-IO read of path: y = A*x gathered on rank 0 within the bound. */
static int dist_ok(const char *path, const hspmv_csr *A)
{
    hspmv_dist *D = NULL;
    hspmv_error e;
    int ok = hspmv_dist_read(path, comm, NULL, &D, &e) == HSPMV_OK;
    if (!ok) {
        if (me == 0) fprintf(stderr, "    %s\n", e.msg);
        return 0;
    }
    hspmv_real *xg = malloc(sizeof(hspmv_real) * (size_t)(A->ncols + 1));
    hspmv_real *yg = malloc(sizeof(hspmv_real) * (size_t)(A->nrows + 1));
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    tl_fill(xg, A->ncols, 5);
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, x, &e) == HSPMV_OK;
    ok &= hspmv_dist_spmv(D, x, y, &e) == HSPMV_OK;
    ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, y, yg, &e) == HSPMV_OK;
    if (ok && me == 0) ok = tl_matches_ref(A, xg, yg, "hspmv_dist_read of PETSc's file");
    hspmv_free(x);
    hspmv_free(y);
    free(xg);
    free(yg);
    hspmv_dist_destroy(&D);
    return ok;
}

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)*len + 1)) && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static int same_bytes(const char *p, const char *q)
{
    long a = -1, b = -2;
    char *x = slurp(p, &a), *y = slurp(q, &b);
    int ok = x && y && a == b && !memcmp(x, y, (size_t)a);
    free(x);
    free(y);
    return ok;
}

/* The dense form of A: every entry, absent ones +0.0. */
static int is_dense_of(const hspmv_csr *D, const hspmv_csr *A)
{
    if (D->nrows != A->nrows || D->ncols != A->ncols || D->nnz != A->nrows * A->ncols) return 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t k = A->rowptr[i];
        for (int64_t j = 0; j < A->ncols; j++) {
            int64_t q = i * A->ncols + j;
            double v = 0.0;
            if (k < A->rowptr[i + 1] && A->colind[k] == j) v = A->val[k++];
            if (D->rowptr[i] != i * A->ncols || D->colind[q] != j || memcmp(&D->val[q], &v, sizeof(v))) return 0;
        }
    }
    return 1;
}

static PetscErrorCode check_matrix(const char *dir, const char *path)
{
    char theirs[600], ours[600], dense[600], dense_aij[600];
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    hspmv_csr A = {0}, B = {0};
    hspmv_error e;
    Mat M, L;
    PetscFunctionBeginUser;
    if (tl_is_unsupported_shared(path)) PetscFunctionReturn(0); /* complex: not hspmv's */
    if (hspmv_csr_read(path, &A, NULL, NULL, &e)) {
        if (me == 0) printf("FAIL %s: %s\n", name, e.msg);
        failed++;
        PetscFunctionReturn(0);
    }
    snprintf(theirs, sizeof(theirs), "%s/petsc_wrote_%d.bin", dir, P);
    snprintf(ours, sizeof(ours), "%s/hspmv_wrote_%d.bin", dir, P);
    snprintf(dense, sizeof(dense), "%s/petsc_dense_%d.bin", dir, P);
    snprintf(dense_aij, sizeof(dense_aij), "%s/petsc_dense_aij_%d.bin", dir, P);

    /* PETSc writes, hspmv reads */
    PetscCall(petsc_mat(&A, &M));
    PetscCall(view_binary(M, theirs, 0));
    int ok = 1;
    if (me == 0) {
        ok = hspmv_petsc_read(theirs, &B, &e) == HSPMV_OK && same_csr(&A, &B);
        if (!ok) fprintf(stderr, "    %s: %s\n", name, B.nrows ? "different CSR" : e.msg);
    }
    verdict(ok, name, "MatView's file read by hspmv_petsc_read is the Matrix Market CSR, bit for bit");
    verdict(dist_ok(theirs, &A), name, "MatView's file read with MPI-IO: y = A*x within the bound");

    /* hspmv writes, PETSc reads */
    ok = 1;
    if (me == 0) ok = hspmv_petsc_write(ours, &A, 4, &e) == HSPMV_OK && same_bytes(ours, theirs);
    verdict(ok, name, "hspmv_petsc_write writes MatView's bytes");
    PetscCall(load_binary(ours, &L));
    verdict(same_rows(L, &A), name, "MatLoad of hspmv's file holds the same entries, bit for bit");
    PetscCall(matmult_ok(L, &A, &ok));
    verdict(ok, name, "MatMult on hspmv's file within the bound of the long-double reference");
    PetscCall(MatDestroy(&L));

    /* dense matrices: the native layout (count -1) and the AIJ-like one */
    if (A.nrows * A.ncols <= 2000000) {
        Mat Dm;
        hspmv_csr D1 = {0}, D2 = {0};
        PetscCall(MatConvert(M, MATDENSE, MAT_INITIAL_MATRIX, &Dm));
        PetscCall(view_binary(Dm, dense, 1));
        PetscCall(view_binary(Dm, dense_aij, 0));
        ok = 1;
        if (me == 0) {
            ok = hspmv_petsc_read(dense, &D1, &e) == HSPMV_OK && is_dense_of(&D1, &A);
            if (!ok) fprintf(stderr, "    %s dense: %s\n", name, D1.nrows ? "different" : e.msg);
            ok = ok && hspmv_petsc_read(dense_aij, &D2, &e) == HSPMV_OK && same_csr(&D1, &D2);
        }
        verdict(ok, name, "a dense MatView (native and AIJ layout) reads as every entry of A");
        hspmv_csr_free(&D1);
        hspmv_csr_free(&D2);
        PetscCall(MatDestroy(&Dm));
    }
    PetscCall(MatDestroy(&M));
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, "hspmv against PETSc's binary files\n"));
    comm = PETSC_COMM_WORLD;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    if (argc < 3) {
        if (me == 0) fprintf(stderr, "usage: petsc_check TMPDIR matrix.mtx...\n");
        failed++;
    }
    for (int i = 2; i < argc; i++) PetscCall(check_matrix(argv[1], argv[i]));
    if (me == 0) printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    PetscCall(PetscFinalize());
    return failed ? 1 : 0;
}
