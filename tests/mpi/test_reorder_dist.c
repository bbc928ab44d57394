/* test_reorder_dist.c — hspmv_opts.reorder on a distributed matrix: not
   done yet, so every reorder other than none is refused with the same
   HSPMV_ERR_UNSUPPORTED and message on every rank and no matrix left
   behind; reorder none still makes the matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"

static int me, P;

static void dist_reorder_is_refused_on_every_rank(void)
{
    hspmv_csr A = {0};
    if (me == 0) CHECK(tl_csr_random(&A, 60, 60, NULL, 4, 0, 3) == HSPMV_OK, "random");
    for (int m = HSPMV_REORDER_NONE; m <= HSPMV_REORDER_AUTO; m++) {
        hspmv_opts o;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        hspmv_opts_default(&o);
        o.threads = 1;
        o.reorder = m;
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
        if (m == HSPMV_REORDER_NONE) CHECK(rc == HSPMV_OK && D, "reorder none: %s", e.msg);
        else CHECK(rc == HSPMV_ERR_UNSUPPORTED && !D && strstr(e.msg, "not done for distributed"), "reorder %d: %d %s",
                   m, rc, e.msg);
        CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "reorder %d: ranks disagree", m);
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
}

MT_MAIN(NULL, dist_reorder_is_refused_on_every_rank)
