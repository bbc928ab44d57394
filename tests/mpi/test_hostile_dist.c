/* test_hostile_dist.c — the collective calls given what a hostile caller
   gives them: NULL blocks and vectors on every rank or on one, a NULL
   matrix handle on one rank, NULL getters, and files that are not matrices
   (a PETSc Vec, gzip with trailing garbage). Every rank must return, none
   may crash or hang (the runner's timeout catches a hang), and where the
   fault is on every rank every rank must say the same. */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"

static int me, P;

/* This rank's rows of a 60 x 60 random matrix, global int64 columns. */
typedef struct rows {
    hspmv_csr A;
    int64_t nl, *rp, *ci;
    const hspmv_real *v;
    hspmv_opts o;
} rows;

static void rows_make(rows *R)
{
    tl_csr_random(&R->A, 60, 60, NULL, 5, 2, 23);
    int64_t b = R->A.nrows * me / P, e = R->A.nrows * (me + 1) / P, z = R->A.rowptr[e] - R->A.rowptr[b];
    R->nl = e - b;
    R->rp = malloc(sizeof(int64_t) * (size_t)(R->nl + 1));
    R->ci = malloc(sizeof(int64_t) * (size_t)(z + 1));
    for (int64_t i = b; i <= e; i++) R->rp[i - b] = R->A.rowptr[i] - R->A.rowptr[b];
    for (int64_t k = 0; k < z; k++) R->ci[k] = R->A.colind[R->A.rowptr[b] + k];
    R->v = R->A.val + R->A.rowptr[b];
    mt_opts(&R->o);
}

static void rows_free(rows *R)
{
    free(R->rp);
    free(R->ci);
    hspmv_csr_free(&R->A);
}

static hspmv_dist *make(rows *R)
{
    hspmv_dist *D = NULL;
    hspmv_error e;
    rows_make(R);
    int rc = hspmv_dist_create(MPI_COMM_WORLD, R->nl, R->A.ncols, -1, R->rp, R->ci, R->v, &R->o, &D, &e);
    CHECK(rc == HSPMV_OK && D, "create: %d %s", rc, e.msg);
    return D;
}

/* 1 on every rank when every rank's rc is `want`. */
static int all_are(int rc, int want)
{
    int bad = rc != want, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

/* Issue 51 item 6: NULL X (or Y, or D) on every rank is every rank's
   HSPMV_ERR_ARG (it segfaulted on every rank). */
static void null_blocks_on_every_rank_are_refused_everywhere(void)
{
    rows R;
    hspmv_dist *D = make(&R);
    hspmv_dist_info in;
    hspmv_error e;
    if (!D) return;
    hspmv_dist_get_info(D, &in);
    hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 2), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 2);
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    int rc = hspmv_dist_spmm(D, 0, 2, NULL, Y, &e);
    int want = in.ncols_local > 0 ? HSPMV_ERR_ARG : HSPMV_OK; /* a part of no entries needs no array */
    CHECK(rc == want && (!rc || strstr(e.msg, "X is NULL")), "spmm NULL X: %d %s", rc, e.msg);
    rc = hspmv_dist_spmm(D, HSPMV_COL_MAJOR, 2, X, NULL, &e);
    want = in.nrows_local > 0 ? HSPMV_ERR_ARG : HSPMV_OK;
    CHECK(rc == want && (!rc || strstr(e.msg, "Y is NULL")), "spmm col-major NULL Y: %d %s", rc, e.msg);
    rc = hspmv_dist_spmv(D, NULL, y, &e);
    want = in.ncols_local > 0 ? HSPMV_ERR_ARG : HSPMV_OK;
    CHECK(rc == want && (!rc || strstr(e.msg, "x is NULL")), "spmv NULL x: %d %s", rc, e.msg);
    rc = hspmv_dist_spmv_scaled(D, 2, x, 1, NULL, &e);
    want = in.nrows_local > 0 ? HSPMV_ERR_ARG : HSPMV_OK;
    CHECK(rc == want && (!rc || strstr(e.msg, "y is NULL")), "spmv_scaled NULL y: %d %s", rc, e.msg);
    rc = hspmv_dist_spmm(D, HSPMV_TRANSPOSE, 2, NULL, X, &e); /* A^T: X is y-like */
    want = in.nrows_local > 0 ? HSPMV_ERR_ARG : HSPMV_OK;
    CHECK(rc == want && (!rc || strstr(e.msg, "X is NULL")), "transposed NULL X: %d %s", rc, e.msg);
    CHECK(hspmv_dist_spmv(NULL, x, y, &e) == HSPMV_ERR_ARG && strstr(e.msg, "D is NULL"), "spmv NULL D: %s", e.msg);
    CHECK(hspmv_dist_spmm(NULL, 0, 2, X, Y, &e) == HSPMV_ERR_ARG, "spmm NULL D");
    CHECK(hspmv_dist_spmv_scaled(NULL, 1, x, 0, y, &e) == HSPMV_ERR_ARG, "scaled NULL D");
    CHECK(hspmv_dist_spmm(D, 0, 0, X, Y, &e) == HSPMV_ERR_ARG, "spmm k = 0");
    CHECK(hspmv_dist_spmm(D, 64, 2, X, Y, &e) == HSPMV_ERR_ARG, "spmm unknown flag");
    /* the matrix still multiplies right afterwards */
    tl_fill(x, in.ncols_local, 5);
    rc = hspmv_dist_spmv(D, x, y, &e);
    hspmv_real *xg = malloc(sizeof(hspmv_real) * 60), *yg = malloc(sizeof(hspmv_real) * 60);
    int rc2 = hspmv_dist_gather(D, HSPMV_VEC_COLS, x, xg, &e);
    int rc3 = hspmv_dist_gather(D, HSPMV_VEC_ROWS, y, yg, &e);
    int ok = me != 0 || (rc == 0 && rc2 == 0 && rc3 == 0 && tl_matches_ref(&R.A, xg, yg, "after the refusals"));
    CHECK(ok, "product after the refusals: %d %d %d", rc, rc2, rc3);
    free(xg);
    free(yg);
    hspmv_free(X);
    hspmv_free(Y);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_dist_destroy(&D);
    rows_free(&R);
}

/* A NULL x on the last rank only: that rank's HSPMV_ERR_ARG, the others
   return (nobody waits for its part of the exchange), and where their rows
   read its x the result is NaN, never a silent number. */
static void null_x_on_one_rank_is_its_error_without_a_hang(void)
{
    rows R;
    hspmv_dist *D = make(&R);
    hspmv_dist_info in;
    hspmv_error e;
    if (!D) return;
    hspmv_dist_get_info(D, &in);
    int odd = P - 1, cols_odd = 0;
    int64_t n_odd = me == odd ? in.ncols_local : 0, sum;
    MPI_Allreduce(&n_odd, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    cols_odd = sum > 0;
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 3), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 3);
    tl_fill(x, in.ncols_local, 9);
    tl_fill(X, 3 * in.ncols_local, 9);
    int rc = hspmv_dist_spmv(D, me == odd ? NULL : x, y, &e);
    if (me == odd) CHECK(rc == (cols_odd ? HSPMV_ERR_ARG : HSPMV_OK), "odd rank: %d %s", rc, e.msg);
    else CHECK(rc == HSPMV_OK, "rank %d: %d %s", me, rc, e.msg);
    /* rows reading the odd rank's x: NaN; gathered on rank 0 to look */
    hspmv_real *yg = malloc(sizeof(hspmv_real) * 60);
    hspmv_dist_gather(D, HSPMV_VEC_ROWS, y, yg, &e);
    if (me == 0 && cols_odd) {
        int64_t c0 = 60 * odd / P, nan_rows = 0, reading = 0; /* square, default layout: columns like rows */
        for (int64_t i = 0; i < R.A.nrows; i++) {
            int reads = 0;
            for (int64_t k = R.A.rowptr[i]; k < R.A.rowptr[i + 1]; k++) reads |= R.A.colind[k] >= c0;
            reading += reads;
            nan_rows += reads && isnan(yg[i]);
        }
        CHECK(reading > 0 && nan_rows == reading, "%lld of %lld rows reading the odd rank's x are NaN",
              (long long)nan_rows, (long long)reading);
    }
    rc = hspmv_dist_spmm(D, 0, 3, X, me == odd ? NULL : Y, &e);
    if (me == odd) CHECK(rc == (in.nrows_local > 0 ? HSPMV_ERR_ARG : HSPMV_OK), "odd rank, NULL Y: %d %s", rc, e.msg);
    else CHECK(rc == HSPMV_OK, "rank %d, the odd one's Y NULL: %d %s", me, rc, e.msg);
    free(yg);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(X);
    hspmv_free(Y);
    hspmv_dist_destroy(&D);
    rows_free(&R);
}

/* A NULL D (the output handle) on one rank of a create: every rank fails
   with the same message, and nobody hangs in the steps after. */
static void null_handle_on_one_rank_fails_every_create(void)
{
    rows R;
    hspmv_dist *D = NULL;
    hspmv_error e;
    rows_make(&R);
    int rc = hspmv_dist_create(MPI_COMM_WORLD, R.nl, R.A.ncols, -1, R.rp, R.ci, R.v, &R.o, me == P - 1 ? NULL : &D, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !D, "create: %d %s", rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "create: ranks disagree");
    CHECK(strstr(e.msg, "D is NULL"), "create: %s", e.msg);
    rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &R.A : NULL, &R.o, me == P - 1 ? NULL : &D, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !D, "create_root: %d %s", rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "create_root: ranks disagree");
    rc = hspmv_dist_create_root(MPI_COMM_WORLD, NULL, &R.o, &D, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !D && !mt_errors_differ(rc, e.msg, D != NULL), "create_root NULL A: %s", e.msg);
    rows_free(&R);
}

/* The getters take NULL; view with a NULL file is still collective. */
static void getters_take_null(void)
{
    rows R;
    hspmv_dist *D = make(&R);
    hspmv_dist_info in;
    hspmv_dist_timing t;
    if (!D) return;
    memset(&in, 0xff, sizeof(in));
    hspmv_dist_get_info(NULL, &in);
    CHECK(in.nrows == 0 && in.nranks == 0, "info of NULL zeroed");
    hspmv_dist_get_info(D, NULL);
    hspmv_dist_get_ranges(NULL, NULL, NULL);
    hspmv_dist_get_file_index(NULL, HSPMV_VEC_ROWS, NULL);
    hspmv_dist_get_file_index(D, HSPMV_VEC_ROWS, NULL);
    hspmv_dist_get_file_index(D, 7, NULL);
    CHECK(hspmv_dist_get_comm(NULL) == MPI_COMM_NULL, "comm of NULL");
    memset(&t, 0xff, sizeof(t));
    hspmv_dist_get_timing(NULL, &t, 1);
    CHECK(t.calls == 0, "timing of NULL zeroed");
    hspmv_dist_get_timing(D, NULL, 1);
    hspmv_dist_view(NULL, stdout);
    hspmv_dist_view(D, NULL);
    CHECK(hspmv_dist_vec_alloc(NULL, HSPMV_VEC_ROWS, 1) == NULL, "vec_alloc NULL D");
    CHECK(hspmv_dist_vec_alloc(D, 9, 1) == NULL, "vec_alloc which 9");
    hspmv_dist_destroy(&D);
    hspmv_dist_destroy(&D);
    hspmv_dist_destroy(NULL);
    rows_free(&R);
}

/* Issue 51 items 11 and 14 through the distributed reader: every rank
   gets the named fault. */
static void vec_file_and_gzip_garbage_read_give_every_rank_the_fault(void)
{
    static const unsigned char vec[] = {0x00, 0x12, 0x7b, 0x4e, 0, 0, 0, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    /* gzip of "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n" + "xyz" */
    static const unsigned char gz[] = {
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x53, 0x55, 0xf5, 0x4d, 0x2c, 0x29, 0xca, 0xac,
        0xf0, 0x4d, 0x2c, 0xca, 0x4e, 0x2d, 0x51, 0xc8, 0x05, 0x73, 0x14, 0x92, 0xf3, 0xf3, 0x8b, 0x52, 0x32, 0xf3,
        0x12, 0x4b, 0x52, 0x15, 0x8a, 0x52, 0x13, 0x73, 0x14, 0xd2, 0x53, 0xf3, 0x52, 0x8b, 0x12, 0x73, 0xb8, 0x0c,
        0x15, 0x80, 0x10, 0x4c, 0x1a, 0x71, 0x01, 0x00, 0xbf, 0x2e, 0xb3, 0xa0, 0x3a, 0x00, 0x00, 0x00, 'x', 'y', 'z'};
    char *p = mt_shared_file(vec, sizeof(vec), 0);
    hspmv_dist *D = NULL;
    hspmv_error e;
    hspmv_opts o;
    mt_opts(&o);
    int rc = p ? hspmv_dist_read(p, MPI_COMM_WORLD, &o, &D, &e) : -1;
    CHECK(all_are(rc, HSPMV_ERR_FORMAT) && !D && strstr(e.msg, "PETSc class id 1211214 (a Vec)"), "vec: %d %s", rc,
          e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "vec: ranks disagree");
    mt_drop_file(p);
    p = mt_shared_file(gz, sizeof(gz), 0);
    rc = p ? hspmv_dist_read(p, MPI_COMM_WORLD, &o, &D, &e) : -1;
#ifdef HSPMV_NO_ZLIB
    CHECK(all_are(rc, HSPMV_ERR_UNSUPPORTED), "no zlib: %d %s", rc, e.msg);
#else
    CHECK(all_are(rc, HSPMV_ERR_FORMAT) && !D && strstr(e.msg, "corrupt gzip data: trailing bytes"), "gz: %d %s", rc,
          e.msg);
#endif
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "gz: ranks disagree");
    mt_drop_file(p);
    rc = hspmv_dist_read(NULL, MPI_COMM_WORLD, &o, &D, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !D && !mt_errors_differ(rc, e.msg, D != NULL), "NULL path: %d %s", rc, e.msg);
}

/* Bad arguments alike on every rank, to every other collective call: the
   same refusal everywhere, nothing left behind, nobody waits. */
static void other_collectives_refuse_bad_arguments_on_every_rank(void)
{
    rows R;
    hspmv_dist *D = NULL;
    hspmv_error e;
    hspmv_opts o;
    hspmv_csr rows_out;
    int64_t rs[9];
    rows_make(&R);
    /* options the one-rank create refuses are every rank's refusal */
    for (int c = 0; c < 7; c++) {
        mt_opts(&o);
        const char *what[] = {"threads", "format", "halo", "csrl", "kernel", "node_ranks", "partition"};
        if (c == 0) o.threads = 100000;
        if (c == 1) o.format = 99;
        if (c == 2) o.halo = 9;
        if (c == 3) o.csrl_threshold = NAN;
        if (c == 4) o.kernel = "bogus";
        if (c == 5) o.node_ranks = -2;
        if (c == 6) o.partition = 9;
        int rc = c == 6 ? hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &R.A : NULL, &o, &D, &e)
                        : hspmv_dist_create(MPI_COMM_WORLD, R.nl, R.A.ncols, -1, R.rp, R.ci, R.v, &o, &D, &e);
        CHECK(rc != HSPMV_OK && !D && !mt_errors_differ(rc, e.msg, D != NULL), "%s: %d %s", what[c], rc, e.msg);
        hspmv_dist_destroy(&D);
    }
    mt_opts(&o);
    /* the writer: no rows, no name, odd integer widths */
    int rc = hspmv_dist_write_petsc("/tmp/hspmv_hostile_never.petsc", MPI_COMM_WORLD, NULL, 4, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "write NULL rows: %d %s", rc, e.msg);
    hspmv_csr mine = {0, R.A.ncols, 0, NULL, NULL, NULL};
    rc = hspmv_dist_write_petsc(NULL, MPI_COMM_WORLD, &mine, 4, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "write NULL path: %d %s", rc, e.msg);
    rc = hspmv_dist_write_petsc("/tmp/hspmv_hostile_never.petsc", MPI_COMM_WORLD, &mine, 3, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "write 3-byte ints: %d %s", rc, e.msg);
    rc = hspmv_dist_write_petsc("/tmp/hspmv_hostile_never.petsc", MPI_COMM_NULL, &mine, 4, &e);
    CHECK(rc == HSPMV_ERR_ARG, "write MPI_COMM_NULL: %d %s", rc, e.msg);
    /* the row reader and the readers' communicator */
    rc = hspmv_dist_read_rows("/tmp/x.mtx", MPI_COMM_WORLD, &o, NULL, rs, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG), "read_rows NULL rows: %d %s", rc, e.msg);
    rc = hspmv_dist_read_rows(NULL, MPI_COMM_WORLD, &o, &rows_out, P < 8 ? rs : NULL, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "read_rows NULL path: %d %s", rc, e.msg);
    hspmv_csr_free(&rows_out);
    rc = hspmv_dist_read("/tmp/x.mtx", MPI_COMM_NULL, &o, &D, &e);
    CHECK(rc == HSPMV_ERR_ARG && !D, "read MPI_COMM_NULL: %d %s", rc, e.msg);
    rc = hspmv_dist_read("/tmp/x.mtx", MPI_COMM_WORLD, &o, NULL, &e);
    CHECK(all_are(rc, HSPMV_ERR_ARG), "read NULL D: %d %s", rc, e.msg);
    /* the solver: NULL b or x with entries, bad options */
    D = make(&R);
    if (D) {
        hspmv_dist_info in;
        hspmv_solver_opts so;
        hspmv_dist_get_info(D, &in);
        hspmv_real *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1), *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
        rc = hspmv_solve(D, NULL, x, NULL, NULL, &e);
        CHECK(all_are(rc, P * 60 > 0 && R.A.nrows > 0 ? HSPMV_ERR_ARG : rc) && !mt_errors_differ(rc, e.msg, 0),
              "solve NULL b: %d %s", rc, e.msg);
        rc = hspmv_solve(D, b, NULL, NULL, NULL, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "solve NULL x: %d %s", rc, e.msg);
        hspmv_solver_opts_default(&so);
        so.tol = NAN;
        rc = hspmv_solve(D, b, x, &so, NULL, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "solve tol NaN: %d %s", rc, e.msg);
        hspmv_solver_opts_default(&so);
        so.maxit = -1;
        rc = hspmv_solve(D, b, x, &so, NULL, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "solve maxit -1: %d %s", rc, e.msg);
        hspmv_solver_opts_default(&so);
        so.method = 42;
        rc = hspmv_solve(D, b, x, &so, NULL, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "solve method 42: %d %s", rc, e.msg);
        hspmv_solver_opts_default(&so);
        so.history_len = 5; /* and no history array */
        rc = hspmv_solve(D, b, x, &so, NULL, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "solve history NULL, len 5: %d %s", rc,
              e.msg);
        rc = hspmv_solve(NULL, b, x, NULL, NULL, &e);
        CHECK(rc == HSPMV_ERR_ARG, "solve NULL D: %d %s", rc, e.msg);
        rc = hspmv_dist_scatter(D, HSPMV_VEC_ROWS, NULL, b, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "scatter NULL global: %d %s", rc, e.msg);
        rc = hspmv_dist_gather(D, 5, b, NULL, &e);
        CHECK(all_are(rc, HSPMV_ERR_ARG) && !mt_errors_differ(rc, e.msg, 0), "gather which 5: %d %s", rc, e.msg);
        hspmv_free(b);
        hspmv_free(x);
        hspmv_dist_destroy(&D);
    }
    rows_free(&R);
    hspmv_opts_default(NULL);
    hspmv_solver_opts_default(NULL);
}

/* hspmv_dist_info.oversubscribed and its figures: the threads of this
   machine's ranks (each the threads it was asked for) against the union of their affinity masks, counted here
   on their own (sched_getaffinity), the most oversubscribed machine's. */
static void oversubscription_is_told_as_the_machine_counts_it(void)
{
    rows R;
    hspmv_dist *D = make(&R);
    hspmv_dist_info in;
    if (!D) return;
    hspmv_dist_get_info(D, &in);
    cpu_set_t set, all;
    CPU_ZERO(&set);
    CHECK(sched_getaffinity(0, sizeof(set), &set) == 0, "sched_getaffinity");
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
    MPI_Allreduce(&set, &all, (int)sizeof(set), MPI_BYTE, MPI_BOR, shared);
    int t = R.o.threads > 0 ? R.o.threads : omp_get_max_threads(), sum = 0, cpus = CPU_COUNT(&all);
    MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, shared);
    MPI_Comm_free(&shared);
    int over = sum > cpus, any;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(in.oversubscribed == any, "oversubscribed %d, counted %d (%d threads on %d processors here)",
          in.oversubscribed, any, sum, cpus);
    CHECK(!any || in.node_threads > in.node_cpus, "figures %d threads on %d processors", in.node_threads, in.node_cpus);
    CHECK(any || (in.node_threads == sum && in.node_cpus == cpus), "figures %d on %d, counted %d on %d",
          in.node_threads, in.node_cpus, sum, cpus);
    hspmv_dist_destroy(&D);
    rows_free(&R);
}

MT_MAIN(NULL, null_blocks_on_every_rank_are_refused_everywhere, null_x_on_one_rank_is_its_error_without_a_hang,
        null_handle_on_one_rank_fails_every_create, getters_take_null,
        vec_file_and_gzip_garbage_read_give_every_rank_the_fault, other_collectives_refuse_bad_arguments_on_every_rank,
        oversubscription_is_told_as_the_machine_counts_it)
