/* test_io_files.c — the Matrix Market reader on files: every shared matrix,
   the same text through path, memory and gzip, gzip faults, and the refusals
   only a path can give (missing file, directory). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifndef HSPMV_NO_ZLIB
#include <zlib.h>
#endif
#include "check.h"
#include "testlib.h"
#include "io.h" /* hspmv_io_chunk_bytes */

static int coo_same(const hspmv_coo *a, const hspmv_coo *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz ||
        a->symmetry != b->symmetry || a->field != b->field)
        return 0;
    for (int64_t k = 0; k < a->nnz; k++)
        if (a->row[k] != b->row[k] || a->col[k] != b->col[k] ||
            memcmp(&a->val[k], &b->val[k], sizeof(hspmv_real)) != 0)
            return 0;
    return 1;
}

static int coo_is_zero(const hspmv_coo *c)
{
    return !c->row && !c->col && !c->val && c->nnz == 0 && c->nrows == 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n) {
        *len = (size_t)n;
    } else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* A fresh temp file name (the file exists, empty); free() it. */
static char *temp_path(const char *tag)
{
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *p = malloc(strlen(dir) + strlen(tag) + 32);
    sprintf(p, "%s/hspmv_%s_XXXXXX", dir, tag);
    int fd = mkstemp(p);
    if (fd < 0) {
        free(p);
        return NULL;
    }
    close(fd);
    return p;
}

static int write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(b, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

#ifdef HSPMV_NO_ZLIB
/* Without zlib (cross builds) there is nothing to compress with: the gzip
   checks are skipped and the reader must refuse gzip bytes. */
static int write_gz(const char *path, const void *b, size_t n)
{
    (void)path; (void)b; (void)n;
    return -1;
}
static unsigned char *gz_mem(const void *b, size_t n, size_t *out)
{
    (void)b; (void)n; (void)out;
    return NULL;
}
#else
/* gzip-compresses b with zlib's gzopen/gzwrite into path. */
static int write_gz(const char *path, const void *b, size_t n)
{
    gzFile g = gzopen(path, "wb");
    if (!g) return -1;
    int w = n ? gzwrite(g, b, (unsigned)n) : 0;
    return gzclose(g) == Z_OK && (size_t)w == n ? 0 : -1;
}

/* gzip bytes of b in memory (deflate with the gzip wrapper); free() them. */
static unsigned char *gz_mem(const void *b, size_t n, size_t *out)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *o = malloc(cap);
    z.next_in = (unsigned char *)b;
    z.avail_in = (uInt)n;
    z.next_out = o;
    z.avail_out = (uInt)cap;
    if (!o || deflate(&z, Z_FINISH) != Z_STREAM_END) {
        free(o);
        deflateEnd(&z);
        return NULL;
    }
    *out = cap - z.avail_out;
    deflateEnd(&z);
    return o;
}

#endif

/* The count a shared file's size line declares (array: the values it must hold). */
static int size_line(const char *path, int64_t *m, int64_t *n, int64_t *nnz)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int array = 0, sym = 0, skew = 0, got = -1;
    if (!f) return -1;
    if (fgets(line, sizeof(line), f)) {
        array = strstr(line, "array") != NULL;
        sym = strstr(line, "symmetric") != NULL || strstr(line, "hermitian") != NULL;
        skew = strstr(line, "skew") != NULL;
    }
    while (fgets(line, sizeof(line), f)) {
        long long a, b, c;
        if (line[0] == '%' || line[strspn(line, " \t\r\n")] == '\0') continue;
        if (array && sscanf(line, "%lld %lld", &a, &b) == 2) {
            *m = a;
            *n = b;
            *nnz = !sym ? a * b : skew ? a * (a - 1) / 2 : a * (a + 1) / 2;
            got = 0;
        } else if (!array && sscanf(line, "%lld %lld %lld", &a, &b, &c) == 3) {
            *m = a;
            *n = b;
            *nnz = c;
            got = 0;
        }
        break;
    }
    fclose(f);
    return got;
}

/* Lists the shared matrices, or fails the test. */
static int shared(char ***paths)
{
    int n = tl_list_mtx(tl_shared_dir(), paths);
    CHECK(n > 0, "no matrices in %s (%s)", tl_shared_dir(), tl_missing_hint(1));
    return n;
}

/* ---- the shared matrices ------------------------------------------------------ */

static void every_shared_matrix_loads_with_the_size_and_count_of_its_size_line(void)
{
    char **paths;
    int n = shared(&paths);
    for (int i = 0; i < n; i++) {
        hspmv_coo c;
        hspmv_error e;
        hspmv_read_info info;
        int64_t m = -1, nc = -1, nnz = -1;
        int rc = hspmv_mtx_read(paths[i], &c, NULL, &info, &e);
        if (tl_is_unsupported_shared(paths[i])) {
            CHECK(rc == HSPMV_ERR_UNSUPPORTED, "%s: code %d (%s)", paths[i], rc, e.msg);
            CHECK(strstr(e.msg, "complex matrices are not supported") && strncmp(e.msg, paths[i], strlen(paths[i])) == 0,
                  "%s: message '%s'", paths[i], e.msg);
            CHECK(coo_is_zero(&c), "%s: coo not zeroed", paths[i]);
            continue;
        }
        CHECK(rc == HSPMV_OK, "%s: %s", paths[i], e.msg);
        CHECK(size_line(paths[i], &m, &nc, &nnz) == 0, "%s: test could not read the size line", paths[i]);
        CHECK(c.nrows == m && c.ncols == nc && c.nnz == nnz, "%s: %lld x %lld nnz %lld, size line %lld %lld %lld",
              paths[i], (long long)c.nrows, (long long)c.ncols, (long long)c.nnz, (long long)m,
              (long long)nc, (long long)nnz);
        struct stat st;
        CHECK(stat(paths[i], &st) == 0 && info.bytes == (int64_t)st.st_size && !info.gzip,
              "%s: info.bytes %lld", paths[i], (long long)info.bytes);
        int64_t bad = 0;
        for (int64_t k = 0; k < c.nnz; k++)
            bad += c.row[k] < 0 || c.row[k] >= c.nrows || c.col[k] < 0 || c.col[k] >= c.ncols ||
                   (c.symmetry != HSPMV_GENERAL && c.row[k] < c.col[k]) ||
                   (c.symmetry == HSPMV_SKEW_SYMMETRIC && c.row[k] == c.col[k]);
        CHECK(bad == 0, "%s: %lld entries out of place", paths[i], (long long)bad);
        hspmv_coo_free(&c);
    }
    if (n > 0) tl_free_list(paths, n);
}

/* The same text four ways: path, memory, gzip file, gzip bytes in memory;
   plus the path again with tiny read blocks (block edges everywhere). */
static void every_shared_matrix_reads_the_same_through_path_memory_and_gzip(void)
{
    char **paths;
    int n = shared(&paths);
    char *gzpath = temp_path("gz");
    CHECK(gzpath != NULL, "mkstemp");
    for (int i = 0; i < n && gzpath; i++) {
        hspmv_coo a, b;
        hspmv_error e;
        hspmv_read_info info;
        size_t len = 0, zlen = 0;
        char *text = slurp(paths[i], &len);
        unsigned char *z = text ? gz_mem(text, len, &zlen) : NULL;
        int rc = hspmv_mtx_read(paths[i], &a, NULL, NULL, &e);
        CHECK(text != NULL, "%s: could not read the text", paths[i]);
        if (!text) goto next;

        int rc2 = hspmv_mtx_read_mem(paths[i], text, len, &b, NULL, &e);
        CHECK(rc2 == rc && (rc || coo_same(&a, &b)), "%s: memory read differs (%d)", paths[i], rc2);
        hspmv_coo_free(&b);

#ifndef HSPMV_NO_ZLIB
        CHECK(z && write_gz(gzpath, text, len) == 0, "%s: could not write the gzip copy", paths[i]);
        rc2 = hspmv_mtx_read(gzpath, &b, NULL, &info, &e);
        CHECK(rc2 == rc && (rc || coo_same(&a, &b)), "%s: gzip file read differs (%d: %s)", paths[i], rc2, e.msg);
        CHECK(rc2 != HSPMV_OK || (info.gzip == 1 && info.bytes == (int64_t)len), "%s: gzip info %d %lld",
              paths[i], info.gzip, (long long)info.bytes);
        hspmv_coo_free(&b);

        rc2 = hspmv_mtx_read_mem(paths[i], z, zlen, &b, &info, &e);
        CHECK(rc2 == rc && (rc || coo_same(&a, &b)), "%s: gzip memory read differs (%d: %s)", paths[i], rc2, e.msg);
        CHECK(rc2 != HSPMV_OK || info.gzip == 1, "%s: info.gzip", paths[i]);
        hspmv_coo_free(&b);
#else
        (void)zlen;
        (void)info;
#endif

        size_t saved = hspmv_io_chunk_bytes;
        hspmv_io_chunk_bytes = 5 + (size_t)i % 7;
        rc2 = hspmv_mtx_read(paths[i], &b, NULL, NULL, &e);
        CHECK(rc2 == rc && (rc || coo_same(&a, &b)), "%s: tiny-block read differs (%d)", paths[i], rc2);
        hspmv_coo_free(&b);
#ifndef HSPMV_NO_ZLIB
        rc2 = hspmv_mtx_read(gzpath, &b, NULL, NULL, &e);
        CHECK(rc2 == rc && (rc || coo_same(&a, &b)), "%s: tiny-block gzip read differs (%d)", paths[i], rc2);
        hspmv_coo_free(&b);
#endif
        hspmv_io_chunk_bytes = saved;
    next:
        hspmv_coo_free(&a);
        free(text);
        free(z);
    }
    if (gzpath) {
        unlink(gzpath);
        free(gzpath);
    }
    if (n > 0) tl_free_list(paths, n);
}

static const char small[] = "%%MatrixMarket matrix coordinate real general\n"
                            "% a small matrix\n"
                            "3 3 4\n1 1 1.5\n2 2 -2\n3 1 0.25\n3 3 4e2\n";

#ifndef HSPMV_NO_ZLIB
/* ---- gzip ------------------------------------------------------------------------ */


static void gzip_is_told_by_magic_bytes_not_by_the_name(void)
{
    char *p = temp_path("magic"); /* no .gz in the name */
    hspmv_coo c;
    hspmv_error e;
    hspmv_read_info info;
    if (!p) return;
    CHECK(write_gz(p, small, strlen(small)) == 0, "gzwrite");
    int rc = hspmv_mtx_read(p, &c, NULL, &info, &e);
    CHECK(rc == HSPMV_OK && info.gzip && c.nnz == 4 && c.val[3] == 400, "code %d: %s", rc, e.msg);
    hspmv_coo_free(&c);
    unlink(p);
    free(p);
}

static void concatenated_gzip_members_read_as_one_text(void)
{
    size_t h = 60, n1, n2; /* split inside the third entry line */
    unsigned char *z1 = gz_mem(small, h, &n1), *z2 = gz_mem(small + h, strlen(small) - h, &n2);
    unsigned char *both = malloc(n1 + n2);
    hspmv_coo c;
    hspmv_error e;
    memcpy(both, z1, n1);
    memcpy(both + n1, z2, n2);
    int rc = hspmv_mtx_read_mem("two.gz", both, n1 + n2, &c, NULL, &e);
    CHECK(rc == HSPMV_OK && c.nnz == 4 && c.val[2] == 0.25, "code %d: %s", rc, e.msg);
    hspmv_coo_free(&c);
    free(z1);
    free(z2);
    free(both);
}

static void truncated_gzip_is_refused_naming_the_file(void)
{
    size_t zn;
    unsigned char *z = gz_mem(small, strlen(small), &zn);
    char *p = temp_path("trunc");
    if (!z || !p) return;
    size_t cuts[] = {zn - 1, zn - 4, zn - 8, zn / 2, 12, 3};
    for (size_t t = 0; t < sizeof(cuts) / sizeof(cuts[0]); t++) {
        hspmv_coo c;
        hspmv_error e;
        CHECK(write_bytes(p, z, cuts[t]) == 0, "write");
        int rc = hspmv_mtx_read(p, &c, NULL, NULL, &e);
        CHECK(rc == HSPMV_ERR_FORMAT || rc == HSPMV_ERR_IO, "cut at %zu: code %d (%s)", cuts[t], rc, e.msg);
        CHECK(strncmp(e.msg, p, strlen(p)) == 0 && e.msg[strlen(p)] == ':', "cut at %zu: message '%s'", cuts[t], e.msg);
        CHECK(coo_is_zero(&c), "coo zeroed");
        rc = hspmv_mtx_read_mem("cut.gz", z, cuts[t], &c, NULL, &e);
        CHECK(rc == HSPMV_ERR_FORMAT || rc == HSPMV_ERR_IO, "memory cut at %zu: code %d (%s)", cuts[t], rc, e.msg);
        CHECK(strncmp(e.msg, "cut.gz:", 7) == 0, "memory cut: message '%s'", e.msg);
    }
    unlink(p);
    free(p);
    free(z);
}

static void corrupt_gzip_data_is_refused(void)
{
    size_t zn;
    unsigned char *z = gz_mem(small, strlen(small), &zn);
    hspmv_coo c;
    hspmv_error e;
    if (!z) return;
    for (size_t k = 10; k < zn - 8; k++) z[k] ^= 0x5a; /* scramble the deflate data */
    int rc = hspmv_mtx_read_mem("bad.gz", z, zn, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strncmp(e.msg, "bad.gz:", 7) == 0, "code %d: %s", rc, e.msg);
    CHECK(coo_is_zero(&c), "coo zeroed");
    free(z);
    static const unsigned char magic_only[] = {0x1f, 0x8b, 'h', 'i'};
    rc = hspmv_mtx_read_mem("magic.gz", magic_only, sizeof(magic_only), &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT, "code %d: %s", rc, e.msg);
}

static void gzip_of_an_empty_file_is_refused_as_empty(void)
{
    size_t zn;
    unsigned char *z = gz_mem("", 0, &zn);
    hspmv_coo c;
    hspmv_error e;
    int rc = hspmv_mtx_read_mem("e.gz", z, zn, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "empty"), "code %d: %s", rc, e.msg);
    free(z);
}

/* More entries than the first allocation of an unknown-length input holds
   (text that compresses ~1000x): the arrays grow geometrically up to the
   declared count, and a failed allocation while growing frees everything. */
static void gzip_arrays_grow_to_the_declared_count(void)
{
    const int n = (1 << 20) + 12345;
    size_t cap = (size_t)n * 16 + 128, len = 0, zn;
    char *text = malloc(cap);
    hspmv_coo c;
    hspmv_error e;
    len += (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate integer general\n7 3 %d\n", n);
    for (int k = 0; k < n; k++) len += (size_t)sprintf(text + len, "%d %d %d\n", k % 7 + 1, k % 3 + 1, k % 5);
    unsigned char *z = gz_mem(text, len, &zn);
    CHECK(zn < (size_t)n / 16, "test text compresses too little (%zu bytes)", zn);
    int rc = hspmv_mtx_read_mem("big.gz", z, zn, &c, NULL, &e);
    CHECK(rc == HSPMV_OK && c.nnz == n, "code %d: %s", rc, e.msg);
    if (rc == HSPMV_OK) {
        int bad = 0;
        for (int k = 0; k < n; k++) bad += c.row[k] != k % 7 || c.col[k] != k % 3 || c.val[k] != k % 5;
        CHECK(bad == 0, "%d entries wrong", bad);
    }
    hspmv_coo_free(&c);
    /* the same with one entry missing: the count is checked after growing */
    char *last = text + len - 2;
    while (last[-1] != '\n') last--;
    unsigned char *z2 = gz_mem(text, (size_t)(last - text), &zn);
    rc = hspmv_mtx_read_mem("short.gz", z2, zn, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "file ends after"), "code %d: %s", rc, e.msg);
    free(z2);
    /* allocation failures while growing (a smaller count keeps this quick) */
    len = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate integer general\n7 3 %d\n", 100000);
    for (int k = 0; k < 100000; k++) len += (size_t)sprintf(text + len, "%d %d %d\n", k % 7 + 1, k % 3 + 1, k % 5);
    free(z);
    z = gz_mem(text, len, &zn);
    int fails = 0;
    for (long f = 1; f < 200; f++) {
        hspmv_alloc_fail_after(f);
        rc = hspmv_mtx_read_mem("grow.gz", z, zn, &c, NULL, &e);
        hspmv_alloc_fail_after(0);
        if (rc == HSPMV_OK) break;
        fails++;
        CHECK(rc == HSPMV_ERR_NOMEM && coo_is_zero(&c), "allocation %ld: code %d (%s)", f, rc, e.msg);
    }
    CHECK(rc == HSPMV_OK && c.nnz == 100000 && fails > 10, "%d failing reads, then code %d", fails, rc);
    hspmv_coo_free(&c);
    free(z);
    free(text);
}

static void gzip_with_an_absurd_declared_count_fails_without_a_huge_allocation(void)
{
    const char *t = "%%MatrixMarket matrix coordinate real general\n3 3 4000000000000000000\n1 1 1\n";
    size_t zn;
    unsigned char *z = gz_mem(t, strlen(t), &zn);
    hspmv_coo c;
    hspmv_error e;
    int rc = hspmv_mtx_read_mem("absurd.gz", z, zn, &c, NULL, &e);
    /* a gzip stream has no length to bound the count: the memory the count
       implies is what refuses it, at the size line, with the figure */
    CHECK(rc == HSPMV_ERR_NOMEM && strstr(e.msg, "absurd.gz:2: a 3 x 3 matrix of 4000000000000000000 entries") &&
              strstr(e.msg, "GB, more than"), "code %d: %s", rc, e.msg);
    free(z);
    t = "%%MatrixMarket matrix coordinate real general\n3 3 4000000\n1 1 1\n";
    z = gz_mem(t, strlen(t), &zn);
    rc = hspmv_mtx_read_mem("many.gz", z, zn, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "many.gz:3: expected 4000000 entries, file ends after 1"),
          "code %d: %s", rc, e.msg);
    free(z);
}

/* A gzip fault says the line where the text stops, not only a byte offset. */
static void gzip_faults_name_the_line_where_the_text_stops(void)
{
    size_t cap = 3000 * 24 + 128, len, zn;
    char *text = malloc(cap);
    if (!text) return;
    len = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate real general\n3000 3000 3000\n");
    for (int k = 1; k <= 3000; k++) len += (size_t)sprintf(text + len, "%d %d %d.25\n", k, 3001 - k, k);
    unsigned char *z = gz_mem(text, len, &zn);
    hspmv_coo c;
    hspmv_error e;
    long line = 0;
    char tail[400] = "";
    if (!z) return;
    int rc = hspmv_mtx_read_mem("cut.gz", z, zn / 2, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && sscanf(e.msg, "cut.gz:%ld: %399[^\n]", &line, tail) == 2 && line > 100 &&
              strstr(tail, "gzip data ends early"), "code %d: %s", rc, e.msg);
    z[zn - 8] ^= 0xa5; /* the CRC: found once all the text is out */
    rc = hspmv_mtx_read_mem("bad.gz", z, zn, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && sscanf(e.msg, "bad.gz:%ld: %399[^\n]", &line, tail) == 2 && line == 3003 &&
              strstr(tail, "corrupt gzip data"), "code %d: %s", rc, e.msg);
    free(z);
    free(text);
}
#endif

/* A line past the 64 MB limit (here a comment) is refused with its line number. */
static void an_overlong_comment_line_is_refused_with_its_line_number(void)
{
    const char *head = "%%MatrixMarket matrix coordinate real general\n% fine\n%";
    size_t hl = strlen(head), n = hl + ((size_t)65 << 20) + 32;
    char *text = malloc(n);
    hspmv_coo c;
    hspmv_error e;
    if (!text) return;
    memcpy(text, head, hl);
    memset(text + hl, 'c', n - hl);
    memcpy(text + n - 12, "\n1 1 1\n1 1 1", 12);
    int rc = hspmv_mtx_read_mem("long.mtx", text, n, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "long.mtx:3: line longer than 64 MB"), "code %d: %s", rc, e.msg);
    for (size_t k = hl; k < n; k += 40) text[k] = '\r'; /* CR-only line endings are named */
    rc = hspmv_mtx_read_mem("long.mtx", text, n, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "long.mtx:3: ") && strstr(e.msg, "lone CR"), "code %d: %s", rc, e.msg);
    free(text);
}

/* ---- path-only refusals ---------------------------------------------------------- */

/* Runs hspmv_mtx_read(path) in a child that must finish within `secs`:
   returns the child's exit status (0: refused with an IO error whose
   message holds want), or -1 when it hung and was killed. */
static int read_in_child(const char *path, const char *want, int secs, int want_ok)
{
    pid_t pid = fork();
    if (pid == 0) {
        hspmv_coo c;
        hspmv_error e;
        int rc = hspmv_mtx_read(path, &c, NULL, NULL, &e);
        if (want_ok) _exit(rc == HSPMV_OK && c.nnz == 2 ? 0 : (fprintf(stderr, "  read: %s\n", e.msg), 1));
        if (rc != HSPMV_ERR_IO || !strstr(e.msg, want)) fprintf(stderr, "  read: code %d: %s\n", rc, e.msg);
        _exit(rc == HSPMV_ERR_IO && strstr(e.msg, want) && strncmp(e.msg, path, strlen(path)) == 0 ? 0 : 1);
    }
    if (pid < 0) return -2;
    for (int t = 0; t < secs * 20; t++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -3;
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* A FIFO that nobody writes used to block open() forever (and every other
   MPI rank with it): now it is refused within seconds. */
static void fifo_without_a_writer_is_refused_instead_of_hanging(void)
{
    char *p = temp_path("fifo");
    if (!p) return;
    unlink(p);
    if (mkfifo(p, 0600) != 0) {
        SKIP("mkfifo: %s", strerror(errno));
        free(p);
        return;
    }
    int st = read_in_child(p, "no process wrote to", 10, 0);
    CHECK(st == 0, "child %s (status %d)", st == -1 ? "hung in the read and was killed" : "failed", st);
    unlink(p);
    free(p);
}

/* A FIFO that a process writes is read, also when the writer comes a
   moment after the reader opened it. */
static void fifo_with_a_writer_is_read(void)
{
    static const char t[] = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n";
    char *p = temp_path("fifo");
    if (!p) return;
    for (int late = 0; late < 2; late++) {
        unlink(p);
        if (mkfifo(p, 0600) != 0) {
            SKIP("mkfifo: %s", strerror(errno));
            break;
        }
        pid_t w = fork();
        if (w == 0) {
            if (late) usleep(300000);
            int fd = open(p, O_WRONLY);
            _exit(fd >= 0 && write(fd, t, sizeof(t) - 1) == (ssize_t)(sizeof(t) - 1) && close(fd) == 0 ? 0 : 1);
        }
        int st = read_in_child(p, "", 10, 1);
        CHECK(st == 0, "writer %s: reader %s (status %d)", late ? "late" : "first",
              st == -1 ? "hung and was killed" : "failed", st);
        kill(w, SIGKILL);
        waitpid(w, NULL, 0);
    }
    unlink(p);
    free(p);
}

/* What is neither a regular file nor a pipe is refused by name, unopened. */
static void character_devices_are_refused_as_such(void)
{
    int st = read_in_child("/dev/null", "is a character device", 10, 0);
    CHECK(st == 0, "/dev/null: status %d", st);
    st = read_in_child("/dev/zero", "is a character device", 10, 0);
    CHECK(st == 0, "/dev/zero: status %d", st);
}

static void directory_is_refused_as_a_directory(void)
{
    hspmv_coo c;
    hspmv_error e;
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    int rc = hspmv_mtx_read(dir, &c, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_IO && strstr(e.msg, "is a directory") && strncmp(e.msg, dir, strlen(dir)) == 0,
          "code %d: %s", rc, e.msg);
    CHECK(coo_is_zero(&c), "coo zeroed");
}

static void missing_file_is_refused_with_the_system_reason(void)
{
    hspmv_coo c;
    hspmv_error e;
    const char *p = "/nonexistent-hspmv-dir/none.mtx";
    int rc = hspmv_mtx_read(p, &c, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_IO && strstr(e.msg, strerror(ENOENT)) && strncmp(e.msg, "/nonexistent-hspmv-dir/none.mtx: ", 33) == 0,
          "code %d: %s", rc, e.msg);
    CHECK(coo_is_zero(&c), "coo zeroed");
}

static void plain_file_with_more_declared_entries_than_bytes_is_refused_where_it_ends(void)
{
    const char *t = "%%MatrixMarket matrix coordinate pattern general\n% c\n100000 100000 4000000000\n1 1\n2 2\n";
    char *p = temp_path("count");
    hspmv_coo c;
    hspmv_error e;
    char want[600];
    if (!p) return;
    CHECK(write_bytes(p, t, strlen(t)) == 0, "write");
    int rc = hspmv_mtx_read(p, &c, NULL, NULL, &e);
    snprintf(want, sizeof(want), "%s:5: expected 4000000000 entries, file ends after 2 at line 5", p);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, want) && strstr(e.msg, "only 8 bytes follow"), "code %d: %s", rc, e.msg);
    unlink(p);
    free(p);
}

/* "1 1 1e308" twice is two finite values whose sum is inf: refused when the
   file is read into CSR, naming the file and the entry. */
static void duplicates_summing_to_inf_are_refused_when_read(void)
{
    const char *t = sizeof(hspmv_real) == 4
        ? "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 3e38\n2 2 1\n1 1 3e38\n"
        : "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1e308\n2 2 1\n1 1 1e308\n";
    char *p = temp_path("dupinf");
    hspmv_csr A;
    hspmv_error e;
    if (!p) return;
    CHECK(write_bytes(p, t, strlen(t)) == 0, "write");
    int rc = hspmv_csr_read(p, &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strncmp(e.msg, p, strlen(p)) == 0 && strstr(e.msg, "entry (1,1)") &&
              strstr(e.msg, "sum beyond the"), "code %d: %s", rc, e.msg);
    CHECK(!A.rowptr && A.nrows == 0, "CSR left behind");
    unlink(p);
    free(p);
}

static void error_in_a_file_names_the_path_and_line(void)
{
    const char *t = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 3 2\n";
    char *p = temp_path("line");
    hspmv_coo c;
    hspmv_error e;
    char want[600];
    if (!p) return;
    /* gzip where zlib is built in: the line is a line of the inflated text */
    CHECK(write_gz(p, t, strlen(t)) == 0 || write_bytes(p, t, strlen(t)) == 0, "write");
    int rc = hspmv_mtx_read(p, &c, NULL, NULL, &e);
    snprintf(want, sizeof(want), "%s:4: ", p);
    CHECK(rc == HSPMV_ERR_FORMAT && strncmp(e.msg, want, strlen(want)) == 0, "code %d: %s", rc, e.msg);
    unlink(p);
    free(p);
}

/* ---- progress ---------------------------------------------------------------------- */

typedef struct progress_log {
    int calls;
    int64_t last_done, total;
    int monotone;
} progress_log;

static void note_progress(int64_t done, int64_t total, void *ctx)
{
    progress_log *l = ctx;
    if (done < l->last_done) l->monotone = 0;
    l->calls++;
    l->last_done = done;
    l->total = total;
}

static void progress_is_reported_every_16_mb_and_at_the_end(void)
{
    const int n = 5000000; /* "1 1\n" x 5M: 20 MB of entries */
    size_t len = 0, cap = (size_t)n * 4 + 128;
    char *text = malloc(cap), *p = temp_path("progress");
    hspmv_read_opts opts = {note_progress, NULL, 1};
    progress_log log = {0, 0, 0, 1};
    hspmv_coo c;
    hspmv_error e;
    if (!text || !p) return;
    len += (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate pattern general\n1 1 %d\n", n);
    for (int k = 0; k < n; k++, len += 4) memcpy(text + len, "1 1\n", 4);
    CHECK(write_bytes(p, text, len) == 0, "write");
    opts.progress_ctx = &log;
    int rc = hspmv_mtx_read(p, &c, &opts, NULL, &e);
    CHECK(rc == HSPMV_OK && c.nnz == n, "code %d: %s", rc, e.msg);
    hspmv_coo_free(&c);
    CHECK(log.calls == 2 && log.monotone && log.last_done == (int64_t)len && log.total == (int64_t)len,
          "plain: %d calls, last %lld of %lld", log.calls, (long long)log.last_done, (long long)log.total);
#ifndef HSPMV_NO_ZLIB
    CHECK(write_gz(p, text, len) == 0, "gzwrite");
    memset(&log, 0, sizeof(log));
    log.monotone = 1;
    rc = hspmv_mtx_read(p, &c, &opts, NULL, &e);
    CHECK(rc == HSPMV_OK, "code %d: %s", rc, e.msg);
    hspmv_coo_free(&c);
    CHECK(log.calls == 2 && log.monotone && log.last_done == (int64_t)len && log.total == -1,
          "gzip: %d calls, last %lld of %lld", log.calls, (long long)log.last_done, (long long)log.total);
#endif
    unlink(p);
    free(p);
    free(text);
}

/* ---- allocation failure ------------------------------------------------------------ */

static void each_failed_allocation_on_a_file_gives_nomem_and_an_empty_coo(void)
{
    char *p = temp_path("nomem");
    if (!p) return;
#ifdef HSPMV_NO_ZLIB
    for (int gz = 0; gz < 1; gz++) {
#else
    for (int gz = 0; gz < 2; gz++) {
#endif
        CHECK((gz ? write_gz(p, small, strlen(small)) : write_bytes(p, small, strlen(small))) == 0, "write");
        int fails = 0, done = 0;
        for (long n = 1; n < 100 && !done; n++) {
            hspmv_coo c;
            hspmv_error e;
            hspmv_alloc_fail_after(n);
            int rc = hspmv_mtx_read(p, &c, NULL, NULL, &e);
            hspmv_alloc_fail_after(0);
            if (rc == HSPMV_OK) {
                hspmv_coo_free(&c);
                done = 1;
                break;
            }
            fails++;
            CHECK(rc == HSPMV_ERR_NOMEM, "gzip %d, allocation %ld: code %d (%s)", gz, n, rc, e.msg);
            CHECK(coo_is_zero(&c), "coo not zeroed");
        }
        CHECK(done && fails >= (gz ? 4 : 2), "gzip %d: %d failing reads", gz, fails);
    }
    unlink(p);
    free(p);
}

int main(void)
{
    RUN(every_shared_matrix_loads_with_the_size_and_count_of_its_size_line);
    RUN(every_shared_matrix_reads_the_same_through_path_memory_and_gzip);
#ifndef HSPMV_NO_ZLIB
    RUN(gzip_is_told_by_magic_bytes_not_by_the_name);
    RUN(concatenated_gzip_members_read_as_one_text);
    RUN(truncated_gzip_is_refused_naming_the_file);
    RUN(corrupt_gzip_data_is_refused);
    RUN(gzip_of_an_empty_file_is_refused_as_empty);
    RUN(gzip_arrays_grow_to_the_declared_count);
    RUN(gzip_with_an_absurd_declared_count_fails_without_a_huge_allocation);
    RUN(gzip_faults_name_the_line_where_the_text_stops);
#endif
    RUN(an_overlong_comment_line_is_refused_with_its_line_number);
    RUN(fifo_without_a_writer_is_refused_instead_of_hanging);
    RUN(fifo_with_a_writer_is_read);
    RUN(character_devices_are_refused_as_such);
    RUN(directory_is_refused_as_a_directory);
    RUN(missing_file_is_refused_with_the_system_reason);
    RUN(plain_file_with_more_declared_entries_than_bytes_is_refused_where_it_ends);
    RUN(error_in_a_file_names_the_path_and_line);
    RUN(duplicates_summing_to_inf_are_refused_when_read);
    RUN(progress_is_reported_every_16_mb_and_at_the_end);
    RUN(each_failed_allocation_on_a_file_gives_nomem_and_an_empty_coo);
    CHECK_DONE();
}
