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
static inline vreal vfma(vreal a, vreal b, vreal c) { return a * b + c; }
static inline vreal vadd(vreal a, vreal b) { return a + b; }
/* One lane: a slab's last vector is always full, so these are never called. */
static inline vreal vload_first(const hspmv_real *p, int r) { return r > 0 ? *p : 0; }
static inline void vstore_first(hspmv_real *p, vreal a, int r)
{
    if (r > 0) *p = a;
}

#define SPMM_NV 16
#define SPMM_NAME(fmt) hspmv_k_spmm_##fmt##_scalar

#include "spmm_body.h"
