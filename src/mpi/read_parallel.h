/* read_parallel.h — private to src/mpi: a Matrix Market file read by every
   rank in byte ranges, the row counts and partition agreed, and the entries
   moved to their owners in bounded all-to-all rounds. */
#ifndef HSPMV_READ_PARALLEL_H
#define HSPMV_READ_PARALLEL_H

#include "dist.h"
#include "io.h"

/* What a read of rows did on this rank. */
typedef struct read_stats {
    double read_s;        /* prologue, parsing the ranges, agreeing on faults */
    double partition_s;   /* counting the rows and agreeing on the partition */
    double distribute_s;  /* moving the entries to their owners, sorting and summing rows */
    int64_t bytes;        /* text bytes this rank parsed */
    int whole;            /* 1: the file was read whole by rank 0 (gzip, a pipe) */
    const char *whole_why; /* why ("gzip", "not a regular file"), or NULL */
    double peak_b;        /* this rank's peak resident bytes after the read */
    int64_t records_moved; /* entries this rank sent to other ranks */
} read_stats;

/* What the caller makes of the rows (for the memory checks): the rows
   only, or a distributed matrix, its x in the node's window or not. */
enum { READ_ROWS = 0, READ_MATRIX, READ_MATRIX_WINDOW };

/* Collective on comm. This rank's rows of the file as CSR with GLOBAL
   columns, rows sorted and summed, under `method` (HSPMV_PART_NNZ or
   HSPMV_PART_ROWS): the partition (row_start, P+1 entries) and the rows
   are those the root path gives. path matters on rank 0 only. A plain
   regular file is read in byte ranges by every rank (each with `threads`
   threads); anything else is read by rank 0 and sent (st->whole = 1).
   Memory is checked before it is allocated, at the size line (the row
   counts) and once the partition is known (this rank's share, with what
   `keep` adds), on every rank and summed over each node (dist_mem.h).
   test: the agreed HSPMV_TEST string (dist_chunk, read_xchg). Every rank
   returns the same status and message. */
int hspmv_read_rows(const char *path, MPI_Comm comm, const char *test, int method, int threads, int keep, hspmv_csr *S,
                    int64_t *row_start, read_stats *st, hspmv_error *err);

/* ---- the all-to-all rounds (read_exchange.c) ---------------------------------- */

/* Where received records go: KEYS counts rows (cnt[row - base]++);
   ENTRIES places (row, col, val) at next[row - base]++ of colind/val. */
enum { XCHG_KEYS = 0, XCHG_ENTRIES };
typedef struct xchg_sink {
    int64_t base;
    int64_t *cnt;
    int64_t *next;
    int32_t *colind;
    hspmv_real *val;
} xchg_sink;

/* Collective. Every entry of the pieces (and, for symmetric and skew kinds,
   its mirror off the diagonal) goes to the rank owning its row by
   owner_start (P+1 entries), in rounds of a 32nd of the rank's records
   (at least 2^14, at most HSPMV_XCHG_RECORDS) sent per rank (HSPMV_TEST's
   read_xchg, in the agreed string test, lowers it for tests), so
   that every MPI count stays below 2^31 and the buffers are bounded. With
   release, piece memory is given back as it is sent. Returns HSPMV_OK or
   the same error on every rank; *moved counts the records sent elsewhere. */
#define HSPMV_XCHG_RECORDS ((int64_t)1 << 20)
int hspmv_xchg_pieces(MPI_Comm comm, const char *test, int mode, mtx_piece *pc, int npc, int symmetry, const int64_t *owner_start,
                      xchg_sink *sink, int release, int64_t *moved, hspmv_error *err);

/* ---- partitions from distributed counts (read_partition.c) ------------------- */

/* Collective. The seed's alternating-shrink partition (hspmv_partition_nnz)
   of nrows rows whose entry counts are spread over the ranks: this rank
   holds cnt[] for rows [bs[me], bs[me+1]). start (P+1) comes out the same on
   every rank, bit for bit what hspmv_partition_nnz gives on the whole row
   pointer. */
int hspmv_partition_nnz_spread(MPI_Comm comm, const int64_t *bs, const int64_t *cnt, int64_t nrows, int64_t *start,
                               hspmv_error *err);

/* Collective. Per-row values held by row blocks `from` (this rank: rows
   [from[me], from[me+1]) in in[]) regrouped by blocks `to` (into out[]). */
int hspmv_move_counts(MPI_Comm comm, const int64_t *from, const int64_t *to, const int64_t *in, int64_t *out,
                      hspmv_error *err);

/* Collective. CSR rows held by blocks `from` (S: this rank's) regrouped by
   blocks `to`; S is replaced. */
int hspmv_move_rows(MPI_Comm comm, const int64_t *from, const int64_t *to, hspmv_csr *S, hspmv_error *err);


#endif
