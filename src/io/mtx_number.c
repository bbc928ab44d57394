/* mtx_number.c — decimals past Clinger's fast path (Eisel-Lemire), the rare
   spellings (long mantissas, hex floats) and the diagnosis of inf/nan and garbage. */
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include "mtx_number.h"

/* Eisel-Lemire, as in Lemire's fast_float (Software: Practice and Experience
   51(8), 2021; Mushtak & Lemire 2023 prove the 128-bit product suffices for
   exact 19-digit mantissas). w = 0, subnormal results, overflow and the
   one ambiguous product pattern are left to strtod. */
int hspmv_mtx_decimal_to_double(uint64_t w, int q, int neg, double *v)
{
#ifdef __SIZEOF_INT128__
    typedef unsigned __int128 u128;
    const uint64_t mask = UINT64_MAX >> 55; /* 52 mantissa bits + 3 */
    uint64_t hi, lo, mant, bits;
    int lz, upper, shift;
    int64_t power2;
    u128 p;
    if (w == 0 || q < MTX_POW5_MIN || q > MTX_POW5_MAX) return 0;
    const uint64_t *t = hspmv_mtx_pow5_128[q - MTX_POW5_MIN];
    lz = __builtin_clzll(w);
    w <<= lz;
    p = (u128)w * t[0];
    hi = (uint64_t)(p >> 64);
    lo = (uint64_t)p;
    if ((hi & mask) == mask) { /* the low bits matter: add the second half */
        u128 p2 = (u128)w * t[1];
        uint64_t mid = (uint64_t)(p2 >> 64);
        lo += mid;
        if (mid > lo) hi++;
        if ((hi & mask) == mask && lo == UINT64_MAX) return 0;
    }
    upper = (int)(hi >> 63);
    shift = upper + 64 - 52 - 3;
    mant = hi >> shift;
    power2 = ((((int64_t)152170 + 65536) * q) >> 16) + 63 + upper - lz + 1023;
    if (power2 <= 0) return 0; /* subnormal: strtod */
    /* halfway between two doubles: round to even (only possible for small q) */
    if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1 && (mant << shift) == hi) mant &= ~(uint64_t)1;
    mant += mant & 1;
    mant >>= 1;
    if (mant >= ((uint64_t)2 << 52)) {
        mant = (uint64_t)1 << 52;
        power2++;
    }
    mant &= ~((uint64_t)1 << 52);
    if (power2 >= 0x7FF) return 0; /* overflow: strtod says so */
    bits = mant | ((uint64_t)power2 << 52) | ((uint64_t)(neg != 0) << 63);
    memcpy(v, &bits, sizeof(*v));
    return 1;
#else
    (void)w; (void)q; (void)neg; (void)v;
    return 0;
#endif
}

static int starts_ci(const char *p, const char *e, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(e - p) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != w[i]) return 0;
    return 1;
}

/* strtod straight on the text: the token ends at a blank or at the newline
   that always closes the text, and no number's spelling runs on past
   either, so strtod stops inside the buffer and no copy (nor a length
   limit) is needed; the result is correctly rounded.
   inf and nan in any spelling are refused ("non-finite value"): a matrix
   entry that is not a number would poison every product, so the project
   treats it as a malformed file. Values beyond the double range are refused
   too; values that underflow are kept as the denormal or zero strtod gives. */
const char *hspmv_mtx_real_slow(const char *s, double *v, int *why)
{
    const char *e = s, *p = s;
    char *end;
    double x;
    while (!mtx_is_end(*e)) e++;
    if (*p == '+' || *p == '-') p++;
    if (starts_ci(p, e, "inf") || starts_ci(p, e, "nan")) {
        *why = MTX_NUM_NONFINITE;
        return NULL;
    }
    /* a number starts with a sign, a digit or a point (strtod would skip
       other white space such as \v or \f) */
    if (e == s || !(*s == '+' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9'))) {
        *why = MTX_NUM_BAD;
        return NULL;
    }
    x = strtod(s, &end);
    if (end != e) {
        *why = MTX_NUM_BAD;
        return NULL;
    }
    if (!isfinite(x)) {
        *why = MTX_NUM_RANGE;
        return NULL;
    }
    *v = x;
    return e;
}
