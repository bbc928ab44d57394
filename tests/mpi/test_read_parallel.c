/* test_read_parallel.c — every rank reading a byte range against the root
   read: the same partition and the same rows bit for bit on every shared and
   generated matrix, with ranges cut anywhere (HSPMV_TEST read_chunk) and tiny
   exchange rounds (HSPMV_TEST read_xchg); the same status and message on every
   rank for bad files; the distributed matrix and its product the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dist.h"
#include "mpitest.h"
#include "testlib.h"

static int me, P;

/* HSPMV_TEST with the byte-range size read_chunk and the exchange-round
   size read_xchg (each left out when 0; unset when both are). */
static void set_sizes(long chunk, long xchg)
{
    char s[96] = "";
    if (chunk > 0) snprintf(s, sizeof(s), "read_chunk=%ld", chunk);
    if (xchg > 0) snprintf(s + strlen(s), sizeof(s) - strlen(s), "%sread_xchg=%ld", *s ? "," : "", xchg);
    if (*s) setenv("HSPMV_TEST", s, 1);
    else unsetenv("HSPMV_TEST");
}

/* The root read's rows for this rank: the whole file read with one thread
   on this rank, partitioned as rank 0 would, this rank's slice kept. */
static int root_rows(const char *path, int part, hspmv_csr *S, int64_t *rs, hspmv_error *e)
{
    hspmv_csr A;
    hspmv_read_opts ro = {NULL, NULL, 1};
    memset(S, 0, sizeof(*S));
    int rc = hspmv_csr_read(path, &A, &ro, NULL, e);
    if (rc) return rc;
    if (part == HSPMV_PART_ROWS) hspmv_partition_rows(A.nrows, P, rs);
    else hspmv_partition_nnz(A.rowptr, A.nrows, P, rs);
    int64_t b = rs[me], n = rs[me + 1] - b, a = A.rowptr[b], z = A.rowptr[b + n] - a;
    S->nrows = n;
    S->ncols = A.ncols;
    S->nnz = z;
    S->rowptr = malloc(sizeof(int64_t) * ((size_t)n + 1));
    S->colind = malloc(sizeof(int32_t) * ((size_t)z + 1));
    S->val = malloc(sizeof(hspmv_real) * ((size_t)z + 1));
    for (int64_t i = 0; i <= n; i++) S->rowptr[i] = A.rowptr[b + i] - a;
    memcpy(S->colind, A.colind + a, sizeof(int32_t) * (size_t)z);
    memcpy(S->val, A.val + a, sizeof(hspmv_real) * (size_t)z);
    hspmv_csr_free(&A);
    return HSPMV_OK;
}

static void free_plain(hspmv_csr *S)
{
    free(S->rowptr);
    free(S->colind);
    free(S->val);
    memset(S, 0, sizeof(*S));
}

static int same_rows(const hspmv_csr *a, const hspmv_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) return 0;
    if (memcmp(a->rowptr, b->rowptr, sizeof(int64_t) * ((size_t)a->nrows + 1)) != 0) return 0;
    if (a->nnz && (memcmp(a->colind, b->colind, sizeof(int32_t) * (size_t)a->nnz) != 0 ||
                   !tl_same_bits(a->val, b->val, a->nnz)))
        return 0;
    return 1;
}

/* 1 on every rank when the parallel read of path gives every rank the
   root read's outcome (rows and partition, or status and message). */
static int reads_like_root(const char *path, int part, long chunk, long xchg, const char *what)
{
    hspmv_csr R, S;
    hspmv_error er = {0, ""}, ep = {0, ""};
    hspmv_opts o;
    int64_t *rr = calloc((size_t)P + 1, sizeof(int64_t)), *rp = calloc((size_t)P + 1, sizeof(int64_t));
    int ok = 1;
    mt_opts(&o);
    o.partition = part;
    int rcr = root_rows(path, part, &R, rr, &er);
    set_sizes(chunk, xchg);
    int rcp = hspmv_dist_read_rows(path, MPI_COMM_WORLD, &o, &S, rp, &ep);
    set_sizes(0, 0);
    if (rcr != rcp || (rcr && strcmp(er.msg, ep.msg) != 0)) {
        fprintf(stderr, "rank %d: %s (chunk %ld, xchg %ld):\n  root:     %d %s\n  parallel: %d %s\n", me, what, chunk,
                xchg, rcr, rcr ? er.msg : "ok", rcp, rcp ? ep.msg : "ok");
        ok = 0;
    } else if (!rcr && (memcmp(rr, rp, sizeof(int64_t) * ((size_t)P + 1)) != 0 || !same_rows(&R, &S))) {
        fprintf(stderr, "rank %d: %s (chunk %ld, xchg %ld): rows %lld/%lld, nnz %lld/%lld, start %lld/%lld differ\n",
                me, what, chunk, xchg, (long long)R.nrows, (long long)S.nrows, (long long)R.nnz, (long long)S.nnz,
                (long long)rr[me], (long long)rp[me]);
        ok = 0;
    }
    if (rcp && (S.rowptr || S.nrows)) {
        fprintf(stderr, "rank %d: %s: rows left behind after a failure\n", me, what);
        ok = 0;
    }
    free_plain(&R);
    hspmv_csr_free(&S);
    free(rr);
    free(rp);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (f) fclose(f);
    return n;
}

static void folder(const char *dir, int shared)
{
    char **paths;
    int n = tl_list_mtx(dir, &paths), bad = 0;
    if (n < 0) {
        CHECK(n >= 0, "%s is missing (%s)", dir, tl_missing_hint(shared));
        return;
    }
    for (int i = 0; i < n; i++) {
        long size = file_size(paths[i]);
        bad += !reads_like_root(paths[i], HSPMV_PART_NNZ, 0, 0, paths[i]);
        bad += !reads_like_root(paths[i], HSPMV_PART_ROWS, size / (3 * P) + 1, 0, paths[i]);
        bad += !reads_like_root(paths[i], HSPMV_PART_NNZ, size / (2 * P) + 7, 1000, paths[i]);
    }
    if (me == 0) printf("    %s: %d files at %d ranks\n", dir, n, P);
    CHECK(bad == 0, "%d reads differ from the root read", bad);
    tl_free_list(paths, n);
}

static void every_shared_matrix_reads_like_root(void) { folder(tl_shared_dir(), 1); }
static void every_generated_matrix_reads_like_root(void) { folder("matrices", 0); }

/* Small texts cut in many places: ranges of 1..21 bytes per rank (the
   last rank takes the rest), tiny exchange rounds. */
static int cut_everywhere(const char *text, const char *what)
{
    static const long chunks[] = {0, 1, 2, 3, 5, 8, 13, 21};
    char *p = mt_shared_file(text, strlen(text), 0);
    int bad = 0;
    if (!p) return 1;
    for (int i = 0; i < 8; i++) {
        long c = chunks[i];
        bad += !reads_like_root(p, HSPMV_PART_NNZ, c, c % 3 ? 2 : 0, what);
        if (i % 3 == 1) bad += !reads_like_root(p, HSPMV_PART_ROWS, c, 1, what);
    }
    mt_drop_file(p);
    return bad;
}

#define BAN "%%MatrixMarket matrix coordinate real general\n"

static void small_texts_cut_everywhere_read_like_root(void)
{
    static const char *texts[] = {
        BAN "% a comment\n%\n4 4 6\n% comment among the entries\n1 1 1.5\n\n2 2 -2\n   \n3 3 3e-3\n4 1 4\n"
            "% trailing comment\n1 4 .5\n4 4 9",
        BAN "3 3 4\r\n1 1 1\r\n2 2 2\r\n%c\r\n3 3 3\r\n1 3 -1\r\n",
        "%%MatrixMarket matrix coordinate real symmetric\n5 5 6\n1 1 1\n2 1 2\n3 1 3\n5 5 5\n4 2 4\n5 4 6\n",
        "%%MatrixMarket matrix coordinate real skew-symmetric\n4 4 3\n2 1 1\n3 1 2\n4 3 3\n",
        "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 4\n1 1\n2 1\n4 1\n4 4\n",
        "%%MatrixMarket matrix coordinate integer general\n3 4 5\n1 1 7\n3 4 -8\n1 1 9\n2 2 123456789012\n3 4 1\n",
        "%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n% c\n4\n5\n6\n",
        "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
        "%%MatrixMarket matrix array integer skew-symmetric\n4 4\n1\n2\n3\n4\n5\n6\n",
        BAN "8 8 5\n2 2 1\n4 4 2\n5 5 3\n7 7 4\n8 8 5\n", /* empty rows at the range edges */
        BAN "2 2 6\n1 1 0.1\n2 2 1\n1 1 0.2\n2 1 3\n1 1 0.3\n1 1 1e-17\n", /* duplicates: the partition changes */
        BAN "6 6 9\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n6 6 1\n",
        BAN "0 0 0\n",
        BAN "3 3 0\n% only comments\n\n",
        "%%MatrixMarket matrix coordinate real general\n2 2 1",
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char what[32];
        snprintf(what, sizeof(what), "text %zu", i);
        bad += cut_everywhere(texts[i], what);
    }
    CHECK(bad == 0, "%d reads differ", bad);
}

/* Bad files: every rank gets the root read's status and message (file and line). */
static void bad_files_give_the_root_message_on_every_rank(void)
{
    static const char *texts[] = {
        "",
        "\n\n% only comments\n",
        "this is not a matrix\n",
        "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n",
        "%%MatrixMarket matrix coordinate real general\n% no size line\n",
        BAN "3 3 2\n1 1 1.0\n4 1 2.0\n",
        BAN "3 3 5\n1 1 1.0\n2 2 2.0\n% comment\n\n",
        BAN "3 3 2\n1 1 1.0\n2 2 2.0\n3 3 3\n1 1 x\n",
        BAN "3 3 4\n1 1 1.0\n2 2 abc\n3 3 3\n1 1 x\n",
        BAN "3 3 3\n1 1 1.0\n2 2 2 7\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2 2 inf\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2 2 1\r3 3 3\n",
        BAN "2 2 2\n1 1 1e308\n1 1 1e308\n",
        BAN "4 4 5\n4 4 -1e308\n2 2 1\n4 4 -1e308\n3 3 1e308\n3 3 1e308\n",
        BAN "100000 100000 4000000000\n1 1 1\n2 2 2\n",
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 3 2\n",
        "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 2\n",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n5\n",
        "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 2",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char what[32];
        snprintf(what, sizeof(what), "bad text %zu", i);
        bad += cut_everywhere(texts[i], what);
    }
    CHECK(bad == 0, "%d reads differ", bad);
}

/* The fuzz corpus (good and bad files): the root read's outcome on every rank. */
static void fuzz_corpus_reads_like_root(void)
{
    char **paths;
    int n = tl_list_mtx("tests/fuzz/corpus", &paths), bad = 0;
    if (n < 0) {
        SKIP("tests/fuzz/corpus missing (run from the repository root)");
        return;
    }
    for (int i = 0; i < n; i++) {
        bad += !reads_like_root(paths[i], HSPMV_PART_NNZ, 0, 0, paths[i]);
        bad += !reads_like_root(paths[i], HSPMV_PART_NNZ, 3 + i % 5, 2, paths[i]);
    }
    if (me == 0) printf("    %d corpus files\n", n);
    CHECK(bad == 0, "%d corpus reads differ", bad);
    tl_free_list(paths, n);
}

/* Random byte changes to a good file: the parallel read says what the root read says. */
static void mutated_files_read_like_root(void)
{
    const char *base = "%%MatrixMarket matrix coordinate real symmetric\n% comment\n6 6 9\n1 1 1.5\n2 1 -2\n"
                       "3 3 3e-1\n% mid\n4 2 4\n5 5 5\n6 1 .6\n6 6 6\n5 3 1e2\n4 4 -7\n";
    static const char alphabet[] = "0123456789 \n\r%.-+eE9x\t";
    uint64_t st = 99;
    size_t n = strlen(base);
    char text[256];
    int bad = 0;
    for (int r = 0; r < 40; r++) {
        memcpy(text, base, n + 1);
        for (int c = 0; c < 2; c++) text[48 + tl_next(&st) % (n - 48)] = alphabet[tl_next(&st) % (sizeof(alphabet) - 1)];
        char *p = mt_shared_file(text, n, 0);
        if (!p) continue;
        char what[32];
        snprintf(what, sizeof(what), "mutation %d", r);
        bad += !reads_like_root(p, HSPMV_PART_NNZ, 1 + r % 9, r % 2 ? 3 : 0, what);
        mt_drop_file(p);
    }
    CHECK(bad == 0, "%d mutations differ", bad);
}

/* hspmv_dist_read with the parallel read: the same layout and, with one
   fixed kernel set, the same product bits as the root read; METIS too
   (rows gathered on rank 0). */
static void dist_read_parallel_matches_root(void)
{
    static const char *files[] = {"matrices/lap3d_12_sym.mtx", "matrices/powerlaw_2000_k6.mtx",
                                  "matrices/random_3000_k8.mtx"};
    int bad = 0;
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++)
        for (int part = 0; part <= HSPMV_PART_METIS; part++) {
            hspmv_opts o;
            hspmv_dist *Dr = NULL, *Dp = NULL;
            hspmv_error e = {0, ""};
            mt_opts(&o);
            o.partition = part;
            o.kernel = "scalar";
            if (hspmv_dist_read(files[f], MPI_COMM_WORLD, &o, &Dr, &e)) {
                SKIP("%s: %s", files[f], e.msg);
                return;
            }
            o.read = HSPMV_READ_PARALLEL;
            int rc = hspmv_dist_read(files[f], MPI_COMM_WORLD, &o, &Dp, &e);
            CHECK(rc == HSPMV_OK, "%s: %s", files[f], e.msg);
            if (rc) {
                hspmv_dist_destroy(&Dr);
                return;
            }
            hspmv_dist_info su;
            hspmv_dist_get_info(Dp, &su);
            int64_t bytes = su.read_bytes, all_bytes = 0;
            MPI_Allreduce(&bytes, &all_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            CHECK(su.read == HSPMV_READ_PARALLEL && all_bytes > 0, "setup read %d bytes %lld", su.read,
                  (long long)all_bytes);
            int64_t *a = calloc(2 * ((size_t)P + 1), sizeof(int64_t)), *b = calloc(2 * ((size_t)P + 1), sizeof(int64_t));
            hspmv_dist_get_ranges(Dr, a, a + P + 1);
            hspmv_dist_get_ranges(Dp, b, b + P + 1);
            int ok = memcmp(a, b, 2 * sizeof(int64_t) * ((size_t)P + 1)) == 0;
            hspmv_dist_info ir, ip;
            hspmv_dist_get_info(Dr, &ir);
            hspmv_dist_get_info(Dp, &ip);
            ok &= ir.nnz == ip.nnz && ir.nnz_local == ip.nnz_local && ir.nghost == ip.nghost;
            hspmv_real *x = hspmv_dist_vec_alloc(Dr, HSPMV_VEC_COLS, 1), *yr = hspmv_dist_vec_alloc(Dr, HSPMV_VEC_ROWS, 1),
                       *yp = hspmv_dist_vec_alloc(Dp, HSPMV_VEC_ROWS, 1);
            for (int64_t j = 0; j < ir.ncols_local; j++) x[j] = (hspmv_real)(1 + 0.001 * (double)((ir.col_begin + j) % 997));
            ok &= hspmv_dist_spmv(Dr, x, yr, &e) == HSPMV_OK && hspmv_dist_spmv(Dp, x, yp, &e) == HSPMV_OK;
            ok &= tl_same_bits(yr, yp, ir.nrows_local);
            if (!ok) fprintf(stderr, "rank %d: %s partition %d: parallel read differs from root\n", me, files[f], part);
            bad += !ok;
            free(a);
            free(b);
            hspmv_free(x);
            hspmv_free(yr);
            hspmv_free(yp);
            hspmv_dist_destroy(&Dr);
            hspmv_dist_destroy(&Dp);
        }
    CHECK(bad == 0, "%d differ", bad);
}

/* A gzip file cannot be split: rank 0 reads it, and the setup says so. */
static void gzip_is_read_by_rank_0_and_said_so(void)
{
    const char *src = "matrices/lap2d_64.mtx";
    char name[256] = "";
    if (me == 0) {
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(name, sizeof(name), "%s/hspmv_rp_gz_%d.mtx.gz", dir, (int)getpid());
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "gzip -c %s > %s 2>/dev/null", src, name);
        if (system(cmd) != 0) name[0] = 0;
    }
    MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!name[0]) {
        SKIP("gzip not available");
        return;
    }
    hspmv_opts o;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    mt_opts(&o);
    o.read = HSPMV_READ_PARALLEL;
    int rc = hspmv_dist_read(name, MPI_COMM_WORLD, &o, &D, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    if (!rc) {
        hspmv_dist_info su;
        hspmv_dist_get_info(D, &su);
        CHECK(su.read == HSPMV_READ_ROOT && strstr(su.read_note, "gzip"), "read %d note '%s'", su.read, su.read_note);
    }
    hspmv_dist_destroy(&D);
    CHECK(reads_like_root(name, HSPMV_PART_NNZ, 0, 0, "gzip"), "gzip rows differ from the root read");
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) unlink(name);
}

MT_MAIN(NULL, every_shared_matrix_reads_like_root, every_generated_matrix_reads_like_root,
        small_texts_cut_everywhere_read_like_root, bad_files_give_the_root_message_on_every_rank,
        fuzz_corpus_reads_like_root, mutated_files_read_like_root, dist_read_parallel_matches_root,
        gzip_is_read_by_rank_0_and_said_so)
