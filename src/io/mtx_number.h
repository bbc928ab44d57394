/* mtx_number.h — private to src/io: the Matrix Market reader's number
   scanners, inline for the hot loop (io.h includes this), and the slow
   paths and table of mtx_number.c and mtx_pow5.c that they fall back on. */
#ifndef HSPMV_MTX_NUMBER_H
#define HSPMV_MTX_NUMBER_H

#include <stddef.h>
#include <stdint.h>

enum { MTX_NUM_OK = 0, MTX_NUM_BAD, MTX_NUM_NONFINITE, MTX_NUM_RANGE };

static inline int mtx_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static inline int mtx_is_end(char c) { return mtx_is_blank(c) || c == '\n'; }

/* 5^q as 128-bit mantissas for the Eisel-Lemire conversion (mtx_pow5.c). */
#define MTX_POW5_MIN (-342)
#define MTX_POW5_MAX 308
extern const uint64_t hspmv_mtx_pow5_128[MTX_POW5_MAX - MTX_POW5_MIN + 1][2];

/* w * 10^q correctly rounded to double for w < 10^19 (all digits kept):
   Eisel-Lemire. Returns 0 in the rare cases it leaves to strtod. */
int hspmv_mtx_decimal_to_double(uint64_t w, int q, int neg, double *v);

/* Slow path for reals: strtod on the token in place (correctly rounded, any
   length). Returns the end of the token or NULL. */
const char *hspmv_mtx_real_slow(const char *s, double *v, int *why);

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
    if (*p == '0' && (p[1] | 0x20) == 'x') return hspmv_mtx_real_slow(s, v, why);
    while ((d = (unsigned)(*p - '0')) < 10) {
        if (m | d) {
            if (nd == 19) return hspmv_mtx_real_slow(s, v, why);
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
                if (nd == 19) return hspmv_mtx_real_slow(s, v, why);
                m = m * 10 + d;
                nd++;
            }
            dexp--;
            ndig++;
            p++;
        }
    }
    if (ndig == 0) return hspmv_mtx_real_slow(s, v, why); /* diagnoses inf, nan, garbage */
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
    } else if (!hspmv_mtx_decimal_to_double(m, dexp, neg, v)) {
        return hspmv_mtx_real_slow(s, v, why);
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
