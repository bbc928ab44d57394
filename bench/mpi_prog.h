/* mpi_prog.h — what the MPI programs (benchmark-mpi, solve) share: leaving
   together with rank 0's message, and the options every one of them takes. */
#ifndef HSPMV_MPI_PROG_H
#define HSPMV_MPI_PROG_H

#include <stdio.h>
#include "hspmv.h"

/* MPI_Init_thread (funneled: only the master thread calls MPI), this
   rank's number and the number of ranks; names the program (for messages)
   and its usage text, and makes a refused argument (bu_fail) one message
   from rank 0 and MPI_Finalize on every rank, exit status 2. */
void mp_start(int *argc, char ***argv, const char *prog, void (*usage)(FILE *), int *rank, int *nranks);

/* Every rank leaves with exit status 1; rank 0 prints prog: error: e->msg. */
void mp_die(const hspmv_error *e);
void mp_die_msg(const char *m);

/* An argument the program's own options did not take: -h/--help prints the
   usage and leaves with 0, another option is refused (one line), a word is
   the matrix (stored in *path; a second one is refused). */
void mp_other_arg(const char *a, const char **path);

/* Refuses a missing matrix path. */
void mp_need_path(const char *path);

/* --threads N: a positive integer (the bound is agreed by mp_check_threads). */
int mp_parse_threads(const char *opt, const char *s);

/* Collective: refuses, on every rank at once, a thread count (0: the
   OpenMP default) above the smallest rank's hspmv_max_threads(). */
void mp_check_threads(int threads);

/* The --gpu paths: with OMP_PROC_BIND the OpenMP runtime pins the initial
   thread to its first place (one core) at start, and every thread made
   after it (CUDA's, NCCL's proxy) inherits that one core, where the main
   thread busy-waits on the device and on MPI. This widens the calling
   thread's mask back to all the places' processors (what the process was
   given); 1 when it did. No-op without OpenMP binding. */
int mp_unpin_main_thread(void);

#endif
