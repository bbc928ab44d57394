/* mpi_gpu.h — the --gpu halves of benchmark-mpi and solve (mpi_gpu.c: one
   rank per GPU; built with CUDA=1, otherwise --gpu is refused), and the
   matrices they generate row block by row block without a file
   (mpi_gpu_gen.c). */
#ifndef HSPMV_MPI_GPU_H
#define HSPMV_MPI_GPU_H

#include <stdint.h>
#include "hspmv.h"

/* 1 when "--gpu" is among the arguments (before any "--"). */
int mg_wants_gpu(int argc, char **argv);

/* benchmark-mpi --gpu and solve --gpu: the whole program (MPI included);
   returns the exit status. */
int mg_benchmark_main(int argc, char **argv);
int mg_solve_main(int argc, char **argv);

/* A generated matrix: lap2d N (N^2 rows, 5 points), lap3d N (N^3 rows, 7
   points), random N (N rows of k distinct uniform columns), banded N (N
   rows, |i-j| <= w). Values: stencil/band (diagonally dominant, SPD), or
   with random_values off-diagonals in [-1.5,-0.5) symmetric in (i,j) and a
   diagonal above the row's largest off-diagonal sum (still SPD); random N:
   values in [-1,1). Every row depends only on its index and the seed, so
   any split of the rows gives the same matrix. */
typedef struct mg_gen {
    const char *kind;
    int64_t n;
    int k, w, random_values;
    uint64_t seed;
} mg_gen;

/* Rows (= columns) of the matrix, -1 when the kind is unknown or too large. */
int64_t mg_gen_rows(const mg_gen *g);
/* Rows [b, e) as a CSR (global columns, ncols the matrix's); HSPMV_ERR_NOMEM. */
int mg_gen_slice(const mg_gen *g, int64_t b, int64_t e, hspmv_csr *S, hspmv_error *err);
/* "lap3d 400", "random 32000000 k16", ... */
void mg_gen_name(const mg_gen *g, char *buf, size_t len);

#endif
