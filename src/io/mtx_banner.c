/* mtx_banner.c — the %%MatrixMarket banner and the size line: forgiving on
   case and blanks, strict on what the words and numbers mean. */
#include <string.h>
#include "io.h"

#define MAX_DIM INT32_MAX /* indices are int32 */

void hspmv_mtx_quote(char *out, const char *s, const char *e)
{
    size_t n = 0;
    while (s < e && mtx_is_blank(*s)) s++;
    while (e > s && mtx_is_blank(e[-1])) e--;
    for (; s < e && n < 40; s++) {
        unsigned char c = (unsigned char)*s;
        out[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (s < e) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
}

/* Splits [s, e) at blanks into at most max words; returns how many there are. */
static int split_words(const char *s, const char *e, const char **w, size_t *wl, int max)
{
    int n = 0;
    for (;;) {
        while (s < e && mtx_is_blank(*s)) s++;
        if (s >= e) return n;
        const char *t = s;
        while (t < e && !mtx_is_blank(*t)) t++;
        if (n < max) {
            w[n] = s;
            wl[n] = (size_t)(t - s);
        }
        n++;
        s = t;
    }
}

static int word_is(const char *w, size_t n, const char *lower)
{
    if (strlen(lower) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((w[i] >= 'A' && w[i] <= 'Z' ? w[i] + 32 : w[i]) != lower[i]) return 0;
    return 1;
}

/* After blanks, one or two '%', blanks, then "MatrixMarket" in any case;
   returns the text after that word, or NULL. */
static const char *banner_rest(const mtx_line *ln)
{
    const char *p = ln->s, *e = ln->e, *w;
    while (p < e && mtx_is_blank(*p)) p++;
    if (p >= e || *p != '%') return NULL;
    p++;
    if (p < e && *p == '%') p++;
    while (p < e && mtx_is_blank(*p)) p++;
    w = p;
    while (p < e && !mtx_is_blank(*p)) p++;
    return word_is(w, (size_t)(p - w), "matrixmarket") ? p : NULL;
}

static const char *word_quote(char *q, const char *w, size_t n)
{
    hspmv_mtx_quote(q, w, w + n);
    return q;
}

int hspmv_mtx_is_banner(const mtx_line *ln) { return banner_rest(ln) != NULL; }

int hspmv_mtx_parse_banner(const char *name, const mtx_line *ln, mtx_header *h, hspmv_error *err)
{
    const char *w[5], *rest = banner_rest(ln);
    size_t wl[5];
    char q[64];
    int n = split_words(rest, ln->e, w, wl, 5);
    long long no = (long long)ln->no;
    int complex = 0, hermitian = 0;

    hspmv_mtx_quote(q, ln->s, ln->e);
    if (n != 4)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "expected banner '%%%%MatrixMarket matrix <coordinate|array> "
                              "<real|integer|pattern> <general|symmetric|skew-symmetric>', found '%s'", q);
    if (!word_is(w[0], wl[0], "matrix"))
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "expected object 'matrix' in the banner, found '%s'",
                              word_quote(q, w[0], wl[0]));
    if (word_is(w[1], wl[1], "coordinate")) h->array = 0;
    else if (word_is(w[1], wl[1], "array")) h->array = 1;
    else
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "expected format 'coordinate' or 'array' in the banner, found '%s'",
                              word_quote(q, w[1], wl[1]));
    if (word_is(w[2], wl[2], "real") || word_is(w[2], wl[2], "double")) h->field = HSPMV_FIELD_REAL;
    else if (word_is(w[2], wl[2], "integer")) h->field = HSPMV_FIELD_INTEGER;
    else if (word_is(w[2], wl[2], "pattern")) h->field = HSPMV_FIELD_PATTERN;
    else if (word_is(w[2], wl[2], "complex")) complex = 1;
    else
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "expected field 'real', 'integer' or 'pattern' in the banner, found '%s'",
                              word_quote(q, w[2], wl[2]));
    if (word_is(w[3], wl[3], "general")) h->symmetry = HSPMV_GENERAL;
    else if (word_is(w[3], wl[3], "symmetric")) h->symmetry = HSPMV_SYMMETRIC;
    else if (word_is(w[3], wl[3], "skew-symmetric")) h->symmetry = HSPMV_SKEW_SYMMETRIC;
    else if (word_is(w[3], wl[3], "hermitian")) hermitian = 1;
    else
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "expected symmetry 'general', 'symmetric' or 'skew-symmetric' "
                              "in the banner, found '%s'", word_quote(q, w[3], wl[3]));
    if (complex)
        return hspmv_err_file(err, HSPMV_ERR_UNSUPPORTED, name, no, "complex matrices are not supported");
    if (hermitian)
        return hspmv_err_file(err, HSPMV_ERR_UNSUPPORTED, name, no, "hermitian matrices are not supported");
    if (h->field == HSPMV_FIELD_PATTERN && h->array)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "'array pattern' is not a Matrix Market kind, found '%s'", q);
    if (h->field == HSPMV_FIELD_PATTERN && h->symmetry == HSPMV_SKEW_SYMMETRIC)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "'pattern skew-symmetric' is not a Matrix Market kind, found '%s'", q);
    return HSPMV_OK;
}

/* A non-negative int64 word, with overflow detection; -1 when it is not one. */
static int64_t size_word(const char *w, size_t n)
{
    uint64_t x = 0;
    size_t i = 0;
    if (n > 0 && w[0] == '+') i = 1;
    if (i == n) return -1;
    for (; i < n; i++) {
        unsigned d = (unsigned)(w[i] - '0');
        if (d > 9 || x > ((uint64_t)INT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    return (int64_t)x;
}

int hspmv_mtx_parse_size(const char *name, const mtx_line *ln, mtx_header *h, hspmv_error *err)
{
    const char *w[4];
    size_t wl[4];
    int64_t v[3];
    char q[64];
    long long no = (long long)ln->no;
    int want = h->array ? 2 : 3;
    int n = split_words(ln->s, ln->e, w, wl, 4);
    const char *what = h->array ? "'rows cols'" : "'rows cols entries'";

    hspmv_mtx_quote(q, ln->s, ln->e);
    if (n != want)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no, "expected size line %s, found '%s'", what, q);
    for (int i = 0; i < n; i++) {
        v[i] = size_word(w[i], wl[i]);
        if (v[i] < 0) {
            char wq[64];
            hspmv_mtx_quote(wq, w[i], w[i] + wl[i]);
            return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                                  "expected size line %s of non-negative 64-bit integers, "
                                  "found '%s' in '%s'", what, wq, q);
        }
    }
    h->nrows = v[0];
    h->ncols = v[1];
    if (h->nrows > MAX_DIM || h->ncols > MAX_DIM)
        return hspmv_err_file(err, HSPMV_ERR_UNSUPPORTED, name, no,
                              "matrix is %lld x %lld; this build's 32-bit indices allow at most "
                              "%d rows and columns", (long long)h->nrows, (long long)h->ncols,
                              MAX_DIM);
    if (h->symmetry != HSPMV_GENERAL && h->nrows != h->ncols)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                              "a %s matrix must be square, found size '%s'",
                              h->symmetry == HSPMV_SYMMETRIC ? "symmetric" : "skew-symmetric", q);
    if (h->array) {
        int64_t m = h->nrows;
        if (h->symmetry == HSPMV_GENERAL) h->nnz = h->nrows * h->ncols;
        else if (h->symmetry == HSPMV_SYMMETRIC) h->nnz = m * (m + 1) / 2;
        else h->nnz = m > 0 ? m * (m - 1) / 2 : 0;
    } else {
        h->nnz = v[2];
        if (h->nnz > 0 && (h->nrows == 0 || h->ncols == 0))
            return hspmv_err_file(err, HSPMV_ERR_FORMAT, name, no,
                                  "size line declares %lld entries in a %lld x %lld matrix, "
                                  "which has no places for them", (long long)h->nnz,
                                  (long long)h->nrows, (long long)h->ncols);
    }
    return HSPMV_OK;
}
