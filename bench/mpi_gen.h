/* mpi_gen.h — --gen for the MPI programs (benchmark-mpi, solve): a matrix
   of genmat's made in place, every rank only its own rows (no file, no
   rank 0 holding the matrix), split by nonzeros from the rows' known
   lengths. */
#ifndef HSPMV_MPI_GEN_H
#define HSPMV_MPI_GEN_H

#include "gen_rows.h"
#include "hspmv.h"
#include "mpi_check.h"

typedef struct mg_args {
    gen_spec s;      /* s.kind NULL: no --gen */
    int values_given, seed_given;
    char name[128];  /* the matrix= field: gen:KIND:N[:kK][:values=random][:seed=S] */
} mg_args;

void mg_init(mg_args *g);

/* Takes argv[*i] when it is --gen KIND N, --values stencil|random or
   --seed S (moving *i past the values) and returns 1; else 0. A bad value
   is refused on every rank (bu_fail). KIND: lap2d, lap3d, lap3d27,
   random[:K] or powerlaw[:K] (pwl[:K]), K entries per row (mean) as
   genmat's --k, default 8. */
int mg_parse(int argc, char **argv, int *i, mg_args *g);

/* After the command line: refuses a matrix file together with --gen, and
   --values or --seed without it; returns the name the output gives the
   matrix (path, or g->name). */
const char *mg_finish(mg_args *g, const char *path);

/* Collective: this rank's rows of the generated matrix into R (global
   columns, R->row_start the split), made with up to `threads` OpenMP
   threads (0: the default); *seconds: the time it took, max over ranks. The
   split: every rank counts the lengths of an equal block of rows, and rank
   p starts after the row that holds nonzero number p*nnz/P (stencils: about
   equal rows; power law: fewer rows where they are long). Out of memory
   anywhere fails everywhere (HSPMV_ERR_NOMEM). */
int mg_rows(const mg_args *g, int threads, mc_rows *R, double *seconds, hspmv_error *e);

/* Collective: the distributed matrix of R's rows (hspmv_dist_create). */
int mg_create(const mc_rows *R, const hspmv_opts *o, hspmv_dist **D, hspmv_error *e);

#endif
