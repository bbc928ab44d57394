/* simd.h — the vector wrappers of the instruction set this file is compiled
   for, so that each format's SIMD kernel body is written once
   (src/kernels/spmv_<fmt>_simd.c) and compiled once per instruction set:
   the Makefile builds it as spmv_<fmt>_avx2.o with -DHSPMV_ISA_AVX2
   -mavx2 -mfma, spmv_<fmt>_avx512.o with -DHSPMV_ISA_AVX512 and the AVX-512
   flags, spmv_<fmt>_neon.o with -DHSPMV_ISA_NEON on aarch64. HSPMV_KERNEL(fmt)
   names the function: hspmv_k_<fmt>_<isa>.

   What every simd_<isa>.h provides, in the build's precision:
     W                      lanes of hspmv_real in vreal
     vreal, vidx, vmask     W values, W 32-bit indices, a lane mask
     vzero vset1 vload vstore vfma(a,b,c)=a*b+c vmul vadd vsum sfma
     vgather(i, base)       base[i[0]], .., base[i[W-1]]
     iload32 iload16        W indices from int32 / int16 (sign-extended)
     iloadu8 iloadu16       W indices from uint8 / uint16 (zero-extended)
     iadd(i, b) iscan(i)    i + b in every lane; inclusive prefix sum of the lanes
     ilast(i)               the last lane
     isteps(p, keep, &z)    CSRDU's column steps: lane j (bit j of keep set)
                            gets the byte p[j] zero-extended, the others 0;
                            z = the kept lanes whose byte is 0 (escapes).
                            Reads no byte outside keep unless SIMD_TAIL_FULL
                            (then all W bytes lie in the row)
     iadd_lanes(i, m, b)    i + b in the lanes of bit mask m (an escaped step
                            added to a prefix sum: m = its lane and those after)
     mask_first(r) mask_last(r)   lanes [0, r) / [W-r, W), 0 < r < W
     vand(a, m)             a with the lanes outside m set to +0
     vmload vmgather imload32 imload16   masked loads: the lanes outside m are 0
     vload_first(p, r)      the first r entries, nothing past p + r read
     vfma_first(a, b, r, c) c + a[0..r)*b[0..r) in the first r lanes (0 < r < W)
     pf(p)                  software prefetch of the line holding p
     vstream(p, a) sfence()  a streaming store (p aligned to W values; a plain store
                            where the set has none) and the fence that ends them
   and the measured per-instruction-set choices:
     SIMD_SHORT             rows shorter than this take a scalar FMA loop
     SIMD_PF                prefetch distance in entries (0: none)
     SIMD_TAIL_FULL         1: a row's tail (its last 1..W-1 entries) is
                            computed on the row's last W entries with the
                            lanes already done masked off (SIMD_SHORT >= W,
                            so they lie in the row); masked loads may then
                            read every lane. 0: masked loads start at the
                            tail and read no masked lane. */
#ifndef HSPMV_SIMD_H
#define HSPMV_SIMD_H

#if defined(HSPMV_ISA_AVX512)
#include "simd_avx512.h"
#define HSPMV_ISA_NAME avx512
#elif defined(HSPMV_ISA_AVX2)
#include "simd_avx2.h"
#define HSPMV_ISA_NAME avx2
#elif defined(HSPMV_ISA_NEON)
#include "simd_neon.h"
#define HSPMV_ISA_NAME neon
#else
#error "simd.h: compile with -DHSPMV_ISA_AVX2, -DHSPMV_ISA_AVX512 or -DHSPMV_ISA_NEON (see the Makefile)"
#endif

/* CSRDU's wide decoder: a set may define SIMD_HAS_ESC_WIDE and widx (2W
   32-bit indices), wsteps_esc(p, keep, esc, &used) (the 2W kept lanes'
   steps, each escaped lane's 0 replaced by the next number of esc, reading
   only the escapes used), wscan (prefix sum), wset1, waddv, wlast_all (the
   last lane in every lane) and wlo/whi (the two halves as vidx); its CSRDU
   kernel then has both decoders (kernels_csrdu.h). */

/* CSRDU's column vectors: a set may define SIMD_HAS_VCOL and its own vcol
   (AVX-512 and AVX2 in double: 64-bit lanes summed by vpsadbw); the others
   use W 32-bit indices, isteps and iscan. csum_steps(p, keep, &z) gives the
   prefix sums of isteps's lanes, cadd_lanes/cadd/clast/cgather/cmgather are
   iadd_lanes/iadd/ilast/vgather/vmgather on vcol. */
#ifndef SIMD_HAS_VCOL
typedef vidx vcol;
static inline vcol csum_steps(const uint8_t *p, unsigned keep, unsigned *zero) { return iscan(isteps(p, keep, zero)); }
static inline vcol cadd_lanes(vcol a, unsigned m, int32_t b) { return iadd_lanes(a, m, b); }
static inline vcol cadd(vcol a, int32_t b) { return iadd(a, b); }
static inline int32_t clast(vcol a) { return ilast(a); }
static inline vreal cgather(vcol i, const hspmv_real *x) { return vgather(i, x); }
static inline vreal cmgather(vmask m, vcol i, const hspmv_real *x) { return vmgather(m, i, x); }
#endif

#define HSPMV_KCAT_(fmt, isa) hspmv_k_##fmt##_##isa
#define HSPMV_KCAT(fmt, isa) HSPMV_KCAT_(fmt, isa)
#define HSPMV_KERNEL(fmt) HSPMV_KCAT(fmt, HSPMV_ISA_NAME)

_Static_assert(!SIMD_TAIL_FULL || SIMD_SHORT >= W, "a full-width tail needs rows of at least W entries");

/* Where the tail's vector loads start (the row's last W entries, or the
   first of the r entries left) and which lanes it keeps. */
static inline int64_t tail_at(int64_t k, int64_t e) { return SIMD_TAIL_FULL ? e - W : k; }
static inline vmask tail_mask(int r) { return SIMD_TAIL_FULL ? mask_last(r) : mask_first(r); }

#endif
