/* solve_model.h — solve's timing report: the standalone product on the
   solver's matrix and layout, and the byte model of one iteration. */
#ifndef SOLVE_MODEL_H
#define SOLVE_MODEL_H

#include "hspmv.h"

typedef struct sm_model {
    double prod_bytes; /* one y = A*x by the formats' stated models, summed over the ranks */
    double vec_bytes;  /* one iteration's vector passes outside its products */
    double iter_bytes; /* spmv_per_iter products + the vector passes */
    double bw;         /* prod_bytes / standalone product time (bytes/s) */
    double model_s;    /* iter_bytes / bw */
} sm_model;

/* Collective. Times reps products y = A*x (x: an x-like vector of D, y
   allocated here) after two untimed ones; *med_s: the median over the
   products of the slowest rank's time. HSPMV_OK or the product's error. */
int sm_time_product(hspmv_dist *D, const hspmv_real *x, int reps, double *med_s, hspmv_error *e);

/* Collective. The byte model of res's method on D at the standalone
   product's bandwidth (prod_s seconds per product). */
void sm_model_of(const hspmv_dist *D, const hspmv_solver_result *res, double prod_s, sm_model *m);

#endif
