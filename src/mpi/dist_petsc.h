/* dist_petsc.h — private to src/mpi and its tests: the steps of reading and
   writing PETSc binary matrices with MPI-IO. */
#ifndef HSPMV_DIST_PETSC_H
#define HSPMV_DIST_PETSC_H

#include "dist.h"
#include "petsc_bin.h"

/* The alternating-shrink walk of hspmv_partition_nnz, handed from rank to
   rank: the next split to find (p), the last split row (b) and rp[b]. */
typedef struct part_walk {
    int64_t p, b, rpb;
} part_walk;

/* Continues the walk over the rows [lo, hi) this rank knows: rp(i) =
   rpb[i - first] for i in [first, hi], first = lo - 1 (or 0 when lo is 0).
   Each split p it finds goes to start[p] and rp(start[p]) to start_nnz[p].
   Returns 1 when all P-1 splits are found, 0 when the search goes on past
   hi. Chained over blocks in row order, it gives hspmv_partition_nnz's
   splits exactly (the same double comparisons). No MPI. */
int hspmv_partition_nnz_walk(part_walk *w, const int64_t *rpb, int64_t first, int64_t lo, int64_t hi,
                             int64_t nrows, int P, double avg, int64_t *start, int64_t *start_nnz);

/* What hspmv_petsc_read_rows did on this rank. */
typedef struct petsc_read_stats {
    double read_s;   /* seconds from opening the file to the checked rows */
    int64_t bytes;   /* file bytes this rank read */
} petsc_read_stats;

/* Collective. Every rank reads its rows of the PETSc file path (the same
   string on every rank) with MPI-IO, split by partition (HSPMV_PART_NNZ or
   _ROWS): S gets them as CSR with global columns (S->nrows local rows,
   S->ncols global), row_start the P+1 splits; *total the global entries.
   keep says what the caller makes of the rows (READ_ROWS, READ_MATRIX or
   READ_MATRIX_WINDOW of read_parallel.h): memory is checked before it is
   allocated, for the row lengths each rank reads to agree the partition
   and then for its share with what keep adds, on every rank and summed
   over each node (dist_mem.h). The same status and message on every rank. */
int hspmv_petsc_read_rows(const char *path, MPI_Comm comm, int partition, int keep, hspmv_csr *S,
                          int64_t *row_start, int64_t *total, petsc_read_stats *st, hspmv_error *err);

/* Collective. 1 when rank 0's path is a PETSc binary matrix (rank 0 looks,
   everyone gets the answer), else 0. */
/* Collective. hspmv_dist_read of a PETSc binary file: rank 0 reads the
   header; each rank reads the row lengths of an even block of rows and the
   ranks agree the partition (HSPMV_PART_ROWS, or HSPMV_PART_NNZ: the same
   alternating shrink as the root read, computed as a pass along the ranks,
   so no rank holds all the row lengths); then each rank reads its columns
   and values with MPI_File_read_at_all in pieces below 2^31 bytes and
   builds its blocks. HSPMV_PART_METIS needs the whole graph: rank 0 reads
   the file and the matrix takes hspmv_dist_create_root's path. Errors: the
   same code and message on every rank, hspmv_petsc_read's message. */
int hspmv_dist_read_petsc(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **D, hspmv_error *err);

int hspmv_dist_is_petsc_file(const char *path, MPI_Comm comm);

/* Collective. Rank 0's string to every rank (malloc'd copy in *out, NULL
   when rank 0 has none). */
int hspmv_dist_bcast_path(const char *path, MPI_Comm comm, char **out, hspmv_error *err);

#endif
