/* minimal.c — the smallest embedding of hspmv in an MPI application: each
   rank builds its own rows of the 2D Laplacian (5-point stencil on an
   m x m grid) with global column indices, hands them to the library, runs a
   loop of y = A*x, checks the answer and cleans up.
   Build: mpicc minimal.c $(pkg-config --cflags --libs hspmv) -o minimal
   Run:   mpirun -n 4 ./minimal [m] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "hspmv.h"

int main(int argc, char **argv)
{
    int me, P, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t m = argc > 1 ? atol(argv[1]) : 100, n = m * m;

    /* my rows: an even split of the n grid points */
    int64_t lo = n * me / P, hi = n * (me + 1) / P, nl = hi - lo;
    int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    int64_t *colind = malloc(sizeof(int64_t) * (size_t)(5 * nl + 1));
    hspmv_real *val = malloc(sizeof(hspmv_real) * (size_t)(5 * nl + 1));
    int64_t k = 0;
    rowptr[0] = 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t r = i / m, c = i % m;
        if (r > 0) colind[k] = i - m, val[k++] = -1;
        if (c > 0) colind[k] = i - 1, val[k++] = -1;
        colind[k] = i, val[k++] = 4;
        if (c < m - 1) colind[k] = i + 1, val[k++] = -1;
        if (r < m - 1) colind[k] = i + m, val[k++] = -1;
        rowptr[i - lo + 1] = k;
    }

    /* the library builds the halo plan collectively; it keeps a copy */
    hspmv_dist *A = NULL;
    hspmv_error err;
    rc = hspmv_dist_create(MPI_COMM_WORLD, nl, n, -1, rowptr, colind, val, NULL, &A, &err);
    free(rowptr);
    free(colind);
    free(val);
    if (rc) {
        if (me == 0) fprintf(stderr, "minimal: %s\n", err.msg);
        MPI_Finalize();
        return 1;
    }

    /* x = 1, then y = A*x a hundred times: the loop a solver would run */
    hspmv_real *x = hspmv_dist_vec_alloc(A, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(A, HSPMV_VEC_ROWS, 1);
    for (int64_t j = 0; j < nl; j++) x[j] = 1;
    double t = MPI_Wtime();
    for (int it = 0; it < 100 && !rc; it++) rc = hspmv_dist_spmv(A, x, y, &err);
    t = MPI_Wtime() - t;

    /* check: A*1 is the number of missing neighbours, 4 - (neighbours) */
    double bad = rc ? 1 : 0, all;
    for (int64_t i = lo; i < hi; i++) {
        int64_t r = i / m, c = i % m;
        double want = (r == 0) + (r == m - 1) + (c == 0) + (c == m - 1);
        if (fabs(y[i - lo] - want) > 0) bad = 1;
    }
    MPI_Allreduce(&bad, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("minimal: %d ranks, %lld x %lld Laplacian, 100 SpMVs in %.3f ms each: %s\n", P, (long long)n,
               (long long)n, t * 10, all ? "WRONG" : "ok");

    hspmv_free(x);
    hspmv_free(y);
    hspmv_dist_destroy(&A);
    MPI_Finalize();
    return all ? 1 : 0;
}
