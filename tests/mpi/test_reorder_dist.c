/* test_reorder_dist.c — hspmv_opts.reorder on a distributed matrix made on
   rank 0: rcm, auto (the window cut to 60 so that the test matrix counts as
   poorly ordered) and nd (with METIS) under the nonzero, row and METIS
   splits, in the run's halo mode: y = A*x in the file's order (scatter,
   product, gather) within the docs/design.md bound of the long-double
   reference; the order and its bandwidths the same on every rank; CG's
   iterations and answer as without reordering; the parallel read (no rank
   holds the matrix: the pattern gathered on rank 0) under rcm and auto, in
   both halo modes, against the reference and the root read's reordered
   product; hspmv_dist_create from each rank's rows likewise; a rectangular
   matrix, and the creations that do not reorder yet, refused with one
   message on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "order.h"
#include "testlib.h"

static int me, P;

/* Rank 0: the 5-point Laplacian of an m x k grid (SPD) renumbered by a random permutation. */
static void shuffled_grid(hspmv_csr *S, int64_t m, int64_t k, uint64_t seed)
{
    int64_t n = m * k, e = 0;
    hspmv_csr A = {0};
    A.nrows = A.ncols = n;
    A.rowptr = hspmv_malloc(((size_t)n + 1) * sizeof(int64_t));
    A.colind = hspmv_malloc((size_t)n * 5 * sizeof(int32_t));
    A.val = hspmv_malloc((size_t)n * 5 * sizeof(hspmv_real));
    A.rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i / k, c = i % k;
        int64_t nb[5] = {r > 0 ? i - k : -1, c > 0 ? i - 1 : -1, i, c < k - 1 ? i + 1 : -1, r < m - 1 ? i + k : -1};
        for (int t = 0; t < 5; t++)
            if (nb[t] >= 0) {
                A.colind[e] = (int32_t)nb[t];
                A.val[e++] = nb[t] == i ? 4.5 : -1;
            }
        A.rowptr[i + 1] = e;
    }
    A.nnz = e;
    int64_t *p = malloc((size_t)n * sizeof(int64_t));
    hspmv_order_random(p, n, seed);
    hspmv_order_apply(&A, p, p, 0, S, NULL);
    free(p);
    hspmv_csr_free(&A);
}

/* y = A*x through D in the file's order, against rank 0's A. 1 when right (on every rank). */
static int product_matches(hspmv_dist *D, const hspmv_csr *A, const char *what)
{
    hspmv_dist_info in;
    hspmv_error e;
    int ok = 1, all;
    hspmv_dist_get_info(D, &in);
    hspmv_real *x = NULL, *y = NULL;
    if (me == 0) {
        x = malloc((size_t)(in.ncols + 1) * sizeof(hspmv_real));
        y = malloc((size_t)(in.nrows + 1) * sizeof(hspmv_real));
        tl_fill(x, in.ncols, 17);
    }
    hspmv_real *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *yl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, x, xl, &e) == HSPMV_OK;
    ok &= hspmv_dist_spmv(D, xl, yl, &e) == HSPMV_OK;
    ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e) == HSPMV_OK;
    if (me == 0) ok &= tl_matches_ref(A, x, y, what);
    hspmv_free(xl);
    hspmv_free(yl);
    free(x);
    free(y);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* 1 when v is the same on every rank. */
static int same_everywhere(double v)
{
    double lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

static void dist_reorder_matches_ref_every_split(void)
{
    static const int parts[] = {HSPMV_PART_NNZ, HSPMV_PART_ROWS, HSPMV_PART_METIS};
    int methods[3] = {HSPMV_REORDER_RCM, HSPMV_REORDER_AUTO, HSPMV_REORDER_ND}, nm = 3;
#ifdef HSPMV_NO_METIS
    nm = 2;
#endif
    hspmv_csr A = {0};
    if (me == 0) shuffled_grid(&A, 23, 31, 7);
    mt_test_env("reorder_window=60");
    for (int pi = 0; pi < (nm == 3 ? 3 : 2); pi++)
        for (int m = 0; m < nm; m++) {
            hspmv_opts o;
            hspmv_dist *D = NULL;
            hspmv_error e = {0, ""};
            hspmv_dist_info in;
            char what[96];
            mt_opts(&o);
            o.threads = 2;
            o.partition = parts[pi];
            o.reorder = methods[m];
            snprintf(what, sizeof(what), "partition %d reorder %s", parts[pi], hspmv_order_name(methods[m]));
            int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
            CHECK(rc == HSPMV_OK, "%s: %s", what, e.msg);
            if (rc) continue;
            hspmv_dist_get_info(D, &in);
            /* METIS's parts at many ranks are small enough to lie within the window: auto keeps them */
            int want = methods[m] == HSPMV_REORDER_ND ? HSPMV_REORDER_ND : HSPMV_REORDER_RCM;
            int may_keep = parts[pi] == HSPMV_PART_METIS && methods[m] == HSPMV_REORDER_AUTO;
            CHECK((in.reorder == want || (may_keep && in.reorder == HSPMV_REORDER_NONE)) && in.permuted == 1,
                  "%s: order used %d, permuted %d", what, in.reorder, in.permuted);
            if (in.reorder != HSPMV_REORDER_NONE)
                CHECK(in.bandwidth_before > 300 && in.bandwidth_after < in.bandwidth_before &&
                          in.local_after > in.local_before, "%s: bandwidth %lld -> %lld", what,
                      (long long)in.bandwidth_before, (long long)in.bandwidth_after);
            CHECK(same_everywhere((double)in.bandwidth_after) && same_everywhere(in.local_after) &&
                      same_everywhere(in.reorder), "%s: ranks disagree on the order", what);
            CHECK(product_matches(D, &A, what), "%s: product", what);
            hspmv_dist_destroy(&D);
        }
    mt_test_env(NULL);
    hspmv_csr_free(&A);
}

/* CG on the reordered matrix: b and x in the file's order, moved once;
   the iterations within 2 of the unreordered solve's, the answers alike. */
static void dist_reorder_cg_as_without(void)
{
    hspmv_csr A = {0};
    if (me == 0) shuffled_grid(&A, 20, 25, 3);
    int64_t its[2] = {0, 0};
    hspmv_real *xs[2] = {NULL, NULL};
    for (int r = 0; r < 2; r++) {
        hspmv_opts o;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        hspmv_solver_opts so;
        hspmv_solver_result res;
        mt_opts(&o);
        o.threads = 1;
        o.reorder = r ? HSPMV_REORDER_RCM : HSPMV_REORDER_NONE;
        CHECK(hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e) == HSPMV_OK, "%s", e.msg);
        if (!D) return;
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        hspmv_real *b = NULL, *bl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1), *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
        if (me == 0) {
            b = malloc((size_t)in.nrows * sizeof(hspmv_real));
            xs[r] = malloc((size_t)in.nrows * sizeof(hspmv_real));
            tl_fill(b, in.nrows, 5);
        }
        CHECK(hspmv_dist_scatter(D, HSPMV_VEC_ROWS, b, bl, &e) == HSPMV_OK, "%s", e.msg);
        hspmv_solver_opts_default(&so);
        so.tol = sizeof(hspmv_real) == 8 ? 1e-6 : 1e-4; /* 1e-5 is about single precision's floor */
        CHECK(hspmv_solve(D, bl, xl, &so, &res, &e) == HSPMV_OK, "reorder %d: %s", r, e.msg);
        its[r] = res.iterations;
        CHECK(hspmv_dist_gather(D, HSPMV_VEC_COLS, xl, xs[r], &e) == HSPMV_OK, "%s", e.msg);
        free(b);
        hspmv_free(bl);
        hspmv_free(xl);
        hspmv_dist_destroy(&D);
    }
    CHECK(llabs((long long)(its[0] - its[1])) <= 2, "iterations %lld without, %lld with rcm", (long long)its[0],
          (long long)its[1]);
    if (me == 0) {
        double worst = 0, norm = 0;
        for (int64_t i = 0; i < A.nrows; i++) {
            worst = fmax(worst, fabs((double)(xs[0][i] - xs[1][i])));
            norm = fmax(norm, fabs((double)xs[0][i]));
        }
        CHECK(worst <= (sizeof(hspmv_real) == 8 ? 1e-4 : 1e-2) * norm, "answers differ by %g (max |x| %g)", worst, norm);
    }
    free(xs[0]);
    free(xs[1]);
    hspmv_csr_free(&A);
}

/* The file rows of D's local rows gathered on rank 0 in the distributed
   order (n entries; NULL elsewhere), malloc'ed. */
static int64_t *file_order(hspmv_dist *D, int64_t n)
{
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    int64_t *mine = malloc((size_t)(in.nrows_local + 1) * sizeof(int64_t)), *all = me == 0 ? malloc((size_t)(n + 1) * sizeof(int64_t)) : NULL;
    int *cnt = malloc((size_t)P * sizeof(int)), *dsp = malloc((size_t)P * sizeof(int)), nl = (int)in.nrows_local;
    hspmv_dist_get_file_index(D, HSPMV_VEC_ROWS, mine);
    MPI_Gather(&nl, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0)
        for (int p = 0, d = 0; p < P; p++) dsp[p] = d, d += cnt[p];
    MPI_Gatherv(mine, nl, MPI_INT64_T, all, cnt, dsp, MPI_INT64_T, 0, MPI_COMM_WORLD);
    free(mine);
    free(cnt);
    free(dsp);
    return all;
}

/* y = A*x in the file's order through D (rank 0: y, nrows entries; x from tl_fill 17). */
static void product_file_order(hspmv_dist *D, hspmv_real *y, int64_t nrows, int64_t ncols)
{
    hspmv_error e;
    hspmv_real *x = me == 0 ? malloc((size_t)(ncols + 1) * sizeof(hspmv_real)) : NULL;
    if (x) tl_fill(x, ncols, 17);
    hspmv_real *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *yl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_dist_scatter(D, HSPMV_VEC_COLS, x, xl, &e);
    hspmv_dist_spmv(D, xl, yl, &e);
    hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e);
    (void)nrows;
    hspmv_free(xl);
    hspmv_free(yl);
    free(x);
}

/* The parallel read of a shuffled mesh with rcm and auto (window 60), each
   split, both halo modes: the order used and narrower band on every rank,
   the product in the file's order within the bound of the reference, and
   the same order, split and product as the root read reordered. */
static void dist_reorder_parallel_read_matches_root(void)
{
    static const int parts[] = {HSPMV_PART_NNZ, HSPMV_PART_ROWS};
    static const int methods[] = {HSPMV_REORDER_RCM, HSPMV_REORDER_AUTO};
    static const int halos[] = {HSPMV_HALO_NODE, HSPMV_HALO_P2P};
    hspmv_csr A = {0};
    hspmv_error e = {0, ""};
    int rc = HSPMV_OK;
    char *path = mt_shared_file("", 0, 0);
    CHECK(path != NULL, "temporary file");
    if (!path) return;
    if (me == 0) {
        shuffled_grid(&A, 23, 31, 7);
        rc = hspmv_csr_write(path, &A, HSPMV_FILE_MTX, &e);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == HSPMV_OK, "writing the shuffled mesh: %s", e.msg);
    int64_t n = 23 * 31;
    hspmv_real *y0 = me == 0 ? malloc((size_t)n * sizeof(hspmv_real)) : NULL;
    hspmv_real *y1 = me == 0 ? malloc((size_t)n * sizeof(hspmv_real)) : NULL;
    mt_test_env("reorder_window=60");
    for (int pi = 0; pi < 2 && rc == HSPMV_OK; pi++)
        for (int m = 0; m < 2; m++)
            for (int h = 0; h < 2; h++) {
                hspmv_opts o;
                hspmv_dist *Dp = NULL, *Dr = NULL;
                hspmv_dist_info ip, ir;
                char what[128];
                mt_opts(&o);
                o.threads = 1;
                o.partition = parts[pi];
                o.reorder = methods[m];
                o.halo = halos[h];
                snprintf(what, sizeof(what), "parallel read, partition %d reorder %s halo %s", parts[pi],
                         hspmv_order_name(methods[m]), h ? "p2p" : "node");
                o.read = HSPMV_READ_PARALLEL;
                int rp = hspmv_dist_read(path, MPI_COMM_WORLD, &o, &Dp, &e);
                CHECK(rp == HSPMV_OK && Dp, "%s: %s", what, e.msg);
                CHECK(!mt_errors_differ(rp, e.msg, Dp != NULL), "%s: ranks disagree", what);
                o.read = HSPMV_READ_ROOT;
                int rr = hspmv_dist_read(path, MPI_COMM_WORLD, &o, &Dr, &e);
                CHECK(rr == HSPMV_OK && Dr, "%s (root read): %s", what, e.msg);
                if (rp || rr) {
                    hspmv_dist_destroy(&Dp);
                    hspmv_dist_destroy(&Dr);
                    continue;
                }
                hspmv_dist_get_info(Dp, &ip);
                hspmv_dist_get_info(Dr, &ir);
                CHECK(ip.read == HSPMV_READ_PARALLEL && ip.reorder == HSPMV_REORDER_RCM && ip.permuted == 1,
                      "%s: read %d, order %d, permuted %d", what, ip.read, ip.reorder, ip.permuted);
                CHECK(ip.bandwidth_before > 300 && ip.bandwidth_after < ip.bandwidth_before / 4 &&
                          ip.local_after > ip.local_before, "%s: bandwidth %lld -> %lld", what,
                      (long long)ip.bandwidth_before, (long long)ip.bandwidth_after);
                CHECK(ip.bandwidth_before == ir.bandwidth_before && ip.bandwidth_after == ir.bandwidth_after &&
                          ip.local_after == ir.local_after && ip.row_begin == ir.row_begin &&
                          ip.row_end == ir.row_end && ip.nnz_local == ir.nnz_local,
                      "%s: not the root read's order and split (rows %lld-%lld against %lld-%lld)", what,
                      (long long)ip.row_begin, (long long)ip.row_end, (long long)ir.row_begin, (long long)ir.row_end);
                CHECK(same_everywhere((double)ip.bandwidth_after) && same_everywhere(ip.reorder),
                      "%s: ranks disagree on the order", what);
                CHECK(product_matches(Dp, &A, what), "%s: product", what);
                int64_t *fp = file_order(Dp, n), *fr = file_order(Dr, n);
                product_file_order(Dp, y0, n, n);
                product_file_order(Dr, y1, n, n);
                if (me == 0) {
                    int same = 1, moved = 0;
                    for (int64_t i = 0; i < n; i++) {
                        same &= fp[i] == fr[i];
                        moved += fp[i] != i;
                    }
                    CHECK(same && moved > n / 2, "%s: file rows differ from the root read's (%d moved)", what, moved);
                    double worst = 0, big = 0;
                    for (int64_t i = 0; i < n; i++) {
                        worst = fmax(worst, fabs((double)(y0[i] - y1[i])));
                        big = fmax(big, fabs((double)y1[i]));
                    }
                    CHECK(worst <= 8 * (sizeof(hspmv_real) == 8 ? 2.3e-16 : 1.2e-7) * big,
                          "%s: product differs from the root read's by %g", what, worst);
                }
                free(fp);
                free(fr);
                hspmv_dist_destroy(&Dp);
                hspmv_dist_destroy(&Dr);
            }
    mt_test_env(NULL);
    free(y0);
    free(y1);
    hspmv_csr_free(&A);
    mt_drop_file(path);
}

/* hspmv_dist_create from each rank's own rows (no rank holds the matrix):
   the gathered pattern's order, the product in the caller's order, the
   root path's bandwidth; ncols_local given with reorder refused alike. */
static void dist_reorder_from_each_ranks_rows(void)
{
    hspmv_csr A = {0};
    shuffled_grid(&A, 23, 31, 7); /* every rank makes the same matrix and takes its rows */
    int64_t n = A.nrows, lo = n * me / P, hi = n * (me + 1) / P, z0 = A.rowptr[lo], z = A.rowptr[hi] - z0;
    int64_t *rp = malloc((size_t)(hi - lo + 1) * sizeof(int64_t)), *ci = malloc((size_t)(z + 1) * sizeof(int64_t));
    for (int64_t i = lo; i <= hi; i++) rp[i - lo] = A.rowptr[i] - z0;
    for (int64_t k = 0; k < z; k++) ci[k] = A.colind[z0 + k];
    const hspmv_real *v = A.val + z0;
    mt_test_env("reorder_window=60");
    for (int h = 0; h < 2; h++) {
        hspmv_opts o;
        hspmv_dist *D = NULL, *R = NULL;
        hspmv_error e = {0, ""};
        hspmv_dist_info in, ir;
        mt_opts(&o);
        o.threads = 1;
        o.halo = h ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
        o.reorder = HSPMV_REORDER_RCM;
        int rc = hspmv_dist_create(MPI_COMM_WORLD, hi - lo, n, -1, rp, ci, v, &o, &D, &e);
        CHECK(rc == HSPMV_OK && D, "each rank's rows, halo %d: %s", h, e.msg);
        CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "each rank's rows: ranks disagree");
        CHECK(hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &R, &e) == HSPMV_OK, "root: %s", e.msg);
        if (!D || !R) {
            hspmv_dist_destroy(&D);
            hspmv_dist_destroy(&R);
            continue;
        }
        hspmv_dist_get_info(D, &in);
        hspmv_dist_get_info(R, &ir);
        CHECK(in.reorder == HSPMV_REORDER_RCM && in.permuted == 1 && in.bandwidth_before > 300 &&
                  in.bandwidth_after == ir.bandwidth_after && in.row_begin == ir.row_begin && in.row_end == ir.row_end,
              "each rank's rows: order %d, bandwidth %lld -> %lld (root %lld), rows %lld-%lld (root %lld-%lld)",
              in.reorder, (long long)in.bandwidth_before, (long long)in.bandwidth_after,
              (long long)ir.bandwidth_after, (long long)in.row_begin, (long long)in.row_end,
              (long long)ir.row_begin, (long long)ir.row_end);
        CHECK(product_matches(D, &A, "each rank's rows, reordered"), "each rank's rows: product");
        hspmv_dist_destroy(&D);
        hspmv_dist_destroy(&R);
        int64_t ncl = hi - lo;
        rc = hspmv_dist_create(MPI_COMM_WORLD, hi - lo, n, ncl, rp, ci, v, &o, &D, &e);
        CHECK(rc == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "ncols_local") && !D, "ncols_local given: %d %s", rc,
              e.msg);
        CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "ncols_local given: ranks disagree");
    }
    mt_test_env(NULL);
    free(rp);
    free(ci);
    hspmv_csr_free(&A);
}

static void dist_reorder_refusals_are_every_ranks(void)
{
    hspmv_csr A = {0};
    hspmv_opts o;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if (me == 0) CHECK(tl_csr_random(&A, 40, 60, NULL, 4, 0, 3) == HSPMV_OK, "random");
    mt_opts(&o);
    o.reorder = HSPMV_REORDER_RCM;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
    CHECK(rc == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "square"), "rectangular: %d %s", rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "rectangular: ranks disagree");
    o.reorder = 11;
    rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "unknown reorder 11"), "%d %s", rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "unknown reorder: ranks disagree");
    hspmv_csr_free(&A);
    /* the parallel read reorders (a small file: the matrix is diagonal but one entry) */
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2\n2 2 2\n3 3 2\n1 3 1\n";
    char *path = mt_shared_file(text, sizeof(text) - 1, 0);
    CHECK(path != NULL, "temporary file");
    if (!path) return;
    o.reorder = HSPMV_REORDER_RCM;
    o.read = HSPMV_READ_PARALLEL;
    rc = hspmv_dist_read(path, MPI_COMM_WORLD, &o, &D, &e);
    CHECK(rc == HSPMV_OK && D, "parallel read: %d %s", rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "parallel read: ranks disagree");
    hspmv_dist_destroy(&D);
    o.read = HSPMV_READ_ROOT;
    rc = hspmv_dist_read(path, MPI_COMM_WORLD, &o, &D, &e);
    CHECK(rc == HSPMV_OK && D, "root read: %s", e.msg);
    hspmv_dist_destroy(&D);
    mt_drop_file(path);
}

MT_MAIN(NULL, dist_reorder_matches_ref_every_split, dist_reorder_cg_as_without, dist_reorder_parallel_read_matches_root,
        dist_reorder_from_each_ranks_rows, dist_reorder_refusals_are_every_ranks)
