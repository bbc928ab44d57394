/* local_sym.h — one-triangle storage of a prepared matrix (local_sym.c; private). */
#ifndef HSPMV_LOCAL_SYM_H
#define HSPMV_LOCAL_SYM_H

#include "hspmv.h"

/* Decides and builds one-triangle storage for L (its threads, kernel set
   and sizes set, L->rows split by A's nonzeros): o->symmetric NO, or AUTO
   with a format asked for, leaves L alone; AUTO keeps one triangle when A
   is symmetric or skew-symmetric (hspmv_sym_check) and the model's bytes
   (private rows included) are below A's values, x and y once; YES keeps
   it or fails with HSPMV_ERR_UNSUPPORTED. When kept: L->symmetric = +1 or
   -1, L->sym and the private parts built, L->rows split by the triangle's
   entries, L->format CSR16 (16-bit offsets) or CSR (32-bit columns),
   L->pieces 1. HSPMV_OK, or the error with err set (L then as it was). */
int hspmv_local_sym_prepare(hspmv_local *L, const hspmv_csr *A, const hspmv_opts *o, hspmv_error *err);

/* y = A*x (add: y += A*x) from one triangle, with L's threads. */
void hspmv_local_sym_spmv(const hspmv_local *L, const hspmv_real *x, hspmv_real *y, int add);

/* hspmv_local_spmm on one triangle: one vector at a time (A^T is A, or -A
   when skew). HSPMV_OK or HSPMV_ERR_NOMEM. */
int hspmv_local_sym_spmm(const hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                         hspmv_error *err);

/* Frees what hspmv_local_sym_prepare made; accepts an L without it. */
void hspmv_local_sym_free(hspmv_local *L);

#endif
