/* test_node.c — the node-aware halo against the serial reference: pseudo-
   nodes (opts.node_ranks) of the sizes the rank count gives (4 ranks as
   2+2, 5 as 2+2+1, 8 as 3+3+2, and every rank its own node), every
   partition, halo node and p2p, direct, copy and shared-row gathers (with
   and without a private replica of x), the owned columns
   apart and in the node block, x in the window
   (zero copy), the caller's x, and both mixed across ranks; spmv_scaled,
   scatter/gather, back-to-back products that overwrite x right after each
   call (the races double buffering and the readers' wait guard), CG on the
   off-node path, window vectors outliving their matrix, the fallback to
   p2p without shared windows, and the error paths (a bad file, an
   allocation failure on one rank). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dist.h"
#include "mpitest.h"
#include "node.h"
#include "nodetest.h"
#include "testlib.h"
#include "util.h"
#include "csr.h"

static int me, P;
static const char *part_name[] = {"nnz", "rows", "metis"};
static int replica = -1; /* case_ok: HSPMV_TEST replica=1 (1), =0 (0) or unset (-1) */

/* Ranks per pseudo-node that gives this rank count the shapes. */
static int default_k(void) { return P == 8 ? 3 : 2; }

/* HSPMV_TEST as this program sets it: one key=value (val NULL: the key
   dropped), the variable rewritten from the keys set (unset when none). */
static char test_keys[16][64];
static void tk(const char *key, const char *val)
{
    char all[1024] = "";
    size_t kn = strlen(key);
    for (int i = 0; i < 16; i++)
        if (!strncmp(test_keys[i], key, kn) && test_keys[i][kn] == '=') test_keys[i][0] = 0;
    for (int i = 0; val && i < 16; i++)
        if (!test_keys[i][0]) {
            snprintf(test_keys[i], sizeof(test_keys[i]), "%s=%s", key, val);
            break;
        }
    for (int i = 0; i < 16; i++)
        if (test_keys[i][0]) {
            if (*all) strcat(all, ",");
            strcat(all, test_keys[i]); /* 16 keys of < 64 characters fit */
        }
    if (*all) setenv("HSPMV_TEST", all, 1);
    else unsetenv("HSPMV_TEST");
}

/* Every HSPMV_TEST key dropped. */
static void tk_clear(void)
{
    memset(test_keys, 0, sizeof(test_keys));
    unsetenv("HSPMV_TEST");
}

/* Pseudo-nodes of node_k ranks (0: real nodes), for t_opts. */
static int node_k;

/* The pseudo-node size (NULL: real nodes) and HSPMV_TEST's gather (NULL: timed). */
static void set_env(const char *k, const char *gather)
{
    node_k = k ? atoi(k) : 0;
    tk("gather", gather);
}

/* hspmv_opts_default with the pseudo-node size set_env asked for. */
static void t_opts(hspmv_opts *o)
{
    hspmv_opts_default(o);
    o->node_ranks = node_k;
}

/* 1 on every rank when y (distributed) matches the reference of A*x on rank 0. */
static int y_ok(hspmv_dist *D, const hspmv_csr *A, const hspmv_real *xg, const hspmv_real *yl, hspmv_real *yg,
                double c, const char *what)
{
    int ok = hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, yg, NULL) == HSPMV_OK, all;
    if (me == 0 && A->nrows > 0) {
        hspmv_check chk;
        hspmv_ref_check(A, xg, yg, c, &chk);
        if (chk.violations) fprintf(stderr, "  %s: %lld rows off bound (first %lld)\n", what,
                                    (long long)chk.violations, (long long)chk.first_bad);
        ok &= chk.violations == 0;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* 1 on every rank when y = A*x is right for x filled from seed on rank 0
   and scattered into x (both vectors of D's layout). */
static int product_ok(hspmv_dist *D, const hspmv_csr *A, hspmv_real *x, hspmv_real *y, uint64_t seed,
                      const char *what)
{
    hspmv_real *xg = NULL, *yg = NULL;
    hspmv_error e = {0, ""};
    int ok;
    if (me == 0) {
        xg = hspmv_alloc_array((size_t)A->ncols + 1, sizeof(hspmv_real));
        yg = hspmv_alloc_array((size_t)A->nrows + 1, sizeof(hspmv_real));
        tl_fill(xg, A->ncols, seed);
    }
    ok = hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, x, &e) == HSPMV_OK && hspmv_dist_spmv(D, x, y, &e) == HSPMV_OK;
    if (!ok) fprintf(stderr, "  %s: %s\n", what, e.msg);
    ok &= y_ok(D, A, xg, y, yg, 2, what);
    hspmv_free(xg);
    hspmv_free(yg);
    return ok;
}

/* The node layout opts.node_ranks = k asks for (all ranks on this machine). */
static int layout_ok(const hspmv_dist_info *in, int k)
{
    int node = me / k, size = P - node * k < k ? P - node * k : k;
    return in->node == node && in->node_ranks == size && in->nnodes == (P + k - 1) / k;
}

/* hspmv_dist_info.gather as node.h's HSPMV_GATHER_* (0: p2p). */
static int gather_of(const hspmv_dist_info *in)
{
    return !strcmp(in->gather, "direct") ? HSPMV_GATHER_DIRECT
           : !strcmp(in->gather, "copy") ? HSPMV_GATHER_COPY
           : !strcmp(in->gather, "share") ? HSPMV_GATHER_SHARE : 0;
}

/* The timing and the shared-rows counters started again. */
static void reset_timing(hspmv_dist *D)
{
    hspmv_dist_timing t;
    hspmv_dist_get_timing(D, &t, 1);
}

/* The most ranks any node has. */
static int node_ranks_max(const hspmv_dist_info *in)
{
    int m = in->node_ranks;
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* One matrix, partition, halo mode, gather and pseudo-node size: y right
   with x in the window, the caller's x, and a mix; spmv_scaled; the plan. */
static int case_ok(const hspmv_csr *A, int part, int halo, const char *gather, int k, int merge, const char *what)
{
    char ks[16], w[300];
    snprintf(ks, sizeof(ks), "%d", k);
    set_env(k > 0 ? ks : NULL, gather);
    if (merge >= 0) tk("merge", merge ? "1" : "0");
    if (replica >= 0) tk("replica", replica ? "1" : "0");
    snprintf(w, sizeof(w), "%s, %s, %s, gather %s%s, %d ranks per node, owned columns %s", what, part_name[part],
             halo == HSPMV_HALO_NODE ? "node" : "p2p", gather ? gather : "timed", replica == 1 ? "+replica" : "", k,
             merge < 0 ? "as chosen" : merge ? "in the node block" : "apart");
    hspmv_opts o;
    t_opts(&o);
    o.partition = part;
    o.halo = halo;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int ok = 1, rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D, &e);
    set_env(NULL, NULL);
    tk("merge", NULL);
    tk("replica", NULL);
    if (rc) {
        if (me == 0) fprintf(stderr, "  %s: create failed: %s\n", w, e.msg);
        return 0;
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    ok &= in.halo == halo;
    if (halo == HSPMV_HALO_NODE && merge >= 0) ok &= in.owned_in_node == merge;
    if (k > 0) ok &= layout_ok(&in, k);
    if (halo == HSPMV_HALO_NODE && gather && strcmp(gather, "share"))
        ok &= gather_of(&in) == (!strcmp(gather, "copy") ? HSPMV_GATHER_COPY : HSPMV_GATHER_DIRECT);
    if (halo == HSPMV_HALO_NODE && gather && !strcmp(gather, "share")) /* shared where the blocks are the work */
    {
        int want = in.owned_in_node && node_ranks_max(&in) > 1 ? HSPMV_GATHER_SHARE : HSPMV_GATHER_DIRECT;
        if (gather_of(&in) != want && me == 0) fprintf(stderr, "  %s: gather %d, not %d\n", w, gather_of(&in), want);
        ok &= gather_of(&in) == want;
    }
    if (halo == HSPMV_HALO_NODE && replica >= 0) { /* forced: where the node block gathers (not copy) */
        int want = replica && gather_of(&in) != HSPMV_GATHER_COPY && in.ghost.nnz > 0, any; /* a node block (folded rows: none) */
        MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (in.replica != any && me == 0) fprintf(stderr, "  %s: replica %d\n", w, in.replica);
        ok &= in.replica == any;
    }
    hspmv_real *xg = NULL, *yg = NULL;
    hspmv_real *xw = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *yw = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_real *xc = hspmv_malloc(((size_t)in.ncols_local + 1) * sizeof(hspmv_real));
    if (me == 0) {
        xg = hspmv_alloc_array((size_t)A->ncols + 1, sizeof(hspmv_real));
        yg = hspmv_alloc_array((size_t)A->nrows + 1, sizeof(hspmv_real));
        tl_fill(xg, A->ncols, 42);
    }
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, xw, &e) == HSPMV_OK;
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, xc, &e) == HSPMV_OK;
    if (halo == HSPMV_HALO_NODE && in.ncols_local > 0)
        ok &= (hspmv_node_slot_of(D->node, xw) >= 0) == (D->node->nslots > 0) && hspmv_node_slot_of(D->node, xc) < 0;
    for (int rep = 0; rep < 3; rep++) { /* both call parities, twice */
        ok &= hspmv_dist_spmv(D, xw, yw, &e) == HSPMV_OK;
        ok &= y_ok(D, A, xg, yw, yg, 2, w);
    }
    for (int rep = 0; rep < 2; rep++) {
        ok &= hspmv_dist_spmv(D, xc, yw, &e) == HSPMV_OK;
        ok &= y_ok(D, A, xg, yw, yg, 2, w);
    }
    /* even ranks pass the window vector, odd ranks their own x (their
       window vectors hold other numbers meanwhile: nobody may read those) */
    if (me % 2)
        for (int64_t j = 0; j < in.ncols_local; j++) xw[j] = 1e6;
    ok &= hspmv_dist_spmv(D, me % 2 ? xc : xw, yw, &e) == HSPMV_OK;
    ok &= y_ok(D, A, xg, yw, yg, 2, w);
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, xw, &e) == HSPMV_OK;
    /* y = 2*A*x - 1*y_old = A*x */
    ok &= hspmv_dist_spmv_scaled(D, 2, xw, -1, yw, &e) == HSPMV_OK;
    ok &= y_ok(D, A, xg, yw, yg, 6, w);
    ok &= node_plan_ok(D, w);
    hspmv_free(xg);
    hspmv_free(yg);
    hspmv_free(xw);
    hspmv_free(yw);
    hspmv_free(xc);
    hspmv_dist_destroy(&D);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && me == 0) fprintf(stderr, "  %s at %d ranks: wrong\n", w, P);
    return all;
}

/* Every partition x (full: p2p; node with gathers direct and copy on the
   issue's pseudo-nodes, on one node per rank, and on the real node; else
   node on the pseudo-nodes and on one node per rank, the gathers
   alternating). */
static int all_cases(const hspmv_csr *A, int full, const char *what)
{
    int ok = 1;
    int64_t dims[2] = {A->nrows, A->ncols};
    MPI_Bcast(dims, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    for (int part = 0; part < 3; part++) {
        if (part == HSPMV_PART_METIS && dims[0] != dims[1]) continue;
        if (full) ok &= case_ok(A, part, HSPMV_HALO_P2P, NULL, default_k(), -1, what);
        ok &= case_ok(A, part, HSPMV_HALO_NODE, part % 2 ? "copy" : "direct", default_k(), -1, what);
        if (full) ok &= case_ok(A, part, HSPMV_HALO_NODE, part % 2 ? "direct" : "copy", default_k(), part != 1, what);
        ok &= case_ok(A, part, HSPMV_HALO_NODE, part == 0 ? "copy" : "direct", 1, part == 2, what);
        if (full) ok &= case_ok(A, part, HSPMV_HALO_NODE, part == 1 ? "copy" : "direct", 0, -1, what);
        if (full || part == 0) /* rows shared within the (pseudo-)node, the owned columns in the node block */
            ok &= case_ok(A, part, HSPMV_HALO_NODE, "share", part == 2 ? 0 : default_k(), 1, what);
        if (full || part == 1) { /* gathers from a private replica of the node's x */
            replica = 1;
            ok &= case_ok(A, part, HSPMV_HALO_NODE, part == 1 ? "direct" : "share", part == 0 ? default_k() : 0,
                          part != 1, what);
            replica = -1;
        }
    }
    return ok;
}

static void node_matches_ref_on_bundled_matrices(void)
{
    const char *files[] = {"matrices/lap2d_64.mtx", "matrices/random_3000_k8.mtx", "matrices/powerlaw_2000_k6.mtx"};
    for (int f = 0; f < 3; f++) {
        hspmv_csr A = {0};
        int rc = me == 0 ? tl_read_csr(files[f], &A) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc) {
            SKIP("%s unreadable", files[f]);
            continue;
        }
        CHECK(all_cases(&A, 1, files[f]), "%s", files[f]);
        hspmv_csr_free(&A);
    }
}

static void node_matches_ref_on_a_shared_matrix(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/bayer10.mtx", tl_shared_dir());
    hspmv_csr A = {0};
    int rc = me == 0 ? tl_read_csr(path, &A) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc) {
        SKIP("%s missing", path);
        return;
    }
    CHECK(all_cases(&A, 1, path), "%s", path);
    hspmv_csr_free(&A);
}

/* Rectangular, empty rows and columns, a dense row, more ranks than rows. */
static void node_handles_odd_shapes(void)
{
    hspmv_csr A;
    tl_csr_random(&A, 37, 53, NULL, 5, 2, 12);
    CHECK(all_cases(&A, 0, "37x53"), "wide");
    hspmv_csr_free(&A);
    tl_csr_random(&A, 61, 9, NULL, 3, 0, 13);
    CHECK(all_cases(&A, 0, "61x9"), "tall");
    hspmv_csr_free(&A);
    int64_t n = 300, len[300];
    for (int64_t i = 0; i < n; i++) len[i] = i == 17 ? n : (i % 7 == 0 ? 0 : 3);
    tl_csr_random(&A, n, n, len, 0, 0, 21);
    CHECK(all_cases(&A, 0, "dense row, empty rows"), "dense row");
    hspmv_csr_free(&A);
    tl_csr_random(&A, 3, 3, NULL, 2, 0, 7);
    CHECK(all_cases(&A, 0, "3x3"), "3x3");
    hspmv_csr_free(&A);
}

/* A matrix big enough for the plan to time the gathers (some rank's node
   and off-node blocks >= 2^16 entries): random columns, y right, and the
   choice reported with both timings. */
/* n x n, k distinct random columns per row, values from tl_fill (fast at
   any size, unlike tl_csr_random's scan of every column). */
static void random_csr(hspmv_csr *A, int64_t n, int k, uint64_t st)
{
    A->nrows = A->ncols = n;
    A->nnz = n * k;
    A->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    A->colind = hspmv_alloc_array((size_t)(n * k), sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)(n * k), sizeof(hspmv_real));
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t *c = A->colind + i * k;
        for (int j = 0; j < k; j++) {
            int fresh;
            do {
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                c[j] = (int32_t)((st >> 33) % (uint64_t)n);
                fresh = 1;
                for (int t = 0; t < j; t++) fresh &= c[t] != c[j];
            } while (!fresh);
            for (int t = j; t > 0 && c[t - 1] > c[t]; t--) {
                int32_t tmp = c[t];
                c[t] = c[t - 1];
                c[t - 1] = tmp;
            }
        }
        A->rowptr[i + 1] = (i + 1) * k;
    }
    tl_fill(A->val, n * k, st);
}

static void node_times_the_gathers(void)
{
    hspmv_csr A;
    int64_t n = 24000 * (int64_t)P; /* node and off-node blocks past the 2^16 entries the plan times from */
    random_csr(&A, n, 10, 31);
    char ks[16];
    snprintf(ks, sizeof(ks), "%d", default_k());
    set_env(P > 1 ? ks : NULL, NULL);
    hspmv_opts o;
    t_opts(&o);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
    set_env(NULL, NULL);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return;
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    int timed = (D->node->t_direct * 1e3) > 0 && (D->node->t_copy * 1e3) > 0;
    CHECK(in.halo == HSPMV_HALO_NODE, "halo %d", in.halo);
    CHECK(P == 1 || timed, "not timed: %g %g", (D->node->t_direct * 1e3), (D->node->t_copy * 1e3));
    int shares = in.owned_in_node && node_ranks_max(&in) > 1; /* shared rows are timed where they can be built */
    CHECK(((D->node->t_share * 1e3) > 0) == shares, "shared rows timed %g (owned in node %d)", (D->node->t_share * 1e3),
          in.owned_in_node);
    /* a replica is timed beside the kept gather where the node block reads most of x (here: merged blocks) */
    CHECK(!shares || gather_of(&in) == HSPMV_GATHER_COPY || (D->node->t_replica * 1e3) > 0, "replica not timed (gather %d)",
          gather_of(&in));
    if (me == 0 && timed)
        printf("  random %lld x 10 at %d ranks: gathers %s (timed direct %.3f ms, copy %.3f ms, shared rows %.3f ms)\n",
               (long long)n, P,
               gather_of(&in) == HSPMV_GATHER_COPY ? "copy" : gather_of(&in) == HSPMV_GATHER_SHARE ? "share" : "direct",
               (D->node->t_direct * 1e3), (D->node->t_copy * 1e3), (D->node->t_share * 1e3));
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    CHECK(product_ok(D, &A, x, y, 5, "random 24000*P"), "y");
    CHECK(node_plan_ok(D, "random 24000*P"), "plan");
    if (P == 1) SKIP("one rank: no gathers to time (its product checked)");
    hspmv_free(x);
    hspmv_free(y);
    hspmv_dist_destroy(&D);
    hspmv_csr_free(&A);
}

/* Rank 0 starts each product late (HSPMV_TEST share_delay): until the
   others have claimed its whole tail, or at most 20 ms times the ranks per
   core when they outnumber the cores (8 ranks on the 2-core CI machine: a
   thief may wait that long for a core). */
static void late_rank0(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long per = cores > 0 && P > cores ? (P + cores - 1) / cores : 1;
    char v[32];
    snprintf(v, sizeof(v), "0:%ld", 20000 * per);
    tk("share_delay", v);
}

/* Exact integer arithmetic: x_{t+1} = A*x_t - 3*x_t + (t mod 3), products back to back
   with x overwritten right after each call returns and no collective in
   between, then compared bit for bit with the serial recurrence. A rank
   that rewrote its part while another still read it would show. how:
   CHAIN_WINDOW_X for an x of hspmv_dist_vec_alloc (else the caller's own),
   CHAIN_PRIVATE_Y for the caller's own y (else hspmv_dist_vec_alloc's: in
   the window, where others write the shared rows they take straight into it). */
enum { CHAIN_WINDOW_X = 1, CHAIN_PRIVATE_Y = 2 };
static int chain_ok(hspmv_dist *D, const hspmv_csr *A, int how, const char *what)
{
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    int64_t nl = in.nrows_local, n = A->nrows, steps = sizeof(hspmv_real) == 8 ? 12 : 5; /* growth <= 11x a step: exact below 2^53 / 2^24 */
    hspmv_real *x = how & CHAIN_WINDOW_X ? hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1)
                                         : hspmv_malloc(((size_t)nl + 1) * sizeof(hspmv_real));
    hspmv_real *y = how & CHAIN_PRIVATE_Y ? hspmv_malloc(((size_t)nl + 1) * sizeof(hspmv_real))
                                          : hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1),
               *xg = NULL, *ref = NULL, *got = NULL;
    int64_t *fi = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    int ok = 1;
    hspmv_dist_get_file_index(D, HSPMV_VEC_COLS, fi);
    for (int64_t j = 0; j < nl; j++) x[j] = (hspmv_real)(fi[j] % 5 - 2);
    for (int64_t t = 0; t < steps; t++) {
        ok &= hspmv_dist_spmv(D, x, y, NULL) == HSPMV_OK;
        /* overwrite x at once: a neighbour may still be in this product */
        for (int64_t j = 0; j < nl; j++) x[j] = y[j] - 3 * x[j] + (hspmv_real)(t % 3);
    }
    if (me == 0) {
        xg = malloc(sizeof(hspmv_real) * (size_t)n);
        ref = malloc(sizeof(hspmv_real) * (size_t)n);
        got = malloc(sizeof(hspmv_real) * (size_t)n);
        for (int64_t j = 0; j < n; j++) xg[j] = (hspmv_real)(j % 5 - 2);
        for (int64_t t = 0; t < steps; t++) {
            for (int64_t i = 0; i < n; i++) {
                hspmv_real s = 0;
                for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * xg[A->colind[k]];
                ref[i] = s;
            }
            for (int64_t j = 0; j < n; j++) xg[j] = ref[j] - 3 * xg[j] + (hspmv_real)(t % 3);
        }
    }
    ok &= hspmv_dist_gather(D, HSPMV_VEC_COLS, x, got, NULL) == HSPMV_OK;
    if (me == 0) {
        int64_t bad = 0;
        for (int64_t j = 0; j < n; j++) bad += got[j] != xg[j];
        if (bad) fprintf(stderr, "  %s: %lld entries differ after %lld chained products\n", what, (long long)bad,
                         (long long)steps);
        ok &= bad == 0;
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    hspmv_free(x);
    hspmv_free(y);
    free(fi);
    free(xg);
    free(ref);
    free(got);
    return all;
}

/* Rank 0 was late (late_rank0) in the last product of a chain: others
   took most of its tail (20 chunks), writing those rows straight into its
   y when it was a window vector (direct), through its result buffer when
   the caller's own. */
static void taken_ok(const node_share *S, int node_ranks, int direct, const char *w)
{
    if (me != 0 || node_ranks < 2) return;
    int taken = S ? (int)hspmv_node_share_taken(S) : -1;
    CHECK(taken >= 10, "%s: others took %d of its 20 chunks, not most", w, taken);
    CHECK(hspmv_node_share_direct(S) == direct, "%s: the rows others took went %s, not %s", w,
          direct ? "through its result buffer" : "straight into y", direct ? "straight into y" : "through the buffer");
}

/* The timing's rows-shared counts since the last reset: every entry of the
   shared block L once a product, run by its owner (share_nnz[0]) or by
   others ([1]); with rank 0 late, others ran some of its entries, and
   some rank spent time in chunks it took. */
static void counted_ok(hspmv_dist *D, const node_share *S, const hspmv_local *L, int late, const char *w)
{
    hspmv_dist_timing t;
    hspmv_local_info li = {0};
    hspmv_dist_get_timing(D, &t, 0);
    if (L) hspmv_local_get_info(L, &li);
    int64_t want = S ? t.calls * li.nnz : 0, got = D->node->share_nnz[0] + D->node->share_nnz[1];
    CHECK(t.calls > 0 && got == want, "%s: rank %d counted %lld entries of its shared rows in %lld products, not %lld",
          w, me, (long long)got, (long long)t.calls, (long long)want);
    double took = D->node->share_s[1], most = 0;
    MPI_Allreduce(&took, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (late && S && me == 0) {
        CHECK(D->node->share_nnz[1] > 0, "%s: others ran none of rank 0's entries", w);
        CHECK(most > 0, "%s: no rank spent time in chunks it took", w);
    }
}

static void chained_products_without_collectives_are_exact(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) { /* 4 and -1: integer products stay exact */
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    const char *gathers[] = {"direct", "copy", "share", "direct", "share"}; /* the last two with a replica */
    for (int g = 0; g < 5; g++)
        for (int k = 0; k <= 1; k++) {
            char ks[16];
            snprintf(ks, sizeof(ks), "%d", k ? 1 : default_k());
            set_env(ks, gathers[g]);
            if (g == 2 || g == 4) tk("merge", "1"); /* sharing needs the owned columns in the node block */
            if (g >= 3) tk("replica", "1");
            hspmv_opts o;
            t_opts(&o);
            o.halo = HSPMV_HALO_NODE;
            o.partition = HSPMV_PART_ROWS;
            hspmv_dist *D = NULL;
            int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, NULL);
            set_env(NULL, NULL);
            tk("merge", NULL);
            tk("replica", NULL);
            CHECK(rc == 0, "create");
            if (rc) continue;
            char w[80];
            snprintf(w, sizeof(w), "lap2d_64, %s%s, %s ranks per node", gathers[g], g >= 3 ? "+replica" : "", ks);
            CHECK(chain_ok(D, &A, CHAIN_WINDOW_X, w), "%s, window x", w);
            CHECK(chain_ok(D, &A, 0, w), "%s, caller's x", w);
            hspmv_dist_destroy(&D);
            for (int f = 0; g == 2 && k == 0 && f < 2; f++) { /* rank 0 late every product: the others take
                                                                 its tail, y stays exact; its own chunks in the
                                                                 format auto chose and in blocked COO (row
                                                                 ranges that cut tile rows) */
                set_env(ks, gathers[g]);
                tk("merge", "1");
                late_rank0();
                tk("share_tail", "20");
                o.format = f ? HSPMV_FORMAT_BCOO : HSPMV_FORMAT_AUTO;
                rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, NULL);
                set_env(NULL, NULL);
                tk("merge", NULL);
                tk("share_delay", NULL);
                tk("share_tail", NULL);
                CHECK(rc == 0, "create");
                if (rc) continue;
                snprintf(w, sizeof(w), "lap2d_64, shared rows, rank 0 late, %s", f ? "bcoo" : "auto");
                hspmv_dist_info in;
                hspmv_dist_get_info(D, &in);
                reset_timing(D);
                CHECK(chain_ok(D, &A, CHAIN_WINDOW_X, w), "%s, window x", w);
                taken_ok(D->node->share, in.node_ranks, 1, w);
                counted_ok(D, D->node->share, D->node->nb.L, in.node_ranks > 1, w);
                CHECK(chain_ok(D, &A, CHAIN_WINDOW_X | CHAIN_PRIVATE_Y, w), "%s, window x, caller's y", w);
                taken_ok(D->node->share, in.node_ranks, 0, w);
                CHECK(chain_ok(D, &A, 0, w), "%s, caller's x", w);
                hspmv_dist_destroy(&D);
            }
        }
    hspmv_csr_free(&A);
}

/* A on the node path, rows partitioned, in format f, threads per rank
   (0: the default), made under the sharing and folding settings the caller
   put in the environment, which are then cleared on every rank. */
static int create_shared(const hspmv_csr *A, int f, int threads, hspmv_dist **D, hspmv_error *e)
{
    hspmv_opts o;
    t_opts(&o);
    o.halo = HSPMV_HALO_NODE;
    o.partition = HSPMV_PART_ROWS;
    o.format = f;
    o.threads = threads;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, D, e);
    set_env(NULL, NULL);
    tk_clear();
    return rc;
}

/* Owned rows shared (HSPMV_TEST owned_share_tail): the owned block's last chunks
   in a window that the other ranks of the node take once done with their
   own. Products stay exact (integer values), with the window's x and the
   caller's, on whole nodes and pseudo-nodes (off-node messages progress
   while the rows are shared); with rank 0 late every product the others
   take most of its tail (20 chunks). Its own chunks in the format auto chose
   and in blocked COO (row ranges that cut tile rows). */
static void owned_rows_shared_are_exact(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    for (int k = 0; k <= 1; k++)
        for (int late = 0; late <= 1; late++)
            for (int f = 0; f < 3; f++) { /* auto, bcoo, csrp (its tail copied as CSRP) */
                const int fmt[3] = {HSPMV_FORMAT_AUTO, HSPMV_FORMAT_BCOO, HSPMV_FORMAT_CSRP};
                const char *fname[3] = {"auto", "bcoo", "csrp"};
                char ks[16];
                snprintf(ks, sizeof(ks), "%d", default_k());
                set_env(k ? ks : NULL, NULL);
                tk("owned_share_tail", "20");
                if (late) late_rank0();
                hspmv_dist *D = NULL;
                hspmv_error e = {0, ""};
                int rc = create_shared(&A, fmt[f], 0, &D, &e);
                CHECK(rc == 0, "create: %s", e.msg);
                if (rc) continue;
                char w[120];
                snprintf(w, sizeof(w), "lap2d_64, owned rows shared, %s, %s%s", k ? "pseudo-nodes" : "one node",
                         fname[f], late ? ", rank 0 late" : "");
                hspmv_dist_info in;
                hspmv_dist_get_info(D, &in);
                CHECK(in.owned_share == (in.node_ranks > 1 ? 20 : 0), "%s: owned_share %d with %d ranks on the node",
                      w, in.owned_share, in.node_ranks);
                if (D->node->oshare) { /* CSRP where the owned block is (auto takes it in single precision) */
                    hspmv_local_info li = {0};
                    if (D->Lo) hspmv_local_get_info(D->Lo, &li);
                    int want = D->Lo && li.format == HSPMV_FORMAT_CSRP;
                    CHECK(want || f != 2, "%s: the owned block is not CSRP", w);
                    CHECK(hspmv_node_share_copy_csrp(D->node->oshare) == want, "%s: the tail copy is %s", w,
                          hspmv_node_share_copy_csrp(D->node->oshare) ? "CSRP" : "CSR");
                }
                reset_timing(D);
                CHECK(chain_ok(D, &A, CHAIN_WINDOW_X, w), "%s, window x", w);
                if (late) taken_ok(D->node->oshare, in.node_ranks, 1, w);
                counted_ok(D, D->node->oshare, D->Lo, late && in.node_ranks > 1, w);
                CHECK(chain_ok(D, &A, CHAIN_WINDOW_X | CHAIN_PRIVATE_Y, w), "%s, window x, caller's y", w);
                if (late) taken_ok(D->node->oshare, in.node_ranks, 0, w);
                CHECK(chain_ok(D, &A, 0, w), "%s, caller's x", w);
                hspmv_dist_destroy(&D);
            }
    hspmv_csr_free(&A);
}

/* 1 when this system collapses shared memory into huge pages: a 4 MiB
   memory file mapped 2 MiB-aligned, collapsed by hspmv_shared_huge. */
static int system_collapses_shared(void)
{
    const size_t huge = (size_t)2 << 20, len = 2 * huge;
    int fd = memfd_create("hspmv-test-probe", 0), yes = 0;
    if (fd < 0) return 0;
    char *r = ftruncate(fd, (off_t)len) == 0
                  ? mmap(NULL, len + huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                  : MAP_FAILED;
    if (r != MAP_FAILED) {
        char *a = (char *)(((uintptr_t)r + huge - 1) & ~(uintptr_t)(huge - 1));
        char *p = mmap(a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
        yes = p != MAP_FAILED && hspmv_shared_huge(p, len, 0, 1) > 0;
        munmap(r, len + huge);
    }
    close(fd);
    return yes;
}

/* The node block's rows shared, a tail of several MB a rank: its segment
   is collapsed into huge pages where this system collapses shared memory
   at all (system_collapses_shared), and the product is right; skipped where no segment can be collapsed
   (a node of one rank, a system that does not collapse shared memory). */
static void shared_rows_segments_on_huge_pages(void)
{
    hspmv_csr A;
    int64_t n = 24000 * (int64_t)P; /* 32 entries a row: a segment of over 6 MB in either precision, so a
                                        whole 2 MiB page lies in it wherever it starts (4 MiB would do) */
    const char *why = NULL; /* rank 0's reason the huge pages went unchecked */
    random_csr(&A, n, 32, 37);
    do {
        set_env(NULL, "share");
        tk("merge", "1");
        tk("share_tail", "64");
        hspmv_opts o;
        t_opts(&o);
        o.halo = HSPMV_HALO_NODE;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
        set_env(NULL, NULL);
        tk("merge", NULL);
        tk("share_tail", NULL);
        CHECK(rc == 0, "%s", e.msg);
        if (rc) break;
        hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        const node_share *S = D->node ? D->node->share : NULL;
        size_t got = hspmv_node_share_huge_bytes(S);
        char w[80];
        snprintf(w, sizeof(w), "random %lld x 32, shared rows", (long long)n);
        int can = system_collapses_shared();
        if (S && can) CHECK(got >= (2u << 20), "%s: %zu bytes of the segment on huge pages", w, got);
        why = !S ? "no shared rows (a node of one rank)" : !can ? "this system does not collapse shared memory" : NULL;
        CHECK(!D->node || D->node->gather != HSPMV_GATHER_SHARE || S, "%s: gather share without shared rows", w);
        CHECK(product_ok(D, &A, x, y, 7, w), "%s: y", w);
        hspmv_free(x);
        hspmv_free(y);
        hspmv_dist_destroy(&D);
    } while (0);
    /* without a segment that can be collapsed, nothing was said of its pages */
    if (why && me == 0) SKIP("huge pages unchecked: %s", why);
    hspmv_csr_free(&A);
}

/* A tridiagonal matrix (-1, 4, -1) of n rows whose rows in `longs` also
   hold every third column as a stored zero: rows much longer than a
   chunk's share, as a power law has. Integer products stay exact. */
static int long_rows_matrix(hspmv_csr *A, int64_t n, const int64_t *longs, int nl)
{
    int64_t nnz = 0;
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!A->rowptr) return 1;
    for (int pass = 0; pass < 2; pass++) {
        nnz = 0;
        for (int64_t i = 0; i < n; i++) {
            int lr = 0;
            for (int l = 0; l < nl; l++) lr |= longs[l] == i;
            if (pass == 0) A->rowptr[i] = nnz;
            for (int64_t j = 0; j < n; j++) {
                int near = j >= i - 1 && j <= i + 1;
                if (!near && !(lr && j % 3 == 0)) continue;
                if (pass == 1) {
                    A->colind[nnz] = (int32_t)j;
                    A->val[nnz] = j == i ? 4 : near ? -1 : 0;
                }
                nnz++;
            }
        }
        if (pass == 0) {
            A->rowptr[n] = nnz;
            A->nnz = nnz;
            A->colind = hspmv_malloc(sizeof(int32_t) * (size_t)nnz);
            A->val = hspmv_malloc(sizeof(hspmv_real) * (size_t)nnz);
            if (!A->colind || !A->val) return 1;
        }
    }
    return 0;
}

/* Long rows in shared node blocks: the chunk holding such a row is run
   first and by its owner (node_share.c), never by a rank that takes the
   tail; products stay exact, also with rank 0 late every product (the
   others take the rest of its tail). */
static void long_rows_are_run_first_by_their_owner(void)
{
    hspmv_csr A = {0};
    const int64_t n = 6000, longs[] = {7, n / 3 + 11, n / 2 + 3, n - 5};
    if (long_rows_matrix(&A, n, longs, 4)) {
        CHECK(0, "out of memory");
        hspmv_csr_free(&A);
        return;
    }
    for (int k = 0; k <= 1; k++)
        for (int late = 0; late <= 1; late++) {
            char ks[16];
            snprintf(ks, sizeof(ks), "%d", default_k());
            set_env(k ? ks : NULL, "share");
            tk("merge", "1");
            tk("share_tail", "64");
            if (late) late_rank0();
            hspmv_dist *D = NULL;
            hspmv_error e = {0, ""};
            int rc = create_shared(&A, HSPMV_FORMAT_AUTO, 0, &D, &e);
            CHECK(rc == 0, "create: %s", e.msg);
            if (rc) continue;
            char w[120];
            snprintf(w, sizeof(w), "long rows, shared node blocks, %s%s", k ? "pseudo-nodes" : "one node",
                     late ? ", rank 0 late" : "");
            hspmv_dist_info in;
            hspmv_dist_get_info(D, &in);
            CHECK(chain_ok(D, &A, CHAIN_WINDOW_X, w), "%s, window x", w);
            CHECK(chain_ok(D, &A, 0, w), "%s, caller's x", w);
            int taken = 0, nlong = D->node->share ? hspmv_node_share_long(D->node->share, &taken) : 0, sum = 0;
            CHECK(taken == 0, "%s: rank %d: others ran %d of its long chunks", w, me, taken);
            MPI_Allreduce(&nlong, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (in.node_ranks > 1 || k == 0) /* every rank shares when the whole world is one node */
                CHECK(sum == 4 || P == 1, "%s: %d long chunks over the ranks, not 4 (one per long row)", w, sum);
            hspmv_dist_destroy(&D);
        }
    if (P == 1) SKIP("one rank: nobody else to run its long rows (its products checked)");
    hspmv_csr_free(&A);
}

/* n x n: 4 on the diagonal, -1 at i+1 and -1 at i+w (upper only: a rank
   reads the next ranks' x, nobody reads the last one's, and the first one
   reads without being read), integer values for exact chains. */
static int upper_band(hspmv_csr *A, int64_t n, int64_t w)
{
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc(sizeof(int64_t) * (size_t)(n + 1));
    A->colind = hspmv_malloc(sizeof(int32_t) * (size_t)(3 * n));
    A->val = hspmv_malloc(sizeof(hspmv_real) * (size_t)(3 * n));
    if (!A->rowptr || !A->colind || !A->val) return 1;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        A->rowptr[i] = k;
        for (int64_t d = 0; d < 3; d++) {
            int64_t j = i + (d == 0 ? 0 : d == 1 ? 1 : w);
            if (j >= n) continue;
            A->colind[k] = (int32_t)j;
            A->val[k++] = d == 0 ? 4 : -1;
        }
    }
    A->rowptr[n] = k;
    A->nnz = k;
    return 0;
}

/* Boundary rows folded (node_fold.c): a rank's rows with entries in other
   ranks' columns of its node multiplied whole, first, once the ranks they
   read published their x parts, the owned block skipping them. The 2D
   stencil and a one-sided band, on one node and on pseudo-nodes (off-node
   entries in folded rows), owned rows shared or not, 1 and 2 threads per
   rank, waiting for their neighbours: the folded rows are there
   (where a rank has node neighbours) and none with HSPMV_TEST fold=0, and
   chained products stay exact with the window's x and the caller's. */
static void boundary_rows_folded_are_exact(void)
{
    hspmv_csr A[2] = {{0}, {0}};
    const char *name[2] = {"lap2d 64", "upper band 3000, width 50"};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A[0])) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    if (upper_band(&A[1], 3000, 50)) {
        CHECK(0, "out of memory");
        return;
    }
    for (int m = 0; m < 2; m++)
        for (int v = 0; v < 5; v++) { /* k: one node / pseudo-nodes; fold off; owned rows shared or not; threads */
            int k = v % 2, off = v == 2, share = v >= 3, thr = v == 4 ? 2 : 0;
            char ks[16], w[160];
            snprintf(ks, sizeof(ks), "%d", default_k());
            set_env(k ? ks : NULL, NULL);
            tk("merge", "0");
            tk("owned_share_tail", share ? "16" : "0");
            if (off) tk("fold", "0");
            hspmv_dist *D = NULL;
            hspmv_error e = {0, ""};
            int rc = create_shared(&A[m], HSPMV_FORMAT_AUTO, thr, &D, &e);
            CHECK(rc == 0, "create: %s", e.msg);
            if (rc) continue;
            snprintf(w, sizeof(w), "%s, %s%s%s%s", name[m], k ? "pseudo-nodes" : "one node", off ? ", no fold" : "",
                     share ? ", owned rows shared" : "", thr ? ", 2 threads" : "");
            hspmv_dist_info in;
            hspmv_dist_get_info(D, &in);
            int neighbours = in.node_ranks > 1, any = 0;
            MPI_Allreduce(&neighbours, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (off || !any) CHECK(in.fold_rows_total == 0, "%s: %lld rows folded", w, (long long)in.fold_rows_total);
            else CHECK(in.fold_rows_total > 0, "%s: no rows folded", w);
            CHECK(!!in.owned_share == share || !neighbours, "%s: owned rows shared %d", w, in.owned_share);
            const hspmv_node *N = D->node;
            if (N && N->nfold) { /* the runs wait for the ranks they read: the next (band), or one or both neighbours */
                int most = m ? 1 : 2, src_ok = N->nfold_src >= 1 && N->nfold_src <= most;
                for (int i = 0; i < N->nfold_src; i++) src_ok &= abs(N->fold_src[i] - N->rank) == 1;
                CHECK(src_ok, "%s: node rank %d waits for %d ranks", w, N->rank, N->nfold_src);
            }
            CHECK(chain_ok(D, &A[m], 1, w), "%s, window x", w);
            CHECK(chain_ok(D, &A[m], 0, w), "%s, caller's x", w);
            hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
            CHECK(product_ok(D, &A[m], x, y, 9, w), "%s, real values", w);
            hspmv_free(x);
            hspmv_free(y);
            hspmv_dist_destroy(&D);
        }
    hspmv_csr_free(&A[0]);
    hspmv_csr_free(&A[1]);
}

/* CG on the off-node path (window vectors inside the solver, the caller's
   b and x): converges to x* = 1 like on the p2p path. */
static void cg_converges_on_pseudo_nodes(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    int64_t its[2] = {0, 0};
    for (int h = 0; h < 2; h++) {
        char ks[16];
        snprintf(ks, sizeof(ks), "%d", default_k());
        set_env(ks, NULL);
        hspmv_opts o;
        t_opts(&o);
        o.halo = h ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
        o.partition = HSPMV_PART_METIS;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
        set_env(NULL, NULL);
        CHECK(rc == 0, "%s", e.msg);
        if (rc) continue;
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        hspmv_real *ones = hspmv_malloc(((size_t)in.nrows_local + 1) * sizeof(hspmv_real));
        hspmv_real *b = hspmv_malloc(((size_t)in.nrows_local + 1) * sizeof(hspmv_real));
        hspmv_real *x = hspmv_calloc((size_t)in.nrows_local + 1, sizeof(hspmv_real));
        for (int64_t i = 0; i < in.nrows_local; i++) ones[i] = 1;
        CHECK(hspmv_dist_spmv(D, ones, b, &e) == 0, "%s", e.msg);
        hspmv_solver_opts so;
        hspmv_solver_opts_default(&so);
        so.tol = sizeof(hspmv_real) == 8 ? 1e-10 : 1e-5;
        hspmv_solver_result res;
        rc = hspmv_solve(D, b, x, &so, &res, &e);
        CHECK(rc == HSPMV_OK, "cg (%s): %s", h ? "p2p" : "node", e.msg);
        double worst = 0, all;
        for (int64_t i = 0; i < in.nrows_local; i++) worst = fmax(worst, fabs((double)x[i] - 1));
        MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        CHECK(all < (sizeof(hspmv_real) == 8 ? 1e-6 : 1e-2), "max|x-1| = %g", all);
        its[h] = res.iterations;
        hspmv_free(ones);
        hspmv_free(b);
        hspmv_free(x);
        hspmv_dist_destroy(&D);
    }
    CHECK(llabs(its[0] - its[1]) <= 2, "cg iterations node %lld, p2p %lld", (long long)its[0], (long long)its[1]);
    hspmv_csr_free(&A);
}

/* More vectors than the window has slots (the rest in private memory, all
   usable as x); a window vector kept past hspmv_dist_destroy stays valid. */
static void window_vectors_run_out_and_outlive_the_matrix(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    tk("node_slots", "3");
    hspmv_opts o;
    t_opts(&o);
    hspmv_dist *D = NULL;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, NULL);
    tk("node_slots", NULL);
    CHECK(rc == 0, "create");
    if (rc) return;
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    CHECK(D->node->nslots == 3, "slots %d", D->node->nslots);
    hspmv_real *v[5], *xg = NULL, *yg = NULL;
    int inwin = 0;
    for (int i = 0; i < 5; i++) {
        v[i] = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
        inwin += in.ncols_local > 0 && hspmv_node_slot_of(D->node, v[i]) >= 0;
    }
    CHECK(in.ncols_local == 0 || inwin == 3, "%d of 5 vectors in the window", inwin);
    if (me == 0) {
        xg = hspmv_alloc_array((size_t)A.ncols, sizeof(hspmv_real));
        yg = hspmv_alloc_array((size_t)A.nrows, sizeof(hspmv_real));
        tl_fill(xg, A.ncols, 9);
    }
    for (int i = 0; i < 4; i++) { /* window -> window, window -> private, private -> private */
        hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, v[i], NULL);
        CHECK(hspmv_dist_spmv(D, v[i], v[i + 1], NULL) == 0, "spmv %d", i);
        CHECK(y_ok(D, &A, xg, v[i + 1], yg, 2, "slots run out"), "y %d", i);
    }
    hspmv_free(v[1]); /* a slot comes back and is lent again */
    v[1] = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
    CHECK(in.ncols_local == 0 || hspmv_node_slot_of(D->node, v[1]) >= 0, "slot not reused");
    hspmv_dist_destroy(&D);
    for (int64_t j = 0; j < in.ncols_local; j++) v[0][j] = (hspmv_real)j; /* still mapped */
    double s = 0;
    for (int64_t j = 0; j < in.ncols_local; j++) s += v[0][j];
    CHECK(s == (double)in.ncols_local * (double)(in.ncols_local - 1) / 2, "vector after destroy");
    for (int i = 0; i < 5; i++) hspmv_free(v[i]);
    hspmv_free(xg);
    hspmv_free(yg);
    hspmv_csr_free(&A);
}

/* A node of one rank (every rank its own node, opts.node_ranks = 1) lends
   no window vectors: nobody else reads its x, so its vectors are private
   memory (huge pages) and the product is right; HSPMV_TEST node_slots still
   asks for slots there. */
static void a_node_of_one_rank_keeps_its_vectors_private(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    for (int ask = 0; ask <= 1; ask++) {
        hspmv_opts o;
        set_env("1", NULL);
        t_opts(&o);
        o.halo = HSPMV_HALO_NODE;
        if (ask) tk("node_slots", "2");
        hspmv_dist *D = NULL;
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, NULL);
        set_env(NULL, NULL);
        tk("node_slots", NULL);
        CHECK(rc == 0 && D, "create");
        if (rc || !D) continue;
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        CHECK(D->node->nslots == (ask ? 2 : 0), "%s: %d window slots on a node of one rank",
              ask ? "2 asked for" : "default", D->node->nslots);
        hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        CHECK(in.ncols_local == 0 || (hspmv_node_slot_of(D->node, x) >= 0) == ask, "x %s the window",
              ask ? "not in" : "in");
        CHECK(product_ok(D, &A, x, y, 4, "nodes of one rank"), "y");
        hspmv_free(x);
        hspmv_free(y);
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
}

/* The node's window checked against the limits of every rank that maps it
   (issue 10's memory check on the node path): a last rank whose ulimit -v
   (the test's process limit) cannot map 64 slots makes EVERY rank fall
   back to the 2-slot window, with the right y; the ranks never disagree on
   the window (that would hang them in MPI_Win_allocate_shared). */
static void a_window_one_rank_cannot_map_is_every_ranks_smaller_window(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    hspmv_opts o;
    t_opts(&o);
    o.halo = HSPMV_HALO_NODE;
    tk("node_slots", "64");
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
    CHECK(rc == 0 && D && D->node, "create: %s", e.msg);
    if (rc || !D || !D->node) {
        tk("node_slots", NULL);
        hspmv_csr_free(&A);
        return;
    }
    /* the window's bytes as node_window.c lays it out (flags, slots + 2 vectors, 2 ghost areas, a page to align) */
    const hspmv_node *N = D->node;
    double fl = (double)(((size_t)N->size * sizeof(node_flags) + 4095) / 4096 * 4096);
    double vb = (double)N->vec_stride * sizeof(hspmv_real), gb = 2.0 * (double)N->gh_stride * sizeof(hspmv_real);
    double w64 = fl + 66 * vb + gb + 4096, w2 = fl + 4 * vb + gb + 4096, lim = w2 + 8192;
    if (lim < 400e3) lim = 400e3; /* above what the rest of the matrix asks for */
    double most = lim;
    MPI_Allreduce(&lim, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    lim = most;
    hspmv_dist_destroy(&D);
    double least = w64;
    MPI_Allreduce(&w64, &least, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (least <= lim) {
        SKIP("64 slots fit in the limit at this rank count");
    } else {
        if (me == P - 1) hspmv_mem_test_process_bytes = lim;
        rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
        hspmv_mem_test_process_bytes = 0;
        int ok = rc == 0 && D, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        CHECK(all, "with a limit on rank %d: %s", P - 1, e.msg);
        if (all) {
            hspmv_dist_info in;
            hspmv_dist_get_info(D, &in);
            int s[2] = {D->node->nslots, -D->node->nslots}, r[2];
            MPI_Allreduce(s, r, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            CHECK(in.halo == HSPMV_HALO_NODE && r[0] == 2 && -r[1] == 2, "slots %d..%d (want 2 everywhere)", r[0],
                  -r[1]);
            hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
            CHECK(product_ok(D, &A, x, y, 5, "a smaller window"), "y");
            hspmv_free(x);
            hspmv_free(y);
        }
        hspmv_dist_destroy(&D);
    }
    tk("node_slots", NULL);
    hspmv_csr_free(&A);
}

/* Without shared windows (simulated on the last rank): halo "auto" falls
   back to p2p with the right y; halo "node" asked for is every rank's
   HSPMV_ERR_UNSUPPORTED. */
static void no_shared_windows_means_p2p(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    tk("no_window", "1");
    for (int h = 0; h < 2; h++) {
        hspmv_opts o;
        t_opts(&o);
        o.halo = h ? HSPMV_HALO_NODE : HSPMV_HALO_AUTO;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
        char msg0[512];
        memcpy(msg0, e.msg, sizeof(msg0));
        MPI_Bcast(msg0, sizeof(msg0), MPI_CHAR, 0, MPI_COMM_WORLD);
        if (h) {
            CHECK(rc == HSPMV_ERR_UNSUPPORTED && D == NULL && !strcmp(msg0, e.msg) && strstr(e.msg, "window"),
                  "rc %d: %s", rc, e.msg);
            continue;
        }
        CHECK(rc == 0, "%s", e.msg);
        if (rc) continue;
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        CHECK(in.halo == HSPMV_HALO_P2P, "halo %d", in.halo);
        hspmv_real *xg = NULL, *yg = NULL, *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1),
                   *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        if (me == 0) {
            xg = hspmv_alloc_array((size_t)A.ncols, sizeof(hspmv_real));
            yg = hspmv_alloc_array((size_t)A.nrows, sizeof(hspmv_real));
            tl_fill(xg, A.ncols, 3);
        }
        hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, x, NULL);
        CHECK(hspmv_dist_spmv(D, x, y, &e) == 0, "%s", e.msg);
        CHECK(y_ok(D, &A, xg, y, yg, 2, "no shared windows"), "y");
        hspmv_free(xg);
        hspmv_free(yg);
        hspmv_free(x);
        hspmv_free(y);
        hspmv_dist_destroy(&D);
    }
    tk("no_window", NULL);
    hspmv_csr_free(&A);
}

/* hspmv_dist_view: rank 0 writes a block for every rank (halo node: the
   plan's choice and the window too), others write nothing. */
static void view_prints_every_rank(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    for (int h = 0; h < 2; h++) {
        hspmv_opts o;
        hspmv_opts_default(&o);
        o.halo = h ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
        hspmv_dist *D = NULL;
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, NULL);
        CHECK(rc == 0, "create");
        if (rc) continue;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        hspmv_dist_view(D, f);
        fclose(f);
        int ok = me == 0 ? strstr(buf, h ? "halo p2p" : "halo node") != NULL : len == 0;
        for (int r = 0; me == 0 && r < P; r++) {
            char w[32];
            snprintf(w, sizeof(w), "rank %d:", r);
            ok &= strstr(buf, w) != NULL;
        }
        if (me == 0 && !h) ok &= strstr(buf, "gather ") != NULL && strstr(buf, "window:") != NULL;
        CHECK(ok, "%s: view on rank %d:\n%s", h ? "p2p" : "node", me, buf ? buf : "");
        free(buf);
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
}

/* HSPMV_TEST and opts.node_ranks are rank 0's for every rank: a bad test
   string or a negative node_ranks on rank 0 is one HSPMV_ERR_ARG with one
   message on every rank; other ranks' strings and values are ignored (no
   rank plans apart from the others, nothing hangs). */
static void rank0s_settings_are_every_ranks(void)
{
    hspmv_csr A = {0};
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    for (int c = 0; c < 4; c++) { /* bad string on rank 0; bad only elsewhere; node_ranks < 0 on rank 0; elsewhere */
        int bad0 = c == 0 || c == 2;
        if (c < 2 && (me == 0) == bad0) setenv("HSPMV_TEST", "gather=sideways", 1);
        else if (c < 2) setenv("HSPMV_TEST", "gather=direct", 1);
        hspmv_opts o;
        hspmv_opts_default(&o);
        o.halo = HSPMV_HALO_NODE;
        if (c >= 2 && (me == 0) == bad0) o.node_ranks = -1;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e);
        unsetenv("HSPMV_TEST");
        char msg0[512];
        memcpy(msg0, e.msg, sizeof(msg0));
        MPI_Bcast(msg0, sizeof(msg0), MPI_CHAR, 0, MPI_COMM_WORLD);
        if (bad0)
            CHECK(rc == HSPMV_ERR_ARG && !D && !strcmp(msg0, e.msg) && strstr(e.msg, c < 2 ? "sideways" : "node_ranks"),
                  "case %d: rc %d: %s", c, rc, e.msg);
        else
            CHECK(rc == HSPMV_OK && D, "case %d: rc %d: %s", c, rc, e.msg);
        if (D && c == 1) {
            hspmv_dist_info in;
            hspmv_dist_get_info(D, &in);
            CHECK(gather_of(&in) == HSPMV_GATHER_DIRECT, "case 1: gather %d, not rank 0's direct", gather_of(&in));
        }
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
}

/* A bad file on the node path: every rank the same message. */
static void bad_file_is_every_ranks_error(void)
{
    char path[] = "/tmp/hspmv_node_badXXXXXX";
    int fd = -1;
    if (me == 0) {
        fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (f) {
            fputs("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n", f);
            fclose(f);
        }
    }
    MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
    char ks[16];
    snprintf(ks, sizeof(ks), "%d", default_k());
    set_env(ks, NULL);
    hspmv_opts o;
    t_opts(&o);
    o.halo = HSPMV_HALO_NODE;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_read(path, MPI_COMM_WORLD, &o, &D, &e);
    set_env(NULL, NULL);
    char msg0[512];
    memcpy(msg0, e.msg, sizeof(msg0));
    MPI_Bcast(msg0, sizeof(msg0), MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECK(rc == HSPMV_ERR_FORMAT && D == NULL && !strcmp(msg0, e.msg) && strstr(e.msg, ":4:"), "rc %d: %s", rc,
          e.msg);
    if (me == 0) unlink(path);
}

/* The n-th create of a node-path sweep (ctx: its sweep): pass 0 takes the
   gathers direct and copy by turns; 1 shares rows; 2 shares rows with a
   replica; 3 shares owned rows. Where it works, the plan is the one asked for. */
typedef struct node_sweep {
    const hspmv_csr *A;
    int pass;
} node_sweep;

static int create_node_nth(void *ctx, int n, hspmv_dist **D, hspmv_error *e)
{
    const node_sweep *s = ctx;
    int pass = s->pass;
    char ks[16];
    snprintf(ks, sizeof(ks), "%d", default_k());
    set_env(ks, pass == 3 ? "direct" : pass ? "share" : n % 2 ? "copy" : "direct");
    if (pass) tk("merge", pass < 3 ? "1" : "0"); /* shared rows need the owned columns in the node block,
                                                    owned rows shared not */
    if (pass == 2) tk("replica", "1");
    if (pass == 3) tk("owned_share_tail", "20");
    hspmv_opts o;
    t_opts(&o);
    o.partition = n % 3;
    o.halo = HSPMV_HALO_NODE;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? s->A : NULL, &o, D, e);
    hspmv_alloc_fail_after(0); /* not in the checks below */
    set_env(NULL, NULL);
    tk_clear();
    if (rc == 0) { /* it works afterwards */
        hspmv_dist_info in;
        hspmv_dist_get_info(*D, &in);
        CHECK(in.halo == HSPMV_HALO_NODE, "halo %d", in.halo);
        if (pass && pass < 3 && P > 1) CHECK(gather_of(&in) == HSPMV_GATHER_SHARE, "gather %s", in.gather);
        if (pass == 2) CHECK(in.replica == 1, "replica %d", in.replica);
        if (pass == 3) CHECK(in.owned_share == (in.node_ranks > 1 ? 20 : 0), "owned_share %d", in.owned_share);
    }
    return rc;
}

/* The n-th allocation fails on the last rank while building the node plan
   on pseudo-nodes: the same NOMEM and message everywhere, nobody hangs. */
static void failed_allocation_on_the_node_path(void)
{
    static const char *what[] = {"node path", "node path (shared rows)", "node path (shared rows, replica)",
                                 "node path (owned rows shared)"};
    hspmv_csr A;
    tl_csr_random(&A, 300, 300, NULL, 8, 2, 5);
    for (int pass = 0; pass < 4; pass++) {
        node_sweep s = {&A, pass};
        mt_alloc_sweep(what[pass], create_node_nth, &s, 400, 11);
    }
    hspmv_csr_free(&A);
}

/* The runner's choices would hide this program's: its own halo modes,
   pseudo-nodes and gathers. */
static int own_settings(void)
{
    set_env(NULL, NULL);
    unsetenv("MT_HALO");
    unsetenv("MT_NODE_RANKS");
    tk_clear();
    return 0;
}

static const mt_hooks hooks = {own_settings, NULL};

MT_MAIN(&hooks, node_matches_ref_on_bundled_matrices, node_matches_ref_on_a_shared_matrix, node_handles_odd_shapes,
        node_times_the_gathers, chained_products_without_collectives_are_exact, owned_rows_shared_are_exact,
        shared_rows_segments_on_huge_pages, long_rows_are_run_first_by_their_owner, boundary_rows_folded_are_exact,
        cg_converges_on_pseudo_nodes, window_vectors_run_out_and_outlive_the_matrix,
        a_node_of_one_rank_keeps_its_vectors_private, no_shared_windows_means_p2p,
        a_window_one_rank_cannot_map_is_every_ranks_smaller_window, bad_file_is_every_ranks_error,
        rank0s_settings_are_every_ranks, view_prints_every_rank, failed_allocation_on_the_node_path)
