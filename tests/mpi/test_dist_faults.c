/* test_dist_faults.c — hspmv_dist_create (each rank's own rows) under faults:
   ranks that disagree on ncols, a copy beyond what a rank can be given, and
   failed allocations must give every rank the same status and message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"
#include "util.h"

static int me, P;

/* This rank's rows of a small random matrix, global columns in int64, and
   the run's options (mt_opts). */
typedef struct rows {
    hspmv_csr A;
    int64_t nl, *rp, *ci;
    const hspmv_real *v;
    hspmv_opts o;
} rows;

static void rows_make(rows *R)
{
    tl_csr_random(&R->A, 40, 40, NULL, 4, 2, 17);
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

/* The last rank (then rank 0) says ncols + 1: every rank gets one message,
   comparing the odd rank with rank 0 ("rank 0 has 8, rank 0 has 8" was one
   rank's view before). */
static void ranks_that_disagree_on_ncols_get_one_message(void)
{
    rows R;
    rows_make(&R);
    for (int odd = P - 1; odd >= 0; odd -= P > 1 ? P - 1 : 1) {
        int64_t nc = R.A.ncols + (me == odd && P > 1);
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        int rc = hspmv_dist_create(MPI_COMM_WORLD, R.nl, nc, -1, R.rp, R.ci, R.v, &R.o, &D, &e);
        char want[128];
        if (odd == 0) snprintf(want, sizeof(want), "rank 0 has %lld, rank 1 has %lld", (long long)R.A.ncols + 1,
                               (long long)R.A.ncols);
        else snprintf(want, sizeof(want), "rank 0 has %lld, rank %d has %lld", (long long)R.A.ncols, odd,
                      (long long)R.A.ncols + 1);
        if (P == 1) CHECK(rc == HSPMV_OK && D, "one rank: %s", e.msg);
        else CHECK(rc == HSPMV_ERR_ARG && !D && strstr(e.msg, want), "rank %d: rc %d: '%s', want '%s'", me, rc, e.msg,
                   want);
        CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "rank %d: a message of its own: %s", me, e.msg);
        hspmv_dist_destroy(&D);
        if (P == 1) break;
    }
    if (P == 1) SKIP("one rank cannot disagree with itself (its create checked)");
    rows_free(&R);
}

/* A rank that cannot be given the copy of its rows refuses before copying,
   with the figure, and every rank returns that. */
static void create_from_rows_beyond_memory_is_every_ranks_error(void)
{
    rows R;
    rows_make(&R);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if (me == P - 1) hspmv_mem_test_bytes = 64; /* this rank "has" 64 bytes */
    int rc = hspmv_dist_create(MPI_COMM_WORLD, R.nl, R.A.ncols, -1, R.rp, R.ci, R.v, &R.o, &D, &e);
    hspmv_mem_test_bytes = 0;
    char want[64];
    snprintf(want, sizeof(want), "rank %d: a copy of its", P - 1);
    CHECK(rc == HSPMV_ERR_NOMEM && !D && strstr(e.msg, want) && strstr(e.msg, "GB, more than"), "rank %d: rc %d: %s",
          me, rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "rank %d: a message of its own: %s", me, e.msg);
    hspmv_dist_destroy(&D);
    rc = hspmv_dist_create(MPI_COMM_WORLD, R.nl, R.A.ncols, -1, R.rp, R.ci, R.v, &R.o, &D, &e);
    CHECK(rc == HSPMV_OK, "then: %s", e.msg);
    hspmv_dist_destroy(&D);
    rows_free(&R);
}

/* A create from this rank's rows (ctx), the n-th in a sweep. */
static int create_nth(void *ctx, int n, hspmv_dist **D, hspmv_error *e)
{
    const rows *R = ctx;
    (void)n;
    return hspmv_dist_create(MPI_COMM_WORLD, R->nl, R->A.ncols, -1, R->rp, R->ci, R->v, &R->o, D, e);
}

/* The n-th allocation of hspmv_dist_create fails on the last rank: the same
   NOMEM everywhere, nobody hangs, and a later try succeeds. */
static void create_from_rows_failed_allocation_is_every_ranks_error(void)
{
    rows R;
    rows_make(&R);
    mt_alloc_sweep("create from rows", create_nth, &R, 300, 6);
    rows_free(&R);
}

MT_MAIN(NULL, ranks_that_disagree_on_ncols_get_one_message, create_from_rows_beyond_memory_is_every_ranks_error,
        create_from_rows_failed_allocation_is_every_ranks_error)
