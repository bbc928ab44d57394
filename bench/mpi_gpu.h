/* mpi_gpu.h — the --gpu halves of benchmark-mpi and solve (mpi_gpu.c: one
   rank per GPU; built with CUDA=1, otherwise --gpu is refused); --gen
   there is the CPU path's (mpi_gen.c). */
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

#endif
