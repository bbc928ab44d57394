/* spmm_scalar.c — the portable block kernels, the twin of spmm_simd.c: the
   same body (spmm_body.h) over one-lane "vectors", up to 16 sums of a row
   in registers. */
#include "hspmv.h"

enum { W = 1 };
typedef hspmv_real vreal;
static inline vreal vzero(void) { return 0; }
static inline vreal vset1(hspmv_real a) { return a; }
static inline vreal vload(const hspmv_real *p) { return *p; }
static inline void vstore(hspmv_real *p, vreal a) { *p = a; }
static inline void vstream(hspmv_real *p, vreal a) { *p = a; } /* no streaming store */
static inline void sfence(void) {}
static inline vreal vfma(vreal a, vreal b, vreal c) { return a * b + c; }
static inline vreal vadd(vreal a, vreal b) { return a + b; }
/* One lane: a row has no tail (t < W = 1), so these are never called. */
typedef struct spmm_tail {
    hspmv_real s;
} spmm_tail;
static inline void tail_zero(spmm_tail *a, int t) { (void)a, (void)t; }
static inline void tail_fma(spmm_tail *a, int t, hspmv_real v, const hspmv_real *x) { (void)a, (void)t, (void)v, (void)x; }
static inline void tail_put(const spmm_tail *a, int t, hspmv_real *y, int add) { (void)a, (void)t, (void)y, (void)add; }

#define SPMM_NV 16
#define SPMM_NAME(fmt) hspmv_k_spmm_##fmt##_scalar

#include "spmm_body.h"
