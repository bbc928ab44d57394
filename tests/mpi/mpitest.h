/* mpitest.h — check.h under MPI: every rank runs each test, failures are
   reduced over MPI_COMM_WORLD, and only rank 0 prints results; the one
   main of the MPI test programs (MT_MAIN), the options and the HSPMV_TEST
   switch a run asks for (mt_opts, mt_test_env) and the allocation-failure
   sweep (mt_alloc_sweep). All static
   inline: check.h's counters are each program's own. */
#ifndef HSPMV_MPITEST_H
#define HSPMV_MPITEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h" /* hspmv_alloc_fail_after */
#include "check.h"
#include "hspmv.h"

/* Rank 0 writes n bytes of text to a fresh file in $TMPDIR (default /tmp),
   then grows it to size bytes (a hole of zeros) when size > n; every rank
   gets its name (malloc'ed), or NULL when it could not be written. */
static inline char *mt_shared_file(const void *text, size_t n, long long size)
{
    char name[256] = "";
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(name, sizeof(name), "%s/hspmv_mt_XXXXXX", dir);
        int fd = mkstemp(name);
        if (fd < 0 || write(fd, text, n) != (ssize_t)n || (size > (long long)n && ftruncate(fd, size) != 0))
            name[0] = 0;
        if (fd >= 0) close(fd);
    }
    MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
    return name[0] ? strdup(name) : NULL;
}

/* Once every rank is done with it, rank 0 removes the file; frees p. */
static inline void mt_drop_file(char *p)
{
    int me;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0 && p) unlink(p);
    free(p);
}

/* Collective: 1 on every rank when some rank's status or message differs
   from rank 0's, or a rank holds an object (has_obj) after a failure or
   none after success. */
static inline int mt_errors_differ(int rc, const char *msg, int has_obj)
{
    char msg0[512] = "";
    int rc0 = rc, bad, any;
    snprintf(msg0, sizeof(msg0), "%s", msg);
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(msg0, sizeof(msg0), MPI_CHAR, 0, MPI_COMM_WORLD);
    bad = rc != rc0 || (rc && strncmp(msg0, msg, sizeof(msg0) - 1) != 0) || (rc != 0) == has_obj;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* The options every MPI test starts from: hspmv_opts_default with the halo
   mode and pseudo-node size a run of tests/mpi/run.sh asks for through the
   test-side variables MT_HALO (node|p2p) and MT_NODE_RANKS (k); the library
   itself reads neither. */
static inline void mt_opts(hspmv_opts *o)
{
    const char *h = getenv("MT_HALO"), *k = getenv("MT_NODE_RANKS");
    hspmv_opts_default(o);
    if (h && !strcmp(h, "p2p")) o->halo = HSPMV_HALO_P2P;
    if (h && !strcmp(h, "node")) o->halo = HSPMV_HALO_NODE;
    if (k && *k) o->node_ranks = atoi(k);
}

/* Sets HSPMV_TEST (the library's test-only switch) to the run's pairs
   (tests/mpi/run.sh's, e.g. dist_chunk=1000,dist_pieces=3, as they were at
   the first call: mt_main makes it) followed by pairs, whose keys win (the
   last of a key counts); NULL: the run's pairs alone. A test that forces a
   plan with it keeps the run's settings, which unsetenv would drop. */
static inline void mt_test_env(const char *pairs)
{
    static char run[512];
    static int kept;
    char v[1024];
    if (!kept) {
        const char *s = getenv("HSPMV_TEST");
        snprintf(run, sizeof(run), "%s", s ? s : "");
        kept = 1;
    }
    snprintf(v, sizeof(v), "%s%s%s", run, run[0] && pairs && pairs[0] ? "," : "", pairs ? pairs : "");
    if (v[0]) setenv("HSPMV_TEST", v, 1);
    else unsetenv("HSPMV_TEST");
}

/* RUN, with the ranks' failures and skips agreed before the verdict: the
   test failed where any rank failed, else skipped where any rank skipped;
   rank 0 prints the "ok|FAIL|skip NAME (T s)" line. */
static inline void mt_run(const char *name, void (*fn)(void))
{
    int f[2], g[2];
    check_cur_name = name;
    check_cur_failed = 0;
    check_cur_skipped = 0;
    double t = check_now();
    fn();
    t = check_now() - t;
    f[0] = check_cur_failed;
    f[1] = check_cur_skipped;
    MPI_Allreduce(f, g, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (g[0]) {
        check_failed++;
        printf("FAIL %s (%.2f s)\n", name, t);
    } else if (g[1]) {
        check_skipped++;
        printf("skip %s (%.2f s)\n", name, t);
    } else {
        check_passed++;
        printf("ok   %s (%.2f s)\n", name, t);
    }
    fflush(stdout);
}

#define MRUN(fn) mt_run(#fn, fn)

/* What a test program does around its tests (either may be NULL): setup
   runs on every rank after MPI_Init and the output setup and returns 0 to
   go on (else the program counts one failure and runs no test); teardown
   runs after the tests, before MPI_Finalize. */
typedef struct mt_hooks {
    int (*setup)(void);
    void (*teardown)(void);
} mt_hooks;

/* The main of an MPI test program (see MT_MAIN): MPI with funneled threads,
   *me and *P set, only rank 0's stdout kept, each of the n tests run with
   mt_run under its name (names: the tests' names as one comma-separated
   list), then the "N passed, N failed, N skipped" line that tests/mpi/run.sh
   adds up; exits 1 when a test failed. */
static inline int mt_main(int argc, char **argv, int *me, int *P, const mt_hooks *h, void (*const *tests)(void),
                          int n, const char *names)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, P);
    if (*me != 0 && !freopen("/dev/null", "w", stdout)) return 1;
    mt_test_env(NULL); /* keeps the run's HSPMV_TEST */
    int go = !h || !h->setup || h->setup() == 0;
    if (!go) check_failed++;
    for (int i = 0; go && i < n; i++) {
        char name[128];
        size_t len;
        while (*names == ',' || *names == ' ') names++;
        len = strcspn(names, ", ");
        snprintf(name, sizeof(name), "%.*s", (int)len, names);
        names += len;
        mt_run(name, tests[i]);
    }
    if (h && h->teardown) h->teardown();
    int rc = check_failed ? 1 : 0;
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    fflush(stdout);
    MPI_Finalize();
    return rc;
}

/* main() of an MPI test program: MT_MAIN(hooks, test_a, test_b, ...) runs
   the tests in that order through mt_main, which sets the file's static
   ints me (this rank) and P (the rank count); hooks: a const mt_hooks * or
   NULL. */
#define MT_MAIN(hooks, ...)                                                    \
    int main(int argc, char **argv)                                            \
    {                                                                          \
        static void (*const mt_tests_[])(void) = {__VA_ARGS__};                \
        return mt_main(argc, argv, &me, &P, hooks, mt_tests_,                  \
                       (int)(sizeof(mt_tests_) / sizeof(mt_tests_[0])), #__VA_ARGS__); \
    }

/* The allocation-failure sweep of a collective create: for n = 1, 2, ...
   the n-th allocation of create(ctx, n, &D, &e) fails on the last rank
   (hspmv_alloc_fail_after), until create succeeds. Each time every rank
   must return rank 0's status and message (mt_errors_differ), a failure
   must be HSPMV_ERR_NOMEM and leave no matrix behind, a success must give
   one (create may check it further: it is destroyed here), and no rank may
   hang (the runner's timeout would end it). CHECKs that, at least
   min_failures failures and a success before n reaches max_n; rank 0 says
   "  WHAT: allocation failure injected at N points before success".
   Returns the number of mismatches. Collective. */
static inline int mt_alloc_sweep(const char *what, int (*create)(void *ctx, int n, hspmv_dist **D, hspmv_error *e),
                                 void *ctx, int max_n, int min_failures)
{
    int rank, size, failures = 0, mismatches = 0, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (n = 1; n < max_n; n++) {
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        if (rank == size - 1) hspmv_alloc_fail_after(n);
        int rc = create(ctx, n, &D, &e);
        hspmv_alloc_fail_after(0);
        mismatches += mt_errors_differ(rc, e.msg, D != NULL);
        hspmv_dist_destroy(&D);
        if (rc == 0) break;
        failures++;
        CHECK(rc == HSPMV_ERR_NOMEM, "%s: failing allocation %d: rc %d: %s", what, n, rc, e.msg);
    }
    if (rank == 0) printf("  %s: allocation failure injected at %d points before success\n", what, failures);
    CHECK(mismatches == 0 && failures >= min_failures && n < max_n,
          "%s: %d mismatches, %d failures (at least %d wanted), %s", what, mismatches, failures, min_failures,
          n < max_n ? "then success" : "no success");
    return mismatches;
}

#endif
