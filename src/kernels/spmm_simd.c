/* spmm_simd.c — the block kernels of every instruction set (simd.h; the
   Makefile compiles this file once per set): the body is spmm_body.h, over
   this set's vectors, four of them per row in registers. */
#include <string.h>
#include "simd.h"

#define SPMM_NV 4
#define SPMM_NAME(fmt) HSPMV_KERNEL(spmm_##fmt)

/* The first r lanes of a stored at p (0 < r < W), nothing past p + r written. */
static inline void vstore_first(hspmv_real *p, vreal a, int r)
{
#if defined(HSPMV_ISA_AVX512)
#ifdef HSPMV_SINGLE
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << r) - 1), a);
#else
    _mm512_mask_storeu_pd(p, (__mmask8)((1u << r) - 1), a);
#endif
#elif defined(HSPMV_ISA_AVX2)
#ifdef HSPMV_SINGLE
    _mm256_maskstore_ps(p, _mm256_castps_si256(mask_first(r)), a);
#else
    _mm256_maskstore_pd(p, _mm256_castpd_si256(mask_first(r)), a);
#endif
#else
    hspmv_real b[W];
    vstore(b, a);
    memcpy(p, b, (size_t)r * sizeof(*p));
#endif
}

#include "spmm_body.h"
