/* test_read_threads.c — hspmv_csr_read with threads in byte ranges against the
   one-thread read: the same CSR bit for bit on every shared and generated
   matrix, on texts cut at every byte, and the same status and message on
   every bad file (a suite, the fuzz corpus and random mutations). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"
#include "io.h" /* hspmv_io_chunk_bytes */
#include "csr.h"

#define BAN "%%MatrixMarket matrix coordinate real general\n"

/* One read: status, message and CSR. */
typedef struct outcome {
    int rc;
    hspmv_error e;
    hspmv_csr A;
    hspmv_read_info info;
} outcome;

static void read_with(const char *path, int threads, long chunk, outcome *o)
{
    hspmv_read_opts ro = {NULL, NULL, threads};
    char c[48];
    if (chunk > 0) {
        snprintf(c, sizeof(c), "read_chunk=%ld", chunk);
        setenv("HSPMV_TEST", c, 1);
    } else {
        unsetenv("HSPMV_TEST");
    }
    memset(o, 0, sizeof(*o));
    o->rc = hspmv_csr_read(path, &o->A, &ro, &o->info, &o->e);
    unsetenv("HSPMV_TEST");
}

static int same_csr(const hspmv_csr *a, const hspmv_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) return 0;
    if (a->nrows > 0 && memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof(int64_t)) != 0) return 0;
    if (a->nnz > 0 && (memcmp(a->colind, b->colind, (size_t)a->nnz * sizeof(int32_t)) != 0 ||
                       !tl_same_bits(a->val, b->val, a->nnz)))
        return 0;
    return 1;
}

/* 1 when o matches the serial outcome s (status, message, CSR, lines); else prints why. */
static int same_outcome(const outcome *s, const outcome *o, const char *what, int threads, long chunk)
{
    if (s->rc != o->rc || (s->rc != HSPMV_OK && strcmp(s->e.msg, o->e.msg) != 0)) {
        fprintf(stderr, "    %s, %d threads, chunk %ld:\n      one thread: %d %s\n      threads:    %d %s\n", what,
                threads, chunk, s->rc, s->rc ? s->e.msg : "ok", o->rc, o->rc ? o->e.msg : "ok");
        return 0;
    }
    if (s->rc == HSPMV_OK && (!same_csr(&s->A, &o->A) || s->info.lines != o->info.lines ||
                              s->info.bytes != o->info.bytes)) {
        fprintf(stderr, "    %s, %d threads, chunk %ld: CSR or counts differ (lines %lld/%lld, bytes %lld/%lld)\n",
                what, threads, chunk, (long long)s->info.lines, (long long)o->info.lines,
                (long long)s->info.bytes, (long long)o->info.bytes);
        return 0;
    }
    if (s->rc != HSPMV_OK && (o->A.rowptr || o->A.nrows)) {
        fprintf(stderr, "    %s: a CSR left behind after a failure\n", what);
        return 0;
    }
    return 1;
}

static int max_threads = 4;

/* Reads path once with one thread and then with 1 (in ranges), 2, 3, 4
   threads (up to max_threads) and the given chunks; returns the number of
   differences (printed). */
static int compare_reads(const char *path, const char *what, const long *chunks, int nchunks, int *was_ok)
{
    outcome s, o;
    int bad = 0;
    read_with(path, 1, 0, &s);
    if (was_ok) *was_ok = s.rc == HSPMV_OK;
    for (int t = 1; t <= max_threads; t++)
        for (int c = -1; c < nchunks; c++) {
            if (t == 1 && c < 0) continue; /* that is the serial read itself */
            read_with(path, t, c < 0 ? 0 : chunks[c], &o);
            bad += !same_outcome(&s, &o, what, t, c < 0 ? 0 : chunks[c]);
            hspmv_csr_free(&o.A);
        }
    hspmv_csr_free(&s.A);
    return bad;
}

static char *temp_path(void)
{
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *p = malloc(strlen(dir) + 40);
    sprintf(p, "%s/hspmv_rt_XXXXXX", dir);
    int fd = mkstemp(p);
    if (fd < 0) {
        free(p);
        return NULL;
    }
    close(fd);
    return p;
}

static int write_text(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(b, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (f) fclose(f);
    return n;
}

/* Every *.mtx of dir: threads and a few chunk sizes give the serial CSR. */
static void folder_reads_the_same(const char *dir, int shared)
{
    char **paths;
    int n = tl_list_mtx(dir, &paths), bad = 0, ok = 0;
    if (n < 0) {
        CHECK(n >= 0, "%s is missing (%s)", dir, tl_missing_hint(shared));
        return;
    }
    for (int i = 0; i < n; i++) {
        long size = file_size(paths[i]);
        /* cuts every ~1/37 and ~1/5 of the file, and every 4 KB */
        long chunks[3] = {size / 37 + 1, size / 5 + 3, 4096};
        int was_ok = 0;
        bad += compare_reads(paths[i], paths[i], chunks, 3, &was_ok) != 0;
        ok += was_ok;
    }
    printf("    %s: %d files (%d read, %d refused as the serial read refuses them), %d differ\n", dir, n, ok,
           n - ok, bad);
    CHECK(bad == 0, "%d files read differently", bad);
    CHECK(ok > 0, "no file read");
    tl_free_list(paths, n);
}

static void every_shared_matrix_reads_the_same_with_threads(void) { folder_reads_the_same(tl_shared_dir(), 1); }
static void every_generated_matrix_reads_the_same_with_threads(void) { folder_reads_the_same("matrices", 0); }

/* A text cut at every byte (chunk 1..len): lines, comments and blank lines
   cut anywhere, ranges with no line, more ranges than lines. */
static int every_cut(const char *text, const char *what)
{
    char *p = temp_path();
    size_t n = strlen(text);
    long chunks[64];
    int nc = 0, bad = 0;
    if (!p) return 1;
    for (size_t c = 1; c <= n + 1 && nc < 64; c++) chunks[nc++] = (long)c;
    if (write_text(p, text, n) == 0) bad = compare_reads(p, what, chunks, nc, NULL);
    else bad = 1;
    unlink(p);
    free(p);
    return bad;
}

static void texts_cut_at_every_byte_read_the_same(void)
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
        /* empty rows at the range edges: rows 1, 3, 6 have nothing */
        BAN "8 8 5\n2 2 1\n4 4 2\n5 5 3\n7 7 4\n8 8 5\n",
        /* duplicates, spread over the file, summed in one order whatever the cuts */
        BAN "2 2 6\n1 1 0.1\n2 2 1\n1 1 0.2\n2 1 3\n1 1 0.3\n1 1 1e-17\n",
        BAN "0 0 0\n",
        BAN "3 3 0\n",
        BAN "3 3 0\n% only comments\n\n",
        "%%MatrixMarket matrix coordinate real general\n2 2 1",
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char what[32];
        snprintf(what, sizeof(what), "text %zu", i);
        bad += every_cut(texts[i], what) != 0;
    }
    CHECK(bad == 0, "%d texts differ", bad);
}

/* Bad files: the same status and message (file and line) at every cut. */
static void bad_files_give_the_same_message_at_every_cut(void)
{
    static const char *texts[] = {
        "",
        "\n\n% only comments\n",
        "this is not a matrix\n",
        "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n",
        "%%MatrixMarket matrix coordinate real general\n% no size line\n",
        "%%MatrixMarket matrix coordinate real general\n3 3\n",
        BAN "3 3 2\n1 1 1.0\n4 1 2.0\n",
        BAN "3 3 2\n1 1 1.0\n1 0 2.0\n",
        BAN "3 3 5\n1 1 1.0\n2 2 2.0\n",
        BAN "3 3 5\n1 1 1.0\n2 2 2.0\n% comment\n\n",
        BAN "3 3 2\n1 1 1.0\n2 2 2.0\n3 3 3\n",
        BAN "3 3 2\n1 1 1.0\n2 2 2.0\n3 3 3\n1 1 x\n",
        BAN "3 3 4\n1 1 1.0\n2 2 abc\n3 3 3\n1 1 x\n",
        BAN "3 3 3\n1 1 1.0\n2 2 2 7\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2 2\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2 2 inf\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2 2 1e999\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2\n3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2 2 1\r3 3 3\n",
        BAN "3 3 3\n1 1 1.0\n2.5 2 1\n3 3 3\n",
        BAN "2 2 2\n1 1 1e308\n1 1 1e308\n",
        BAN "3 3 4\n3 3 -1e308\n2 2 1\n3 3 -1e308\n1 1 1e308\n",
        BAN "100000 100000 4000000000\n1 1 1\n2 2 2\n",
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 3 2\n",
        "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 2\n",
        "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 1 1\n2 2 1.5\n",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n5\n",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2 3\n3\n4\n",
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n\n\n2 2 2",
        "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 2",
    };
    int bad = 0, refused = 0;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char *p = temp_path();
        outcome s;
        if (!p) continue;
        write_text(p, texts[i], strlen(texts[i]));
        read_with(p, 1, 0, &s);
        refused += s.rc != HSPMV_OK;
        hspmv_csr_free(&s.A);
        unlink(p);
        free(p);
        char what[32];
        snprintf(what, sizeof(what), "bad text %zu", i);
        bad += every_cut(texts[i], what) != 0;
    }
    CHECK(bad == 0, "%d bad texts differ", bad);
    CHECK(refused >= (int)(sizeof(texts) / sizeof(texts[0])) - 2, "only %d refused", refused);
}

/* The fuzz corpus, as files: the same outcome with threads and small cuts. */
static void fuzz_corpus_reads_the_same(void)
{
    char **paths;
    int n = tl_list_mtx("tests/fuzz/corpus", &paths), bad = 0;
    static const long chunks[] = {1, 2, 3, 5, 8, 13, 40};
    if (n < 0) {
        SKIP("tests/fuzz/corpus missing (run from the repository root)");
        return;
    }
    for (int i = 0; i < n; i++) bad += compare_reads(paths[i], paths[i], chunks, 7, NULL) != 0;
    printf("    %d corpus files\n", n);
    CHECK(bad == 0, "%d corpus files differ", bad);
    tl_free_list(paths, n);
}

/* Random byte changes to a good file: whatever the serial read says (a
   message or a CSR), the threaded reads say it too. */
static void mutated_files_read_the_same(void)
{
    const char *base = "%%MatrixMarket matrix coordinate real symmetric\n% comment\n6 6 9\n1 1 1.5\n2 1 -2\n"
                       "3 3 3e-1\n% mid\n4 2 4\n5 5 5\n6 1 .6\n6 6 6\n5 3 1e2\n4 4 -7\n";
    static const char alphabet[] = "0123456789 \n\r%.-+eE9x\t";
    static const long chunks[] = {1, 3, 7, 16};
    uint64_t st = 2024;
    size_t n = strlen(base);
    char *p = temp_path(), *text = malloc(n + 8);
    int bad = 0, refused = 0, runs = 200;
    if (!p || !text) return;
    for (int r = 0; r < runs; r++) {
        memcpy(text, base, n + 1);
        int changes = 1 + (int)(tl_next(&st) % 3);
        for (int c = 0; c < changes; c++) {
            size_t at = 48 + tl_next(&st) % (n - 48); /* keep the banner */
            text[at] = alphabet[tl_next(&st) % (sizeof(alphabet) - 1)];
        }
        outcome s;
        write_text(p, text, n);
        read_with(p, 1, 0, &s);
        refused += s.rc != HSPMV_OK;
        hspmv_csr_free(&s.A);
        char what[32];
        snprintf(what, sizeof(what), "mutation %d", r);
        bad += compare_reads(p, what, chunks, 4, NULL) != 0;
    }
    printf("    %d mutations, %d refused by the serial read\n", runs, refused);
    CHECK(bad == 0, "%d mutations differ", bad);
    CHECK(refused > runs / 4 && refused < runs, "refused %d of %d: the mutations test too little", refused, runs);
    unlink(p);
    free(p);
    free(text);
}

/* The read blocks (hspmv_io_chunk_bytes) small as well: lines that cross
   blocks inside a range, ranges whose last line crosses blocks. */
static void small_read_blocks_inside_ranges_read_the_same(void)
{
    size_t keep = hspmv_io_chunk_bytes;
    static const long chunks[] = {5, 11, 64};
    int bad = 0;
    hspmv_io_chunk_bytes = 7;
    bad += compare_reads("matrices/lap3d_12_sym.mtx", "lap3d_12_sym, 7-byte blocks", chunks, 3, NULL);
    bad += every_cut(BAN "3 3 4\n1 1 1.25\n2 2 2\n% a long comment line that crosses blocks\n3 3 3\n1 3 -1\n",
                     "7-byte blocks");
    hspmv_io_chunk_bytes = keep;
    CHECK(bad == 0, "%d reads differ", bad);
}

/* A line past the 64 MB limit inside a range is refused with its line, as
   the serial read refuses it. */
static void an_overlong_line_in_a_range_gives_the_same_message(void)
{
    const char *head = BAN "3 3 2\n1 1 1\n% a long one:";
    size_t hl = strlen(head), n = hl + ((size_t)65 << 20) + 16;
    char *text = malloc(n), *p = temp_path();
    static const long chunks[] = {(long)1 << 20, (long)40 << 20};
    if (!text || !p) return;
    memcpy(text, head, hl);
    memset(text + hl, 'c', n - hl);
    memcpy(text + n - 7, "\n2 2 2\n", 7);
    write_text(p, text, n);
    free(text);
    outcome s;
    read_with(p, 1, 0, &s);
    CHECK(s.rc == HSPMV_ERR_FORMAT && strstr(s.e.msg, ":4: line longer than 64 MB"), "serial: %s", s.e.msg);
    hspmv_csr_free(&s.A);
    max_threads = 2; /* 65 MB per read: enough to see it */
    int bad = compare_reads(p, "overlong", chunks, 2, NULL);
    max_threads = 4;
    CHECK(bad == 0, "%d reads differ", bad);
    unlink(p);
    free(p);
}

typedef struct plog {
    int calls, monotone;
    int64_t last, total;
} plog;

static void note(int64_t done, int64_t total, void *ctx)
{
    plog *l = ctx;
    if (done < l->last) l->monotone = 0;
    l->calls++;
    l->last = done;
    l->total = total;
}

/* Progress with threads: from the master thread, never backwards, ending at the size. */
static void progress_with_threads_ends_at_the_file_size(void)
{
    const char *path = "matrices/banded_2000_w16.mtx";
    long size = file_size(path);
    plog l = {0, 1, 0, 0};
    hspmv_read_opts ro = {note, &l, 2};
    hspmv_csr A;
    hspmv_error e;
    if (size < 0) {
        SKIP("%s missing", path);
        return;
    }
    int rc = hspmv_csr_read(path, &A, &ro, NULL, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    CHECK(l.calls >= 1 && l.monotone && l.last == size && l.total == size, "calls %d monotone %d last %lld total %lld",
          l.calls, l.monotone, (long long)l.last, (long long)l.total);
    hspmv_csr_free(&A);
}

/* The read is right, not only equal to the serial one: a threaded read's
   product against the long-double reference of the COO it came from. */
static void threaded_read_multiplies_right(void)
{
    const char *path = "matrices/lap3d_12_sym.mtx";
    outcome o;
    hspmv_coo c;
    hspmv_csr B;
    hspmv_error e;
    read_with(path, 3, 1000, &o);
    if (o.rc != HSPMV_OK) {
        SKIP("%s: %s", path, o.e.msg);
        return;
    }
    CHECK(hspmv_mtx_read(path, &c, NULL, NULL, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(hspmv_csr_from_coo(&c, &B, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(hspmv_csr_validate(&o.A, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_real *x = malloc(sizeof(hspmv_real) * (size_t)o.A.ncols), *y = malloc(sizeof(hspmv_real) * (size_t)o.A.nrows);
    tl_fill(x, o.A.ncols, 7);
    hspmv_csr_spmv_naive(&o.A, x, y);
    CHECK(tl_matches_ref(&B, x, y, "threaded read"), "product off the reference");
    /* and the check can fail: a changed value is seen */
    o.A.val[o.A.nnz / 2] *= 3;
    hspmv_csr_spmv_naive(&o.A, x, y);
    CHECK(!same_csr(&o.A, &B), "a changed value went unseen");
    free(x);
    free(y);
    hspmv_coo_free(&c);
    hspmv_csr_free(&B);
    hspmv_csr_free(&o.A);
}

int main(void)
{
    RUN(every_shared_matrix_reads_the_same_with_threads);
    RUN(every_generated_matrix_reads_the_same_with_threads);
    RUN(texts_cut_at_every_byte_read_the_same);
    RUN(bad_files_give_the_same_message_at_every_cut);
    RUN(fuzz_corpus_reads_the_same);
    RUN(mutated_files_read_the_same);
    RUN(small_read_blocks_inside_ranges_read_the_same);
    RUN(an_overlong_line_in_a_range_gives_the_same_message);
    RUN(progress_with_threads_ends_at_the_file_size);
    RUN(threaded_read_multiplies_right);
    CHECK_DONE();
}
