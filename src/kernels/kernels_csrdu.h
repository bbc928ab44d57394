/* kernels_csrdu.h — CSRDU kernels (the format is in src/format/csrdu.h):
   rows [r0, r1) of y = A*x (add == 0) or y += A*x (add != 0), for any
   r0 <= r1. Each row's sum is kept in registers and y[i] written once; no
   allocation, printing, MPI or OpenMP. */
#ifndef HSPMV_KERNELS_CSRDU_H
#define HSPMV_KERNELS_CSRDU_H

#include "csrdu.h"

typedef void hspmv_csrdu_kernel(int64_t r0, int64_t r1, const hspmv_csrdu *D, const hspmv_real *x,
                                hspmv_real *y, int add);

hspmv_csrdu_kernel hspmv_k_csrdu_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_csrdu_kernel hspmv_k_csrdu_avx2;
hspmv_csrdu_kernel hspmv_k_csrdu_avx512;
#endif

#if defined(__aarch64__)
hspmv_csrdu_kernel hspmv_k_csrdu_neon;
#endif

/* The column decoder of the sets that have two (AVX-512 in double):
   HSPMV_CSRDU_STEPS the byte-step decoder (escapes added after the prefix
   sum), HSPMV_CSRDU_WIDE two groups decoded at once in 16 lanes (escapes
   placed by an expanding load). A set without the wide one runs the byte
   steps. The CPU decides: the wide decoder on Intel CPUs, where it
   removes the steps' scalar chain from group to group; the steps
   elsewhere, since AMD's expanding load is microcoded and slow
   (docs/results has the timings). hspmv_csrdu_set_decoder(mode) overrides
   that for the whole process (-1: back to the CPU's choice; the tests run
   every decoder this way). Nothing here reads the environment. */
enum { HSPMV_CSRDU_STEPS = 0, HSPMV_CSRDU_WIDE = 1 };
int hspmv_csrdu_decoder(void);
void hspmv_csrdu_set_decoder(int mode);

/* Row i's length; a row of HSPMV_CSRDU_LENESC or more takes it from esc[*e]
   (and *e moves past it). */
static inline int64_t hspmv_csrdu_len(const hspmv_csrdu *D, int64_t i, int64_t *e)
{
    int64_t n = D->len[i];
    return n == HSPMV_CSRDU_LENESC ? D->esc[(*e)++] : n;
}

/* The first column of the non-empty row whose first value is k minus that
   of the last non-empty row before it: its byte, or esc[*e] when the byte is
   HSPMV_CSRDU_ESC1 (and *e moves past it). */
static inline int32_t hspmv_csrdu_first_step(const hspmv_csrdu *D, int64_t k, int64_t *e)
{
    uint8_t b = D->d[k];
    return b == HSPMV_CSRDU_ESC1 ? D->esc[(*e)++] : (int8_t)b;
}

/* Where a walk stands at row r0 < nrows: its first value *k, the escaped
   numbers before it *e, the first column of the last non-empty row before
   it *c; from the checkpoint at or before r0, walking the byte streams of
   the rows in between (at most HSPMV_CSRDU_CP - 1). */
static inline void hspmv_csrdu_seek(const hspmv_csrdu *D, int64_t r0, int64_t *k, int64_t *e, int32_t *c)
{
    const hspmv_csrdu_cp *p = &D->cp[r0 / HSPMV_CSRDU_CP];
    int64_t kk = p->k, ee = p->e;
    int32_t cc = p->c;
    for (int64_t i = r0 / HSPMV_CSRDU_CP * HSPMV_CSRDU_CP; i < r0; i++) {
        int64_t n = hspmv_csrdu_len(D, i, &ee), z = 0;
        if (n == 0) continue;
        cc += hspmv_csrdu_first_step(D, kk, &ee);
        for (int64_t q = kk + 1; q < kk + n; q++) z += D->d[q] == 0;
        ee += z;
        kk += n;
    }
    *k = kk;
    *e = ee;
    *c = cc;
}

#endif
