/* dist.h — the distributed matrix behind hspmv_dist (private to src/mpi and its tests). */
#ifndef HSPMV_DIST_H
#define HSPMV_DIST_H

#include <mpi.h>
#include "hspmv.h"

#ifdef HSPMV_SINGLE
#define HSPMV_MPI_REAL MPI_FLOAT
#else
#define HSPMV_MPI_REAL MPI_DOUBLE
#endif

/* Largest element count one MPI_Send/MPI_Recv carries (< 2^31); a longer
   array goes in pieces. HSPMV_TEST's dist_chunk lowers it for tests. */
#define HSPMV_DIST_CHUNK_MAX ((int64_t)1 << 30)

/* Most parts the owned block is multiplied in, with message progress in
   between (HSPMV_TEST's dist_pieces forces how many; by
   default one per 2^17 entries for a rank with messages in flight, else 1). */
#define HSPMV_DIST_PIECES_MAX 16

/* Longest HSPMV_TEST string a distributed matrix keeps (settings.h). */
#define HSPMV_TEST_MAX 256

struct hspmv_node;
struct hspmv_dist_sym;

/* The p2p block product's buffers (dist_spmm.c, halo_block.c), none until
   the first hspmv_dist_spmm that needs them, grown when a later one has a
   larger k (agreed on every rank: k is the same everywhere). Halo "node"
   keeps its own (node.h's node_wide). */
typedef struct hspmv_dist_blk {
    int k;                  /* p2p: xg, sendbuf and gy hold k values per entry */
    hspmv_real *xg;         /* nghost * k: received ghost values, row-major */
    hspmv_real *sendbuf;    /* send_ptr[nsend] * k */
    hspmv_real *gy;         /* nghost_rows * k when ghost_row: the ghost block's product */
} hspmv_dist_blk;

struct hspmv_dist {
    MPI_Comm comm;              /* MPI_Comm_dup of the caller's, MPI_ERRORS_RETURN */
    char test[HSPMV_TEST_MAX];  /* rank 0's HSPMV_TEST string, checked (every test-hook read uses it) */
    int rank, size;             /* in comm */
    int partition, permuted;    /* HSPMV_PART_* used; 1 when rows were renumbered */
    int64_t nrows, ncols, nnz;  /* global */
    int64_t *row_start;         /* size+1 entries: rank r owns rows [row_start[r], row_start[r+1]) */
    int64_t *col_start;         /* size+1 entries: rank r owns x entries [col_start[r], col_start[r+1]) */
    int64_t *perm;              /* rank 0 only, when permuted: nrows entries, perm[new] = file row (= column) */
    int64_t *file_row;          /* nrows_local entries: file row of each local row; NULL = identity */
    int64_t nrows_local, ncols_local;
    hspmv_real *diag;           /* nrows_local entries (at least 1): a_ii of each local row (dist_diag.c) */
    int64_t nnz_owned, nnz_ghost;
    int npieces;                /* the owned block is multiplied in this many parts (1..HSPMV_DIST_PIECES_MAX),
                                   so that the halo messages progress (MPI_Testall) between them */
    hspmv_local *Lo;            /* owned block, nrows_local x ncols_local; NULL when it has no entries */
    int halo;                   /* HSPMV_HALO_NODE or HSPMV_HALO_P2P */
    struct hspmv_node *node;    /* the node layout (both modes), and in mode "node" its plan and window */
    hspmv_local *Lg;            /* ghost block, nghost_rows x nghost; NULL when it has no entries */
    int64_t nghost_rows;        /* rows of the ghost block */
    int64_t *ghost_row;         /* nghost_rows entries: local row of each ghost-block row; NULL when the
                                   ghost block keeps every local row (most rows have ghosts) */
    hspmv_real *gy;             /* nghost_rows entries when ghost_row: the ghost block's product */
    /* p2p halo plan (mode "p2p" only): ghosts sorted by global column, hence grouped by owner */
    int64_t nghost;             /* distinct ghost columns */
    int64_t *ghost_col;         /* nghost entries: global column of each ghost (ascending) */
    int nrecv;                  /* ranks this rank receives from */
    int *recv_rank;             /* nrecv entries, ascending */
    int64_t *recv_ptr;          /* nrecv+1 entries: ghosts [recv_ptr[i], recv_ptr[i+1]) come from recv_rank[i] */
    int nsend;                  /* ranks this rank sends to */
    int *send_rank;             /* nsend entries */
    int64_t *send_ptr;          /* nsend+1 entries into send_idx */
    int32_t *send_idx;          /* send_ptr[nsend] entries: local x index to pack */
    hspmv_real *xg;             /* nghost entries (at least 1): received ghost values */
    hspmv_real *sendbuf;        /* send_ptr[nsend] entries (at least 1) */
    hspmv_real *work;           /* nrows_local entries (at least 1), for spmv_scaled */
    MPI_Request *req;           /* nrecv + nsend entries (at least 1) */
    int threads;                /* threads used by the blocks (packing too) */
    int format;                 /* opts.format and opts.csrl_threshold the blocks were made with (the */
    double csrl_threshold;      /*   transposed matrix is made with them too) */
    hspmv_dist_info info;       /* filled at creation (how it was read and set up too) */
    hspmv_dist_timing timing;   /* cumulative */
    struct hspmv_dist *tr;      /* A^T distributed by A's columns (dist_transpose.c), made by the first transposed
                                   call; NULL before */
    hspmv_dist_blk blk;         /* the block product's buffers */
    struct hspmv_dist_sym *sym; /* one triangle across ranks (sym/dist_sym.h; halo p2p, Lg NULL); NULL: both */
};

/* One rank's rows before they are split: CSR with nrows local rows, ncols
   the GLOBAL column count and colind GLOBAL 0-based columns. */

/* Agrees on a status across comm: if any rank's code is not HSPMV_OK, every
   rank gets the code and message of the lowest such rank. Collective. */
int hspmv_dist_agree(MPI_Comm comm, int code, hspmv_error *err);

/* dist_args.c. The vectors of a product on this rank (X with nx entries per
   vector, Y with ny, k vectors): a NULL one with entries to hold is replaced
   by *sub (NaN for X; free it with hspmv_free after the product) and the
   result is HSPMV_ERR_ARG with its message, so the caller still runs the
   exchange and then returns that error; a NULL one with none is replaced
   by a dummy. HSPMV_ERR_NOMEM when no stand-in could be had (then return). */
int hspmv_dist_vec_args(const hspmv_dist *D, const char *call, int k, const hspmv_real **X, int64_t nx,
                        hspmv_real **Y, int64_t ny, hspmv_real **sub, hspmv_error *err);

/* Rank 0's HSPMV_TEST string into spec (HSPMV_TEST_MAX bytes) on every rank,
   checked there (hspmv_test_check): HSPMV_OK or the same error on every
   rank (a bad or too long string). Collective. */
int hspmv_dist_agree_test(MPI_Comm comm, char *spec, hspmv_error *err);

/* x's split: the rows' when square, else the columns evenly (D->row_start, nrows, ncols set). */
void hspmv_dist_column_layout(hspmv_dist *D);

/* Row partitions (rank-0 work, no MPI): start gets P+1 entries. */
void hspmv_partition_rows(int64_t nrows, int P, int64_t *start);
void hspmv_partition_nnz(const int64_t *rowptr, int64_t nrows, int P, int64_t *start);
/* METIS k-way on the symmetrised graph of A (square); perm[new] = old row.
   Returns HSPMV_OK, or an error (message in err). */
int hspmv_partition_metis(const hspmv_csr *A, int P, int64_t *start, int64_t *perm, hspmv_error *err);

/* MPI_Send / MPI_Recv of n elements in pieces of at most the chunk limit
   (test: the agreed HSPMV_TEST string, whose dist_chunk may lower it). */
int hspmv_dist_send(const void *buf, int64_t n, MPI_Datatype t, int dest, int tag, MPI_Comm comm, const char *test);
int hspmv_dist_recv(void *buf, int64_t n, MPI_Datatype t, int src, int tag, MPI_Comm comm, const char *test);

/* Sorts the columns of every row of S ascending and sums duplicates, in place
   (S->rowptr, colind and val are compacted; S->nnz updated). */
void hspmv_dist_sort_rows(hspmv_csr *S);

/* Keeps a block's rows with entries when they are at most half of its rows
   (PETSc's compressed rows: a stencil's ghost or node block touches a few
   boundary rows, and walking every row pointer and y entry for them costs
   as much as a third of the owned block): *row gets the local row of each
   kept row, *gy room for their product, A is compressed in place, *nrows
   the rows A keeps. HSPMV_ERR_NOMEM when an array cannot be had. */
int hspmv_dist_compress_rows(hspmv_csr *A, int64_t **row, hspmv_real **gy, int64_t *nrows);

/* dist_diag.c. Keeps in D->diag the diagonal of this rank's slice S
   (global columns, rows from D->row_start[rank]). HSPMV_ERR_NOMEM. */
int hspmv_dist_keep_diagonal(hspmv_dist *D, const hspmv_csr *S);

/* Splits S (global columns) into the owned block Ao (columns [cb, ce),
   renumbered from 0) and the ghost block Ag (columns renumbered compactly
   in the order of *g_out, the sorted distinct ghost columns, *ng_out of
   them). HSPMV_ERR_NOMEM when an array cannot be had (the caller frees
   Ao and Ag). */
int hspmv_dist_split_blocks(const hspmv_csr *S, int64_t cb, int64_t ce, hspmv_csr *Ao, hspmv_csr *Ag,
                            int32_t **g_out, int64_t *ng_out);

/* dist_plan.c. Collective: a distributed matrix of this rank's rows
   (global columns, any order within a row) with the partition they give,
   x's layout and the p2p halo plan (ghost columns, receive and send lists,
   the ghost block's compressed rows: D->ghost_row, nghost_rows), but no
   prepared blocks: the owned and ghost blocks come back as CSR in *Ao and
   *Ag (Ag already compressed to D->nghost_rows rows) for a caller that
   multiplies them elsewhere (the GPU path). Duplicate entries are kept
   (their products add up; D->nnz counts them). Same error on every rank. */
int hspmv_dist_plan_rows(MPI_Comm comm, const hspmv_csr *rows, hspmv_dist **D, hspmv_csr *Ao, hspmv_csr *Ag,
                         hspmv_error *err);

/* Collective: builds D's blocks, halo plan and prepared matrices from this
   rank's slice S (global columns, sorted rows) and D->row_start/col_start;
   frees S. */
int hspmv_dist_build(hspmv_dist *D, hspmv_csr *S, const hspmv_opts *o, hspmv_error *err);

/* hspmv_dist_read with rank 0 reading the file (dist_create.c), and with
   every rank reading a byte range (dist_read_parallel.c). */
int hspmv_dist_read_root(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **D, hspmv_error *err);
int hspmv_dist_read_parallel(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **D,
                             hspmv_error *err);

/* Peak resident memory of this process so far, in bytes (0 if unknown). */
double hspmv_peak_rss(void);

/* Allocates a zeroed hspmv_dist with comm duplicated; collective. */
int hspmv_dist_alloc(MPI_Comm comm, hspmv_dist **D, hspmv_error *err);

/* Owner of global column c: the rank r with cs[r] <= c < cs[r+1] (empty
   ranks before it skipped; any ascending starts serve, node.h's parts too). */
int hspmv_dist_owner(const int64_t *cs, int P, int64_t c);
/* The first of the n ascending g[] that is >= c (n when none): c's index when it is there. */
int64_t hspmv_dist_lower_i32(const int32_t *g, int64_t n, int64_t c);

/* Kernel "auto" on every rank at once for a group of blocks multiplied
   together (dist_kernels.c). Collective. */
void hspmv_dist_agree_kernels(hspmv_dist *D, hspmv_local **all, int n, int64_t min_nnz);

/* halo_p2p.c. The p2p plan from this rank's ghost columns g (D->nghost,
   ascending): receive and send lists, buffers. Collective, agreed status. */
int hspmv_halo_p2p_plan(hspmv_dist *D, const int32_t *g, hspmv_error *err);
/* Keeps only the ghost block's non-empty rows (D->ghost_row, D->gy) when
   they are at most half of the rows; sets D->nghost_rows. HSPMV_ERR_NOMEM. */
int hspmv_halo_p2p_rows(hspmv_dist *D, hspmv_csr *Ag);

/* dist_info.c. Fills D->info once the blocks and plans are made (global
   fields agreed). Collective. */
int hspmv_dist_fill_info(hspmv_dist *D, hspmv_error *err);

/* The halo exchange of x for the product into y, in either mode (as
   PETSc's VecScatterBegin/End): begin starts it (p2p: posts the receives,
   packs and sends; node: node.h's hspmv_node_begin; y may be NULL there:
   the shared rows others take then go through the result buffers), end
   finishes it (p2p: waits for the messages; node: hspmv_node_end). Each
   adds its time to D->timing. */
int hspmv_halo_begin(hspmv_dist *D, const hspmv_real *x, hspmv_real *y);
int hspmv_halo_end(hspmv_dist *D);
/* p2p: lets the posted messages progress without waiting (MPI_Testall). */
int hspmv_halo_progress(hspmv_dist *D);

/* dist_transpose.c. *At = D->tr, A^T distributed by A's columns, made by
   the first call (each entry moved once to its column's owner: as much
   memory again as the blocks, plus its own halo plan and node window).
   HSPMV_OK, or the same error on every rank when it cannot be made (the
   next call tries again). Collective (every rank, the same calls). */
int hspmv_dist_transposed(hspmv_dist *D, hspmv_dist **At, hspmv_error *err);
/* halo_block.c. The p2p exchange of a row-major block X of k vectors (k
   values per entry, one message per neighbour) into D->blk.xg, which
   hspmv_halo_blk_grow made room for; hspmv_halo_end finishes it. */
int hspmv_halo_begin_block(hspmv_dist *D, const hspmv_real *X, int k);
/* Room for k values per entry in D->blk's p2p buffers (this rank only:
   the caller agrees the status). HSPMV_ERR_NOMEM, or HSPMV_ERR_UNSUPPORTED
   when a message would exceed 2^31 - 1 values. */
int hspmv_halo_blk_grow(hspmv_dist *D, int k, hspmv_error *err);
/* Frees D->blk (hspmv_dist_destroy). */
void hspmv_dist_blk_free(hspmv_dist *D);

/* *dot += the sum over i in [0, n) of what body adds to its double s:
   up to T threads (one below 32768 entries), each its even share of [0, n),
   the shares' sums added in order, so the sum has a fixed order for a
   given T (dist_spmv.c, node_block.c). A share runs as one SIMD loop: body
   may write y[row[i]] only for rows that differ. */
#define HSPMV_SHARES_DOT(T, n, dot, body)                                                     \
    do {                                                                           \
        int T_ = (n) > 32768 ? (T) : 1;                                            \
        double part_[T_ > 0 ? T_ : 1];                                             \
        _Pragma("omp parallel for num_threads(T_) schedule(static, 1)")             \
        for (int t_ = 0; t_ < T_; t_++) {                                          \
            double s = 0;                                                          \
            _Pragma("omp simd reduction(+ : s)")                                   \
            for (int64_t i = (n) * t_ / T_; i < (n) * (t_ + 1) / T_; i++) { body } \
            part_[t_] = s;                                                         \
        }                                                                          \
        for (int t_ = 0; t_ < T_; t_++) *(dot) += part_[t_];                         \
    } while (0)

#endif
