/* mpi_gpu_dist.c — the several-GPU matrix (hspmv_gpu_dist) under mpirun:
   every halo path (auto, nccl, mpi, host) forced in turn on a square and a
   rectangular matrix with uneven and empty row slices, against the
   long-double reference of the whole matrix; refusals (NCCL without its
   library or on shared GPUs, MPI that is not CUDA-aware) must be the same
   clear error on every rank; bad rows and failed allocations are every
   rank's error; CG on the GPUs converges to x = 1 in as many iterations
   as the CPU library's CG (hspmv_solve) on the same rows, to the same
   answer, its phases accounted for. The plan itself (no GPU
   needed) is checked against the CPU path's p2p plan. tests/gpu/run_dist.sh
   runs it at 1, 2 and 4 ranks and 2 ranks on one GPU. Without a GPU every
   test is skipped with the reason. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"
#include "hspmv_gpu.h"
#include "csr.h"
#include "dist.h"

static int me, P;
static int have_gpu = -1;
static char no_gpu_why[600];

/* 1 when every rank has a GPU it can use, agreed (asked once; one rank
   without: none has); no skip reported. */
static int gpu_probe(void)
{
    if (have_gpu < 0) {
        hspmv_error e = {0, ""};
        int ok = hspmv_gpu_init(0, NULL, &e) == HSPMV_OK, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        have_gpu = all;
        snprintf(no_gpu_why, sizeof(no_gpu_why), "no usable GPU on some rank (rank %d: %s)", me, ok ? "ok" : e.msg);
    }
    return have_gpu;
}

/* gpu_probe, the test reported skipped when there is none. */
static int gpu_ready(void)
{
    if (!gpu_probe()) SKIP("%s", no_gpu_why);
    return have_gpu;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The whole matrix, the same on every rank: a band of +-2 (so neighbours'
   rows need ghosts), a few random far columns, some empty rows and one
   long row (the long-row split) when there is room. */
static void make_matrix(int64_t n, int64_t m, uint64_t seed, hspmv_csr *A)
{
    uint64_t s = seed * 2654435761u + 1;
    memset(A, 0, sizeof(*A));
    A->nrows = n;
    A->ncols = m;
    A->rowptr = hspmv_calloc((size_t)n + 1, sizeof(int64_t));
    int64_t cap = n * 9 + 3000;
    A->colind = hspmv_calloc((size_t)cap, sizeof(int32_t));
    A->val = hspmv_calloc((size_t)cap, sizeof(hspmv_real));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i % 97 == 13) { /* empty row */
            A->rowptr[i + 1] = k;
            continue;
        }
        int64_t c0 = i * m / n;
        for (int64_t d = -2; d <= 2; d++)
            if (c0 + d >= 0 && c0 + d < m) {
                A->colind[k] = (int32_t)(c0 + d);
                A->val[k++] = d == 0 ? 6 : (hspmv_real)(-1.0 - 0.01 * (double)(rnd(&s) % 50));
            }
        int extra = (int)(rnd(&s) % 4);
        if (i == n / 3 && m > 2000) extra = 2000; /* a long row */
        for (int e = 0; e < extra && k < cap; e++) {
            A->colind[k] = (int32_t)(rnd(&s) % (uint64_t)m);
            A->val[k++] = (hspmv_real)((double)(rnd(&s) % 1000) / 500.0 - 1.0);
        }
        A->rowptr[i + 1] = k;
    }
    A->nnz = k;
}

/* Rank p's slice: uneven, and the last rank empty when there are 4. */
static void slice_bounds(int64_t n, int64_t *b, int64_t *e)
{
    int64_t w[8] = {3, 1, 2, 0, 2, 1, 1, 1};
    int64_t tot = 0, acc = 0;
    for (int p = 0; p < P; p++) tot += w[p % 8];
    if (tot == 0) tot = 1;
    for (int p = 0; p < me; p++) acc += w[p % 8];
    *b = n * acc / tot;
    *e = me == P - 1 ? n : n * (acc + w[me % 8]) / tot;
    if (P == 1) *b = 0, *e = n;
}

/* This rank's rows of A as a CSR view (global columns, rebased pointers). */
static void my_rows(const hspmv_csr *A, hspmv_csr *S)
{
    int64_t b, e;
    slice_bounds(A->nrows, &b, &e);
    memset(S, 0, sizeof(*S));
    S->nrows = e - b;
    S->ncols = A->ncols;
    S->rowptr = hspmv_calloc((size_t)(e - b) + 1, sizeof(int64_t));
    for (int64_t i = 0; i <= e - b; i++) S->rowptr[i] = A->rowptr[b + i] - A->rowptr[b];
    S->nnz = S->rowptr[e - b];
    S->colind = A->colind + A->rowptr[b];
    S->val = A->val + A->rowptr[b];
}

/* y = A*x on the GPUs with G, gathered on rank 0 and compared with the
   reference there; 1 when it matches (on every rank). */
static int product_matches(hspmv_gpu_dist *G, const hspmv_csr *A, const hspmv_real *x, const char *what)
{
    hspmv_gpu_dist_info in;
    hspmv_error e = {0, ""};
    hspmv_real *dx = NULL, *dy = NULL;
    hspmv_gpu_dist_get_info(G, &in);
    hspmv_real *y = hspmv_calloc((size_t)in.nrows_local + 1, sizeof(hspmv_real));
    int rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_COLS, &dx, &e);
    if (!rc) rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_ROWS, &dy, &e);
    if (!rc) rc = hspmv_gpu_vec_upload(dx, x + in.col_begin, in.ncols_local, &e);
    for (int rep = 0; rep < 2 && !rc; rep++) { /* twice: the second reuses counters and buffers */
        rc = hspmv_gpu_vec_fill_bytes(dy, 0xff, in.nrows_local, &e);
        if (!rc) rc = hspmv_gpu_dist_spmv(G, dx, dy, &e);
    }
    if (!rc) rc = hspmv_gpu_vec_download(y, dy, in.nrows_local, &e);
    CHECK(rc == HSPMV_OK, "%s: rank %d: %s", what, me, e.msg);
    int n = (int)in.nrows_local, *cnt = calloc((size_t)P, sizeof(int)), *dis = calloc((size_t)P, sizeof(int));
    hspmv_real *yall = me == 0 ? hspmv_calloc((size_t)A->nrows + 1, sizeof(hspmv_real)) : NULL;
    MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int p = 1; p < P; p++) dis[p] = dis[p - 1] + cnt[p - 1];
    MPI_Gatherv(y, n, sizeof(hspmv_real) == 8 ? MPI_DOUBLE : MPI_FLOAT, yall, cnt, dis,
                sizeof(hspmv_real) == 8 ? MPI_DOUBLE : MPI_FLOAT, 0, MPI_COMM_WORLD);
    int ok = rc == HSPMV_OK, all = 0;
    if (me == 0) ok = ok && tl_matches_ref(A, x, yall, what);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_free(y);
    hspmv_free(yall);
    free(cnt);
    free(dis);
    return all;
}

/* Every path forced on A; a refusal must be the documented one, agreed. */
static void every_path(const hspmv_csr *A, const char *name)
{
    hspmv_csr S;
    hspmv_real *x = hspmv_calloc((size_t)A->ncols + 1, sizeof(hspmv_real));
    tl_fill(x, A->ncols, 11);
    my_rows(A, &S);
    for (int c = 0; c < HSPMV_GPU_NCOMM; c++)
        for (int kv = 0; kv < 2; kv++) { /* AUTO, and cuSPARSE (the ghost product through its own buffer) */
            hspmv_gpu_dist_opts o;
            hspmv_gpu_dist *G = NULL;
            hspmv_error e = {0, ""};
            char what[200];
            if (kv && c != HSPMV_GPU_COMM_HOST) continue;
            hspmv_gpu_dist_opts_default(&o);
            o.comm = c;
            o.kernel = kv ? HSPMV_GPU_CUSPARSE : HSPMV_GPU_AUTO;
            int rc = hspmv_gpu_dist_create(MPI_COMM_WORLD, &S, &o, &G, &e);
            snprintf(what, sizeof(what), "%s, %d ranks, --gpu-comm %s, kernel %s", name, P, hspmv_gpu_comm_name(c),
                     hspmv_gpu_kernel_name(o.kernel));
            CHECK(!mt_errors_differ(rc, e.msg, G != NULL), "%s: ranks disagree on the outcome", what);
            if (rc == HSPMV_ERR_UNSUPPORTED && c == HSPMV_GPU_COMM_NCCL) {
                CHECK(strstr(e.msg, "built without NCCL") || strstr(e.msg, "share one GPU"), "%s: refused: %s", what,
                      e.msg);
                if (me == 0) printf("  %s: refused as documented: %s\n", what, e.msg);
                continue;
            }
            if (rc == HSPMV_ERR_UNSUPPORTED && c == HSPMV_GPU_COMM_MPI) {
                CHECK(strstr(e.msg, "CUDA-aware") != NULL, "%s: refused: %s", what, e.msg);
                if (me == 0) printf("  %s: refused as documented: %s\n", what, e.msg);
                continue;
            }
            CHECK(rc == HSPMV_OK, "%s: %s", what, e.msg);
            if (rc) continue;
            hspmv_gpu_dist_info in;
            hspmv_gpu_dist_get_info(G, &in);
            CHECK(c == HSPMV_GPU_COMM_AUTO || in.comm == c, "%s: path %s ran", what, hspmv_gpu_comm_name(in.comm));
            CHECK(in.nrows == A->nrows && in.ncols == A->ncols && in.nnz == A->nnz, "%s: sizes", what);
            CHECK(product_matches(G, A, x, what), "%s: off the reference", what);
            hspmv_gpu_dist_timing t;
            hspmv_gpu_dist_get_timing(G, &t, 1);
            CHECK(t.calls == 2 && t.halo_bytes == 2.0 * (double)in.send_entries * sizeof(hspmv_real),
                  "%s: timing counted %lld calls, %.0f bytes", what, (long long)t.calls, t.halo_bytes);
            if (me == 0 && kv == 0)
                printf("  %s: ran %s on %s (%d rank(s) on the busiest GPU)\n", what, hspmv_gpu_comm_name(in.comm),
                       in.device_name, in.max_device_sharers);
            hspmv_gpu_dist_destroy(&G);
        }
    hspmv_free(S.rowptr);
    hspmv_free(x);
}

static void every_path_matches_ref_square(void)
{
    hspmv_csr A;
    if (!gpu_ready()) return;
    make_matrix(5000, 5000, 1, &A);
    every_path(&A, "square 5000");
    hspmv_csr_free(&A);
}

static void every_path_matches_ref_rectangular(void)
{
    hspmv_csr A;
    if (!gpu_ready()) return;
    make_matrix(3001, 7002, 2, &A);
    every_path(&A, "rectangular 3001 x 7002");
    hspmv_csr_free(&A);
    make_matrix(4000, 1500, 3, &A);
    every_path(&A, "rectangular 4000 x 1500");
    hspmv_csr_free(&A);
}

/* No GPU needed: the plan the GPUs get (hspmv_dist_plan_rows) is the CPU
   path's p2p plan for the same rows, and its CSR blocks give the product. */
static void plan_matches_cpu_p2p(const hspmv_csr *A, const char *name)
{
    hspmv_csr S, Ao, Ag;
    hspmv_dist *D1 = NULL, *D2 = NULL;
    hspmv_error e = {0, ""};
    hspmv_opts o;
    my_rows(A, &S);
    int rc = hspmv_dist_plan_rows(MPI_COMM_WORLD, &S, &D1, &Ao, &Ag, &e);
    CHECK(rc == HSPMV_OK, "%s: plan: %s", name, e.msg);
    int64_t *ci = hspmv_calloc((size_t)S.nnz + 1, sizeof(int64_t));
    for (int64_t k = 0; k < S.nnz; k++) ci[k] = S.colind[k];
    mt_opts(&o);
    o.halo = HSPMV_HALO_P2P;
    int rc2 = hspmv_dist_create(MPI_COMM_WORLD, S.nrows, S.ncols, -1, S.rowptr, ci, S.val, &o, &D2, &e);
    CHECK(rc2 == HSPMV_OK, "%s: CPU p2p: %s", name, e.msg);
    if (!rc && !rc2) {
        int same = D1->nghost == D2->nghost && D1->nrecv == D2->nrecv && D1->nsend == D2->nsend &&
                   D1->nghost_rows == D2->nghost_rows && !D1->ghost_row == !D2->ghost_row &&
                   D1->nnz_owned == D2->nnz_owned && D1->nnz_ghost == D2->nnz_ghost && D1->nnz == D2->nnz;
        for (int64_t k = 0; same && k < D1->nghost; k++) same = D1->ghost_col[k] == D2->ghost_col[k];
        for (int r = 0; same && r < D1->nrecv; r++)
            same = D1->recv_rank[r] == D2->recv_rank[r] && D1->recv_ptr[r + 1] == D2->recv_ptr[r + 1];
        for (int r = 0; same && r < D1->nsend; r++)
            same = D1->send_rank[r] == D2->send_rank[r] && D1->send_ptr[r + 1] == D2->send_ptr[r + 1];
        for (int64_t k = 0; same && k < (D1->nsend ? D1->send_ptr[D1->nsend] : 0); k++) same = D1->send_idx[k] == D2->send_idx[k];
        for (int64_t i = 0; same && D1->ghost_row && i < D1->nghost_rows; i++) same = D1->ghost_row[i] == D2->ghost_row[i];
        CHECK(same, "%s: rank %d: the plan differs from the CPU path's p2p plan", name, me);
        if (!same) fprintf(stderr, "    %lld/%lld ghosts, %d/%d recv, %d/%d send, %lld/%lld ghost rows, %lld/%lld owned, %lld/%lld ghost nnz, %lld/%lld nnz\n", (long long)D1->nghost, (long long)D2->nghost, D1->nrecv, D2->nrecv, D1->nsend, D2->nsend, (long long)D1->nghost_rows, (long long)D2->nghost_rows, (long long)D1->nnz_owned, (long long)D2->nnz_owned, (long long)D1->nnz_ghost, (long long)D2->nnz_ghost, (long long)D1->nnz, (long long)D2->nnz);
        /* y = Ao x_own + Ag x_ghost (through the compressed rows) against the reference */
        hspmv_real *x = hspmv_calloc((size_t)A->ncols + 1, sizeof(hspmv_real));
        hspmv_real *y = hspmv_calloc((size_t)S.nrows + 1, sizeof(hspmv_real));
        hspmv_real *xg = hspmv_calloc((size_t)D1->nghost + 1, sizeof(hspmv_real));
        hspmv_real *gy = hspmv_calloc((size_t)Ag.nrows + 1, sizeof(hspmv_real));
        hspmv_real *ref = hspmv_calloc((size_t)S.nrows + 1, sizeof(hspmv_real));
        tl_fill(x, A->ncols, 3);
        for (int64_t k = 0; k < D1->nghost; k++) xg[k] = x[D1->ghost_col[k]];
        hspmv_ref_spmv(&Ao, x + D1->col_start[me], y);
        hspmv_ref_spmv(&Ag, xg, gy);
        for (int64_t i = 0; i < Ag.nrows; i++) y[D1->ghost_row ? D1->ghost_row[i] : i] += gy[i];
        CHECK(tl_matches_ref(&S, x, y, name), "%s: rank %d: the blocks' product is off the reference", name, me);
        hspmv_free(x);
        hspmv_free(y);
        hspmv_free(xg);
        hspmv_free(gy);
        hspmv_free(ref);
    }
    hspmv_free(ci);
    hspmv_csr_free(&Ao);
    hspmv_csr_free(&Ag);
    hspmv_dist_destroy(&D1);
    hspmv_dist_destroy(&D2);
    hspmv_free(S.rowptr);
}

static void plan_is_the_cpu_p2p_plan(void)
{
    /* duplicates summed first as the CPU path does (the GPU path keeps them:
       its entry counts would differ, its plan not) */
    hspmv_csr A;
    make_matrix(3000, 3000, 7, &A);
    hspmv_dist_sort_rows(&A);
    plan_matches_cpu_p2p(&A, "square 3000");
    hspmv_csr_free(&A);
    make_matrix(2001, 5002, 8, &A);
    hspmv_dist_sort_rows(&A);
    plan_matches_cpu_p2p(&A, "rectangular 2001 x 5002");
    hspmv_csr_free(&A);
    make_matrix(5000, 50, 9, &A); /* ghosts of most rows: the ghost block keeps every row */
    hspmv_dist_sort_rows(&A);
    plan_matches_cpu_p2p(&A, "rectangular 5000 x 50");
    hspmv_csr_free(&A);
}

/* hspmv_gpu_dist_read: rank 0 reads a bundled file, the rows split by nonzeros. */
static void read_matches_ref(void)
{
    const char *path = "matrices/lap2d_64.mtx";
    hspmv_csr A;
    hspmv_error e = {0, ""};
    hspmv_gpu_dist *G = NULL;
    if (!gpu_ready()) return;
    if (hspmv_csr_read(path, &A, NULL, NULL, &e)) {
        SKIP("%s: %s (run from the repository root)", path, e.msg);
        return;
    }
    int rc = hspmv_gpu_dist_read(path, MPI_COMM_WORLD, NULL, &G, &e);
    CHECK(rc == HSPMV_OK && !mt_errors_differ(rc, e.msg, G != NULL), "%s: %s", path, e.msg);
    if (!rc) {
        hspmv_real *x = hspmv_calloc((size_t)A.ncols + 1, sizeof(hspmv_real));
        tl_fill(x, A.ncols, 5);
        CHECK(product_matches(G, &A, x, path), "%s: off the reference", path);
        hspmv_free(x);
    }
    hspmv_gpu_dist_destroy(&G);
    rc = hspmv_gpu_dist_read("no/such/file.mtx", MPI_COMM_WORLD, NULL, &G, &e);
    CHECK(rc != HSPMV_OK && !mt_errors_differ(rc, e.msg, G != NULL) && strstr(e.msg, "no/such/file.mtx"),
          "a missing file: rc %d: %s", rc, e.msg);
    hspmv_csr_free(&A);
}

/* A column out of range on the last rank that has entries (at 4 ranks the
   last one has none): the same refusal everywhere, no matrix; the plan's
   check (no GPU needed) and then the GPU matrix's. */
static void bad_rows_are_every_ranks_error(void)
{
    hspmv_csr A, S, Ao, Ag;
    hspmv_gpu_dist *G = NULL;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    make_matrix(1000, 1000, 4, &A);
    my_rows(&A, &S);
    int32_t keep = 0;
    int mine = S.nnz > 0 ? me : -1, bad_rank = -1;
    MPI_Allreduce(&mine, &bad_rank, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == bad_rank) {
        keep = S.colind[0];
        S.colind[0] = 5000;
    }
    char want[32];
    snprintf(want, sizeof(want), "rank %d: column", bad_rank);
    int rc = hspmv_dist_plan_rows(MPI_COMM_WORLD, &S, &D, &Ao, &Ag, &e);
    CHECK(bad_rank >= 0 && rc == HSPMV_ERR_ARG && !mt_errors_differ(rc, e.msg, D != NULL) && strstr(e.msg, want),
          "plan: bad entry on rank %d: rc %d: %s", bad_rank, rc, e.msg);
    if (!rc) {
        hspmv_csr_free(&Ao);
        hspmv_csr_free(&Ag);
        hspmv_dist_destroy(&D);
    }
    if (gpu_probe()) { /* without a GPU the plan's check above is the test */
        rc = hspmv_gpu_dist_create(MPI_COMM_WORLD, &S, NULL, &G, &e);
        CHECK(rc == HSPMV_ERR_ARG && !mt_errors_differ(rc, e.msg, G != NULL) && strstr(e.msg, want),
              "bad entry on rank %d: rc %d: %s", bad_rank, rc, e.msg);
    }
    if (me == bad_rank) S.colind[0] = keep;
    hspmv_gpu_dist_destroy(&G);
    hspmv_free(S.rowptr);
    hspmv_csr_free(&A);
}

/* The n-th host allocation fails on the last rank: everyone returns its error. */
static void failed_allocation_is_every_ranks_error(void)
{
    hspmv_csr A, S;
    int failures = 0, mismatches = 0, n;
    if (!gpu_ready()) return;
    make_matrix(800, 800, 5, &A);
    my_rows(&A, &S);
    for (n = 1; n < 200; n++) {
        hspmv_gpu_dist *G = NULL;
        hspmv_error e = {0, ""};
        hspmv_gpu_dist_opts o;
        hspmv_gpu_dist_opts_default(&o);
        o.comm = HSPMV_GPU_COMM_HOST;
        if (me == P - 1) hspmv_alloc_fail_after(n);
        int rc = hspmv_gpu_dist_create(MPI_COMM_WORLD, &S, &o, &G, &e);
        hspmv_alloc_fail_after(0);
        mismatches += mt_errors_differ(rc, e.msg, G != NULL);
        hspmv_gpu_dist_destroy(&G);
        if (rc == HSPMV_OK) break;
        failures++;
        CHECK(rc == HSPMV_ERR_NOMEM, "failing allocation %d: rc %d: %s", n, rc, e.msg);
    }
    if (me == 0) printf("  allocation failure injected at %d points before success\n", failures);
    CHECK(mismatches == 0 && failures >= 3 && n < 200, "%d mismatches, %d failures", mismatches, failures);
    hspmv_free(S.rowptr);
    hspmv_csr_free(&A);
}

/* CG on the GPUs: the 2D Laplacian with b = A*1 converges to x = 1, in
   the CPU solver's iterations (within 2: the sums' order differs) and to
   its x; the phases are non-negative and within the solve's time. */
/* The Laplacian of a k x k grid (5 points, d = 2) or a k^3 grid with its
   27 points (d = 3; diagonal 26.5, so positive definite). */
static void stencil(int d, int64_t k, hspmv_csr *A)
{
    int64_t n = d == 2 ? k * k : k * k * k, w = d == 2 ? 5 : 27, q = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_calloc((size_t)n + 1, sizeof(int64_t));
    A->colind = hspmv_calloc((size_t)(n * w), sizeof(int32_t));
    A->val = hspmv_calloc((size_t)(n * w), sizeof(hspmv_real));
    for (int64_t i = 0; i < n; i++) {
        int64_t c = i % k, r = i / k % k, l = d == 2 ? 0 : i / (k * k);
        for (int64_t dl = d == 2 ? 0 : -1; dl <= (d == 2 ? 0 : 1); dl++)
            for (int64_t dr = -1; dr <= 1; dr++)
                for (int64_t dc = -1; dc <= 1; dc++) {
                    if (d == 2 && dr != 0 && dc != 0) continue;
                    if (c + dc < 0 || c + dc >= k || r + dr < 0 || r + dr >= k || l + dl < 0 || l + dl >= k) continue;
                    int64_t j = i + dc + dr * k + dl * k * k;
                    A->colind[q] = (int32_t)j;
                    A->val[q++] = j == i ? (d == 2 ? 4 : 26.5) : -1;
                }
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
}

/* CG on the GPUs against the CPU library's on the same rows; passes: the
   vector passes its result must report (0: either). */
static void cg_on(const hspmv_csr *Ap, const char *name, int passes)
{
    hspmv_csr A = *Ap;
    hspmv_csr S;
    my_rows(&A, &S);
    hspmv_gpu_dist *G = NULL;
    hspmv_error e = {0, ""};
    hspmv_gpu_dist_opts o;
    hspmv_gpu_dist_opts_default(&o);
    o.comm = HSPMV_GPU_COMM_HOST;
    int rc = hspmv_gpu_dist_create(MPI_COMM_WORLD, &S, &o, &G, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    if (!rc) {
        hspmv_gpu_dist_info in;
        hspmv_gpu_dist_get_info(G, &in);
        int64_t nl = in.nrows_local;
        hspmv_real *b = hspmv_calloc((size_t)nl + 1, sizeof(hspmv_real)), *x = hspmv_calloc((size_t)nl + 1, sizeof(hspmv_real));
        for (int64_t i = 0; i < nl; i++) { /* b = A*1: the row sum */
            hspmv_real s = 0;
            for (int64_t t = A.rowptr[in.row_begin + i]; t < A.rowptr[in.row_begin + i + 1]; t++) s += A.val[t];
            b[i] = s;
        }
        hspmv_real *db = NULL, *dx = NULL;
        rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_ROWS, &db, &e);
        if (!rc) rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_ROWS, &dx, &e);
        if (!rc) rc = hspmv_gpu_vec_upload(db, b, nl, &e);
        if (!rc) rc = hspmv_gpu_vec_fill_bytes(dx, 0, nl, &e);
        hspmv_gpu_cg_result res;
        double tol = sizeof(hspmv_real) == 8 ? 1e-10 : 1e-5;
        if (!rc) rc = hspmv_gpu_cg(G, db, dx, tol, 1000, &res, &e);
        CHECK(rc == HSPMV_OK && res.relres <= tol && res.iterations > 10, "rc %d, %lld iterations, relres %.3e: %s",
              rc, (long long)res.iterations, res.relres, e.msg);
        if (!rc) rc = hspmv_gpu_vec_download(x, dx, nl, &e);
        double err = 0, all = 0;
        for (int64_t i = 0; i < nl; i++) err = fmax(err, fabs((double)x[i] - 1));
        MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        CHECK(all < (sizeof(hspmv_real) == 8 ? 1e-7 : 1e-2), "max|x - 1| = %.3e", all);
        if (me == 0) printf("  CG on %s: %lld iterations, relres %.3e, max|x-1| %.2e, %d vector passes\n", name,
                            (long long)res.iterations, res.relres, all, res.vector_passes);
        CHECK(passes == 0 || res.vector_passes == passes, "%s: %d vector passes reported, expected %d", name,
              res.vector_passes, passes);
        double sum_ph = res.spmv_seconds + res.vector_seconds + res.reduce_seconds;
        CHECK(res.vector_seconds > 0 && res.wait_seconds > 0 && res.reduce_seconds >= 0 && res.spmv_seconds > 0 &&
                  res.vector_seconds < res.seconds && sum_ph <= res.seconds * 1.05 + 1e-4,
              "phases: product %.3e, vectors %.3e, waits %.3e, reductions %.3e s of %.3e s", res.spmv_seconds,
              res.vector_seconds, res.wait_seconds, res.reduce_seconds, res.seconds);
        /* the CPU library on the same rows */
        hspmv_dist *D = NULL;
        hspmv_opts o2;
        hspmv_opts_default(&o2);
        o2.threads = 1;
        int64_t *ci = hspmv_malloc((size_t)(S.nnz + 1) * sizeof(int64_t));
        for (int64_t t = 0; t < S.nnz; t++) ci[t] = S.colind[t];
        int rc2 = hspmv_dist_create(MPI_COMM_WORLD, S.nrows, S.ncols, -1, S.rowptr, ci, S.val, &o2, &D, &e);
        hspmv_free(ci);
        CHECK(rc2 == HSPMV_OK, "%s", e.msg);
        if (!rc2 && !rc) {
            hspmv_solver_opts so;
            hspmv_solver_result sr;
            hspmv_real *xc = hspmv_calloc((size_t)nl + 1, sizeof(hspmv_real));
            hspmv_solver_opts_default(&so);
            so.tol = tol;
            so.maxit = 1000;
            so.method = HSPMV_SOLVER_CG;
            rc2 = hspmv_solve(D, b, xc, &so, &sr, &e);
            double d = 0, dall = 0;
            for (int64_t i = 0; i < nl; i++) d = fmax(d, fabs((double)xc[i] - (double)x[i]));
            MPI_Allreduce(&d, &dall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            int64_t di = sr.iterations - res.iterations;
            CHECK(rc2 == HSPMV_OK && di >= -2 && di <= 2 && dall < (sizeof(hspmv_real) == 8 ? 1e-7 : 1e-2),
                  "CPU CG: rc %d, %lld iterations against the GPUs' %lld, max|x_cpu - x_gpu| = %.3e: %s", rc2,
                  (long long)sr.iterations, (long long)res.iterations, dall, e.msg);
            hspmv_free(xc);
        }
        hspmv_dist_destroy(&D);
        hspmv_gpu_vec_destroy(&db);
        hspmv_gpu_vec_destroy(&dx);
        hspmv_free(b);
        hspmv_free(x);
    }
    hspmv_gpu_dist_destroy(&G);
    hspmv_free(S.rowptr);
}

/* The 5-point grid runs one thread per row (p'q by a dot kernel: 11
   passes); the 27-point one the warp streaming kernel, which on one rank
   (no ghost block) sums p'q as it makes q (9). */
static void cg_converges_on_the_gpus(void)
{
    hspmv_csr A;
    if (!gpu_ready()) return;
    stencil(2, 48, &A);
    cg_on(&A, "the 5-point 48 x 48 grid", 11);
    hspmv_csr_free(&A);
    stencil(3, 12, &A);
    cg_on(&A, "the 27-point 12^3 grid", P == 1 ? 9 : 0);
    hspmv_csr_free(&A);
}

MT_MAIN(NULL, plan_is_the_cpu_p2p_plan, every_path_matches_ref_square, every_path_matches_ref_rectangular, read_matches_ref, bad_rows_are_every_ranks_error,
        failed_allocation_is_every_ranks_error, cg_converges_on_the_gpus)
