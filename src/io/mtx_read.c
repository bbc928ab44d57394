/* mtx_read.c — Matrix Market text to COO triplets: the header state machine,
   the entry loops (coordinate and array), and every refusal with its line. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "io.h"

typedef mtx_reader reader;

/* ---- messages ------------------------------------------------------------- */

/* "NAME:LINE: " + the formatted text (the name shortened, never the text). */
__attribute__((cold, noinline, format(printf, 4, 5)))
static int fail(reader *R, int code, int64_t line, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return hspmv_err_file(R->err, code, R->name, line, "%s", text);
}

/* A CR inside [s, e) with more text after it: lines ended by a lone CR. */
static int has_inner_cr(const char *s, const char *e)
{
    for (; s < e; s++)
        if (*s == '\r')
            for (const char *t = s + 1; t < e && *t != '\r'; t++)
                if (*t != ' ' && *t != '\t') return 1;
    return 0;
}

#define LONE_CR_NOTE "; the line holds a CR in its middle: lines that end with a lone CR (classic Mac) are " \
                     "not Matrix Market, convert them with tr '\\r' '\\n'"

static const char *token_end(const char *p)
{
    while (!mtx_is_end(*p)) p++;
    return p;
}

static const char *line_end(const char *p)
{
    while (*p != '\n') p++;
    return p;
}

/* "expected WHAT, found 'TOKEN' in 'LINE'" for a bad token at p. */
__attribute__((cold, noinline))
static int fail_token(reader *R, int64_t line, const char *ls, const char *p, const char *what)
{
    char q[64], lq[64];
    const char *le = line_end(p);
    const char *cr = has_inner_cr(ls, le) ? LONE_CR_NOTE : "";
    hspmv_mtx_quote(lq, ls, le);
    if (*p == '\n')
        return fail(R, HSPMV_ERR_FORMAT, line, "expected %s, found the end of the line '%s'%s", what, lq, cr);
    hspmv_mtx_quote(q, p, token_end(p) == p ? p + 1 : token_end(p));
    return fail(R, HSPMV_ERR_FORMAT, line, "expected %s, found '%s' in '%s'%s", what, q, lq, cr);
}

/* A value the number scanner refused: why says how. */
__attribute__((cold, noinline))
static int fail_value(reader *R, int64_t line, const char *ls, const char *p, int why)
{
    char q[64], lq[64];
    hspmv_mtx_quote(q, p, token_end(p));
    hspmv_mtx_quote(lq, ls, line_end(p));
    if (why == MTX_NUM_NONFINITE)
        return fail(R, HSPMV_ERR_FORMAT, line,
                    "non-finite value '%s' in '%s' (inf and nan are not accepted)", q, lq);
    if (why == MTX_NUM_RANGE)
        return fail(R, HSPMV_ERR_FORMAT, line, "%svalue '%s' is out of the %s range in '%s'",
                    R->h.field == HSPMV_FIELD_INTEGER ? "integer " : "", q,
                    sizeof(hspmv_real) == sizeof(float) ? "float" : "double", lq);
    return fail_token(R, line, ls, p,
                      R->h.field == HSPMV_FIELD_INTEGER ? "an integer value" : "a real value");
}

/* An index outside 1..n, or a symmetric-kind entry in the wrong triangle. */
__attribute__((cold, noinline))
static int fail_place(reader *R, int64_t line, const char *ls, int64_t i, int64_t j)
{
    char lq[64];
    const mtx_header *h = &R->h;
    hspmv_mtx_quote(lq, ls, line_end(ls));
    if (i < 1 || i > h->nrows)
        return fail(R, HSPMV_ERR_FORMAT, line,
                    "expected a row index in 1..%lld, found %lld in '%s'",
                    (long long)h->nrows, (long long)i, lq);
    if (j < 1 || j > h->ncols)
        return fail(R, HSPMV_ERR_FORMAT, line,
                    "expected a column index in 1..%lld, found %lld in '%s'",
                    (long long)h->ncols, (long long)j, lq);
    if (i < j)
        return fail(R, HSPMV_ERR_FORMAT, line,
                    "entry (%lld,%lld) is above the diagonal; a %s file stores the lower "
                    "triangle (row >= col): '%s'", (long long)i, (long long)j,
                    h->symmetry == HSPMV_SYMMETRIC ? "symmetric" : "skew-symmetric", lq);
    return fail(R, HSPMV_ERR_FORMAT, line,
                "diagonal entry (%lld,%lld) in a skew-symmetric file, whose diagonal is zero: '%s'",
                (long long)i, (long long)j, lq);
}

/* ---- arrays ---------------------------------------------------------------- */

/* Asks for transparent huge pages on a big fresh array: first touch of the
   entry arrays is otherwise most of the read time (a page fault per 4 KB). */
static void want_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = (uintptr_t)p + bytes;
    if (bytes >= 2 * huge && e > a) madvise((void *)a, (e - a) & ~(huge - 1), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

int hspmv_mtx_reader_alloc(reader *R, int64_t cap)
{
    size_t n = cap > 0 ? (size_t)cap : 1;
    int32_t *row = hspmv_alloc_array(n, sizeof(int32_t));
    int32_t *col = row ? hspmv_alloc_array(n, sizeof(int32_t)) : NULL;
    hspmv_real *val = col ? hspmv_alloc_array(n, sizeof(hspmv_real)) : NULL;
    if (!val) {
        hspmv_free(row);
        hspmv_free(col);
        return fail(R, HSPMV_ERR_NOMEM, R->line, "out of memory for %lld entries (%.3g GB)", (long long)cap,
                    (double)cap * (8.0 + sizeof(hspmv_real)) / 1e9);
    }
    want_huge_pages(row, n * sizeof(int32_t));
    want_huge_pages(col, n * sizeof(int32_t));
    want_huge_pages(val, n * sizeof(hspmv_real));
    if (R->k > 0) {
        memcpy(row, R->row, (size_t)R->k * sizeof(int32_t));
        memcpy(col, R->col, (size_t)R->k * sizeof(int32_t));
        memcpy(val, R->val, (size_t)R->k * sizeof(hspmv_real));
    }
    hspmv_free(R->row);
    hspmv_free(R->col);
    hspmv_free(R->val);
    R->row = row;
    R->col = col;
    R->val = val;
    R->cap = cap;
    return HSPMV_OK;
}

/* The arrays are full at entry k: grow them (unknown length), or the file
   holds more entries than its size line says. */
__attribute__((cold, noinline))
static int make_room(reader *R, int64_t line, const char *ls)
{
    if (R->cap >= R->limit) {
        char lq[64];
        hspmv_mtx_quote(lq, ls, line_end(ls));
        return fail(R, HSPMV_ERR_FORMAT, line,
                    "expected %lld entries as the size line declares, found one more: '%s'",
                    (long long)R->h.nnz, lq);
    }
    int64_t cap = R->cap * 2;
    if (cap < 1024) cap = 1024;
    if (cap > R->limit) cap = R->limit;
    return hspmv_mtx_reader_alloc(R, cap);
}

/* What reading and using a matrix of the size line's shape takes, refused
   before any allocation when this process cannot be given it: the
   triplets of nnz entries, the CSR built from them (symmetric kinds
   mirrored: up to twice the entries; row pointers and the build's row
   counters) and the x and y of a product. */
int hspmv_mtx_check_memory(const mtx_header *h, int64_t nnz, const char *name, int64_t line, hspmv_error *err)
{
    const double r = sizeof(hspmv_real), n = (double)nnz;
    double coo = n * (8 + r);
    double csr = (h->symmetry == HSPMV_GENERAL ? n : 2 * n) * (4 + r) + 2 * 8 * ((double)h->nrows + 1);
    double vec = r * ((double)h->nrows + (double)h->ncols);
    char what[200];
    snprintf(what, sizeof(what),
             "a %lld x %lld matrix of %lld entries (triplets %.3g GB, CSR %.3g GB, x and y %.3g GB)",
             (long long)h->nrows, (long long)h->ncols, (long long)nnz, coo / 1e9, csr / 1e9, vec / 1e9);
    return hspmv_mem_check(coo + csr + vec, name, line, what, err);
}

/* Called once the size line is known: one allocation at the declared count
   when the input's length is known (refusing counts the bytes left cannot
   hold), else a start that grows geometrically up to that count. */
int hspmv_mtx_min_entry_bytes(const mtx_header *h)
{
    return h->array ? 2 : h->field == HSPMV_FIELD_PATTERN ? 4 : 6; /* "1\n", "1 1\n", "1 1 1\n" */
}

static int start_entries(reader *R, const char *next)
{
    const mtx_header *h = &R->h;
    R->ai = h->symmetry == HSPMV_SKEW_SYMMETRIC ? 1 : 0; /* array: first place of column 0 */
    R->limit = h->nnz;
    int64_t left = hspmv_mtx_source_left(&R->src, next);
    int minb = hspmv_mtx_min_entry_bytes(h);
    int64_t most = left >= 0 ? (left + 1) / minb : -1; /* "1 1 1" without its newline is the shortest last line */
    int rc = hspmv_mtx_check_memory(h, most >= 0 && most < h->nnz ? most : h->nnz, R->name, R->line, R->err);
    if (rc != HSPMV_OK) return rc;
    if (left >= 0) {
        if (h->nnz <= most) return hspmv_mtx_reader_alloc(R, h->nnz);
        /* The bytes cannot hold the count: no allocation for it. The entries
           that are there are read (growing the arrays), so the first fault
           in file order is the one reported: a bad line, or the end. */
        R->short_left = left;
        return hspmv_mtx_reader_alloc(R, most + 1);
    }
    /* gzip: about one entry per compressed byte is a fair first guess */
    int64_t guess = R->src.raw_size > 4096 ? R->src.raw_size : 4096;
    return hspmv_mtx_reader_alloc(R, h->nnz < guess ? h->nnz : guess);
}

/* ---- header lines -------------------------------------------------------- */

static int header_line(reader *R, const char *s, const char *nl)
{
    mtx_line ln = {s, nl, R->line};
    const char *p = s;
    int rc;
    while (p < nl && mtx_is_blank(*p)) p++;
    if (R->state != MTX_AT_ENTRIES && has_inner_cr(s, nl))
        return fail(R, HSPMV_ERR_FORMAT, R->line,
                    "the %s line holds CR characters in its middle: lines that end with a lone CR "
                    "(classic Mac) are not Matrix Market; convert them with tr '\\r' '\\n'",
                    R->state == MTX_AT_BANNER ? "first" : "size");
    if (R->state == MTX_AT_BANNER) {
        if (hspmv_mtx_is_banner(&ln)) {
            if ((rc = hspmv_mtx_parse_banner(R->name, &ln, &R->h, R->err)) != HSPMV_OK) return rc;
            R->state = MTX_AT_SIZE;
            return HSPMV_OK;
        }
        if (p == nl || *p == '%') return HSPMV_OK; /* blank or comment before the banner */
        char q[64];
        const unsigned char *u = (const unsigned char *)s;
        if (R->line == 1 && nl - s >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF)
            return fail(R, HSPMV_ERR_FORMAT, R->line,
                        "the file starts with a UTF-8 byte-order mark (bytes EF BB BF); Matrix Market "
                        "text is plain ASCII: remove those 3 bytes");
        if (R->line == 1 && nl - s >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))
            return fail(R, HSPMV_ERR_FORMAT, R->line,
                        "the file starts with a UTF-16 byte-order mark (bytes %02X %02X): it is UTF-16 text; "
                        "Matrix Market text is plain ASCII", u[0], u[1]);
        hspmv_mtx_quote(q, s, nl);
        return fail(R, HSPMV_ERR_FORMAT, R->line,
                    "expected the banner '%%%%MatrixMarket matrix <format> <field> <symmetry>', "
                    "found '%s'", q);
    }
    if (p == nl || *p == '%') return HSPMV_OK; /* blank or comment before the size line */
    if ((rc = hspmv_mtx_parse_size(R->name, &ln, &R->h, R->err)) != HSPMV_OK) return rc;
    R->state = MTX_AT_ENTRIES;
    if (R->header_only) { /* the prologue of a read in byte ranges: the entries come later */
        R->data_offset = R->src.base + (int64_t)(nl + 1 - R->src.buf);
        return HSPMV_OK;
    }
    return start_entries(R, nl + 1);
}

/* ---- entry lines ----------------------------------------------------------- */

static inline const char *skip_blanks(const char *p)
{
    while (mtx_is_blank(*p)) p++;
    return p;
}

/* One value at p (real or integer field); NULL after reporting an error. */
static inline const char *scan_value(reader *R, int64_t line, const char *ls, const char *p,
                                     double *v, int *rc)
{
    const char *q;
    int why = MTX_NUM_BAD;
    if (R->h.field == HSPMV_FIELD_REAL) {
        q = mtx_real(p, v, &why);
    } else {
        int64_t iv = 0;
        q = mtx_int(p, &iv);
        *v = (double)iv;
        /* past 2^59 the integer is read as a real, correctly rounded: refused
           only beyond the double range, as a real would be */
        if (q && (iv == MTX_INT_SAT || iv == -MTX_INT_SAT) && mtx_is_end(*q)) q = mtx_real(p, v, &why);
    }
#ifdef HSPMV_SINGLE
    if (q && isinf((float)*v)) {
        why = MTX_NUM_RANGE;
        q = NULL;
    }
#endif
    /* the value must end at a blank or the end of the line ("1.2.3" must not) */
    if (q && !mtx_is_end(*q)) {
        why = MTX_NUM_BAD;
        q = NULL;
    }
    if (!q) *rc = fail_value(R, line, ls, p, why);
    return q;
}

/* After the last field: only blanks may follow. */
__attribute__((cold, noinline))
static int fail_extra(reader *R, int64_t line, const char *ls, const char *p)
{
    const char *what = R->h.array ? "one value per line"
                       : R->h.field == HSPMV_FIELD_PATTERN ? "'row col' and nothing more"
                                                           : "'row col value' and nothing more";
    return fail_token(R, line, ls, p, what);
}

static int parse_coordinate(reader *R, const char *p, const char *end)
{
    const int64_t nr = R->h.nrows, nc = R->h.ncols;
    const int field = R->h.field, sym = R->h.symmetry;
    int64_t k = R->k, line = R->line;
    int rc = HSPMV_OK;

    while (p < end) {
        const char *ls = p, *q;
        int64_t i, j;
        double v = 1.0;
        line++;
        p = skip_blanks(p);
        if (*p == '\n' || *p == '%') { /* blank or comment line */
            p = line_end(p) + 1;
            continue;
        }
        if (!(q = mtx_int(p, &i))) { rc = fail_token(R, line, ls, p, "a row index"); break; }
        if (!mtx_is_blank(*q)) {
            rc = fail_token(R, line, ls, *q == '\n' ? q : p, *q == '\n' ? "a column index" : "a row index");
            break;
        }
        const char *cs = p = skip_blanks(q);
        if (!(q = mtx_int(p, &j))) { rc = fail_token(R, line, ls, p, "a column index"); break; }
        p = q;
        if (!mtx_is_end(*p)) { rc = fail_token(R, line, ls, cs, "a column index"); break; }
        if (field != HSPMV_FIELD_PATTERN) {
            p = skip_blanks(p);
            if (*p == '\n') { rc = fail_token(R, line, ls, p, "a value after the column index"); break; }
            if (!(p = scan_value(R, line, ls, p, &v, &rc))) break;
        }
        if (*p != '\n') {
            const char *t = skip_blanks(p);
            if (*t != '\n') { rc = fail_extra(R, line, ls, t); break; }
            p = t;
        }
        p++;
        if ((uint64_t)(i - 1) >= (uint64_t)nr || (uint64_t)(j - 1) >= (uint64_t)nc ||
            (sym != HSPMV_GENERAL && (i < j || (i == j && sym == HSPMV_SKEW_SYMMETRIC)))) {
            rc = fail_place(R, line, ls, i, j);
            break;
        }
        if (k == R->cap) {
            R->k = k;
            if ((rc = make_room(R, line, ls)) != HSPMV_OK) break;
        }
        R->row[k] = (int32_t)(i - 1);
        R->col[k] = (int32_t)(j - 1);
        R->val[k] = (hspmv_real)v;
        k++;
    }
    R->k = k;
    R->line = line;
    return rc;
}

/* Array format: one value per line, column by column; symmetric kinds hold
   the lower triangle (skew: strictly below the diagonal). */
static int parse_array(reader *R, const char *p, const char *end)
{
    const int64_t n = R->h.nrows;
    const int sym = R->h.symmetry;
    int64_t k = R->k, line = R->line, ai = R->ai, aj = R->aj;
    int rc = HSPMV_OK;

    while (p < end) {
        const char *ls = p;
        double v;
        line++;
        p = skip_blanks(p);
        if (*p == '\n' || *p == '%') {
            p = line_end(p) + 1;
            continue;
        }
        if (!(p = scan_value(R, line, ls, p, &v, &rc))) break;
        if (*p != '\n') {
            const char *t = skip_blanks(p);
            if (*t != '\n') { rc = fail_extra(R, line, ls, t); break; }
            p = t;
        }
        p++;
        if (k == R->cap) {
            R->k = k;
            if ((rc = make_room(R, line, ls)) != HSPMV_OK) break;
        }
        R->row[k] = (int32_t)ai;
        R->col[k] = (int32_t)aj;
        R->val[k] = (hspmv_real)v;
        k++;
        if (++ai == n) {
            aj++;
            ai = sym == HSPMV_GENERAL ? 0 : sym == HSPMV_SYMMETRIC ? aj : aj + 1;
        }
    }
    R->k = k;
    R->line = line;
    R->ai = ai;
    R->aj = aj;
    return rc;
}

/* ---- the whole file --------------------------------------------------------- */

int hspmv_mtx_fault_too_few(const char *name, const mtx_header *h, int64_t k, int64_t lines, int64_t short_left,
                      hspmv_error *err)
{
    if (short_left >= 0)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, lines,
                              "expected %lld entries, file ends after %lld at line %lld (the size line declares "
                              "%lld entries, but only %lld bytes follow it: truncated file?)",
                              (long long)h->nnz, (long long)k, (long long)lines, (long long)h->nnz,
                              (long long)short_left);
    return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, lines, "expected %lld entries, file ends after %lld at line %lld",
                          (long long)h->nnz, (long long)k, (long long)lines);
}

/* A text fault in gzip input is most often the effect of corrupt
   compressed data that inflated to garbage before zlib could tell (a
   deflate block's check comes at the member's end): the gzip fault, if
   the rest of the stream has one, is the error, not the garbage line. */
static int gzip_first(reader *R, int rc)
{
    if (rc != HSPMV_ERR_FORMAT || !R->src.gzip) return rc;
    char why[sizeof(((hspmv_error *)0)->msg)];
    if (R->err) snprintf(why, sizeof(why), "%s", R->err->msg);
    int zrc = hspmv_mtx_source_gzip_verdict(&R->src);
    if (zrc != HSPMV_OK) return zrc;
    if (R->err) hspmv_err(R->err, rc, "%s", why);
    return rc;
}

int hspmv_mtx_read_text(reader *R, int end_checks)
{
    int rc;
    for (;;) {
        const char *p, *end;
        if ((rc = hspmv_mtx_source_next(&R->src, &p, &end)) != HSPMV_OK) return rc;
        if (p == end) break;
        while (p < end && R->state != MTX_AT_ENTRIES) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            R->line++;
            if ((rc = header_line(R, p, nl)) != HSPMV_OK) return gzip_first(R, rc);
            p = nl + 1;
        }
        if (R->header_only && R->state == MTX_AT_ENTRIES) return HSPMV_OK;
        if (p < end) {
            rc = R->h.array ? parse_array(R, p, end) : parse_coordinate(R, p, end);
            if (rc != HSPMV_OK) return gzip_first(R, rc);
        }
    }
    if (!end_checks) return HSPMV_OK;
    if (R->state == MTX_AT_BANNER) {
        if (hspmv_mtx_source_bytes(&R->src) == 0)
            return fail(R, HSPMV_ERR_FORMAT, 0, "file is empty; expected a '%%%%MatrixMarket' banner");
        return fail(R, HSPMV_ERR_FORMAT, R->line,
                    "file ends without a '%%%%MatrixMarket' banner (only blank and comment lines)");
    }
    if (R->state == MTX_AT_SIZE)
        return fail(R, HSPMV_ERR_FORMAT, R->line, "file ends before the size line");
    if (R->k < R->h.nnz) return hspmv_mtx_fault_too_few(R->name, &R->h, R->k, R->line, R->short_left, R->err);
    return HSPMV_OK;
}

/* Reads from an opened source into coo; closes the source; cleans up on failure. */
static int read_source(reader *R, hspmv_coo *coo, hspmv_read_info *info)
{
    int rc = hspmv_mtx_read_text(R, 1);
    if (info) {
        info->bytes = hspmv_mtx_source_bytes(&R->src);
        info->lines = R->line;
        info->gzip = R->src.gzip;
        info->array = R->h.array;
    }
    hspmv_mtx_source_close(&R->src);
    if (rc != HSPMV_OK) {
        hspmv_free(R->row);
        hspmv_free(R->col);
        hspmv_free(R->val);
        return rc;
    }
    coo->nrows = R->h.nrows;
    coo->ncols = R->h.ncols;
    coo->nnz = R->k;
    coo->row = R->row;
    coo->col = R->col;
    coo->val = R->val;
    coo->symmetry = R->h.symmetry;
    coo->field = R->h.field;
    return hspmv_ok(R->err);
}

void hspmv_mtx_reader_init(reader *R, const char *name, hspmv_error *err)
{
    memset(R, 0, sizeof(*R));
    R->name = name;
    R->err = err;
    R->short_left = -1;
}

static void reader_init(reader *R, const char *name, hspmv_error *err, hspmv_read_info *info)
{
    hspmv_mtx_reader_init(R, name, err);
    if (info) memset(info, 0, sizeof(*info));
}

int hspmv_mtx_read(const char *path, hspmv_coo *coo, const hspmv_read_opts *opts,
                   hspmv_read_info *info, hspmv_error *err)
{
    reader R;
    int rc;
    if (coo) memset(coo, 0, sizeof(*coo));
    if (!path || !coo) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_mtx_read: path and coo must not be NULL");
    reader_init(&R, path, err, info);
    if ((rc = hspmv_mtx_source_open_path(&R.src, path, opts, err)) != HSPMV_OK) return rc;
    R.src.lines = &R.line;
    return read_source(&R, coo, info);
}

int hspmv_mtx_read_mem(const char *name, const void *buf, size_t len, hspmv_coo *coo,
                       hspmv_read_info *info, hspmv_error *err)
{
    reader R;
    int rc;
    if (coo) memset(coo, 0, sizeof(*coo));
    if (!coo || (!buf && len > 0))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_mtx_read_mem: coo must not be NULL, nor buf when len > 0");
    if (!name) name = "<memory>";
    reader_init(&R, name, err, info);
    if ((rc = hspmv_mtx_source_open_mem(&R.src, name, buf, len, err)) != HSPMV_OK) return rc;
    R.src.lines = &R.line;
    return read_source(&R, coo, info);
}

void hspmv_coo_free(hspmv_coo *coo)
{
    if (!coo) return;
    hspmv_free(coo->row);
    hspmv_free(coo->col);
    hspmv_free(coo->val);
    memset(coo, 0, sizeof(*coo));
}
