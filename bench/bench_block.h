/* bench_block.h — benchmark-omp --vectors: timing the local block product
   Y = A X (or A^T X) of k row-major vectors (hspmv_local_spmm) for several k. */
#ifndef HSPMV_BENCH_BLOCK_H
#define HSPMV_BENCH_BLOCK_H

#include "hspmv.h"

enum { BB_MAXK = 8 }; /* vector counts in one --vectors list */

typedef struct bb_cfg {
    const char *path, *kernel; /* the matrix's name (for the output), the kernel option */
    int nfmt;
    const int *fmts;           /* HSPMV_FORMAT_* (AUTO included) */
    int nk;
    int ks[BB_MAXK];           /* vector counts, each 1..HSPMV_BB_KMAX */
    long reps, warmup, rounds; /* timed calls in all, untimed calls before each round, rounds */
    double threshold;          /* csrl_threshold */
    const hspmv_csr *tA;       /* --transpose: A^T, to check Y = A^T X against; NULL: Y = A X */
} bb_cfg;

#define BB_KMAX 256 /* largest k --vectors takes */

/* "8" or "1,2,4,8" into c->ks / c->nk; bu_fail on a bad list. */
void bb_parse_vectors(const char *opt, const char *s, bb_cfg *c);

/* Prepares each format of c on A with `threads` threads and times the block
   product (c->tA: the transposed one, its copy made with the preparation)
   for every k in interleaved rounds (format by format, k by k in
   each round); checks every vector of every block against the long-double
   reference; prints a table and one key=value line (bench=omp-block) per
   format and k. Returns 1 when a vector is off the bound. */
int bb_measure(const bb_cfg *c, const hspmv_csr *A, int threads);

#endif
