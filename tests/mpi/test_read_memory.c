/* test_read_memory.c — the parallel reads (Matrix Market in byte ranges,
   PETSc binary with MPI-IO) refuse sizes a rank or its node cannot hold
   before allocating them, with the file, the size line and the figure, the
   same message on every rank; and an allocation failing on one rank
   anywhere in them is every rank's error, never a hang. Memory limits are
   the test's (hspmv_mem_test_bytes stands in for physical memory,
   hspmv_mem_test_process_bytes for a rank's ulimit -v), so the
   verdicts do not depend on the machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "dist.h"
#include "dist_mem.h"
#include "mpitest.h"
#include "read_parallel.h"
#include "testlib.h"
#include "util.h"

static int me, P;

/* 1 when every rank got rc and rank 0's message, and that message holds
   every one of the (up to 3) strings given. */
static int agreed(int rc, int want, const hspmv_error *e, const char *s1, const char *s2, const char *s3)
{
    char m0[sizeof(e->msg)];
    memcpy(m0, e->msg, sizeof(m0));
    MPI_Bcast(m0, sizeof(m0), MPI_CHAR, 0, MPI_COMM_WORLD);
    int ok = rc == want && !strcmp(m0, e->msg) && (!s1 || strstr(e->msg, s1)) && (!s2 || strstr(e->msg, s2)) &&
             (!s3 || strstr(e->msg, s3)),
        all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) fprintf(stderr, "  rank %d: rc %d (want %d): %s\n", me, rc, want, e->msg);
    return all;
}

static int read_dist(const char *path, int read, int partition, int halo, hspmv_dist **D, hspmv_error *e)
{
    hspmv_opts o;
    mt_opts(&o);
    o.read = read;
    o.partition = partition;
    o.halo = halo;
    o.threads = 1;
    *D = NULL;
    return hspmv_dist_read(path, MPI_COMM_WORLD, &o, D, e);
}

#define BAN "%%MatrixMarket matrix coordinate real general\n"

/* The 61-byte file: 2^31-1 rows for one entry. Every way of
   reading it in parallel refuses at once with the size line's figure. */
static void huge_size_line_is_refused_by_every_parallel_read(void)
{
    static const char text[] = BAN "2147483647 2147483647 1\n1 1 1\n";
    char *p = mt_shared_file(text, strlen(text), 0);
    if (!p) {
        SKIP("no temporary file");
        return;
    }
    char where[300];
    snprintf(where, sizeof(where), "%s:2: ", p);
    hspmv_mem_test_bytes = 16e9; /* a 16 GB machine, whatever this one has */
    static const int parts[] = {HSPMV_PART_NNZ, HSPMV_PART_ROWS, HSPMV_PART_METIS};
    static const int halos[] = {HSPMV_HALO_AUTO, HSPMV_HALO_P2P, HSPMV_HALO_NODE};
    for (int i = 0; i < 3; i++) {
        hspmv_dist *D;
        hspmv_error e = {0, ""};
        int rc = read_dist(p, HSPMV_READ_PARALLEL, parts[i], halos[i], &D, &e);
        CHECK(agreed(rc, HSPMV_ERR_NOMEM, &e, where, "2147483647 x 2147483647 matrix of 1 entries", " GB, more than"),
              "partition %d: %s", parts[i], e.msg);
        CHECK(D == NULL, "a matrix came back");
        hspmv_dist_destroy(&D);
    }
    /* the rows alone (what the programs read again for their check) */
    hspmv_csr S;
    int64_t *rs = calloc((size_t)P + 1, sizeof(int64_t));
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_read_rows(p, MPI_COMM_WORLD, NULL, &S, rs, &e);
    CHECK(agreed(rc, HSPMV_ERR_NOMEM, &e, where, "2147483647 x 2147483647 matrix of 1 entries", NULL), "rows: %s",
          e.msg);
    CHECK(S.rowptr == NULL && S.nrows == 0, "rows came back");
    hspmv_csr_free(&S);
    free(rs);
    hspmv_mem_test_bytes = 0;
    mt_drop_file(p);
}

/* A diagonal matrix of n rows in a file; the rows partition gives rank r
   exactly its hspmv_partition_rows share, so what the check will count for
   a rank is known here (hspmv_share_bytes). */
static char *diagonal_file(int64_t n)
{
    size_t cap = (size_t)n * 24 + 128, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t, cap, BAN "%% a comment line\n%lld %lld %lld\n", (long long)n, (long long)n,
                            (long long)n);
    for (int64_t i = 1; i <= n; i++) len += (size_t)snprintf(t + len, cap - len, "%lld %lld 2\n", (long long)i,
                                                             (long long)i);
    char *p = mt_shared_file(t, len, 0);
    free(t);
    return p;
}

static double share_of(int64_t n, int r, int window)
{
    int64_t *st = malloc(sizeof(int64_t) * ((size_t)P + 1));
    hspmv_partition_rows(n, P, st);
    int64_t nl = st[r + 1] - st[r];
    free(st);
    share_need s = {nl, nl, nl, 1, window};
    return hspmv_share_bytes(&s, NULL, 0);
}

/* One rank that cannot hold its share: refused on every rank with that
   rank's figure, before any of it is allocated; the same limit with room
   to spare reads. */
static void a_rank_without_room_for_its_share_is_everyones_error(void)
{
    const int64_t n = 20000;
    char *p = diagonal_file(n);
    if (!p) {
        SKIP("no temporary file");
        return;
    }
    double need = share_of(n, P - 1, 0);
    char who[128], where[300];
    snprintf(who, sizeof(who), "rank %d's share of a 20000 x 20000 matrix of 20000 entries", P - 1);
    snprintf(where, sizeof(where), "%s:3: ", p); /* the size line, after a comment */
    if (me == P - 1) hspmv_mem_test_process_bytes = 0.9 * need; /* its ulimit -v, not the node's memory */
    hspmv_dist *D;
    hspmv_error e = {0, ""};
    int rc = read_dist(p, HSPMV_READ_PARALLEL, HSPMV_PART_ROWS, HSPMV_HALO_P2P, &D, &e);
    CHECK(agreed(rc, HSPMV_ERR_NOMEM, &e, where, who, "the test's process limit"), "%s", e.msg);
    CHECK(D == NULL, "a matrix came back");
    hspmv_dist_destroy(&D);
    /* room for the share is room enough */
    if (me == P - 1) hspmv_mem_test_process_bytes = 1.1 * need;
    rc = read_dist(p, HSPMV_READ_PARALLEL, HSPMV_PART_ROWS, HSPMV_HALO_P2P, &D, &e);
    CHECK(agreed(rc, HSPMV_OK, &e, NULL, NULL, NULL) && D, "with room: %s", e.msg);
    hspmv_dist_destroy(&D);
    hspmv_mem_test_process_bytes = 0;
    mt_drop_file(p);
}

/* Ranks that each fit but together do not fit their node (physical memory
   is the node's): refused, with the node's sum and its largest share. */
static void ranks_that_together_overfill_their_node_are_refused(void)
{
    const int64_t n = 20000;
    char *p = diagonal_file(n);
    if (!p) {
        SKIP("no temporary file");
        return;
    }
    double most = 0;
    for (int r = 0; r < P; r++)
        if (share_of(n, r, 1) > most) most = share_of(n, r, 1);
    hspmv_mem_test_bytes = 1.5 * most; /* every rank fits; two or more on a node do not */
    hspmv_dist *D;
    hspmv_error e = {0, ""};
    int rc = read_dist(p, HSPMV_READ_PARALLEL, HSPMV_PART_ROWS, HSPMV_HALO_NODE, &D, &e);
    if (P == 1) {
        CHECK(rc == HSPMV_OK && D, "one rank: %s", e.msg);
        SKIP("one rank alone fits (checked): no node to overfill");
    } else {
        char what[96];
        snprintf(what, sizeof(what), "what the %d ranks on one node hold of a 20000 x 20000 matrix", P);
        CHECK(agreed(rc, HSPMV_ERR_NOMEM, &e, p, what, "the test's memory limit"), "%s", e.msg);
        CHECK(D == NULL, "a matrix came back");
    }
    hspmv_dist_destroy(&D);
    hspmv_mem_test_bytes = 0;
    mt_drop_file(p);
}

/* A PETSc binary header (4-byte integers) of rows x cols and nnz entries. */
static void petsc_header(unsigned char *b, int64_t rows, int64_t cols, int64_t nnz)
{
    const int64_t v[4] = {1211216, rows, cols, nnz};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) b[4 * i + k] = (unsigned char)((uint64_t)v[i] >> (24 - 8 * k));
}

/* A PETSc file declaring 10^8 rows with no entries, long enough to hold
   their lengths (a hole of zeros): the MPI-IO read refuses the row lengths
   each rank would read, the serial read (and METIS, which takes it) the
   whole matrix, each with the figure. */
static void petsc_header_sizes_are_refused_by_both_readers(void)
{
    unsigned char h[16];
    petsc_header(h, 100000000, 100000000, 0);
    char *p = mt_shared_file(h, sizeof(h), 16 + 400000000LL);
    if (!p) {
        SKIP("no temporary file");
        return;
    }
    hspmv_mem_test_bytes = 0.5e9; /* below the 0.8 GB of lengths on any node */
    static const int parts[] = {HSPMV_PART_NNZ, HSPMV_PART_ROWS, HSPMV_PART_METIS};
    for (int i = 0; i < 3; i++) {
        hspmv_dist *D;
        hspmv_error e = {0, ""};
        int rc = read_dist(p, HSPMV_READ_ROOT, parts[i], HSPMV_HALO_AUTO, &D, &e);
        CHECK(agreed(rc, HSPMV_ERR_NOMEM, &e, p, "a 100000000 x 100000000 matrix of 0 entries", "the test's memory limit"),
              "partition %d: %s", parts[i], e.msg);
        CHECK(D == NULL, "a matrix came back");
        hspmv_dist_destroy(&D);
    }
    hspmv_csr A;
    hspmv_error e = {0, ""};
    int rc = hspmv_petsc_read(p, &A, &e);
    CHECK(rc == HSPMV_ERR_NOMEM && strstr(e.msg, "a 100000000 x 100000000 matrix of 0 entries (CSR 0.8 GB, x and y"),
          "serial: rc %d: %s", rc, e.msg);
    CHECK(A.rowptr == NULL, "serial: rows came back");
    hspmv_csr_free(&A);
    hspmv_mem_test_bytes = 0;
    mt_drop_file(p);
}

/* A smaller PETSc file whose row lengths fit but whose share does not on
   the last rank: that rank's figure on every rank. */
static void petsc_share_without_room_is_everyones_error(void)
{
    const int64_t n = 2000000;
    unsigned char h[16];
    petsc_header(h, n, n, 0);
    char *p = mt_shared_file(h, sizeof(h), 16 + 4 * n);
    if (!p) {
        SKIP("no temporary file");
        return;
    }
    int64_t *st = malloc(sizeof(int64_t) * ((size_t)P + 1));
    hspmv_partition_rows(n, P, st);
    share_need s = {st[P] - st[P - 1], 0, st[P] - st[P - 1], 1, 0};
    free(st);
    char who[128];
    snprintf(who, sizeof(who), "rank %d's share of a 2000000 x 2000000 matrix of 0 entries", P - 1);
    if (me == P - 1) hspmv_mem_test_process_bytes = 0.9 * hspmv_share_bytes(&s, NULL, 0);
    hspmv_dist *D;
    hspmv_error e = {0, ""};
    int rc = read_dist(p, HSPMV_READ_ROOT, HSPMV_PART_ROWS, HSPMV_HALO_P2P, &D, &e);
    CHECK(agreed(rc, HSPMV_ERR_NOMEM, &e, p, who, "the test's process limit"), "%s", e.msg);
    CHECK(D == NULL, "a matrix came back");
    hspmv_dist_destroy(&D);
    hspmv_mem_test_process_bytes = 0;
    mt_drop_file(p);
}

/* One parallel read of a sweep (ctx): halo node and p2p by turns. */
typedef struct read_sweep {
    const char *path;
    int read, partition;
} read_sweep;

static int read_nth(void *ctx, int n, hspmv_dist **D, hspmv_error *e)
{
    const read_sweep *r = ctx;
    return read_dist(r->path, r->read, r->partition, n % 2 ? HSPMV_HALO_NODE : HSPMV_HALO_P2P, D, e);
}

/* The n-th allocation fails on the last rank, for every n until the read
   succeeds: the same status and message on every rank each time, and no
   rank left waiting (the runner's timeout would end it). */
static void fail_everywhere(const char *path, int read, int partition, const char *what)
{
    read_sweep r = {path, read, partition};
    mt_alloc_sweep(what, read_nth, &r, 2000, 6);
}

static void failed_allocations_in_the_parallel_reads_are_agreed(void)
{
    hspmv_csr A;
    char *mm = NULL, *pb = NULL;
    if (tl_read_csr("matrices/lap2d_64.mtx", &A)) {
        SKIP("matrices/lap2d_64.mtx missing");
        return;
    }
    /* a PETSc copy, written by rank 0 */
    char name[256] = "";
    if (me == 0) {
        snprintf(name, sizeof(name), "%s/hspmv_rm_%d.petsc",
                 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
        hspmv_error e = {0, ""};
        if (hspmv_petsc_write(name, &A, 4, &e)) name[0] = 0;
    }
    MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
    pb = name[0] ? strdup(name) : NULL;
    mm = strdup("matrices/lap2d_64.mtx");
    fail_everywhere(mm, HSPMV_READ_PARALLEL, HSPMV_PART_NNZ, "Matrix Market, parallel, nnz");
    fail_everywhere(mm, HSPMV_READ_PARALLEL, HSPMV_PART_METIS, "Matrix Market, parallel, METIS");
    if (pb) {
        fail_everywhere(pb, HSPMV_READ_ROOT, HSPMV_PART_NNZ, "PETSc, MPI-IO, nnz");
        fail_everywhere(pb, HSPMV_READ_ROOT, HSPMV_PART_ROWS, "PETSc, MPI-IO, rows");
    } else {
        CHECK(0, "could not write the PETSc copy");
    }
    mt_drop_file(pb);
    free(mm);
    hspmv_csr_free(&A);
}

/* Should a check let a huge size through, allocations fail here instead of
   the machine paging or killing (AddressSanitizer reserves terabytes of
   address space: no limit there). */
static int limit_address_space(void)
{
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > ((rlim_t)8 << 30))) {
        rl.rlim_cur = (rlim_t)8 << 30;
        setrlimit(RLIMIT_AS, &rl);
    }
#endif
    return 0;
}

static const mt_hooks hooks = {limit_address_space, NULL};

MT_MAIN(&hooks, huge_size_line_is_refused_by_every_parallel_read, a_rank_without_room_for_its_share_is_everyones_error,
        ranks_that_together_overfill_their_node_are_refused, petsc_header_sizes_are_refused_by_both_readers,
        petsc_share_without_room_is_everyones_error, failed_allocations_in_the_parallel_reads_are_agreed)
