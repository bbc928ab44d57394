/* dist_dot.h — private: the product that also gives x'y, for the solvers
   (which otherwise use only hspmv.h). */
#ifndef HSPMV_DIST_DOT_H
#define HSPMV_DIST_DOT_H

#include "hspmv.h"

/* dist_spmv.c: y = A*x and *xy = x'y over this rank's rows (CG's p'q; the
   caller sums it over the ranks), a square matrix (else HSPMV_ERR_ARG on
   every rank). The sum rides in the product where hspmv_dist_dot_fused
   (each block of rows summed while in cache), else one pass after it;
   per-thread sums in a fixed order. */
int hspmv_dist_spmv_dot(hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *xy, hspmv_error *err);
/* 1 where hspmv_dist_spmv_dot's sum rides in the product: a square matrix
   of both triangles whose rows are made by the owned block and blocks of
   compressed rows added after it (p2p: the ghost rows; node halo: the node
   and off-node blocks, with no folded, shared or merged rows). */
int hspmv_dist_dot_fused(const hspmv_dist *D);

#endif
