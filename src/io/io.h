/* io.h — private to src/io: the line source (plain or gzip, file or memory),
   the banner/size-line parser and the number scanners of the Matrix Market reader. */
#ifndef HSPMV_IO_H
#define HSPMV_IO_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"

#ifndef HSPMV_NO_ZLIB
#define ZLIB_CONST
#include <zlib.h>
#endif

/* ---- the line source ------------------------------------------------------ */

/* Bytes of text handed out per block (tests shrink it to cross block edges
   everywhere; it is a test hook, not a tuning knob). */
extern size_t hspmv_io_chunk_bytes;

/* Longest line accepted: a longer one is not Matrix Market. */
#define MTX_MAX_LINE ((size_t)64 << 20)

typedef struct mtx_source {
    const char *name;           /* file name for messages */
    hspmv_error *err;
    int fd;                     /* -1 for a buffer in memory */
    const unsigned char *mem;   /* buffer in memory, or NULL */
    size_t mem_len, mem_pos;
    unsigned char peek[2];      /* first bytes of an fd, read to detect gzip */
    size_t peek_len, peek_pos;
    int raw_eof;                /* raw input exhausted */
    int64_t raw_total;          /* raw bytes in all when they are the text, else -1 */
    int64_t raw_size;           /* raw bytes in all (compressed size for gzip), -1 if unknown */
    int gzip;                   /* 1: raw bytes are gzip, text comes from inflate */
#ifndef HSPMV_NO_ZLIB
    z_stream zs;
    int zs_live;                /* inflateInit2 done */
    int z_end;                  /* last gzip member ended */
    int z_pending;              /* a gzip fault to report on the next read */
    unsigned char *zin;         /* compressed input from an fd */
#endif
    char *buf;                  /* text: [start, len) not yet handed out */
    size_t cap, len, start;
    int eof;                    /* text exhausted */
    int added_nl;               /* a newline was added after a last line without one */
    int64_t base;               /* stream offset of buf[0] */
    hspmv_progress_fn progress;
    void *progress_ctx;
    int64_t next_report;        /* stream offset of the next progress call */
    int reported_end;           /* the closing progress call was made */
    const int64_t *lines;       /* lines the reader has finished (messages name the next), or NULL */
} mtx_source;

/* Opens a file (plain or gzip by magic bytes) / a buffer. On failure the
   source is closed and err says why. */
int mtx_source_open_path(mtx_source *s, const char *path, const hspmv_read_opts *opts,
                         hspmv_error *err);
int mtx_source_open_mem(mtx_source *s, const char *name, const void *buf, size_t len,
                        hspmv_error *err);
/* Next run of whole lines: [*p, *end), with end[-1] == '\n' (a last line
   without newline gets one). *p == *end at the end of the text. */
int mtx_source_next(mtx_source *s, const char **p, const char **end);
/* Raw bytes after the text position q (in the last block), -1 if unknown (gzip). */
int64_t mtx_source_left(const mtx_source *s, const char *q);
/* Text bytes handed out so far. */
int64_t mtx_source_bytes(const mtx_source *s);
void mtx_source_close(mtx_source *s);

/* ---- banner and size line -------------------------------------------------- */

typedef struct mtx_header {
    int array;            /* 1: array (dense, column-major) format */
    int field;            /* HSPMV_FIELD_* */
    int symmetry;         /* HSPMV_GENERAL, ... */
    int64_t nrows, ncols;
    int64_t nnz;          /* entries the file must hold */
} mtx_header;

/* Line without its newline, for parsing header lines. */
typedef struct mtx_line {
    const char *s, *e;    /* [s, e), e points at '\n' */
    int64_t no;           /* 1-based line number */
} mtx_line;

/* 1 when the line is a banner (%%MatrixMarket or %MatrixMarket, any case). */
int mtx_is_banner(const mtx_line *ln);
/* Parses the banner into h (format, field, symmetry). */
int mtx_parse_banner(const char *name, const mtx_line *ln, mtx_header *h, hspmv_error *err);
/* Parses the size line into h (sizes and entry count). */
int mtx_parse_size(const char *name, const mtx_line *ln, mtx_header *h, hspmv_error *err);
/* Writes at most ~40 chars of [s, e) into out (size >= 64), quoting-safe. */
void mtx_quote(char *out, const char *s, const char *e);

/* ---- numbers ------------------------------------------------------------------ */

enum { MTX_NUM_OK = 0, MTX_NUM_BAD, MTX_NUM_NONFINITE, MTX_NUM_RANGE };

static inline int mtx_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static inline int mtx_is_end(char c) { return mtx_is_blank(c) || c == '\n'; }

/* 5^q as 128-bit mantissas for the Eisel-Lemire conversion (mtx_pow5.c). */
#define MTX_POW5_MIN (-342)
#define MTX_POW5_MAX 308
extern const uint64_t mtx_pow5_128[MTX_POW5_MAX - MTX_POW5_MIN + 1][2];

/* w * 10^q correctly rounded to double for w < 10^19 (all digits kept):
   Eisel-Lemire. Returns 0 in the rare cases it leaves to strtod. */
int mtx_decimal_to_double(uint64_t w, int q, int neg, double *v);

/* Slow path for reals: strtod on the token in place (correctly rounded, any
   length). Returns the end of the token or NULL. */
const char *mtx_real_slow(const char *s, double *v, int *why);

/* Scans a real in any C spelling starting at p (the text always ends with
   '\n', so scanning never runs off the buffer). Returns the first char after
   it, or NULL with *why set. Decimal numbers of up to 19 significant digits
   with |exp10| <= 22 and mantissa < 2^53 are exact in one IEEE operation
   (Clinger's fast path); other numbers of up to 19 digits go through
   Eisel-Lemire (correctly rounded too); every other form goes to strtod. inf and nan are
   refused: a non-finite matrix entry is an error in this project. */
static inline const char *mtx_real(const char *p, double *v, int *why)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = p;
    uint64_t m = 0;
    int nd = 0, ndig = 0, dexp = 0, neg = 0;
    unsigned d;
    if (*p == '-') { neg = 1; p++; }
    else if (*p == '+') p++;
    if (*p == '0' && (p[1] | 0x20) == 'x') return mtx_real_slow(s, v, why);
    while ((d = (unsigned)(*p - '0')) < 10) {
        if (m | d) {
            if (nd == 19) return mtx_real_slow(s, v, why);
            m = m * 10 + d;
            nd++;
        }
        ndig++;
        p++;
    }
    if (*p == '.') {
        p++;
        while ((d = (unsigned)(*p - '0')) < 10) {
            if (m | d) {
                if (nd == 19) return mtx_real_slow(s, v, why);
                m = m * 10 + d;
                nd++;
            }
            dexp--;
            ndig++;
            p++;
        }
    }
    if (ndig == 0) return mtx_real_slow(s, v, why); /* diagnoses inf, nan, garbage */
    if ((*p | 0x20) == 'e') {
        int eneg = 0, ev = 0;
        p++;
        if (*p == '-') { eneg = 1; p++; }
        else if (*p == '+') p++;
        if ((unsigned)(*p - '0') >= 10) { *why = MTX_NUM_BAD; return NULL; }
        while ((d = (unsigned)(*p - '0')) < 10) {
            if (ev < 100000) ev = ev * 10 + (int)d;
            p++;
        }
        dexp += eneg ? -ev : ev;
    }
    if (m == 0) {
        *v = neg ? -0.0 : 0.0;
    } else if (m <= ((uint64_t)1 << 53) && dexp >= -22 && dexp <= 22) {
        double x = (double)m;
        x = dexp < 0 ? x / p10[-dexp] : x * p10[dexp];
        *v = neg ? -x : x;
    } else if (!mtx_decimal_to_double(m, dexp, neg, v)) {
        return mtx_real_slow(s, v, why);
    }
    return p;
}

/* Scans an optionally signed decimal integer; NULL when there is no digit.
   Magnitudes past ~5.7e18 saturate to +-INT64_MAX (MTX_INT_SAT), out of
   every range we accept. */
#define MTX_INT_SAT INT64_MAX
static inline const char *mtx_int(const char *p, int64_t *v)
{
    uint64_t x = 0;
    int neg = 0;
    unsigned d;
    if (*p == '-') { neg = 1; p++; }
    else if (*p == '+') p++;
    if ((unsigned)(*p - '0') >= 10) return NULL;
    while ((d = (unsigned)(*p - '0')) < 10) {
        x = x < ((uint64_t)1 << 59) ? x * 10 + d : (uint64_t)MTX_INT_SAT;
        p++;
    }
    *v = neg ? -(int64_t)x : (int64_t)x;
    return p;
}

#endif
