/* mpitest.h — check.h under MPI: every rank runs each test, failures are
   reduced over MPI_COMM_WORLD, and only rank 0 prints results. */
#ifndef HSPMV_MPITEST_H
#define HSPMV_MPITEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* RUN, with the ranks' failures and skips agreed before the verdict. */
#define MRUN(fn)                                                               \
    do {                                                                       \
        int f_[2], g_[2];                                                      \
        check_cur_name = #fn;                                                  \
        check_cur_failed = 0;                                                  \
        check_cur_skipped = 0;                                                 \
        double t_ = check_now();                                               \
        fn();                                                                  \
        t_ = check_now() - t_;                                                 \
        f_[0] = check_cur_failed; f_[1] = check_cur_skipped;                   \
        MPI_Allreduce(f_, g_, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);            \
        if (g_[0]) { check_failed++; printf("FAIL %s (%.2f s)\n", #fn, t_); }  \
        else if (g_[1]) { check_skipped++; printf("skip %s (%.2f s)\n", #fn, t_); } \
        else { check_passed++; printf("ok   %s (%.2f s)\n", #fn, t_); }        \
        fflush(stdout);                                                        \
    } while (0)

#endif
