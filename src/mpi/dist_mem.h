/* dist_mem.h — private to src/mpi: the memory a rank is about to hold,
   refused before it is allocated, the verdict agreed over the ranks. */
#ifndef HSPMV_DIST_MEM_H
#define HSPMV_DIST_MEM_H

#include <stddef.h>
#include <mpi.h>
#include "hspmv.h"

/* One rank's share of a matrix read in parallel, as far as it is known. */
typedef struct share_need {
    int64_t rows;    /* its rows */
    int64_t entries; /* its entries (mirrors of a symmetric file included, duplicates not yet summed) */
    int64_t cols;    /* its part of x (the column split) */
    int build;       /* 1: the rows become a distributed matrix (blocks, x, y, work vector) */
    int window;      /* 1: and its part of x is kept twice in the node's shared window (halo node) */
} share_need;

/* Bytes the share will take at most beyond what the rank holds now: the
   read (row counters beside the CSR), or the CSR twice while it is split
   into owned and ghost blocks, whichever is more, plus the vectors and the
   window when it is built. parts (len bytes) gets what they are, for a
   message. What a rank holds already (its triplets, a read buffer) is not
   counted: the process's limits are what it has left (mem.c). */
double hspmv_share_bytes(const share_need *s, char *parts, size_t len);

/* Collective on comm. need bytes on this rank, described by mine ("rank 3's
   share of ... (...)"), checked against everything this process may be
   given (hspmv_mem_check), and the sum over the ranks of each node against
   what the node has (physical memory, cgroup): ranks of one node share it,
   so ranks that each fit may together not. whole names the matrix ("a 10 x
   10 matrix of 5 entries") for the node's message. Every rank returns the
   lowest failing rank's status and message, "NAME:LINE: ..." (line <= 0:
   "NAME: ..."). */
int hspmv_dist_mem_check(MPI_Comm comm, double need, const char *name, int64_t line, const char *mine,
                         const char *whole, hspmv_error *err);

/* Collective: hspmv_dist_mem_check of a share, "rank R's share of WHOLE (PARTS)". */
int hspmv_dist_check_share(MPI_Comm comm, const share_need *s, const char *name, int64_t line, const char *whole,
                           hspmv_error *err);

/* 1 when a matrix made with o will keep x in the node's window (halo node,
   asked or by default), as far as can be told before it is made. */
int hspmv_dist_wants_window(const hspmv_opts *o);

#endif
