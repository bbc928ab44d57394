/* test_diag.c — hspmv_dist_get_diagonal on matrices made by every path
   (read by rank 0, read in byte ranges, a PETSc file read with MPI-IO,
   hspmv_dist_create from each rank's rows, METIS from rank 0's matrix
   and from a parallel read), square and rectangular:
   each rank's part must be the file's a_ii of its rows (their file numbers
   from hspmv_dist_get_file_index), bit for bit. Then Jacobi CG on a matrix
   read in parallel, the diagonal from the getter, against Jacobi CG on the
   matrix rank 0 read: the same iterations (+-2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"
#include "csr.h"

static int me, P;

/* The file's a(f, f), 0 beyond the columns or without an entry. */
static hspmv_real file_diag(const hspmv_csr *A, int64_t f)
{
    for (int64_t k = A->rowptr[f]; k < A->rowptr[f + 1]; k++)
        if (A->colind[k] == f) return A->val[k];
    return 0;
}

/* Rows that differ from the file's diagonal, summed over the ranks (-1: the
   getter failed somewhere). */
static int64_t diag_mismatches(hspmv_dist *D, const hspmv_csr *A, int64_t *first)
{
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    hspmv_real *d = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    int64_t *f = malloc(sizeof(int64_t) * (size_t)(in.nrows_local + 1)), bad = 0, lo = INT64_MAX;
    hspmv_error e;
    for (int64_t i = 0; i < in.nrows_local; i++) d[i] = (hspmv_real)NAN;
    int rc = hspmv_dist_get_diagonal(D, d, &e);
    hspmv_dist_get_file_index(D, HSPMV_VEC_ROWS, f);
    for (int64_t i = 0; !rc && i < in.nrows_local; i++)
        if (!(d[i] == file_diag(A, f[i]))) {
            bad++;
            if (f[i] < lo) lo = f[i];
        }
    if (rc) bad = -((int64_t)1 << 40);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&lo, first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    hspmv_free(d);
    free(f);
    return bad < 0 ? -1 : bad;
}

/* This rank's rows of A by an even split, as hspmv_dist_create takes them. */
static int create_own(const hspmv_csr *A, hspmv_dist **D, hspmv_error *e)
{
    int64_t lo = A->nrows * me / P, hi = A->nrows * (me + 1) / P, base = A->rowptr[lo], nz = A->rowptr[hi] - base;
    int64_t *rp = malloc(sizeof(int64_t) * (size_t)(hi - lo + 1)), *ci = malloc(sizeof(int64_t) * (size_t)(nz + 1));
    for (int64_t i = lo; i <= hi; i++) rp[i - lo] = A->rowptr[i] - base;
    for (int64_t k = 0; k < nz; k++) ci[k] = A->colind[base + k];
    int rc = hspmv_dist_create(MPI_COMM_WORLD, hi - lo, A->ncols, -1, rp, ci, A->val + base, NULL, D, e);
    free(rp);
    free(ci);
    return rc;
}

/* (hspmv_dist_read by rank 0 is hspmv_dist_create_root after the read) */
enum { ROOT_READ, PARALLEL_READ, PETSC_READ, OWN_ROWS, METIS_ROOT, METIS_PARALLEL, NPATHS };
static const char *path_name[] = {"root read", "parallel read", "petsc file", "own rows", "metis create_root",
                                  "metis parallel read"};

static int make(int how, const char *path, const char *petsc, const hspmv_csr *A, hspmv_dist **D, hspmv_error *e)
{
    hspmv_opts o;
    hspmv_opts_default(&o);
    *D = NULL;
    if (how == METIS_ROOT || how == METIS_PARALLEL) o.partition = HSPMV_PART_METIS;
    if (how == PARALLEL_READ || how == METIS_PARALLEL) o.read = HSPMV_READ_PARALLEL;
    switch (how) {
    case PETSC_READ: return hspmv_dist_read(petsc, MPI_COMM_WORLD, &o, D, e);
    case OWN_ROWS: return create_own(A, D, e);
    case METIS_ROOT: return hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, D, e);
    default: return hspmv_dist_read(path, MPI_COMM_WORLD, &o, D, e);
    }
}

static void check_file(const char *path)
{
    hspmv_csr A;
    memset(&A, 0, sizeof(A));
    if (tl_read_csr(path, &A) != HSPMV_OK) { /* every rank: small matrices */
        SKIP("%s missing", path);
        return;
    }
    /* the same matrix as a PETSc binary file, written by rank 0 */
    char petsc[256] = "";
    if (me == 0) {
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(petsc, sizeof(petsc), "%s/hspmv_diag_%d.petsc", dir, (int)getpid());
        hspmv_error e;
        if (hspmv_csr_write(petsc, &A, HSPMV_FILE_PETSC, &e)) petsc[0] = 0;
    }
    MPI_Bcast(petsc, sizeof(petsc), MPI_CHAR, 0, MPI_COMM_WORLD);
    int64_t nonzero = 0;
    for (int64_t i = 0; i < A.nrows && i < A.ncols; i++) nonzero += file_diag(&A, i) != 0;
    for (int how = 0; how < NPATHS; how++) {
        if ((how == METIS_ROOT || how == METIS_PARALLEL) && A.nrows != A.ncols) continue; /* METIS: square only */
        if (how == PETSC_READ && !petsc[0]) {
            SKIP("%s: could not write a PETSc file", path);
            continue;
        }
        hspmv_dist *D;
        hspmv_error e = {0, ""};
        int rc = make(how, path, petsc, &A, &D, &e);
        CHECK(rc == HSPMV_OK, "%s (%s): %s", path, path_name[how], e.msg);
        if (rc) continue;
        int64_t first = -1, bad = diag_mismatches(D, &A, &first);
        CHECK(bad == 0, "%s (%s): %lld rows with a wrong diagonal (first: file row %lld)", path, path_name[how],
              (long long)bad, (long long)first + 1);
        hspmv_dist_destroy(&D);
    }
    if (me == 0) {
        if (petsc[0]) remove(petsc);
        fprintf(stderr, "  %s: %lld x %lld, %lld nonzero diagonal entries: checked by %s\n", path, (long long)A.nrows,
                (long long)A.ncols, (long long)nonzero, A.nrows == A.ncols ? "6 paths" : "4 paths (no METIS)");
    }
    hspmv_csr_free(&A);
}

/* A bundled Laplacian, and of the shared folder a nonsymmetric matrix
   with zeros on its diagonal and a rectangular one (219 x 85). */
static void diagonal_by_every_path_matches_the_file(void)
{
    static const char *shared[] = {"west0479.mtx", "ash219.mtx"};
    check_file("matrices/lap3d_12.mtx");
    for (int k = 0; k < 2; k++) {
        char p[1024];
        snprintf(p, sizeof(p), "%s/%s", tl_shared_dir(), shared[k]);
        check_file(p);
    }
}

/* The getter can fail: a NULL matrix or diag is refused, and a diagonal
   one off is caught by the comparison above. */
static void getter_refuses_null_and_comparison_can_fail(void)
{
    hspmv_error e;
    CHECK(hspmv_dist_get_diagonal(NULL, NULL, &e) == HSPMV_ERR_ARG && strstr(e.msg, "NULL"), "NULL D: %s", e.msg);
    hspmv_csr A, B;
    memset(&A, 0, sizeof(A));
    memset(&B, 0, sizeof(B));
    if (tl_read_csr("matrices/lap2d_64.mtx", &A) || tl_read_csr("matrices/lap2d_64.mtx", &B)) {
        SKIP("lap2d_64 missing");
        return;
    }
    hspmv_dist *D;
    if (hspmv_dist_read("matrices/lap2d_64.mtx", MPI_COMM_WORLD, NULL, &D, &e) == HSPMV_OK) {
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        int rc = hspmv_dist_get_diagonal(D, NULL, &e), bad;
        bad = in.nrows_local > 0 && rc != HSPMV_ERR_ARG;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(!bad, "NULL diag with rows to fill accepted");
        for (int64_t k = B.rowptr[100]; k < B.rowptr[101]; k++)
            if (B.colind[k] == 100) B.val[k] += 1;
        int64_t first = -1;
        CHECK(diag_mismatches(D, &B, &first) == 1 && first == 100, "a changed diagonal entry is not seen (%lld)",
              (long long)first);
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

/* Jacobi CG, diagonal from the getter: a matrix read in byte ranges (no
   rank holds it) solves like the one rank 0 read and distributed. */
static void jacobi_cg_on_a_parallel_read(void)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/bcsstk01.mtx", tl_shared_dir());
    int64_t its[2] = {-1, -1};
    for (int par = 0; par < 2; par++) {
        hspmv_opts o;
        hspmv_opts_default(&o);
        o.read = par ? HSPMV_READ_PARALLEL : HSPMV_READ_ROOT;
        hspmv_dist *D;
        hspmv_error e;
        if (hspmv_dist_read(p, MPI_COMM_WORLD, &o, &D, &e)) {
            SKIP("%s", e.msg);
            return;
        }
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1),
                   *d = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 1;
        hspmv_dist_spmv(D, x, b, &e);
        for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 0;
        CHECK(hspmv_dist_get_diagonal(D, d, &e) == HSPMV_OK, "%s", e.msg);
        hspmv_solver_opts so;
        hspmv_solver_opts_default(&so);
        so.tol = sizeof(hspmv_real) == 4 ? 1e-5 : 1e-8;
        so.diag = d;
        hspmv_solver_result res;
        int rc = hspmv_solve(D, b, x, &so, &res, &e);
        double err = 0;
        for (int64_t j = 0; j < in.ncols_local; j++) err += ((double)x[j] - 1) * ((double)x[j] - 1);
        MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        err = sqrt(err / (double)in.ncols);
        CHECK(rc == HSPMV_OK && res.reason == HSPMV_CONVERGED_RTOL, "%s: %s", par ? "parallel" : "root", e.msg);
        /* SPD: ||x - x*||/||x*|| <= cond(A) ||r||/||b||, cond(bcsstk01) = 8.8e5 (test_solver.c),
           doubled for the rounding of b = fl(A*1) */
        CHECK(err <= 2 * 8.8e5 * res.relres_true, "||x - 1||/||1|| = %.3e > 2 cond(A) relres = %.3e", err,
              2 * 8.8e5 * res.relres_true);
        its[par] = res.iterations;
        hspmv_free(x);
        hspmv_free(b);
        hspmv_free(d);
        hspmv_dist_destroy(&D);
    }
    CHECK(llabs(its[0] - its[1]) <= 2, "Jacobi CG: %lld iterations read by rank 0, %lld read in parallel",
          (long long)its[0], (long long)its[1]);
    if (me == 0) fprintf(stderr, "  bcsstk01 Jacobi CG: %lld iterations (root read), %lld (parallel read)\n",
                         (long long)its[0], (long long)its[1]);
}

int main(int argc, char **argv)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (me != 0) {
        if (!freopen("/dev/null", "w", stdout)) return 1;
        if (!getenv("HSPMV_TEST_VERBOSE") && !freopen("/dev/null", "w", stderr)) return 1;
    }
    MRUN(diagonal_by_every_path_matches_the_file);
    MRUN(getter_refuses_null_and_comparison_can_fail);
    MRUN(jacobi_cg_on_a_parallel_read);
    MPI_Finalize();
    CHECK_DONE();
}
