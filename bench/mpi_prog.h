/* mpi_prog.h — what the MPI programs (benchmark-mpi, solve) share: leaving
   together with rank 0's message, and the options every one of them takes. */
#ifndef HSPMV_MPI_PROG_H
#define HSPMV_MPI_PROG_H

#include <stdio.h>
#include "hspmv.h"

/* MPI_Init_thread (funneled: only the master thread calls MPI), this
   rank's number and the number of ranks; names the program (for messages)
   and its usage text. */
void mp_start(int *argc, char ***argv, const char *prog, void (*usage)(FILE *), int *rank, int *nranks);

/* Every rank leaves with exit status 1; rank 0 prints prog: error: e->msg. */
void mp_die(const hspmv_error *e);
void mp_die_msg(const char *m);

/* An argument the program's own options did not take: -h/--help prints the
   usage and leaves with 0, another option is refused, a word is the matrix
   (stored in *path; a second one is refused). */
void mp_other_arg(const char *a, const char **path);

/* Refuses a missing matrix path with the usage. */
void mp_need_path(const char *path);

#endif
