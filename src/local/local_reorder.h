/* local_reorder.h — private: a prepared matrix made in a locality order
   (hspmv_opts.reorder) and the products that keep the caller's order. */
#ifndef HSPMV_LOCAL_REORDER_H
#define HSPMV_LOCAL_REORDER_H

#include "hspmv.h"
#include "order.h"

/* What a reordered hspmv_local keeps (L->ord; NULL when reorder = none). */
typedef struct hspmv_local_order {
    hspmv_order_choice choice; /* what was asked, used and measured; rp, cp NULL: the caller's order */
    hspmv_real *xs, *ys;       /* x and y in L's order for the user-order product (k = 1) */
} hspmv_local_order;

/* hspmv_local_create_test for o->reorder != NONE: orders A, prepares the
   permuted copy with reorder = none and attaches the order to it. */
int hspmv_local_create_reordered(const hspmv_csr *A, const hspmv_opts *o, const char *test, hspmv_local **L,
                                 hspmv_error *err);

void hspmv_local_order_free(hspmv_local_order **ord);

/* y' = A'x' in L's own order (the product of every format; local_spmv.c):
   hspmv_local_spmm with HSPMV_REORDERED and k = 1. */
void hspmv_local_spmv_reordered(const hspmv_local *L, const hspmv_real *x, hspmv_real *y, int add);

/* 1 when L works in an order other than the caller's. */
int hspmv_local_is_reordered(const hspmv_local *L);

/* Y = op(A) X for a reordered L in the caller's order: X and Y permuted
   into fresh blocks around the product in L's order (spmm: the inner
   block product, local_spmm.c). */
int hspmv_local_spmm_user(hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                          hspmv_error *err);

/* The block product in L's own order (local_spmm.c). */
int hspmv_local_spmm_inner(hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                           hspmv_error *err);

#endif
