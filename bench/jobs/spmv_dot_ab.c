/* spmv_dot_ab.c — CG's p'q two ways in one process, pair by pair: the
   product then a dot pass (A) against the product that sums x'y as it
   makes the rows (B, hspmv_dist_spmv_dot), and A against A as the control.
   The matrix: the real-valued 3D 7-point stencil of side N (random values
   as genmat --values random draws them in shape, not bit for bit), each
   rank making its own rows.
     mpirun -n P ./spmv_dot_ab N PAIRS   (prints medians and ratios) */
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "dist_dot.h"
#include "hspmv.h"

static double now(void) { return MPI_Wtime(); }

static double dot_pass(int64_t n, const hspmv_real *x, const hspmv_real *y)
{
    double s = 0; /* as the solver's dot: threads' shares, SIMD within each */
#pragma omp parallel reduction(+ : s)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        double u = 0;
#pragma omp simd reduction(+ : u)
        for (int64_t i = n * t / nt; i < n * (t + 1) / nt; i++) u += (double)x[i] * y[i];
        s += u;
    }
    return s;
}

static int cmp(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int prov, me, P;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t N = argc > 1 ? atoll(argv[1]) : 100, n = N * N * N;
    int pairs = argc > 2 ? atoi(argv[2]) : 20;
    int64_t r0 = n * me / P, r1 = n * (me + 1) / P, m = r1 - r0;
    int64_t *rp = malloc(sizeof(int64_t) * (size_t)(m + 1)), *ci = malloc(sizeof(int64_t) * (size_t)(m * 7 + 1));
    hspmv_real *va = malloc(sizeof(hspmv_real) * (size_t)(m * 7 + 1));
    uint64_t st = 88172645463325252ull + (uint64_t)me;
    int64_t z = 0;
    rp[0] = 0;
    for (int64_t r = r0; r < r1; r++) {
        int64_t i = r % N, j = r / N % N, k = r / (N * N);
        int64_t nb[7] = {r - N * N, r - N, r - 1, r, r + 1, r + N, r + N * N};
        int okk[7] = {k > 0, j > 0, i > 0, 1, i < N - 1, j < N - 1, k < N - 1};
        for (int q = 0; q < 7; q++)
            if (okk[q]) {
                st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                ci[z] = nb[q];
                va[z++] = q == 3 ? 6.5 : -(hspmv_real)((st >> 11) * 0x1.0p-53);
            }
        rp[r - r0 + 1] = z;
    }
    hspmv_opts o;
    hspmv_opts_default(&o);
    hspmv_dist *D = NULL;
    hspmv_error e;
    if (hspmv_dist_create(MPI_COMM_WORLD, m, n, -1, rp, ci, va, &o, &D, &e)) {
        fprintf(stderr, "create: %s\n", e.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(rp);
    free(ci);
    free(va);
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    for (int64_t i = 0; i < m; i++) x[i] = (hspmv_real)(1.0 + 0.001 * (double)((i * 7919) % 1000));
    double *ta = malloc(sizeof(double) * (size_t)pairs), *tb = malloc(sizeof(double) * (size_t)pairs);
    double *rab = malloc(sizeof(double) * (size_t)pairs), *raa = malloc(sizeof(double) * (size_t)pairs);
    double sa = 0, sb = 0, t[3];
    for (int p = -3; p < pairs; p++) { /* each pair: A, B, A' in an order that turns */
        for (int s = 0; s < 3; s++) {
            int which = (s + (p & 1 ? 1 : 0)) % 3; /* 0: A, 1: B, 2: A' */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now(), d = 0;
            if (which == 1) {
                hspmv_dist_spmv_dot(D, x, y, &d, &e);
            } else {
                hspmv_dist_spmv(D, x, y, &e);
                d = dot_pass(m, x, y);
            }
            MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            t[which] = now() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t[which], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (which == 1) sb = d;
            else sa = d;
        }
        if (p < 0) continue;
        ta[p] = t[0] * 1e3;
        tb[p] = t[1] * 1e3;
        rab[p] = t[0] / t[1];
        raa[p] = t[0] / t[2];
    }
    double lo = 1e9, hi = 0, clo = 1e9, chi = 0;
    for (int p = 0; p < pairs; p++) {
        lo = fmin(lo, rab[p]), hi = fmax(hi, rab[p]);
        clo = fmin(clo, raa[p]), chi = fmax(chi, raa[p]);
    }
    int f = hspmv_dist_dot_fused(D);
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0)
        printf("bench=spmv_dot N=%lld ranks=%d pairs=%d fused=%d A_ms=%.4f B_ms=%.4f A/B=%.4f (%.4f-%.4f) "
               "A/A'=%.4f (%.4f-%.4f) rel_diff=%.2e\n",
               (long long)N, P, pairs, f, median(ta, pairs), median(tb, pairs), median(rab, pairs), lo, hi,
               median(raa, pairs), clo, chi, fabs(sa - sb) / fabs(sa));
    hspmv_free(x);
    hspmv_free(y);
    hspmv_dist_destroy(&D);
    MPI_Finalize();
    return 0;
}
