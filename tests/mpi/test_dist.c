/* test_dist.c — the distributed SpMV against the serial reference at any
   rank count: every partition, real and generated matrices, zero-row ranks,
   rectangular, diagonal, dense rows, the halo plan itself, METIS volume,
   create-from-rows, status agreement on failed allocations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dist.h"
#include "mpitest.h"
#include "nodetest.h"
#include "testlib.h"
#include "util.h"
#include "csr.h"

static int me, P;
static const char *part_name[] = {"nnz", "rows", "metis"};

/* Rank 0's matrix to everyone: pass A on rank 0. */
static int ask_symmetric = HSPMV_SYMMETRIC_NO; /* hspmv_opts.symmetric of the matrices made */

static hspmv_opts opts(int part)
{
    hspmv_opts o;
    mt_opts(&o); /* the run's halo mode and pseudo-nodes */
    o.partition = part;
    o.symmetric = ask_symmetric;
    return o;
}

/* Checks the halo plan directly: ghosts ascending and distinct, each
   received exactly once from its owner, counts matching the owners' sends,
   and an exchange of x[j] = j delivering j to ghost slot of j (halo "p2p";
   halo "node": nodetest.h). */
static int plan_ok(hspmv_dist *D, const char *what)
{
    int ok = 1;
    if (D->halo == HSPMV_HALO_NODE) return node_plan_ok(D, what);
    for (int64_t k = 1; k < D->nghost; k++) ok &= D->ghost_col[k - 1] < D->ghost_col[k];
    if (D->nrecv > 0) ok &= D->recv_ptr[0] == 0 && D->recv_ptr[D->nrecv] == D->nghost;
    else ok &= D->nghost == 0;
    for (int r = 0; r < D->nrecv; r++) {
        int q = D->recv_rank[r];
        ok &= q != me && (r == 0 || D->recv_rank[r - 1] < q);
        for (int64_t k = D->recv_ptr[r]; k < D->recv_ptr[r + 1]; k++)
            ok &= D->ghost_col[k] >= D->col_start[q] && D->ghost_col[k] < D->col_start[q + 1];
    }
    for (int64_t k = 0; k < D->nghost; k++) /* never its own column */
        ok &= D->ghost_col[k] < D->col_start[me] || D->ghost_col[k] >= D->col_start[me + 1];
    int64_t s[2] = {D->nghost, D->send_ptr[D->nsend]}, t[2];
    MPI_Allreduce(s, t, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    ok &= t[0] == t[1];
    /* real exchange: x[j] = global j */
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
    for (int64_t j = 0; j < D->ncols_local; j++) x[j] = (hspmv_real)(D->col_start[me] + j);
    ok &= hspmv_halo_begin(D, x, NULL) == HSPMV_OK;
    ok &= hspmv_halo_end(D) == HSPMV_OK;
    for (int64_t k = 0; k < D->nghost; k++) ok &= D->xg[k] == (hspmv_real)D->ghost_col[k];
    hspmv_free(x);
    if (!ok) fprintf(stderr, "rank %d: halo plan wrong for %s\n", me, what);
    return ok;
}

/* Distributes A (rank 0's), multiplies a scattered x, gathers y and checks
   it on rank 0 against the reference; returns 1 on every rank when right. */
static int dist_matches(const hspmv_csr *A, int part, const char *what, hspmv_dist_info *out)
{
    hspmv_opts o = opts(part);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int ok = 1;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D, &e);
    if (rc) {
        if (me == 0) fprintf(stderr, "  %s (%s): create failed: %s\n", what, part_name[part], e.msg);
        return 0;
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    if (out) *out = in;
    hspmv_real *x = NULL, *y = NULL, *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1),
               *yl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    if (me == 0) {
        x = hspmv_alloc_array((size_t)A->ncols + 1, sizeof(hspmv_real));
        y = hspmv_alloc_array((size_t)A->nrows + 1, sizeof(hspmv_real));
        tl_fill(x, A->ncols, 42);
    }
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, x, xl, &e) == HSPMV_OK;
    for (int rep = 0; rep < 2; rep++) ok &= hspmv_dist_spmv(D, xl, yl, &e) == HSPMV_OK;
    ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e) == HSPMV_OK;
    if (me == 0) ok &= tl_matches_ref(A, x, y, what);
    ok &= plan_ok(D, what);
    /* the scaled form: y = 2*A*x - 1*y_old = A*x */
    hspmv_dist_spmv_scaled(D, 2, xl, -1, yl, &e);
    ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e) == HSPMV_OK;
    if (me == 0 && A->nrows > 0) {
        hspmv_check c;
        hspmv_ref_check(A, x, y, 6.0, &c); /* three roundings more than y */
        if (c.violations) fprintf(stderr, "  %s: spmv_scaled off bound (row %lld)\n", what, (long long)c.first_bad);
        ok &= c.violations == 0;
    }
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(xl);
    hspmv_free(yl);
    hspmv_dist_destroy(&D);
    ok &= D == NULL;
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && me == 0) fprintf(stderr, "  %s (%s, %d ranks) wrong\n", what, part_name[part], P);
    return all;
}

/* Every partition on one generated matrix (rank 0 generates). */
static int all_parts(const hspmv_csr *A, const char *what)
{
    int ok = 1;
    int64_t dims[2] = {A->nrows, A->ncols}; /* rank 0's matrix decides */
    MPI_Bcast(dims, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    for (int part = 0; part < 3; part++) {
        if (part == HSPMV_PART_METIS && dims[0] != dims[1]) continue;
        ok &= dist_matches(A, part, what, NULL);
    }
    return ok;
}

static void dist_matches_ref_on_shared_matrices(void)
{
    char **paths;
    int n = tl_list_mtx(tl_shared_dir(), &paths);
    if (n <= 0) {
        CHECK(n > 0, "no matrices in %s (%s)", tl_shared_dir(), tl_missing_hint(1));
        return;
    }
    for (int i = 0; i < n; i++) {
        if (tl_is_unsupported_shared(paths[i]) || strstr(paths[i], "_rhs")) continue;
        hspmv_csr A = {0};
        int rc = me == 0 ? tl_read_csr(paths[i], &A) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc) continue; /* the reader's own tests cover files it refuses */
        CHECK(all_parts(&A, paths[i]), "%s", paths[i]);
        hspmv_csr_free(&A);
    }
    tl_free_list(paths, n);
}

static void dist_matches_ref_on_bundled_matrices(void)
{
    char **paths;
    int n = tl_list_mtx("matrices", &paths);
    if (n <= 0) {
        SKIP("no matrices in matrices/");
        return;
    }
    for (int i = 0; i < n; i++) {
        hspmv_csr A = {0};
        int rc = me == 0 ? tl_read_csr(paths[i], &A) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(rc == 0, "%s unreadable", paths[i]);
        if (rc) continue;
        CHECK(all_parts(&A, paths[i]), "%s", paths[i]);
        hspmv_csr_free(&A);
    }
    tl_free_list(paths, n);
}

/* symmetric yes on a distributed matrix: each rank keeps the lower
   triangle of its rows (test_dist_sym.c checks that in detail), and the
   products stay right at every partition. */
static void dist_products_right_when_symmetric_is_asked(void)
{
    static const char *files[] = {"matrices/lap3d_12_sym.mtx", "matrices/banded_2000_w16.mtx"};
    ask_symmetric = HSPMV_SYMMETRIC_YES;
    for (int i = 0; i < 2; i++) {
        hspmv_csr A = {0};
        int rc = me == 0 ? tl_read_csr(files[i], &A) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(rc == 0, "%s unreadable", files[i]);
        if (!rc) CHECK(all_parts(&A, files[i]), "%s with symmetric yes", files[i]);
        hspmv_csr_free(&A);
    }
    ask_symmetric = HSPMV_SYMMETRIC_NO;
}

/* Generated on every rank alike (deterministic), used by rank 0. */
static void dist_works_with_more_ranks_than_rows(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 3, 3, NULL, 2, 0, 7);
    CHECK(all_parts(&A, "3x3 random"), "3x3");
    hspmv_csr_free(&A);
    tl_csr_random(&A, 1, 1, NULL, 1, 0, 8);
    CHECK(all_parts(&A, "1x1"), "1x1");
    hspmv_csr_free(&A);
    if (P == 1) SKIP("one rank is never more than the rows (the products checked)");
}

static void dist_handles_empty_rows_and_columns(void)
{
    int64_t n = 97, len[97];
    for (int64_t i = 0; i < n; i++) len[i] = (i % 5 == 0 || i > 80) ? 0 : 1 + i % 7;
    hspmv_csr A;
    tl_csr_random(&A, n, n, len, 0, 0, 11);
    /* empty columns too: drop every entry of columns 40..59 */
    int64_t out = 0, b = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = b; k < A.rowptr[i + 1]; k++)
            if (A.colind[k] < 40 || A.colind[k] >= 60) {
                A.colind[out] = A.colind[k];
                A.val[out++] = A.val[k];
            }
        b = A.rowptr[i + 1];
        A.rowptr[i + 1] = out;
    }
    A.nnz = out;
    CHECK(all_parts(&A, "empty rows and columns"), "empty");
    hspmv_csr_free(&A);
}

static void dist_handles_rectangular(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 37, 53, NULL, 5, 2, 12);
    CHECK(all_parts(&A, "37x53"), "wide");
    hspmv_csr_free(&A);
    tl_csr_random(&A, 61, 9, NULL, 3, 0, 13);
    CHECK(all_parts(&A, "61x9"), "tall");
    hspmv_csr_free(&A);
    /* METIS refuses it, with the same status everywhere */
    tl_csr_random(&A, 37, 53, NULL, 5, 2, 12);
    hspmv_opts o = opts(HSPMV_PART_METIS);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
    int r[2] = {rc, -rc}, g[2];
    MPI_Allreduce(r, g, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(rc == HSPMV_ERR_UNSUPPORTED && D == NULL && g[0] == -g[1], "rc %d: %s", rc, e.msg);
    hspmv_csr_free(&A);
}

static void dist_diagonal_has_no_halo(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 50, 50, NULL, 0, 0, 1);
    for (int64_t i = 0; i < 50; i++) A.rowptr[i + 1] = i + 1;
    hspmv_free(A.colind);
    hspmv_free(A.val);
    A.colind = hspmv_alloc_array(50, sizeof(int32_t));
    A.val = hspmv_alloc_array(50, sizeof(hspmv_real));
    for (int i = 0; i < 50; i++) {
        A.colind[i] = i;
        A.val[i] = 1.0 + i;
    }
    A.nnz = 50;
    hspmv_dist_info in;
    for (int part = 0; part < 3; part++) {
        CHECK(dist_matches(&A, part, "diagonal", &in), "diagonal %s", part_name[part]);
        CHECK(in.halo_total == 0, "diagonal %s: halo %lld", part_name[part], (long long)in.halo_total);
    }
    hspmv_csr_free(&A);
}

static void dist_handles_a_dense_row(void)
{
    int64_t n = 300, len[300];
    for (int64_t i = 0; i < n; i++) len[i] = i == 17 ? n : 3;
    hspmv_csr A;
    tl_csr_random(&A, n, n, len, 0, 0, 21);
    CHECK(all_parts(&A, "dense row"), "dense row");
    hspmv_csr_free(&A);
}

/* 1 on every rank when all ranks use the same kernel set for their owned
   and ghost blocks (compared by name). */
static int same_kernels_everywhere(const hspmv_csr *A)
{
    hspmv_opts o = opts(HSPMV_PART_NNZ);
    hspmv_dist *D = NULL;
    hspmv_dist_info in;
    char mine[2][16] = {"", ""}, all[2][16];
    int same = 1, every;
    if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D, NULL)) return 0;
    hspmv_dist_get_info(D, &in);
    if (in.nnz_owned > 0) snprintf(mine[0], 16, "%s", in.owned.isa);
    if (in.nnz_ghost > 0 && D->Lg) {
        hspmv_local_info gi;
        hspmv_local_get_info(D->Lg, &gi);
        snprintf(mine[1], 16, "%s", gi.isa);
    }
    for (int b = 0; b < 2; b++) { /* rank 0's names (or the first rank's that has the block) */
        memcpy(all[b], mine[b], 16);
        for (int r = 0; r < P; r++) {
            char theirs[16];
            memcpy(theirs, mine[b], 16);
            MPI_Bcast(theirs, 16, MPI_CHAR, r, MPI_COMM_WORLD);
            if (theirs[0] && !all[b][0]) memcpy(all[b], theirs, 16);
            if (theirs[0] && all[b][0] && strcmp(theirs, all[b])) same = 0;
        }
    }
    hspmv_dist_destroy(&D);
    MPI_Allreduce(&same, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!every && me == 0) fprintf(stderr, "  ranks use different kernel sets\n");
    return every;
}

/* Matrices big enough for kernel "auto" to time the kernel sets on every
   rank at once (a rank's owned block of 2^20 nonzeros or more, a ghost
   block of 2^15 or more) and for the owned block to come in several pieces:
   y against the reference, and one kernel set on all ranks. */
static void big_matrices_agree_on_kernels(void)
{
    hspmv_csr A = {0}, B = {0};
    int64_t n = 1250000, nz = 0;
    if (me == 0) { /* banded, two values (CSRVI): owned blocks of ~8.7M/P nonzeros */
        A.nrows = A.ncols = n;
        A.rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
        A.colind = hspmv_alloc_array((size_t)n * 7, sizeof(int32_t));
        A.val = hspmv_alloc_array((size_t)n * 7, sizeof(hspmv_real));
        A.rowptr[0] = 0;
        for (int64_t i = 0; i < n; i++) {
            for (int64_t j = i - 3; j <= i + 3; j++)
                if (j >= 0 && j < n) {
                    A.colind[nz] = (int32_t)j;
                    A.val[nz++] = j == i ? 6 : -1;
                }
            A.rowptr[i + 1] = nz;
        }
        A.nnz = nz;
        /* random columns, 7 distinct per row (tl_csr_random scans every
           column per row: too slow at this size): big ghost blocks */
        int64_t m = 600000, q = 0;
        uint64_t st = 77;
        B.nrows = B.ncols = m;
        B.nnz = m * 7;
        B.rowptr = hspmv_alloc_array((size_t)m + 1, sizeof(int64_t));
        B.colind = hspmv_alloc_array((size_t)m * 7, sizeof(int32_t));
        B.val = hspmv_alloc_array((size_t)m * 7, sizeof(hspmv_real));
        B.rowptr[0] = 0;
        for (int64_t i = 0; i < m; i++) {
            int32_t *c = B.colind + q;
            for (int k = 0; k < 7; k++) {
                int fresh;
                do { /* a column not yet in this row, then insertion into sorted place */
                    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                    c[k] = (int32_t)((st >> 33) % (uint64_t)m);
                    fresh = 1;
                    for (int t = 0; t < k; t++) fresh &= c[t] != c[k];
                } while (!fresh);
                for (int t = k; t > 0 && c[t - 1] > c[t]; t--) {
                    int32_t tmp = c[t];
                    c[t] = c[t - 1];
                    c[t - 1] = tmp;
                }
            }
            tl_fill(B.val + q, 7, (uint64_t)i + 1);
            q += 7;
            B.rowptr[i + 1] = q;
        }
    }
    CHECK(dist_matches(&A, HSPMV_PART_NNZ, "banded 1.25M, two values", NULL), "banded 1.25M");
    CHECK(same_kernels_everywhere(&A), "banded 1.25M: one kernel set on all ranks");
    CHECK(dist_matches(&B, HSPMV_PART_NNZ, "random 600k x 7", NULL), "random 600k");
    CHECK(same_kernels_everywhere(&B), "random 600k: one kernel set on all ranks");
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

/* Halo entries per SpMV, summed over ranks, for a file and a partition. */
static int64_t halo_of(const char *path, int part)
{
    hspmv_opts o = opts(part);
    hspmv_dist *D = NULL;
    hspmv_dist_info in;
    if (hspmv_dist_read(path, MPI_COMM_WORLD, &o, &D, NULL)) return -1;
    hspmv_dist_get_info(D, &in);
    hspmv_dist_destroy(&D);
    return in.halo_total;
}

static void metis_cuts_halo_volume(void)
{
    if (P < 4) {
        if (me == 0) SKIP("needs 4+ ranks (at 2-3 the natural strips are already near optimal)");
        return;
    }
    char real[2][512];
    snprintf(real[0], sizeof(real[0]), "%s/1138_bus.mtx", tl_shared_dir());
    snprintf(real[1], sizeof(real[1]), "%s/bayer10.mtx", tl_shared_dir());
    const char *files[] = {"matrices/lap2d_64.mtx", real[0], real[1]};
    for (int f = 0; f < 3; f++) {
        if (access(files[f], R_OK)) {
            if (me == 0) SKIP("%s missing", files[f]);
            continue;
        }
        int64_t hn = halo_of(files[f], HSPMV_PART_NNZ), hm = halo_of(files[f], HSPMV_PART_METIS);
        if (me == 0)
            printf("  halo volume %s at %d ranks: nnz %lld entries (%lld bytes), metis %lld entries (%lld bytes)\n",
                   files[f], P, (long long)hn, (long long)hn * (long long)sizeof(hspmv_real), (long long)hm,
                   (long long)hm * (long long)sizeof(hspmv_real));
        CHECK(hn > 0 && hm >= 0 && hm < hn, "%s: metis %lld vs nnz %lld", files[f], (long long)hm, (long long)hn);
    }
}

/* Every rank takes its own rows of the same matrix (int64 columns, shuffled
   within rows, one entry split into a duplicate pair) and must get the y of
   the file path with the rows partition. */
static void create_from_rows_matches_file_path(void)
{
    const char *path = "matrices/lap2d_64.mtx";
    hspmv_csr A = {0};
    if (tl_read_csr(path, &A)) {
        SKIP("%s missing", path);
        return;
    }
    hspmv_opts o = opts(HSPMV_PART_ROWS);
    hspmv_dist *Df = NULL, *Dr = NULL;
    hspmv_error e = {0, ""};
    CHECK(hspmv_dist_read(path, MPI_COMM_WORLD, &o, &Df, &e) == 0, "%s", e.msg);
    int64_t b = A.nrows * me / P, en = A.nrows * (me + 1) / P, nl = en - b, z0 = A.rowptr[b];
    int64_t z = A.rowptr[en] - z0;
    int64_t *rp = malloc(sizeof(int64_t) * (size_t)(nl + 1)), *ci = malloc(sizeof(int64_t) * (size_t)(z + 1));
    hspmv_real *v = malloc(sizeof(hspmv_real) * (size_t)(z + 1));
    int64_t k = 0;
    rp[0] = 0;
    for (int64_t i = b; i < en; i++) {
        int64_t n = A.rowptr[i + 1] - A.rowptr[i];
        for (int64_t q = n - 1; q >= 0; q--, k++) { /* reversed order */
            ci[k] = A.colind[A.rowptr[i] + q];
            v[k] = A.val[A.rowptr[i] + q];
        }
        if (i == b && n > 0) { /* split the first entry into two halves */
            v[k - 1] *= 0.5;
            ci[k] = ci[k - 1];
            v[k] = v[k - 1];
            k++;
        }
        rp[i - b + 1] = k;
    }
    int rc = hspmv_dist_create(MPI_COMM_WORLD, nl, A.ncols, -1, rp, ci, v, &o, &Dr, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (!rc && Df) {
        hspmv_real *x = hspmv_dist_vec_alloc(Dr, HSPMV_VEC_COLS, 1), *y1 = hspmv_dist_vec_alloc(Dr, HSPMV_VEC_ROWS, 1),
                   *y2 = hspmv_dist_vec_alloc(Df, HSPMV_VEC_ROWS, 1);
        hspmv_dist_info i1, i2;
        hspmv_dist_get_info(Df, &i1);
        hspmv_dist_get_info(Dr, &i2);
        CHECK(i1.row_begin == i2.row_begin && i1.nrows_local == i2.nrows_local && i1.nghost == i2.nghost,
              "layouts differ");
        tl_fill(x, i2.ncols_local, 100 + me);
        hspmv_dist_spmv(Dr, x, y1, &e);
        hspmv_dist_spmv(Df, x, y2, &e);
        double worst = 0;
        for (int64_t i = 0; i < i2.nrows_local; i++) {
            double d = fabs((double)y1[i] - (double)y2[i]), s = fabs((double)y2[i]) + 1e-300;
            if (d / s > worst) worst = d / s;
        }
        CHECK(worst <= 4 * hspmv_eps(), "rank %d: rows vs file path differ by %.3g", me, worst);
        CHECK(plan_ok(Dr, "create-from-rows"), "plan");
        hspmv_free(x);
        hspmv_free(y1);
        hspmv_free(y2);
    }
    /* a bad column on one rank is an argument error on every rank */
    if (z > 0 && me == P - 1) ci[0] = A.ncols + 5;
    hspmv_dist *Dbad = NULL;
    rc = hspmv_dist_create(MPI_COMM_WORLD, nl, A.ncols, -1, rp, ci, v, &o, &Dbad, &e);
    CHECK(rc == HSPMV_ERR_ARG && Dbad == NULL && strstr(e.msg, "outside"), "rc %d: %s", rc, e.msg);
    free(rp);
    free(ci);
    free(v);
    hspmv_dist_destroy(&Df);
    hspmv_dist_destroy(&Dr);
    hspmv_csr_free(&A);
}

/* Rectangular rows given by each rank with a chosen column layout: every x
   entry on the last rank (the others own none), y checked on rank 0. */
static void create_from_rows_with_own_column_layout(void)
{
    hspmv_csr A; /* the same matrix on every rank */
    tl_csr_random(&A, 37, 53, NULL, 5, 2, 12);
    int64_t b = A.nrows * me / P, en = A.nrows * (me + 1) / P, z = A.rowptr[en] - A.rowptr[b];
    int64_t *rp = malloc(sizeof(int64_t) * (size_t)(en - b + 1)), *ci = malloc(sizeof(int64_t) * (size_t)(z + 1));
    for (int64_t i = b; i <= en; i++) rp[i - b] = A.rowptr[i] - A.rowptr[b];
    for (int64_t k = 0; k < z; k++) ci[k] = A.colind[A.rowptr[b] + k];
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create(MPI_COMM_WORLD, en - b, A.ncols, me == P - 1 ? A.ncols : 0, rp, ci,
                               A.val + A.rowptr[b], NULL, &D, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (!rc) {
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        CHECK(in.ncols_local == (me == P - 1 ? A.ncols : 0), "ncols_local %lld", (long long)in.ncols_local);
        hspmv_real *x = malloc(sizeof(hspmv_real) * (size_t)A.ncols), *y = malloc(sizeof(hspmv_real) * (size_t)A.nrows);
        hspmv_real *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *yl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        tl_fill(x, A.ncols, 3);
        CHECK(hspmv_dist_scatter(D, HSPMV_VEC_COLS, x, xl, &e) == 0, "%s", e.msg);
        CHECK(hspmv_dist_spmv(D, xl, yl, &e) == 0, "%s", e.msg);
        CHECK(hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e) == 0, "%s", e.msg);
        if (me == 0) CHECK(tl_matches_ref(&A, x, y, "own column layout"), "y");
        CHECK(plan_ok(D, "own column layout"), "plan");
        free(x);
        free(y);
        hspmv_free(xl);
        hspmv_free(yl);
    }
    hspmv_dist_destroy(&D);
    /* layouts that do not add up are refused everywhere */
    rc = hspmv_dist_create(MPI_COMM_WORLD, en - b, A.ncols, 1, rp, ci, A.val + A.rowptr[b], NULL, &D, &e);
    CHECK((P == A.ncols) == (rc == 0), "rc %d: %s", rc, e.msg);
    hspmv_dist_destroy(&D);
    free(rp);
    free(ci);
    hspmv_csr_free(&A);
}

/* File-path METIS: the permutation is invisible through scatter/gather. */
static void scatter_gather_round_trip_with_metis(void)
{
    hspmv_opts o = opts(HSPMV_PART_METIS);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if (hspmv_dist_read("matrices/lap2d_64.mtx", MPI_COMM_WORLD, &o, &D, &e)) {
        SKIP("%s", e.msg);
        return;
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    hspmv_real *g = NULL, *g2 = NULL, *l = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(in.nrows_local + 1));
    if (me == 0) {
        g = malloc(sizeof(hspmv_real) * (size_t)in.nrows);
        g2 = malloc(sizeof(hspmv_real) * (size_t)in.nrows);
        for (int64_t i = 0; i < in.nrows; i++) g[i] = (hspmv_real)i;
    }
    CHECK(hspmv_dist_scatter(D, HSPMV_VEC_ROWS, g, l, &e) == 0, "%s", e.msg);
    hspmv_dist_get_file_index(D, HSPMV_VEC_ROWS, idx);
    for (int64_t i = 0; i < in.nrows_local; i++) CHECK(l[i] == (hspmv_real)idx[i], "row %lld", (long long)i);
    CHECK(hspmv_dist_gather(D, HSPMV_VEC_ROWS, l, g2, &e) == 0, "%s", e.msg);
    if (me == 0) CHECK(memcmp(g, g2, sizeof(hspmv_real) * (size_t)in.nrows) == 0, "round trip");
    CHECK(in.permuted == (P > 1), "permuted %d at %d ranks", in.permuted, P); /* 1 part: file order kept */
    free(g);
    free(g2);
    free(idx);
    hspmv_free(l);
    hspmv_dist_destroy(&D);
}

/* A create from rank 0's matrix (ctx), the n-th in a sweep: the partitions by turns. */
static int create_nth(void *ctx, int n, hspmv_dist **D, hspmv_error *e)
{
    hspmv_opts o = opts(n % 3);
    return hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? (const hspmv_csr *)ctx : NULL, &o, D, e);
}

/* The n-th allocation fails on the last rank: every rank must get the same
   NOMEM status and message, nobody hangs, and a later try succeeds. */
static void failed_allocation_is_every_ranks_error(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 200, 200, NULL, 6, 2, 5);
    mt_alloc_sweep("create from rank 0's matrix", create_nth, &A, 200, 6);
    hspmv_csr_free(&A);
}

MT_MAIN(NULL, dist_matches_ref_on_shared_matrices, dist_matches_ref_on_bundled_matrices,
        dist_works_with_more_ranks_than_rows, dist_handles_empty_rows_and_columns, dist_handles_rectangular,
        dist_products_right_when_symmetric_is_asked,
        dist_diagonal_has_no_halo, dist_handles_a_dense_row, metis_cuts_halo_volume, big_matrices_agree_on_kernels,
        create_from_rows_matches_file_path, create_from_rows_with_own_column_layout,
        scatter_gather_round_trip_with_metis, failed_allocation_is_every_ranks_error)
