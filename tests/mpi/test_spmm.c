/* test_spmm.c — the distributed block product Y = A X (hspmv_dist_spmm, not
   transposed) against the long-double reference, vector by vector: k of
   1, 2, 3, 8 and 17, row- and column-major blocks, square, rectangular and
   stencil matrices (compressed ghost rows), in the run's halo mode; and a
   failed allocation of the first call's buffers on one rank is every
   rank's error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "mpitest.h"
#include "node.h"
#include "testlib.h"
#include "util.h"

static int me, P;
static const int ks[] = {1, 2, 3, 8, 17, 2}; /* the last: a smaller k after a larger one */

/* 2D 5-point Laplacian on an m x m grid (its ghost blocks keep a few rows);
   integer: off-diagonals -1 (products of small integers stay exact), else
   random in [-1.5, -0.5). */
static void lap2d(hspmv_csr *A, int64_t m, int integer)
{
    int64_t n = m * m, z = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc(sizeof(int64_t) * (size_t)(n + 1));
    A->colind = hspmv_malloc(sizeof(int32_t) * (size_t)(5 * n));
    A->val = hspmv_malloc(sizeof(hspmv_real) * (size_t)(5 * n));
    uint64_t s = 5;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i / m, c = i % m, nb[5] = {i - m, i - 1, i, i + 1, i + m};
        int ok[5] = {r > 0, c > 0, 1, c < m - 1, r < m - 1};
        A->rowptr[i] = z;
        for (int t = 0; t < 5; t++)
            if (ok[t]) {
                A->colind[z] = (int32_t)nb[t];
                A->val[z++] = t == 2 ? 4 : integer ? -1 : (hspmv_real)tl_uniform(&s, -1.5, -0.5);
            }
    }
    A->rowptr[n] = A->nnz = z;
}

/* One block product of k vectors (layout col or row) on D, checked column
   by column on rank 0; 1 on every rank when right. Xg: k global x vectors
   one after another (every rank has them; rows are not renumbered, so
   rank r's x part starts at col_start[r]). One gather per block: the
   tests run oversubscribed, where each collective costs milliseconds. */
static int block_matches(hspmv_dist *D, const hspmv_csr *A, int k, int col, const hspmv_real *Xg, const char *what)
{
    int64_t nc = D->ncols_local, nr = D->nrows_local, n = A->ncols, m = A->nrows;
    int64_t *rs = malloc(sizeof(int64_t) * (size_t)(P + 1)), *cs = malloc(sizeof(int64_t) * (size_t)(P + 1));
    int *cnt = malloc(sizeof(int) * (size_t)P), *dsp = malloc(sizeof(int) * (size_t)P), ok = 1;
    hspmv_error e = {0, ""};
    hspmv_dist_get_ranges(D, rs, cs);
    hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, k), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, k);
    hspmv_real *Yc = hspmv_alloc_array((size_t)(nr * k + 1), sizeof(hspmv_real));
    hspmv_real *all = me == 0 ? hspmv_alloc_array((size_t)(m * k + 1), sizeof(hspmv_real)) : NULL;
    hspmv_real *yg = me == 0 ? hspmv_alloc_array((size_t)m + 1, sizeof(hspmv_real)) : NULL;
    for (int j = 0; j < k; j++)
        for (int64_t i = 0; i < nc; i++) X[col ? j * nc + i : i * k + j] = Xg[j * n + cs[me] + i];
    tl_fill_nan(Y, nr * k); /* every entry must be written */
    int rc = HSPMV_OK;
    hspmv_dist_timing t0, t1;
    hspmv_dist_get_timing(D, &t0, 0);
    for (int rep = 0; rep < 2 && !rc; rep++) rc = hspmv_dist_spmm(D, col ? HSPMV_COL_MAJOR : 0, k, X, Y, &e);
    if (rc) fprintf(stderr, "rank %d: %s k=%d: %s\n", me, what, k, e.msg);
    ok &= rc == HSPMV_OK;
    /* the path: a row-major block is one call (halo node: through the window of k-wide vectors), a
       column-major one k calls of hspmv_dist_spmv */
    hspmv_dist_get_timing(D, &t1, 0);
    int64_t calls = col ? 2 * k : 2;
    if (!rc && t1.calls - t0.calls != calls) {
        fprintf(stderr, "rank %d: %s k=%d: %lld calls timed, not %lld\n", me, what, k,
                (long long)(t1.calls - t0.calls), (long long)calls);
        ok = 0;
    }
    if (!rc && !col && k > 1 && D->halo == HSPMV_HALO_NODE && !(D->node->wide && D->node->wide->k >= k)) {
        fprintf(stderr, "rank %d: %s k=%d: the node window holds no block of %d vectors\n", me, what, k, k);
        ok = 0;
    }
    for (int j = 0; j < k; j++) /* this rank's rows, vector after vector */
        for (int64_t i = 0; i < nr; i++) Yc[j * nr + i] = Y[col ? j * nr + i : i * k + j];
    for (int q = 0; q < P; q++) {
        cnt[q] = (int)((rs[q + 1] - rs[q]) * k);
        dsp[q] = (int)(rs[q] * k);
    }
    MPI_Gatherv(Yc, (int)(nr * k), HSPMV_MPI_REAL, all, cnt, dsp, HSPMV_MPI_REAL, 0, MPI_COMM_WORLD);
    for (int j = 0; me == 0 && j < k; j++) {
        char w[160];
        for (int q = 0; q < P; q++)
            for (int64_t i = rs[q]; i < rs[q + 1]; i++) yg[i] = all[rs[q] * k + j * (rs[q + 1] - rs[q]) + i - rs[q]];
        snprintf(w, sizeof(w), "%s k=%d %s vector %d", what, k, col ? "col-major" : "row-major", j);
        ok &= tl_matches_ref(A, Xg + (int64_t)j * n, yg, w);
    }
    hspmv_free(X);
    hspmv_free(Y);
    hspmv_free(Yc);
    hspmv_free(all);
    hspmv_free(yg);
    free(rs);
    free(cs);
    free(cnt);
    free(dsp);
    int every;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return every;
}

/* The run's options (mt_opts), and halo "p2p" when the run's mode is
   another: the two paths of the block product (tests/mpi/run.sh runs
   halo p2p for test_dist only). 1 when there is a mode h. */
static int halo_opts(int h, hspmv_opts *o)
{
    mt_opts(o);
    if (h == 1 && o->halo == HSPMV_HALO_P2P) return 0;
    if (h == 1) o->halo = HSPMV_HALO_P2P;
    return 1;
}

/* Every k in both layouts on A (every rank generates it; rank 0's is
   distributed), with the options op. */
static int matrix_matches_in(const hspmv_csr *A, const char *what, const hspmv_opts *op)
{
    hspmv_opts o = *op;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D, &e)) {
        if (me == 0) fprintf(stderr, "  %s: create failed: %s\n", what, e.msg);
        return 0;
    }
    int ok = 1;
    hspmv_real *Xg = hspmv_alloc_array((size_t)(A->ncols * 17 + 1), sizeof(hspmv_real));
    tl_fill(Xg, A->ncols * 17, 7);
    for (int col = 0; col <= 1; col++)
        for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) ok &= block_matches(D, A, ks[i], col, Xg, what);
    hspmv_free(Xg);
    hspmv_dist_destroy(&D);
    if (!ok && me == 0)
        fprintf(stderr, "  %s (%d ranks, halo %s) wrong\n", what, P, o.halo == HSPMV_HALO_P2P ? "p2p" : "default");
    return ok;
}

static int matrix_matches(const hspmv_csr *A, const char *what)
{
    hspmv_opts o;
    int ok = 1;
    for (int h = 0; h < 2; h++)
        if (halo_opts(h, &o)) ok &= matrix_matches_in(A, what, &o);
    return ok;
}

static void spmm_matches_ref_square_and_stencil(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 97, 97, NULL, 5, 2, 21);
    CHECK(matrix_matches(&A, "random 97x97"), "square");
    hspmv_csr_free(&A);
    lap2d(&A, 14, 0);
    CHECK(matrix_matches(&A, "lap2d 14x14"), "stencil");
    hspmv_csr_free(&A);
}

static void spmm_matches_ref_rectangular(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 37, 53, NULL, 5, 2, 12);
    CHECK(matrix_matches(&A, "random 37x53"), "wide");
    hspmv_csr_free(&A);
    tl_csr_random(&A, 61, 9, NULL, 3, 0, 13);
    CHECK(matrix_matches(&A, "random 61x9"), "tall");
    hspmv_csr_free(&A);
}

/* The chain's vectors: a one-vector x (hspmv_dist_vec_alloc's: a window
   vector where the plan lends them) and row-major blocks of 3 and 8, each
   step one product of one of them: one-vector and block calls alternate,
   a block call follows a one-vector call on a window vector, k grows and
   shrinks. */
static const int chain_step[] = {0, 1, 2, 1, 0, 2, 2, 0, 1, 1, 0, 2};
static const int chain_k[3] = {1, 3, 8};

/* Exact integer arithmetic (A: integer values): v <- A*v - 3*v + ((t + j) mod 3)
   for vector j of the chain's vector of step t, back to back, each input
   overwritten as soon as its call returns and no collective in between;
   then compared bit for bit with the serial recurrence. A rank that
   rewrote its part of the node's window while another still read it, or a
   flag of one kind of call taken for the other's, would show. */
static int chain_ok(hspmv_dist *D, const hspmv_csr *A, const char *what)
{
    int64_t nl = D->ncols_local, n = A->nrows, steps = (int64_t)(sizeof(chain_step) / sizeof(chain_step[0]));
    hspmv_real *v[3], *y[3], *got = NULL, *col = hspmv_alloc_array((size_t)nl + 1, sizeof(hspmv_real));
    hspmv_real *ref[3] = {NULL, NULL, NULL}, *tmp = NULL;
    int64_t *fi = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    int ok = 1;
    hspmv_dist_get_file_index(D, HSPMV_VEC_COLS, fi);
    for (int b = 0; b < 3; b++) {
        int k = chain_k[b];
        v[b] = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, k);
        y[b] = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, k);
        for (int64_t i = 0; i < nl; i++)
            for (int j = 0; j < k; j++) v[b][i * k + j] = (hspmv_real)((fi[i] + j) % 5 - 2);
    }
    for (int64_t t = 0; t < steps; t++) {
        int b = chain_step[t], k = chain_k[b];
        hspmv_real *x = v[b], *yb = y[b];
        int rc = k == 1 ? hspmv_dist_spmv(D, x, yb, NULL) : hspmv_dist_spmm(D, 0, k, x, yb, NULL);
        ok &= rc == HSPMV_OK;
        for (int64_t i = 0; i < nl; i++) /* at once: a rank of the node may still be in this product */
            for (int j = 0; j < k; j++) x[i * k + j] = yb[i * k + j] - 3 * x[i * k + j] + (hspmv_real)((t + j) % 3);
    }
    if (me == 0) { /* the serial recurrence, vector by vector */
        got = malloc(sizeof(hspmv_real) * (size_t)(n + 1));
        tmp = malloc(sizeof(hspmv_real) * (size_t)(n + 1));
        for (int b = 0; b < 3; b++) {
            int k = chain_k[b];
            ref[b] = malloc(sizeof(hspmv_real) * (size_t)(n * k + 1));
            for (int j = 0; j < k; j++)
                for (int64_t i = 0; i < n; i++) ref[b][j * n + i] = (hspmv_real)((i + j) % 5 - 2);
        }
        for (int64_t t = 0; t < steps; t++) {
            int b = chain_step[t];
            for (int j = 0; j < chain_k[b]; j++) {
                hspmv_real *xs = ref[b] + j * n;
                for (int64_t i = 0; i < n; i++) {
                    hspmv_real s = 0;
                    for (int64_t a = A->rowptr[i]; a < A->rowptr[i + 1]; a++) s += A->val[a] * xs[A->colind[a]];
                    tmp[i] = s;
                }
                for (int64_t i = 0; i < n; i++) xs[i] = tmp[i] - 3 * xs[i] + (hspmv_real)((t + j) % 3);
            }
        }
    }
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < chain_k[b]; j++) {
            for (int64_t i = 0; i < nl; i++) col[i] = v[b][i * chain_k[b] + j];
            ok &= hspmv_dist_gather(D, HSPMV_VEC_COLS, col, got, NULL) == HSPMV_OK;
            if (me != 0) continue;
            int64_t bad = 0;
            for (int64_t i = 0; i < n; i++) bad += got[i] != ref[b][j * n + i];
            if (bad) fprintf(stderr, "  %s: k=%d vector %d: %lld entries differ after the chain\n", what, chain_k[b],
                             j, (long long)bad);
            ok &= bad == 0;
        }
    for (int b = 0; b < 3; b++) {
        hspmv_free(v[b]);
        hspmv_free(y[b]);
        free(ref[b]);
    }
    hspmv_free(col);
    free(got);
    free(tmp);
    free(fi);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* The node plan's variants (HSPMV_TEST, added to the run's settings), each
   on real nodes (or the run's pseudo-nodes) and on nodes of one rank
   (everything off-node): the chain above on a stencil whose boundary rows
   fold, and the block products of every k on a random matrix. */
static void spmm_node_variants_match_ref(void)
{
    static const char *variants[] = {"", "gather=copy", "fold=0", "merge=0,owned_share_tail=20",
                                     "merge=1,gather=direct", "merge=1,gather=copy", "merge=1,gather=share",
                                     "merge=1,gather=share,replica=1", "node_slots=0"};
    const int nv = (int)(sizeof(variants) / sizeof(variants[0]));
    hspmv_csr L, R;
    lap2d(&L, 64, 1);
    tl_csr_random(&R, 97, 97, NULL, 5, 2, 21);
    hspmv_real *Xg = hspmv_alloc_array((size_t)(R.ncols * 17 + 1), sizeof(hspmv_real));
    tl_fill(Xg, R.ncols * 17, 5);
    int folded = 0;
    for (int shape = 0; shape < 2; shape++)
        for (int v = 0; v < nv; v++) {
            hspmv_opts o;
            mt_opts(&o);
            o.halo = HSPMV_HALO_NODE;
            if (shape == 1) {
                if (P == 1 || o.node_ranks == 1) continue; /* the same as shape 0 */
                o.node_ranks = 1;
            }
            char what[160];
            snprintf(what, sizeof(what), "%s, %s", variants[v][0] ? variants[v] : "the default plan",
                     shape ? "nodes of one rank" : o.node_ranks ? "pseudo-nodes" : "real nodes");
            for (int m = 0; m < 2; m++) {
                hspmv_dist *D = NULL;
                hspmv_error e = {0, ""};
                mt_test_env(variants[v]);
                int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? (m ? &R : &L) : NULL, &o, &D, &e);
                mt_test_env(NULL);
                CHECK(rc == HSPMV_OK, "%s: create: %s", what, e.msg);
                if (rc) continue;
                CHECK(D->halo == HSPMV_HALO_NODE, "%s: halo %d", what, D->halo);
                if (D->halo != HSPMV_HALO_NODE) {
                    hspmv_dist_destroy(&D);
                    continue;
                }
                if (strstr(variants[v], "gather=copy"))
                    CHECK(D->node->gather == HSPMV_GATHER_COPY, "%s: gather %d", what, D->node->gather);
                if (strstr(variants[v], "gather=share") && D->node->size > 1)
                    CHECK(D->node->gather == HSPMV_GATHER_SHARE, "%s: gather %d", what, D->node->gather);
                if (strstr(variants[v], "owned_share_tail") && D->node->size > 1)
                    CHECK(D->node->oshare != NULL, "%s: owned rows not shared", what);
                if (m == 0) {
                    folded += D->node->nfold > 0;
                    CHECK(chain_ok(D, &L, what), "%s: chain on lap2d 64", what);
                    CHECK(D->node->wide && D->node->wide->k == 8, "%s: the node window holds %d vectors", what,
                          D->node->wide ? D->node->wide->k : 0);
                } else {
                    for (int col = 0; col <= 1; col++)
                        for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
                            CHECK(block_matches(D, &R, ks[i], col, Xg, what), "%s: random 97x97", what);
                }
                hspmv_dist_destroy(&D);
            }
        }
    int any = 0;
    MPI_Allreduce(&folded, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(P == 1 || any > 0, "no rank folded its boundary rows in any variant");
    hspmv_free(Xg);
    hspmv_csr_free(&L);
    hspmv_csr_free(&R);
}

/* The first call's buffers fail on the last rank (its first and second
   allocation, in row-major, which has them in both halo modes): the same
   HSPMV_ERR_NOMEM and message everywhere, no hang, and the next call
   works. Bad arguments are refused. */
static void failed_allocation_in(const hspmv_opts *op)
{
    hspmv_csr A;
    hspmv_opts o = *op;
    lap2d(&A, 12, 0);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
    CHECK(rc == HSPMV_OK, "create: %s", e.msg);
    if (rc) return;
    int k = 3;
    hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, k), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, k);
    int injected = 0;
    for (int n = 1; n <= 2; n++) {
        if (me == P - 1) hspmv_alloc_fail_after(n);
        rc = hspmv_dist_spmm(D, 0, k, X, Y, &e);
        hspmv_alloc_fail_after(0);
        CHECK(!mt_errors_differ(rc, e.msg, rc == HSPMV_OK), "allocation %d: ranks differ: rc %d %s", n, rc, e.msg);
        CHECK(rc == HSPMV_ERR_NOMEM && strstr(e.msg, "out of memory"), "allocation %d: rc %d: %s", n, rc, e.msg);
        injected += rc == HSPMV_ERR_NOMEM;
    }
    hspmv_free(X);
    hspmv_free(Y);
    hspmv_real *Xg = hspmv_alloc_array((size_t)(A.ncols * 8 + 1), sizeof(hspmv_real));
    tl_fill(Xg, A.ncols * 8, 3);
    CHECK(block_matches(D, &A, 8, 0, Xg, "after failures"), "product after the failures");
    rc = hspmv_dist_spmm(D, 4, 2, Xg, Xg, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "flags"), "unknown flag: rc %d %s", rc, e.msg);
    rc = hspmv_dist_spmm(D, 0, 0, Xg, Xg, &e);
    CHECK(rc == HSPMV_ERR_ARG, "k = 0: rc %d %s", rc, e.msg);
    if (me == 0)
        printf("  halo %s: %d injected failures, each every rank's\n", o.halo == HSPMV_HALO_P2P ? "p2p" : "default",
               injected);
    hspmv_free(Xg);
    hspmv_dist_destroy(&D);
    hspmv_csr_free(&A);
}

static void spmm_failed_allocation_is_every_ranks_error(void)
{
    hspmv_opts o;
    for (int h = 0; h < 2; h++)
        if (halo_opts(h, &o)) failed_allocation_in(&o);
}

MT_MAIN(NULL, spmm_matches_ref_square_and_stencil, spmm_matches_ref_rectangular, spmm_node_variants_match_ref,
        spmm_failed_allocation_is_every_ranks_error)
