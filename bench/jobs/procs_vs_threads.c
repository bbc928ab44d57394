/* procs_vs_threads.c — a diagnostic: how fast P processes of T threads run
   the same rows as one process of P*T threads, with no halo, window or
   sharing. Each rank builds its rows of a real-valued 3D 7-point stencil
   n^3 (split by rows; its owned block only: columns inside its rows),
   prepares them in CSRP and times hspmv_local_spmv reps times, a barrier
   before each (or in CHUNKS kernel calls over equal row ranges, as the
   owned rows shared run them). Prints the medians of the slowest rank's
   and of the mean rank's time, and nonzeros per ns per core.
     mpirun -n P procs_vs_threads [n [reps [kernel [chunks]]]]
   Built and run by bench/jobs/procs-vs-threads.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "hspmv.h"
#include "local_calls.h" /* hspmv_local_touch */
#include "local_part.h"
#include "util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rows [r0, r1) of the n^3 stencil, columns inside them only, values 6 / -1
   plus a random part (fixed seed per row range). */
static int owned_rows(int64_t n, int64_t r0, int64_t r1, hspmv_csr *A)
{
    int64_t R = r1 - r0, k = 0, nn = n * n;
    uint64_t s = 12345 + (uint64_t)r0;
    A->nrows = A->ncols = R;
    A->rowptr = hspmv_alloc_array((size_t)R + 1, sizeof(int64_t));
    A->colind = hspmv_alloc_array((size_t)R * 7, sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)R * 7, sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    A->rowptr[0] = 0;
    for (int64_t i = r0; i < r1; i++) {
        int64_t z = i / nn, y = i / n % n, x = i % n;
        int64_t c[7] = {z > 0 ? i - nn : -1, y > 0 ? i - n : -1, x > 0 ? i - 1 : -1, i,
                        x < n - 1 ? i + 1 : -1, y < n - 1 ? i + n : -1, z < n - 1 ? i + nn : -1};
        for (int j = 0; j < 7; j++) {
            if (c[j] < r0 || c[j] >= r1) continue;
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            A->colind[k] = (int32_t)(c[j] - r0);
            A->val[k++] = (hspmv_real)((c[j] == i ? 6.0 : -1.0) + (double)(s >> 11) * 0x1p-53 * 0.01);
        }
        A->rowptr[i - r0 + 1] = k;
    }
    A->nnz = k;
    return HSPMV_OK;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me, n = argc > 1 ? atoi(argv[1]) : 200, reps = argc > 2 ? atoi(argv[2]) : 40;
    int chunks = argc > 4 ? atoi(argv[4]) : 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (n < 2 || reps < 1 || chunks < 0) {
        if (me == 0) fprintf(stderr, "usage: mpirun -n P procs_vs_threads [n [reps [kernel [chunks]]]]\n");
        MPI_Finalize();
        return 2;
    }
    int64_t N = (int64_t)n * n * n, r0 = N * me / P, r1 = N * (me + 1) / P, R = r1 - r0, tot = 0;
    hspmv_csr A = {0};
    hspmv_local *L = NULL;
    hspmv_error err = {0};
    hspmv_opts o;
    hspmv_opts_default(&o);
    o.format = HSPMV_FORMAT_CSRP;
    o.kernel = argc > 3 ? argv[3] : "avx2";
    int rc = owned_rows(n, r0, r1, &A);
    if (!rc) rc = hspmv_local_create(&A, &o, &L, &err);
    hspmv_real *x = rc ? NULL : hspmv_alloc_pages((size_t)R, sizeof(hspmv_real));
    hspmv_real *y = rc ? NULL : hspmv_alloc_pages((size_t)R, sizeof(hspmv_real));
    double *tmax = malloc(sizeof(double) * (size_t)reps), *tavg = malloc(sizeof(double) * (size_t)reps);
    int bad = rc || !x || !y || !tmax || !tavg, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        fprintf(stderr, "rank %d: setup failed: %s\n", me, rc ? err.msg : "out of memory");
        MPI_Finalize();
        return 1;
    }
    hspmv_local_touch(L, x, R);
    hspmv_local_touch(L, y, R);
    for (int64_t j = 0; j < R; j++) x[j] = 1 + 0.001 * (double)((r0 + j) % 1000);
    for (int r = -5; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), t;
        if (chunks > 0)
            for (int c = 0; c < chunks; c++) hspmv_local_spmv_rows(L, R * c / chunks, R * (c + 1) / chunks, x, y, 0);
        else
            hspmv_local_spmv(L, x, y, 0);
        t = MPI_Wtime() - t0;
        if (r < 0) continue; /* warm-up */
        MPI_Allreduce(&t, &tmax[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&t, &tavg[r], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tavg[r] /= P;
    }
    MPI_Allreduce(&A.nnz, &tot, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    qsort(tmax, (size_t)reps, sizeof(double), cmp_double);
    qsort(tavg, (size_t)reps, sizeof(double), cmp_double);
    if (me == 0) {
        hspmv_local_info li;
        hspmv_local_get_info(L, &li);
        double cores = (double)P * li.threads, m = tmax[reps / 2], a = tavg[reps / 2];
        printf("diag=procs ranks=%d threads=%d chunks=%d n=%d nnz=%lld format=%s isa=%s stream_y=%d max_ms=%.3f "
               "avg_ms=%.3f nnz_per_ns_core_avg=%.4f nnz_per_ns_core_max=%.4f\n",
               P, li.threads, chunks, n, (long long)tot, li.format_name, li.isa, li.stream_y, 1e3 * m, 1e3 * a,
               (double)tot / (a * 1e9) / cores, (double)tot / (m * 1e9) / cores);
    }
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    hspmv_free(x);
    hspmv_free(y);
    free(tmax);
    free(tavg);
    MPI_Finalize();
    return 0;
}
