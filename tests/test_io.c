/* test_io.c — the Matrix Market reader on text in memory: every header kind,
   the forgiving forms, every number spelling, and every refusal with its line. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testlib.h"
#include "io.h" /* hspmv_io_chunk_bytes: shrink the read blocks to cross their edges */

#define NAME "t.mtx"

static int coo_is_zero(const hspmv_coo *c)
{
    return !c->row && !c->col && !c->val && c->nnz == 0 && c->nrows == 0 && c->ncols == 0;
}

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

/* Reads text with the default block size, then again with blocks of 1, 2, 3
   and 7 bytes: code, message and arrays must not depend on where blocks end. */
static int rd(const char *text, hspmv_coo *c, hspmv_error *e)
{
    static const size_t chunks[] = {1, 2, 3, 7};
    size_t saved = hspmv_io_chunk_bytes, len = strlen(text);
    int rc = hspmv_mtx_read_mem(NAME, text, len, c, NULL, e);
    for (size_t t = 0; t < sizeof(chunks) / sizeof(chunks[0]); t++) {
        hspmv_coo c2;
        hspmv_error e2;
        hspmv_io_chunk_bytes = chunks[t];
        int rc2 = hspmv_mtx_read_mem(NAME, text, len, &c2, NULL, &e2);
        CHECK(rc2 == rc, "chunk %zu: code %d vs %d (%s)", chunks[t], rc2, rc, e2.msg);
        if (rc == HSPMV_OK && rc2 == HSPMV_OK) CHECK(coo_same(c, &c2), "chunk %zu: arrays differ", chunks[t]);
        if (rc != HSPMV_OK && rc2 != HSPMV_OK)
            CHECK(strcmp(e->msg, e2.msg) == 0, "chunk %zu: '%s' vs '%s'", chunks[t], e2.msg, e->msg);
        hspmv_coo_free(&c2);
    }
    hspmv_io_chunk_bytes = saved;
    return rc;
}

/* Reads text that must be refused with code; the message must start with
   "t.mtx:LINE: " (line > 0) or "t.mtx: " (line 0) and contain want. */
#define REFUSED(text, code, line, want) refused(text, code, line, want, __LINE__)
static void refused(const char *text, int code, int line, const char *want, int at)
{
    hspmv_coo c;
    hspmv_error e;
    char prefix[64];
    int rc = rd(text, &c, &e);
    if (line > 0) snprintf(prefix, sizeof(prefix), NAME ":%d: ", line);
    else snprintf(prefix, sizeof(prefix), NAME ": ");
    CHECK(rc == code, "line %d: code %d, want %d (%s)", at, rc, code, e.msg);
    CHECK(e.code == rc, "line %d: err.code %d", at, e.code);
    CHECK(strncmp(e.msg, prefix, strlen(prefix)) == 0, "line %d: '%s' does not start with '%s'", at, e.msg, prefix);
    CHECK(strstr(e.msg, want) != NULL, "line %d: '%s' lacks '%s'", at, e.msg, want);
    CHECK(coo_is_zero(&c), "line %d: coo not zeroed on failure", at);
    hspmv_coo_free(&c);
}

/* Reads text that must load; returns the code and leaves the COO in *c. */
static int ok_read(const char *text, hspmv_coo *c)
{
    hspmv_error e;
    int rc = rd(text, c, &e);
    CHECK(rc == HSPMV_OK, "code %d: %s", rc, e.msg);
    CHECK(rc != HSPMV_OK || e.msg[0] == '\0', "message on success: %s", e.msg);
    return rc;
}

/* Checks entry k is (i, j, v) 0-based. */
#define ENTRY(c, k, i, j, v)                                                                       \
    CHECK((c).row[k] == (i) && (c).col[k] == (j) && (c).val[k] == (hspmv_real)(v),                \
          "entry %d is (%d,%d,%.17g), want (%d,%d,%.17g)", (int)(k), (int)(c).row[k],             \
          (int)(c).col[k], (double)(c).val[k], (int)(i), (int)(j), (double)(v))

/* ---- every header kind ------------------------------------------------------ */

static void coordinate_real_general_gives_zero_based_triplets_in_file_order(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate real general\n3 4 3\n3 4 -2.5\n1 1 1.25\n2 3 0\n", &c)) return;
    CHECK(c.nrows == 3 && c.ncols == 4 && c.nnz == 3, "size %lld x %lld nnz %lld",
          (long long)c.nrows, (long long)c.ncols, (long long)c.nnz);
    CHECK(c.symmetry == HSPMV_GENERAL && c.field == HSPMV_FIELD_REAL, "kind %d %d", c.symmetry, c.field);
    ENTRY(c, 0, 2, 3, -2.5);
    ENTRY(c, 1, 0, 0, 1.25);
    ENTRY(c, 2, 1, 2, 0.0);
    hspmv_coo_free(&c);
    CHECK(coo_is_zero(&c), "coo_free must zero the struct");
}

/* Every format x field x symmetry the reader accepts, with the entries each
   must give: coordinate keeps the file's entries, array stores every value
   column-major (lower triangle for symmetric, strictly lower for skew). */
static void every_header_kind_loads_with_its_kind_and_entries(void)
{
    static const char *fields[] = {"real", "integer", "pattern"};
    static const char *syms[] = {"general", "symmetric", "skew-symmetric"};
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 3; s++) {
            char text[512];
            hspmv_coo c;
            if (f == HSPMV_FIELD_PATTERN && s == HSPMV_SKEW_SYMMETRIC) continue; /* not a MM kind */
            /* coordinate: entries (3,1) and (2,2) or (3,2) for skew */
            int di = s == HSPMV_SKEW_SYMMETRIC ? 3 : 2;
            if (f == HSPMV_FIELD_PATTERN)
                snprintf(text, sizeof(text), "%%%%MatrixMarket matrix coordinate %s %s\n3 3 2\n3 1\n%d 2\n",
                         fields[f], syms[s], di);
            else
                snprintf(text, sizeof(text), "%%%%MatrixMarket matrix coordinate %s %s\n3 3 2\n3 1 -7\n%d 2 5\n",
                         fields[f], syms[s], di);
            if (ok_read(text, &c) == HSPMV_OK) {
                CHECK(c.field == f && c.symmetry == s && c.nnz == 2, "%s %s: kind %d %d nnz %lld",
                      fields[f], syms[s], c.field, c.symmetry, (long long)c.nnz);
                ENTRY(c, 0, 2, 0, f == HSPMV_FIELD_PATTERN ? 1 : -7);
                ENTRY(c, 1, di - 1, 1, f == HSPMV_FIELD_PATTERN ? 1 : 5);
            }
            hspmv_coo_free(&c);
            if (f == HSPMV_FIELD_PATTERN) continue; /* no array pattern */
            /* array 3x3: values 1..k column by column */
            int n = s == HSPMV_GENERAL ? 9 : s == HSPMV_SYMMETRIC ? 6 : 3;
            int len = snprintf(text, sizeof(text), "%%%%MatrixMarket matrix array %s %s\n3 3\n", fields[f], syms[s]);
            for (int k = 1; k <= n; k++) len += snprintf(text + len, sizeof(text) - (size_t)len, "%d\n", k);
            if (ok_read(text, &c) == HSPMV_OK) {
                CHECK(c.field == f && c.symmetry == s && c.nnz == n, "array %s %s: kind %d %d nnz %lld",
                      fields[f], syms[s], c.field, c.symmetry, (long long)c.nnz);
                int k = 0;
                for (int j = 0; j < 3; j++)
                    for (int i = s == HSPMV_GENERAL ? 0 : s == HSPMV_SYMMETRIC ? j : j + 1; i < 3; i++, k++)
                        if (k < c.nnz) ENTRY(c, k, i, j, k + 1);
            }
            hspmv_coo_free(&c);
        }
}

static void array_format_keeps_explicit_zeros_as_entries(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix array real general\n2 2\n0\n1.5\n0.0\n-0\n", &c)) return;
    CHECK(c.nnz == 4, "nnz %lld", (long long)c.nnz);
    ENTRY(c, 0, 0, 0, 0.0);
    ENTRY(c, 1, 1, 0, 1.5);
    ENTRY(c, 2, 0, 1, 0.0);
    ENTRY(c, 3, 1, 1, 0.0);
    CHECK(signbit(c.val[3]), "-0 keeps its sign");
    hspmv_coo_free(&c);
}

static void duplicates_and_explicit_zeros_are_kept_in_the_triplets(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2\n1 1 3\n2 2 0\n", &c)) return;
    CHECK(c.nnz == 3, "nnz %lld", (long long)c.nnz);
    ENTRY(c, 0, 0, 0, 2);
    ENTRY(c, 1, 0, 0, 3);
    ENTRY(c, 2, 1, 1, 0);
    hspmv_coo_free(&c);
}

static void empty_matrices_with_no_entries_are_valid(void)
{
    static const char *texts[] = {
        "%%MatrixMarket matrix coordinate real general\n0 0 0\n",
        "%%MatrixMarket matrix coordinate real general\n0 5 0\n",
        "%%MatrixMarket matrix coordinate pattern general\n4 0 0\n",
        "%%MatrixMarket matrix coordinate real general\n7 7 0\n",
        "%%MatrixMarket matrix array real general\n0 0\n",
        "%%MatrixMarket matrix array real general\n0 3\n",
        "%%MatrixMarket matrix array real skew-symmetric\n1 1\n",
    };
    for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        hspmv_coo c;
        if (ok_read(texts[t], &c) == HSPMV_OK) CHECK(c.nnz == 0, "text %zu: nnz %lld", t, (long long)c.nnz);
        hspmv_coo_free(&c);
    }
}

/* ---- forgiving on form ---------------------------------------------------------- */

static void banner_words_in_any_case_with_extra_blanks_are_accepted(void)
{
    hspmv_coo c;
    if (ok_read("  %%matrixmarket   MATRIX\tCoordinate  Real \t SYMMETRIC   \n2 2 1\n2 1 4\n", &c)) return;
    CHECK(c.symmetry == HSPMV_SYMMETRIC && c.nnz == 1, "kind %d nnz %lld", c.symmetry, (long long)c.nnz);
    hspmv_coo_free(&c);
    if (ok_read("%%MATRIXMARKET matrix coordinate INTEGER Skew-Symmetric\n2 2 1\n2 1 4\n", &c)) return;
    CHECK(c.symmetry == HSPMV_SKEW_SYMMETRIC && c.field == HSPMV_FIELD_INTEGER, "kind %d %d", c.symmetry, c.field);
    hspmv_coo_free(&c);
}

static void banner_with_a_single_percent_is_accepted(void)
{
    hspmv_coo c;
    if (ok_read("%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", &c)) return;
    CHECK(c.field == HSPMV_FIELD_PATTERN && c.nnz == 1, "field %d", c.field);
    ENTRY(c, 0, 0, 1, 1);
    hspmv_coo_free(&c);
}

static void crlf_line_endings_are_accepted(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate real general\r\n% comment\r\n\r\n2 2 2\r\n1 1 1.5\r\n2 2 -3\r\n", &c))
        return;
    CHECK(c.nnz == 2, "nnz %lld", (long long)c.nnz);
    ENTRY(c, 0, 0, 0, 1.5);
    ENTRY(c, 1, 1, 1, -3);
    hspmv_coo_free(&c);
    if (ok_read("%%MatrixMarket matrix array real general\r\n1 2\r\n7\r\n8\r\n", &c)) return;
    ENTRY(c, 1, 0, 1, 8);
    hspmv_coo_free(&c);
}

static void comments_and_blank_lines_anywhere_before_and_between_data_are_skipped(void)
{
    hspmv_coo c;
    const char *text = "\n"
                       "%%MatrixMarket matrix coordinate real general\n"
                       "% a comment\n"
                       "\n"
                       "   \t \n"
                       "%another % comment\n"
                       "  % indented comment\n"
                       "2 3 2\n"
                       "\n"
                       "1 3 1\n"
                       "% between entries\n"
                       "   \n"
                       "2 1 2\n"
                       "\n"
                       "% trailing comment\n";
    if (ok_read(text, &c)) return;
    CHECK(c.nrows == 2 && c.ncols == 3 && c.nnz == 2, "size");
    ENTRY(c, 0, 0, 2, 1);
    ENTRY(c, 1, 1, 0, 2);
    hspmv_coo_free(&c);
}

static void leading_and_trailing_blanks_on_entry_lines_are_accepted(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate real general\n  2\t2   1  \n\t 2 \t 1 \t 3.5 \t \n", &c)) return;
    ENTRY(c, 0, 1, 0, 3.5);
    hspmv_coo_free(&c);
}

static void last_line_without_newline_is_read(void)
{
    hspmv_coo c;
    hspmv_read_info info;
    hspmv_error e;
    const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 9";
    CHECK(hspmv_mtx_read_mem(NAME, text, strlen(text), &c, &info, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(c.nnz == 1 && c.val[0] == 9, "entry");
    CHECK(info.bytes == (int64_t)strlen(text) && info.lines == 3 && !info.gzip && !info.array,
          "info bytes %lld lines %lld", (long long)info.bytes, (long long)info.lines);
    hspmv_coo_free(&c);
    hspmv_coo c2;
    if (ok_read("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1", &c2) == HSPMV_OK) ENTRY(c2, 0, 1, 0, 1);
    hspmv_coo_free(&c2);
}

static void indices_with_a_plus_sign_and_leading_zeros_are_accepted(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate integer general\n3 3 2\n+3 003 +4\n01 2 -0005\n", &c)) return;
    ENTRY(c, 0, 2, 2, 4);
    ENTRY(c, 1, 0, 1, -5);
    hspmv_coo_free(&c);
}

/* ---- numbers ------------------------------------------------------------------------ */

/* Each spelling next to the value it must give, bit for bit. */
static void every_c_spelling_of_a_real_gives_the_exact_value(void)
{
    static const struct { const char *s; double v; } t[] = {
        {"1e-3", 1e-3}, {"-.5", -0.5}, {"1.5E+02", 150.0}, {"+3.", 3.0}, {"1E5", 1e5},
        {"0x1.8p1", 3.0}, {"0X1P-2", 0.25}, {"-0x.8p0", -0.5}, {"0xAp0", 10.0},
        {"0.1", 0.1}, {"00012.50", 12.5}, {"-0", -0.0}, {"0e999999", 0.0},
        {"1e22", 1e22}, {"1e23", 1e23}, {"9007199254740993", 9007199254740992.0},
        {"3.14159265358979323846264338327950288", 3.14159265358979323846264338327950288},
        {"1.7976931348623157e308", DBL_MAX}, {"2.2250738585072014e-308", DBL_MIN},
        {"4.9406564584124654e-324", 4.9406564584124654e-324}, {"1e-400", 0.0},
        {"123456789012345678901234567890", 123456789012345678901234567890.0},
        {"0.000000000000000000000000000000000000001", 1e-39}, {"5E-1", 0.5},
        {"-1.0000000000000002", -1.0000000000000002}, {"2.5e+0", 2.5},
    };
    for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
        char text[256];
        hspmv_coo c;
        hspmv_error e;
        if (sizeof(hspmv_real) == sizeof(float) && fabs(t[k].v) > FLT_MAX) continue; /* refused in float */
        snprintf(text, sizeof(text), "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 %s\n", t[k].s);
        int rc = rd(text, &c, &e);
        CHECK(rc == HSPMV_OK, "'%s': %s", t[k].s, e.msg);
        if (rc == HSPMV_OK) {
            hspmv_real want = (hspmv_real)t[k].v;
            CHECK(memcmp(&c.val[0], &want, sizeof(want)) == 0, "'%s' gave %.17g, want %.17g", t[k].s,
                  (double)c.val[0], (double)want);
        }
        hspmv_coo_free(&c);
    }
}

/* 20000 random doubles in several printf spellings, each compared bit for
   bit with strtod (correctly rounded) of the same text: the fast path must
   never differ from it. */
static void random_decimal_values_match_strtod_bit_for_bit(void)
{
    static const char *fmts[] = {"%.17g", "%.15g", "%.6e", "%.3f", "%.1f", "%.16e", "%.19g", "%g"};
    const int n = 20000;
    size_t cap = (size_t)n * 40 + 128, len = 0;
    char *text = malloc(cap);
    double *want = malloc((size_t)n * sizeof(double));
    uint64_t s = 42;
    hspmv_coo c;
    hspmv_error e;
    len += (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
    for (int k = 0; k < n; k++) {
        double mag = pow(10.0, tl_uniform(&s, -30, 30));
        double x = tl_uniform(&s, -1, 1) * mag;
        if (k % 5 == 0) x = (double)(int64_t)(tl_uniform(&s, -1e6, 1e6)); /* integers */
        char *at = text + len;
        len += (size_t)snprintf(at, cap - len, fmts[k % 8], x);
        want[k] = strtod(at, NULL);
        text[len++] = '\n';
    }
    text[len] = '\0';
    int rc = hspmv_mtx_read_mem(NAME, text, len, &c, NULL, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    if (rc == HSPMV_OK) {
        int bad = 0;
        for (int k = 0; k < n; k++) {
            hspmv_real w = (hspmv_real)want[k];
            if (memcmp(&c.val[k], &w, sizeof(w)) != 0 && bad++ < 5)
                CHECK(0, "value %d: got %.17g, strtod %.17g", k, (double)c.val[k], (double)w);
        }
        CHECK(bad == 0, "%d values differ from strtod", bad);
    }
    hspmv_coo_free(&c);
    free(text);
    free(want);
}

static void integer_field_values_keep_their_sign(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate integer general\n1 3 3\n1 1 -12\n1 2 +7\n1 3 0\n", &c)) return;
    ENTRY(c, 0, 0, 0, -12);
    ENTRY(c, 1, 0, 1, 7);
    ENTRY(c, 2, 0, 2, 0);
    hspmv_coo_free(&c);
}

/* ---- refusals, each at its line -------------------------------------------------------- */

#define BAN "%%MatrixMarket matrix coordinate real general\n"

static void empty_file_is_refused(void)
{
    REFUSED("", HSPMV_ERR_FORMAT, 0, "empty");
}

static void file_of_only_comments_and_blanks_is_refused(void)
{
    REFUSED("% just a comment\n\n% another\n", HSPMV_ERR_FORMAT, 3, "banner");
    REFUSED("\n\n  \n", HSPMV_ERR_FORMAT, 3, "banner");
}

static void file_with_banner_and_no_size_line_is_refused(void)
{
    REFUSED(BAN "% only comments\n\n", HSPMV_ERR_FORMAT, 3, "size line");
}

static void missing_banner_is_refused_at_the_first_data_line(void)
{
    REFUSED("% comment\n3 3 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "found '3 3 1'");
    REFUSED("MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n", HSPMV_ERR_FORMAT, 1, "banner");
}

static void malformed_banners_are_refused_at_their_line(void)
{
    REFUSED("\n%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "expected banner");
    REFUSED("%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 1, "found");
    REFUSED("%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 1, "'coordinate' or 'array'");
    REFUSED("%%MatrixMarket matrix coordinate float general\n1 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 1, "field");
    REFUSED("%%MatrixMarket matrix coordinate real upper\n1 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 1, "symmetry");
    REFUSED("%%MatrixMarket matrix array pattern general\n1 1\n1\n", HSPMV_ERR_FORMAT, 1, "array pattern");
    REFUSED("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", HSPMV_ERR_FORMAT, 1, "pattern skew");
}

static void vector_object_in_banner_is_refused(void)
{
    REFUSED("%%MatrixMarket vector coordinate real general\n3 1\n1 1\n", HSPMV_ERR_FORMAT, 1, "'matrix'");
}

static void complex_and_hermitian_are_refused_as_unsupported(void)
{
    REFUSED("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", HSPMV_ERR_UNSUPPORTED, 1,
            "complex matrices are not supported");
    REFUSED("% c\n%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n", HSPMV_ERR_UNSUPPORTED, 2,
            "complex matrices are not supported");
    REFUSED("%%MatrixMarket matrix array Complex general\n1 1\n1 0\n", HSPMV_ERR_UNSUPPORTED, 1, "complex");
    REFUSED("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", HSPMV_ERR_UNSUPPORTED, 1, "hermitian");
}

static void malformed_size_lines_are_refused_at_their_line(void)
{
    REFUSED(BAN "% c\n3 x 3\n", HSPMV_ERR_FORMAT, 3, "'x'");
    REFUSED(BAN "3 3\n", HSPMV_ERR_FORMAT, 2, "rows cols entries");
    REFUSED(BAN "3 3 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "rows cols entries");
    REFUSED(BAN "-3 3 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "'-3'");
    REFUSED(BAN "3 3 -1\n", HSPMV_ERR_FORMAT, 2, "'-1'");
    REFUSED(BAN "3 3.0 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "'3.0'");
    REFUSED(BAN "9223372036854775808 3 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "64-bit");
    REFUSED(BAN "3 3 99999999999999999999999\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "64-bit");
    REFUSED("%%MatrixMarket matrix array real general\n3 3 9\n", HSPMV_ERR_FORMAT, 2, "rows cols");
}

static void dimensions_past_32_bits_are_refused_as_unsupported(void)
{
    REFUSED(BAN "2147483648 3 1\n1 1 1\n", HSPMV_ERR_UNSUPPORTED, 2, "32-bit");
    REFUSED(BAN "3 9223372036854775807 1\n1 1 1\n", HSPMV_ERR_UNSUPPORTED, 2, "32-bit");
    hspmv_coo c; /* the largest allowed dimension loads where memory allows its CSR and vectors */
    hspmv_mem_test_bytes = 1e13;
    if (ok_read(BAN "2147483647 2147483647 1\n2147483647 2147483647 1\n", &c) == HSPMV_OK)
        ENTRY(c, 0, 2147483646, 2147483646, 1);
    hspmv_mem_test_bytes = 0;
    hspmv_coo_free(&c);
}

static void entries_in_a_matrix_without_rows_or_columns_are_refused(void)
{
    REFUSED(BAN "0 3 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "no places");
    REFUSED(BAN "3 0 2\n", HSPMV_ERR_FORMAT, 2, "no places");
}

static void symmetric_header_on_a_non_square_size_is_refused(void)
{
    REFUSED("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", HSPMV_ERR_FORMAT, 2, "square");
    REFUSED("%%MatrixMarket matrix array real skew-symmetric\n% c\n3 2\n1\n", HSPMV_ERR_FORMAT, 3, "square");
}

/* No allocation for a count the bytes cannot hold (it would be NOMEM): the
   entries there are read and the end is reported, naming the short input. */
static void declared_count_the_remaining_bytes_cannot_hold_is_refused_without_allocating_it(void)
{
    REFUSED(BAN "3 3 1000000000000000\n1 1 1\n", HSPMV_ERR_FORMAT, 3,
            "file ends after 1 at line 3 (the size line declares 1000000000000000 entries, but only 6 bytes follow");
    REFUSED("%%MatrixMarket matrix array real general\n20000 20000\n1\n", HSPMV_ERR_FORMAT, 3,
            "bytes follow");
}

/* The 61-byte file that asked for 50 GB: what the size line implies
   (triplets + CSR + x and y) is refused before any allocation when the
   machine cannot give it, with both figures, at the size line. */
static void a_size_line_the_machine_cannot_hold_is_refused_with_its_figure(void)
{
    const char *t = BAN "2147483647 2147483647 1\n1 1 1\n";
    char want[200];
    hspmv_mem_test_bytes = 1e9;
    snprintf(want, sizeof(want), "needs %.3g GB, more than the test's memory limit allows (1 GB)",
             (2147483647.0 * 2 * sizeof(hspmv_real) + 16.0 * 2147483648.0 + 12 + 8 + sizeof(hspmv_real) * 2) / 1e9);
    REFUSED(t, HSPMV_ERR_NOMEM, 2, want);
    REFUSED(t, HSPMV_ERR_NOMEM, 2, "a 2147483647 x 2147483647 matrix of 1 entries");
    REFUSED("%%MatrixMarket matrix coordinate pattern symmetric\n% c\n100000000 100000000 1\n1 1\n",
            HSPMV_ERR_NOMEM, 3, "CSR 1.6 GB");
    hspmv_mem_test_bytes = 0;
}

/* A fault on a line of a short file is that line's fault, not the size
   line's "truncated file": the last line lacks its value. */
static void missing_value_on_the_last_line_of_a_short_file_is_refused_at_that_line(void)
{
    REFUSED(BAN "2 2 1\n1 1", HSPMV_ERR_FORMAT, 3, "expected a value after the column index");
    REFUSED(BAN "2 2 1\n1 1\n", HSPMV_ERR_FORMAT, 3, "expected a value after the column index");
    REFUSED(BAN "2 2 2\n1 1 1\n2 2", HSPMV_ERR_FORMAT, 4, "expected a value after the column index");
    REFUSED(BAN "4 4 3\n1 1 1\n2", HSPMV_ERR_FORMAT, 4, "expected a column index");
}

/* Integer values of any length are read as the nearest working-precision
   number (as a real is); only those beyond its range are refused, as such. */
static void integer_values_past_2_to_the_59_are_read_and_only_overflow_is_refused(void)
{
    hspmv_coo c;
    if (ok_read("%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 1152921504606846977\n"
                "2 2 -99999999999999999999\n1 2 123456789012345678901234567890\n", &c) == HSPMV_OK) {
        ENTRY(c, 0, 0, 0, 1152921504606846977.0);
        ENTRY(c, 1, 1, 1, -99999999999999999999.0);
        ENTRY(c, 2, 0, 1, 123456789012345678901234567890.0);
    }
    hspmv_coo_free(&c);
    char text[700], digits[400];
    memset(digits, '9', 320);
    digits[320] = '\0';
    snprintf(text, sizeof(text), "%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 %s\n", digits);
    REFUSED(text, HSPMV_ERR_FORMAT, 3, "integer value '9999");
    REFUSED(text, HSPMV_ERR_FORMAT, 3, "out of the");
#ifdef HSPMV_SINGLE
    REFUSED("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 -1000000000000000000000000000000000000000\n",
            HSPMV_ERR_FORMAT, 3, "is out of the float range");
#endif
    REFUSED("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999x\n",
            HSPMV_ERR_FORMAT, 3, "expected an integer value");
}

/* A real of any length in any spelling is read correctly rounded, not
   refused as "expected a real value" past some buffer size. */
static void reals_longer_than_1023_characters_are_read(void)
{
    static char text[8192];
    char num[5000];
    size_t n = 0;
    num[n++] = '-';
    num[n++] = '0';
    num[n++] = '.';
    while (n < 4000) num[n++] = '0';
    memcpy(num + n, "15e3998", 8); /* -0.000...0015e3998 = -1.5 */
    snprintf(text, sizeof(text), BAN "2 2 2\n1 1 %s\n2 2 %.*s\n", num, 1500,
             "0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
             "33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333");
    hspmv_coo c;
    if (ok_read(text, &c) == HSPMV_OK) {
        ENTRY(c, 0, 0, 0, -1.5);
        ENTRY(c, 1, 1, 1, strtod("0.3333333333333333333333333333", NULL));
    }
    hspmv_coo_free(&c);
    snprintf(text, sizeof(text), BAN "2 2 1\n1 1 %sx\n", num);
    REFUSED(text, HSPMV_ERR_FORMAT, 3, "expected a real value, found '-0.000");
    REFUSED(BAN "2 2 1\n1 1 \v1\n", HSPMV_ERR_FORMAT, 3, "expected a real value");
}

/* A byte-order mark and lone-CR line endings are named, not reported as a
   malformed banner. */
static void byte_order_marks_and_lone_cr_line_endings_are_named(void)
{
    REFUSED("\xEF\xBB\xBF" BAN "1 1 1\n1 1 1\n", HSPMV_ERR_FORMAT, 1, "UTF-8 byte-order mark");
    REFUSED("\xFF\xFE%\0%\0", HSPMV_ERR_FORMAT, 1, "UTF-16 byte-order mark");
    REFUSED("%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r", HSPMV_ERR_FORMAT, 1,
            "lone CR (classic Mac)");
    REFUSED("% comment\n%%MatrixMarket matrix coordinate real general\n2 2 1\r1 1 1\r", HSPMV_ERR_FORMAT, 3,
            "lone CR");
    REFUSED(BAN "2 2 2\n1 1 1\r2 2 2\r", HSPMV_ERR_FORMAT, 3, "lone CR");
    hspmv_coo c; /* CR LF stays accepted */
    if (ok_read("%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 1 1\r\n", &c) == HSPMV_OK)
        ENTRY(c, 0, 0, 0, 1);
    hspmv_coo_free(&c);
}

/* However long the name, the message keeps its line and its whole reason:
   the name is shortened from the front. */
static void a_long_file_name_never_cuts_off_the_reason(void)
{
    char name[1200];
    for (size_t len = 100; len < sizeof(name); len += 350) {
        memset(name, 'd', len);
        memcpy(name + len - 8, "/end.mtx", 9);
        const char *t = BAN "3 3 2\n1 1 1\n2 2 \n";
        hspmv_coo c;
        hspmv_error e;
        int rc = hspmv_mtx_read_mem(name, t, strlen(t), &c, NULL, &e);
        const char *why = "/end.mtx:4: expected a value after the column index, found the end of the line '2 2'";
        CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, why), "name of %zu: %s", len, e.msg);
        CHECK(len + strlen(why) < sizeof(e.msg) ? strncmp(e.msg, name, 50) == 0 : strncmp(e.msg, "...ddd", 6) == 0,
              "name of %zu: %s", len, e.msg);
    }
}

static void index_out_of_range_is_refused_at_its_line(void)
{
    REFUSED(BAN "3 4 3\n1 1 1\n% c\n4 1 1\n2 2 2\n", HSPMV_ERR_FORMAT, 5, "row index in 1..3, found 4");
    REFUSED(BAN "3 4 2\n1 5 1\n2 2 2\n", HSPMV_ERR_FORMAT, 3, "column index in 1..4, found 5");
    REFUSED(BAN "3 4 2\n1 1 1\n0 2 2\n", HSPMV_ERR_FORMAT, 4, "found 0");
    REFUSED(BAN "3 4 2\n1 0 1\n2 2 2\n", HSPMV_ERR_FORMAT, 3, "found 0");
    REFUSED(BAN "3 4 2\n1 1 1\n99999999999999999999999 2 2\n", HSPMV_ERR_FORMAT, 4, "row index");
}

static void negative_index_is_refused_at_its_line(void)
{
    REFUSED(BAN "3 3 2\n1 1 1\n-1 2 2\n", HSPMV_ERR_FORMAT, 4, "found -1");
    REFUSED(BAN "3 3 2\n1 -2 1\n2 2 2\n", HSPMV_ERR_FORMAT, 3, "found -2");
}

static void fewer_entries_than_declared_is_refused_naming_where_the_file_ends(void)
{
    REFUSED(BAN "3 3 3\n1 1 1.000000\n2 2 2.000000\n", HSPMV_ERR_FORMAT, 4,
            "expected 3 entries, file ends after 2 at line 4");
    REFUSED(BAN "3 3 3\n1 1 1.000000\n2 2 2.000000\n\n% end\n", HSPMV_ERR_FORMAT, 6,
            "expected 3 entries, file ends after 2 at line 6");
    REFUSED("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n% pad\n", HSPMV_ERR_FORMAT, 6,
            "expected 4 entries, file ends after 3 at line 6");
}

static void more_entries_than_declared_is_refused_at_the_extra_line(void)
{
    REFUSED(BAN "3 3 2\n1 1 1\n2 2 2\n3 3 3\n", HSPMV_ERR_FORMAT, 5, "expected 2 entries");
    REFUSED(BAN "3 3 0\n\n1 1 1\n", HSPMV_ERR_FORMAT, 4, "expected 0 entries");
    REFUSED("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", HSPMV_ERR_FORMAT, 6,
            "expected 3 entries");
}

static void extra_token_on_an_entry_line_is_refused_at_its_line(void)
{
    REFUSED(BAN "3 3 2\n1 1 1\n2 2 2 7\n", HSPMV_ERR_FORMAT, 4, "found '7'");
    REFUSED("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2 1\n", HSPMV_ERR_FORMAT, 4,
            "'row col' and nothing more");
    REFUSED("%%MatrixMarket matrix array real general\n2 1\n1 2\n3\n", HSPMV_ERR_FORMAT, 3, "one value per line");
    REFUSED(BAN "3 3 2\n1 1 1 % trailing comment\n2 2 2\n", HSPMV_ERR_FORMAT, 3, "found '%'");
}

static void missing_value_is_refused_at_its_line(void)
{
    REFUSED(BAN "3 3 2\n1 1 1\n2 2\n% padding\n", HSPMV_ERR_FORMAT, 4, "a value");
    REFUSED(BAN "3 3 2\n1 1 1\n2 2   \r\n", HSPMV_ERR_FORMAT, 4, "a value");
    REFUSED(BAN "3 3 2\n1 1 1\n2\n% padding\n", HSPMV_ERR_FORMAT, 4, "a column index");
}

static void garbage_numbers_are_refused_at_their_line(void)
{
    static const char *bad[] = {"1.2.3", "abc", "1e", "--1", "1e+", ".", "-", "+", "0x", "1,5",
                                "1.5x", "e5", ".e5", "1..2", "0x1.8p", "1e5.0", "12345678901234567890123.4.5"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char text[256], want[64];
        snprintf(text, sizeof(text), BAN "3 3 3\n1 1 1\n%% c\n2 2 %s\n3 3 3\n", bad[k]);
        snprintf(want, sizeof(want), "found '%s'", bad[k]);
        REFUSED(text, HSPMV_ERR_FORMAT, 5, want);
    }
    REFUSED(BAN "3 3 1\n1x 1 1\n", HSPMV_ERR_FORMAT, 3, "row index");
    REFUSED(BAN "3 3 1\n1 1x 1\n", HSPMV_ERR_FORMAT, 3, "column index");
    REFUSED("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2x\n", HSPMV_ERR_FORMAT, 3,
            "expected a column index, found '2x'");
    REFUSED(BAN "3 3 1\n1,1,1\n", HSPMV_ERR_FORMAT, 3, "row index");
    REFUSED(BAN "3 3 1\nx 1 1\n", HSPMV_ERR_FORMAT, 3, "found 'x'");
}

static void inf_and_nan_in_any_spelling_are_refused_as_non_finite(void)
{
    static const char *bad[] = {"inf", "-inf", "+INF", "Infinity", "nan", "NaN", "-nan", "nan(0x1)"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char text[256];
        snprintf(text, sizeof(text), BAN "3 3 2\n1 1 1\n2 2 %s\n", bad[k]);
        REFUSED(text, HSPMV_ERR_FORMAT, 4, "non-finite value");
    }
    REFUSED("%%MatrixMarket matrix array real general\n2 1\n1\nnan\n", HSPMV_ERR_FORMAT, 4, "non-finite value");
}

static void values_past_the_working_precision_range_are_refused(void)
{
    REFUSED(BAN "3 3 1\n1 1 1e999\n", HSPMV_ERR_FORMAT, 3, "out of the");
    REFUSED(BAN "3 3 1\n1 1 -0x1p2000\n", HSPMV_ERR_FORMAT, 3, "out of the");
#ifdef HSPMV_SINGLE
    REFUSED(BAN "3 3 1\n1 1 1e39\n", HSPMV_ERR_FORMAT, 3, "float range");
#endif
}

static void non_integer_in_an_integer_file_is_refused_at_its_line(void)
{
    static const char *bad[] = {"1.5", "1e3", "2.", "abc", "0x10", "1.0"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char text[256];
        snprintf(text, sizeof(text), "%%%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 1 1\n2 2 %s\n", bad[k]);
        REFUSED(text, HSPMV_ERR_FORMAT, 4, "an integer value");
    }
}

static void symmetric_file_with_entry_above_the_diagonal_is_refused_at_its_line(void)
{
    REFUSED("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n1 2 5\n", HSPMV_ERR_FORMAT, 5,
            "above the diagonal");
    REFUSED("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n2 3\n", HSPMV_ERR_FORMAT, 4,
            "above the diagonal");
}

static void skew_file_with_diagonal_entry_is_refused_at_its_line(void)
{
    REFUSED("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n\n2 2 5\n", HSPMV_ERR_FORMAT, 5,
            "diagonal entry (2,2)");
}

static void skew_file_with_entry_above_the_diagonal_is_refused_at_its_line(void)
{
    REFUSED("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 1\n1 3 5\n", HSPMV_ERR_FORMAT, 4,
            "above the diagonal");
}

static void nul_byte_and_binary_junk_in_data_are_refused(void)
{
    static const char text[] = BAN "2 2 1\n1 1 \0" "1\n";
    hspmv_coo c;
    hspmv_error e;
    int rc = hspmv_mtx_read_mem(NAME, text, sizeof(text) - 1, &c, NULL, &e);
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, NAME ":3: "), "code %d: %s", rc, e.msg);
    CHECK(coo_is_zero(&c), "coo zeroed");
    REFUSED(BAN "2 2 1\n1 1 \x01\x02\xff\n", HSPMV_ERR_FORMAT, 3, "real value");
}

static void long_found_text_is_quoted_truncated(void)
{
    char text[512];
    snprintf(text, sizeof(text), BAN "2 2 1\n1 1 %s\n", "1234567890abcdefghijklmnopqrstuvwxyz1234567890ABCDEFGHIJ");
    hspmv_coo c;
    hspmv_error e;
    CHECK(rd(text, &c, &e) == HSPMV_ERR_FORMAT, "code");
    CHECK(strstr(e.msg, "...") && strlen(e.msg) < 300, "message '%s'", e.msg);
}

static void bad_arguments_are_refused(void)
{
    hspmv_coo c;
    hspmv_error e;
    CHECK(hspmv_mtx_read_mem(NAME, NULL, 5, &c, NULL, &e) == HSPMV_ERR_ARG, "NULL buffer");
    CHECK(hspmv_mtx_read_mem(NAME, "x", 1, NULL, NULL, &e) == HSPMV_ERR_ARG, "NULL coo");
    CHECK(hspmv_mtx_read(NULL, &c, NULL, NULL, &e) == HSPMV_ERR_ARG, "NULL path");
    CHECK(hspmv_mtx_read_mem(NULL, "", 0, &c, NULL, NULL) == HSPMV_ERR_FORMAT, "NULL name and err are fine");
    hspmv_coo_free(NULL);
    hspmv_coo_free(&c);
}

/* gzip bytes: read when zlib is built in, refused as unsupported without it. */
static void gzip_magic_is_read_or_refused_as_not_built_in(void)
{
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                       0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    hspmv_coo c;
    hspmv_error e;
    int rc = hspmv_mtx_read_mem(NAME, gz, sizeof(gz), &c, NULL, &e);
#ifdef HSPMV_NO_ZLIB
    CHECK(rc == HSPMV_ERR_UNSUPPORTED && strcmp(e.msg, NAME ": gzip support not built in") == 0, "code %d: %s", rc, e.msg);
#else
    CHECK(rc == HSPMV_ERR_FORMAT && strstr(e.msg, "empty"), "gzip of nothing: code %d: %s", rc, e.msg);
#endif
    CHECK(coo_is_zero(&c), "coo zeroed");
}

/* ---- allocation failure ------------------------------------------------------------------ */

/* Fails the 1st, 2nd, ... allocation until the read succeeds: each failing
   read must say NOMEM, zero the coo and leak nothing (ASan checks that). */
static void fail_allocations_one_by_one(const char *what, const char *text, size_t len)
{
    int fails = 0;
    for (long n = 1; n < 100; n++) {
        hspmv_coo c;
        hspmv_error e;
        hspmv_alloc_fail_after(n);
        int rc = hspmv_mtx_read_mem(NAME, text, len, &c, NULL, &e);
        hspmv_alloc_fail_after(0);
        if (rc == HSPMV_OK) {
            hspmv_coo_free(&c);
            CHECK(fails > 0, "%s: no allocation was failed", what);
            return;
        }
        fails++;
        CHECK(rc == HSPMV_ERR_NOMEM, "%s: allocation %ld: code %d (%s)", what, n, rc, e.msg);
        CHECK(coo_is_zero(&c), "%s: allocation %ld: coo not zeroed", what, n);
    }
    CHECK(0, "%s: still failing after 100 allocations", what);
}

static void each_failed_allocation_gives_nomem_and_an_empty_coo(void)
{
    const char *t1 = BAN "3 3 2\n1 1 1\n2 2 2\n";
    const char *t2 = "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n";
    fail_allocations_one_by_one("coordinate", t1, strlen(t1));
    fail_allocations_one_by_one("array", t2, strlen(t2));
    size_t saved = hspmv_io_chunk_bytes; /* a long line grows the read buffer */
    hspmv_io_chunk_bytes = 4;
    fail_allocations_one_by_one("growing buffer", t1, strlen(t1));
    hspmv_io_chunk_bytes = saved;
}

int main(void)
{
    RUN(coordinate_real_general_gives_zero_based_triplets_in_file_order);
    RUN(every_header_kind_loads_with_its_kind_and_entries);
    RUN(array_format_keeps_explicit_zeros_as_entries);
    RUN(duplicates_and_explicit_zeros_are_kept_in_the_triplets);
    RUN(empty_matrices_with_no_entries_are_valid);
    RUN(banner_words_in_any_case_with_extra_blanks_are_accepted);
    RUN(banner_with_a_single_percent_is_accepted);
    RUN(crlf_line_endings_are_accepted);
    RUN(comments_and_blank_lines_anywhere_before_and_between_data_are_skipped);
    RUN(leading_and_trailing_blanks_on_entry_lines_are_accepted);
    RUN(last_line_without_newline_is_read);
    RUN(indices_with_a_plus_sign_and_leading_zeros_are_accepted);
    RUN(every_c_spelling_of_a_real_gives_the_exact_value);
    RUN(random_decimal_values_match_strtod_bit_for_bit);
    RUN(integer_field_values_keep_their_sign);
    RUN(empty_file_is_refused);
    RUN(file_of_only_comments_and_blanks_is_refused);
    RUN(file_with_banner_and_no_size_line_is_refused);
    RUN(missing_banner_is_refused_at_the_first_data_line);
    RUN(malformed_banners_are_refused_at_their_line);
    RUN(vector_object_in_banner_is_refused);
    RUN(complex_and_hermitian_are_refused_as_unsupported);
    RUN(malformed_size_lines_are_refused_at_their_line);
    RUN(dimensions_past_32_bits_are_refused_as_unsupported);
    RUN(entries_in_a_matrix_without_rows_or_columns_are_refused);
    RUN(symmetric_header_on_a_non_square_size_is_refused);
    RUN(declared_count_the_remaining_bytes_cannot_hold_is_refused_without_allocating_it);
    RUN(a_size_line_the_machine_cannot_hold_is_refused_with_its_figure);
    RUN(missing_value_on_the_last_line_of_a_short_file_is_refused_at_that_line);
    RUN(integer_values_past_2_to_the_59_are_read_and_only_overflow_is_refused);
    RUN(reals_longer_than_1023_characters_are_read);
    RUN(byte_order_marks_and_lone_cr_line_endings_are_named);
    RUN(a_long_file_name_never_cuts_off_the_reason);
    RUN(index_out_of_range_is_refused_at_its_line);
    RUN(negative_index_is_refused_at_its_line);
    RUN(fewer_entries_than_declared_is_refused_naming_where_the_file_ends);
    RUN(more_entries_than_declared_is_refused_at_the_extra_line);
    RUN(extra_token_on_an_entry_line_is_refused_at_its_line);
    RUN(missing_value_is_refused_at_its_line);
    RUN(garbage_numbers_are_refused_at_their_line);
    RUN(inf_and_nan_in_any_spelling_are_refused_as_non_finite);
    RUN(values_past_the_working_precision_range_are_refused);
    RUN(non_integer_in_an_integer_file_is_refused_at_its_line);
    RUN(symmetric_file_with_entry_above_the_diagonal_is_refused_at_its_line);
    RUN(skew_file_with_diagonal_entry_is_refused_at_its_line);
    RUN(skew_file_with_entry_above_the_diagonal_is_refused_at_its_line);
    RUN(nul_byte_and_binary_junk_in_data_are_refused);
    RUN(long_found_text_is_quoted_truncated);
    RUN(bad_arguments_are_refused);
    RUN(gzip_magic_is_read_or_refused_as_not_built_in);
    RUN(each_failed_allocation_gives_nomem_and_an_empty_coo);
    CHECK_DONE();
}
