/* node.h — the node-aware halo (private to src/mpi and its tests): the node
   communicator, the MPI-3 shared window holding the node's x and the ghosts
   received for the node, the flags the ranks of a node synchronise with, and
   the plan of what travels between nodes, once per node pair. What is
   shared, who writes what and when, and why double buffering is safe:
   docs/node-aware.md. */
#ifndef HSPMV_NODE_H
#define HSPMV_NODE_H

#include <stdint.h>
#include <mpi.h>
#include "dist.h"
#include "hspmv.h"
#include "util.h"

struct hspmv_dist;
typedef struct node_share node_share; /* node_share.h */

/* How the node block reads the x entries of other ranks of the node and the
   off-node block the entries received for the node (docs/node-aware.md). */
enum { HSPMV_GATHER_DIRECT = 1, /* the blocks gather from the shared window itself */
       HSPMV_GATHER_COPY = 2,   /* each rank first copies the entries it needs into a private,
                                   huge-page buffer (one pass), and its blocks gather from that */
       HSPMV_GATHER_SHARE = 3 };/* direct, and the ranks of a node share the node block's rows
                                   while a product runs (a rank out of work takes chunks of others) */
enum { HSPMV_NODE_FOLD_RUNS = 2 };   /* node_fold.c: the first rows and the last */

/* One rank's flags in the window (call numbers, written with release
   stores, read with acquire loads), each on its own 128-byte line pair. */
typedef struct node_flags {
    uint64_t ready;   /* its x part of call n is in place; slot[n % 2] says where */
    int32_t slot[2];  /* window slot of its x (>= 0), -1: the parity buffer, -2: nobody reads its part */
    char pad0[112];
    uint64_t ready2;  /* call n: its part copied into the parity buffer too (slots disagreed) */
    char pad1[120];
    uint64_t recvd;   /* call n: the off-node values it receives for the node are in the ghost area */
    char pad2[120];
    uint64_t done;    /* call n: it finished reading the window */
    char pad3[120];
} node_flags;

/* A block added into y after the owned block, kept to the rows that have
   entries in it when those are at most half of the rows. */
typedef struct node_block {
    hspmv_local *L;   /* NULL when the block has no entries */
    int64_t nrows;    /* rows of L */
    int64_t *row;     /* nrows entries: local row of each row of L; NULL when L has every local row */
    hspmv_real *gy;   /* nrows entries when row: L's product before it is added */
    /* when row and each of L's rows holds one entry (a stencil's boundary
       rows): those entries as y[row1[i]] += val1[i] * x[col1[i]], no gy */
    int32_t *row1, *col1;
    hspmv_real *val1;
} node_block;

/* Slot bookkeeping of the vectors hspmv_dist_vec_alloc places in the window;
   hspmv_free hands them back here (it may outlive the matrix: see node_window.c). */
typedef struct node_pool {
    hspmv_real *vecs;   /* first slot */
    int64_t stride;     /* entries between slots */
    int nslots;
    int used[64];       /* 1 while lent out */
} node_pool;

/* The product under way, from hspmv_node_begin to hspmv_node_rest. */
typedef struct node_call {
    uint64_t n;             /* call number */
    int b, slot, nreq, whole, rc; /* parity; x's window slot (-1: none, -2: nobody reads it); requests; the
                                     node block writes every row of y; status */
    const hspmv_real *x;
    hspmv_real *par, *gh;   /* this call's parity buffer and ghost area */
    double t0, t1, t2, t3, t4, t_fold, t_owned, sync, sync_before; /* for the timing */
} node_call;

/* The block product's buffers (node_spmm.c), made by its first call and
   grown with k: a second shared window holding two parity node vectors and
   two ghost areas of k values an entry (node rank q's part at
   part_off[q]*k, a received entry at its ghost-area offset times k), and
   this rank's private buffers for k values an entry. */
typedef struct node_wide {
    int k;                  /* values an entry the buffers hold (0: none yet) */
    MPI_Win win;
    int have_win;
    hspmv_alias alias;      /* the window's second mapping, where its pages can be huge */
    hspmv_real *vecs;       /* 2 node vectors, vec_stride*k apart (call parity) */
    hspmv_real *ghost;      /* 2 ghost areas, gh_stride*k apart */
    hspmv_real *sendbuf;    /* send_ptr[nsend]*k */
    hspmv_real *ngy, *ogy;  /* nb.nrows*k, ob.nrows*k: compressed rows' products */
    hspmv_real *xn, *xo;    /* copy gathers: nn*k, no*k */
} node_wide;

typedef struct hspmv_node {
    /* node_comm.c */
    MPI_Comm comm;        /* the ranks of this node (or pseudo-node), ordered like D->comm */
    MPI_Comm leaders;     /* node rank 0 of every node, ordered by node; MPI_COMM_NULL elsewhere */
    int rank, size;       /* in comm */
    int node, nnodes;     /* this node's number; nodes in all */
    int env_ranks;        /* opts.node_ranks (ranks per pseudo-node, rank 0's), 0 for real nodes */
    const char *test;     /* the matrix's agreed HSPMV_TEST string (D->test) */
    int shared_ranks;     /* ranks on the real node (sharing its memory and last-level cache) */
    /* node_cores.c */
    int oversub;          /* 1: this machine's ranks run more threads than the processors they may use */
    unsigned spin;        /* pauses a wait spins before it yields the core: HSPMV_NODE_SPIN, 0 when oversub */
    int *node_of;         /* D->size entries: node of each rank of D->comm */
    int *member;          /* size entries: D->comm rank of each node rank */
    int64_t *part_off;    /* size+1 entries: node rank q's x part is [part_off[q], part_off[q] + len) of a node vector */
    int64_t vec_len;      /* entries of a node vector (the parts, each padded to 4 KiB) */

    /* node_window.c */
    MPI_Win win;
    int have_win;
    hspmv_alias alias;    /* a second mapping of the window where its pages can be huge (to NULL: none) */
    char *base;           /* the layout's start in the window (in the alias when there is one), 4 KiB aligned */
    uint64_t huge_slots;  /* slots whose huge pages this rank has asked for */
    node_flags *flags;    /* size entries */
    int nslots;           /* vectors hspmv_dist_vec_alloc may place in the window */
    int64_t vec_stride;   /* entries between node vectors */
    hspmv_real *vecs;     /* nslots + 2 node vectors: the slots, then the parity buffers for callers' x */
    hspmv_real *ghost;    /* 2 ghost areas, gh_stride entries apart (call parity) */
    int64_t gh_len, gh_stride;
    node_pool *pool;
    const struct hspmv_node *lend; /* another matrix's node (the same ranks and x parts) whose slots this one
                                      reads a caller's x from in place (the transposed matrix: A's); NULL */
    uint64_t calls;       /* products so far */
    node_call cur;        /* node_spmv.c: the product under way */
    node_wide *wide;      /* node_spmm.c: the block product's window and buffers (NULL: none yet) */
    int64_t copies;       /* products that copied the caller's x into the window (this rank) */
    double share_s[2];    /* shared rows since the last timing reset: thread-seconds in this rank's own chunks [0]
                             and in chunks it took from other ranks [1] */
    int64_t share_nnz[2]; /* entries of this rank's chunks that it ran [0] and that others ran [1] */

    /* node_pairs.c: what travels between nodes */
    int nrecv;            /* node pairs this rank receives for */
    int *recv_src;        /* D rank that sends each */
    int64_t *recv_off;    /* where each lands in the ghost area */
    int64_t *recv_cnt;    /* entries of each */
    int nsend;            /* node pairs this rank sends for */
    int *send_dst;        /* D rank that receives each */
    int64_t *send_ptr;    /* nsend+1 entries into send_idx */
    int64_t *send_idx;    /* node-vector offsets to pack (ascending within each pair, so grouped by owner) */
    int nseg;             /* runs of send_idx with one owner: [seg_ptr[i], seg_ptr[i+1]) owned by node rank seg_owner[i] */
    int64_t *seg_ptr;
    int *seg_owner;
    hspmv_real *sendbuf;  /* send_ptr[nsend] entries (at least 1) */
    MPI_Request *req;     /* nrecv + nsend entries (at least 1) */
    int nsrc_recv;        /* node ranks that receive what this rank's off-node block reads */
    int *src_recv;
    int nreaders;         /* node ranks that read this rank's x part in the window (node blocks, packing) */
    int *readers;
    int64_t nexp;         /* entries of its part they read (ascending offsets in exp_idx) */
    int32_t *exp_idx;     /* NULL: the whole part (most of it is read) */
    int merged;           /* 1: the owned columns are in the node block (which then covers every on-node column) */

    /* node_fold.c: the first and last rows where they hold every node-block entry, multiplied whole first (0 runs: none) */
    int nfold;            /* at most HSPMV_NODE_FOLD_RUNS */
    int64_t *fold_first, *fold_end; /* run r: local rows [fold_first[r], fold_end[r]) */
    int64_t orow0, orow1; /* the owned block's rows: local rows [orow0, orow1) (all of them unless folded) */
    hspmv_local **fold_L; /* each run's rows, columns node-vector offsets minus fold_base[r] */
    int64_t *fold_base;
    hspmv_csr *fold_csr;  /* the runs as CSR until hspmv_node_fold_prepare */
    int64_t fold_rows;    /* rows in the runs */
    int64_t fold_nnz_node;/* entries of the runs in other ranks' columns of the node */
    int64_t nfold_own;    /* own columns the runs read (ascending, local), for the export list (freed once it is made) */
    int32_t *fold_own;
    int nfold_src;        /* node ranks (not this one) whose x parts the runs read */
    int *fold_src;

    /* the blocks beyond the owned one */
    int gather;           /* HSPMV_GATHER_DIRECT, _COPY or _SHARE (direct, rows shared: node_share.c) */
    node_share *share;    /* gather share: every rank's node block in a second window */
    node_share *oshare;   /* owned rows shared (not merged): every rank's owned block in a window, or NULL */
    int otail;            /* chunks of 64 of its owned block others may take (0: none) */
    node_block nb, ob;    /* node block (columns of other ranks of the node), off-node block */
    int64_t nn, no;       /* their columns */
    int64_t *nsrc;        /* nn entries: node-vector offset of each node-block column */
    int64_t *osrc;        /* no entries: ghost-area offset of each off-node column */
    hspmv_real *xn, *xo;  /* copy: the private buffers the blocks gather from */
    hspmv_real *xr;       /* replica: a private huge-page copy of the node vector, made each product */
    int replica;          /* 1: the node block (direct or shared rows) gathers from xr, not the window */
    int threads;
    double t_direct, t_copy, t_share; /* the gathers timed by the plan (slowest rank, s per product; 0: not timed) */
    double t_replica;     /* the kept gather with a replica, timed beside it (0: not timed) */

    /* reported */
    int64_t inter_entries, inter_entries_p2p, inter_msgs, inter_msgs_p2p; /* this rank's share */
} hspmv_node;

/* Node rank whose part holds node-vector offset v (parts are ascending, so
   the search for a column's owner serves). */
static inline int hspmv_node_part_of(const hspmv_node *N, int64_t v)
{
    return hspmv_dist_owner(N->part_off, N->size, v);
}

/* node_comm.c. Splits D->comm by shared memory (MPI_COMM_TYPE_SHARED), then
   into pseudo-nodes of node_ranks consecutive node ranks (rank 0's value;
   0: none, negative: HSPMV_ERR_ARG on every rank); fills comm, leaders,
   node numbers, members. Collective. */
int hspmv_node_comm(struct hspmv_dist *D, int node_ranks, hspmv_node **N, hspmv_error *err);
/* The x layout of node vectors (part_off, vec_len). */
void hspmv_node_layout(struct hspmv_dist *D, hspmv_node *N);
/* Node rank of D rank r on this node (member[] is ascending), -1 if none. */
int hspmv_node_rank_of(const hspmv_node *N, int r);
/* Node-vector offset of global column c, owned by a rank of this node. */
int64_t hspmv_node_offset(const struct hspmv_dist *D, const hspmv_node *N, int64_t c);
/* Frees what hspmv_node_comm made, and N. */
void hspmv_node_layout_free(hspmv_node **N);

/* node_plan.c. Frees everything of N (collective when it holds a window). */
void hspmv_node_free(hspmv_node **N);

/* node_window.c. Allocates the window (flags, vectors, ghost areas) on the
   node communicator; HSPMV_ERR_UNSUPPORTED when the MPI library gives none.
   Collective over the node; the status is agreed over D->comm. */
int hspmv_node_window(struct hspmv_dist *D, hspmv_node *N, hspmv_error *err);
/* Frees the window (collective over the node): see node_window.c. */
void hspmv_node_window_free(hspmv_node *N);
/* Slot of x when it is this rank's part of a window vector, else -1. */
int hspmv_node_slot_of(const hspmv_node *N, const hspmv_real *x);
/* Slot numbers from HSPMV_NODE_LENT up name N->lend's slots (hspmv_node_x_slot). */
#define HSPMV_NODE_LENT (1 << 20)
/* x's slot for a product: N's own, else N->lend's (+ HSPMV_NODE_LENT), else -1. */
int hspmv_node_x_slot(const hspmv_node *N, const hspmv_real *x);
/* The node vector of slot s (either kind), or parity buffer b when s < 0. */
hspmv_real *hspmv_node_slot_vec(const hspmv_node *N, int s, int b);
/* N reads a caller's x in place from the slots of from (another matrix's
   node) where the two have the same ranks, x parts and vector stride, on
   every rank of the node (agreed there). Collective over N->comm. */
void hspmv_node_lend(hspmv_node *N, const hspmv_node *from);
/* A window vector's part for this rank, or NULL when every slot is taken. */
hspmv_real *hspmv_node_vec_take(hspmv_node *N);
/* Waits until *flag >= n (acquire): spin pauses, then sched_yield between
   looks; returns the seconds spent. */
double hspmv_node_wait(const uint64_t *flag, uint64_t n, unsigned spin);
/* Step it of a wait: a pause, from the spin-th on a sched_yield. */
void hspmv_node_pause(unsigned it, unsigned spin);

/* Pauses a wait on another rank spins before it yields the core (one rank
   per core: the other is about to publish). */
#define HSPMV_NODE_SPIN 2048u

/* node_cores.c. Collective: counts the threads (threads per rank) and the
   processors of each machine's ranks (MPI_COMM_TYPE_SHARED, the union of
   their affinity masks); sets N->oversub and N->spin for this machine, and
   D->info.oversubscribed, node_threads and node_cpus (the most
   oversubscribed machine's, the same on every rank). */
int hspmv_node_cores(struct hspmv_dist *D, hspmv_node *N, int threads, hspmv_error *err);

/* MPI_Waitall, or where this machine is oversubscribed (D->node->spin 0)
   MPI_Testall with sched_yield between the tests. HSPMV_OK or HSPMV_ERR_MPI. */
int hspmv_dist_waitall(const struct hspmv_dist *D, int n, MPI_Request *req);
/* Release store of n into *flag. */
void hspmv_node_publish(uint64_t *flag, uint64_t n);

/* node_plan.c. Builds the node and off-node blocks of this rank from its
   ghost block Ag (its ng columns g, global, ascending; with N->merged the
   owned columns are among them), the plan between
   nodes, the readers of each part; then allocates the window and chooses
   direct or copy gathers. Ao: the owned block when separate (its boundary
   rows may be folded: node_fold.c, and cut from it), else NULL. o as for
   the blocks (kernel "scalar" when timed: the kernel set is then agreed over
   the ranks). Collective; N->threads must be set. Frees nothing of Ag. */
int hspmv_node_plan(struct hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t ng,
                    hspmv_csr *Ao, const hspmv_opts *o, int timed, hspmv_error *err);
/* node_fold.c. Where this rank's rows with entries in Bn (the node block,
   compact columns, N->nsrc their offsets) lie among its first and last
   rows (a quarter of them at most), sets those runs
   and the own columns they read (N->fold_*); changes neither. Ao NULL:
   nothing to fold. Collective (agrees the status). */
int hspmv_node_fold_plan(struct hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ao, const hspmv_csr *Bn,
                         hspmv_error *err);
/* Then, once the node's window is there (nothing may fall back to p2p),
   moves the runs' rows of Ao and Bn, whole, into the runs' CSR: empties
   them in Bn, and cuts Ao to the rows between the runs ([orow0, orow1)).
   Collective. */
int hspmv_node_fold_build(struct hspmv_dist *D, hspmv_node *N, hspmv_csr *Ao, hspmv_csr *Bn, hspmv_error *err);
/* Then, once the owned block Lo (NULL: none) is made, prepares the runs in
   its format (o as for it). Local: the caller agrees the status. */
int hspmv_node_fold_prepare(hspmv_node *N, const hspmv_opts *o, const hspmv_local *Lo, hspmv_error *err);
/* y[run rows] = the runs' rows times the node vector xb (before the
   off-node block, which adds). */
void hspmv_node_fold_mul(const hspmv_node *N, const hspmv_real *xb, hspmv_real *y);
void hspmv_node_fold_free(hspmv_node *N); /* its arrays (hspmv_node_free, which then frees N) */

/* node_pairs.c. The exchange between nodes for this rank's off-node
   columns og[0..no) (global, ascending): receive and send jobs, the ghost
   area and N->osrc. Collective. */
int hspmv_node_offnode_plan(struct hspmv_dist *D, hspmv_node *N, const int32_t *og, int64_t no, hspmv_error *err);
/* The runs of N->send_idx with one owner (seg_ptr, seg_owner); HSPMV_ERR_NOMEM. */
int hspmv_node_send_segments(hspmv_node *N);
/* Only the volumes between nodes (halo "p2p": for the report). Collective. */
int hspmv_node_volumes(struct hspmv_dist *D, hspmv_node *N, const int32_t *g, hspmv_error *err);

/* node_spmv.c. y = A*x in halo "node" mode in the four steps of
   hspmv_dist_spmv (docs/node-aware.md has them in detail). begin: x's part
   into the window where others read it, the claims on shared rows opened
   (y: where they may write; NULL: into the result buffers), ready
   published, the receives posted, packing and sends; local: folded rows,
   owned block or shared rows, the node block; end: the receives, recvd
   published, the node's receivers waited for; rest: the off-node block,
   done published, the readers of a window x waited for. */
int hspmv_node_begin(struct hspmv_dist *D, const hspmv_real *x, hspmv_real *y);
/* local's dot (NULL: none) += x'y of what the owned and the node block
   make, for hspmv_dist_dot_fused matrices (their blocks' rows compressed,
   no folded or shared rows, nothing merged). */
void hspmv_node_local(struct hspmv_dist *D, const hspmv_real *x, hspmv_real *y, double *dot);
int hspmv_node_end(struct hspmv_dist *D);
/* rest's dot as local's (the off-node block's part). */
void hspmv_node_rest(struct hspmv_dist *D, hspmv_real *y, double *dot);
/* node_spmm.c. Y = A X for a row-major block of k (>= 2) vectors in halo
   "node" mode: the steps of the one-vector product with k values an entry,
   the x parts and ghosts in a second window (N->wide, made or grown here:
   collective, agreed; every rank passes the same k), the block kernels,
   the same call numbers and flags as the one-vector product (the two may
   alternate). A failure after the setup is this rank's. */
int hspmv_node_spmm(struct hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err);
/* Frees N->wide (collective over the node when it holds a window). */
void hspmv_node_wide_free(hspmv_node *N);
/* hspmv_share_x for a block whose columns index one vector: ctx itself. */
const hspmv_real *hspmv_node_same_x(void *ctx, int q);

/* node_gather.c. Times direct and copy gathers on every rank at once and
   keeps copy when its slowest rank is more than 10% faster, else direct
   (HSPMV_TEST's gather=direct|copy forces one instead); moves the kept blocks into N (zeroing dir/cpy's
   entries), agrees the kernel sets first when timed. Collective. */
int hspmv_node_choose_gather(struct hspmv_dist *D, hspmv_node *N, node_block dir[2], node_block cpy[2],
                             int timed, hspmv_error *err);
/* node_gather.c. After the gather is kept: whether the node block gathers
   from a private replica of the node vector (N->replica, N->xr).
   HSPMV_TEST's replica=1 or 0 forces it, else where
   the block reads more than a quarter of the node vector of a node of
   several ranks, the plan times the kept gather with and without one and
   keeps it when more than 5% faster. Collective. */
int hspmv_node_choose_replica(struct hspmv_dist *D, hspmv_node *N, int timed, hspmv_error *err);
/* N->xr = the node vector xb's parts (those somebody reads in call parity
   b; b < 0: all), with N->threads threads. */
void hspmv_node_replicate(hspmv_node *N, const hspmv_real *xb, int b);

/* node_share.c. Copies the last `tail` of 64 chunks (-1: HSPMV_TEST's share_tail,
   else 48) of this rank's block B (the node block, direct columns, or the
   owned block; L its prepared form: its kernel set and x prefetch are kept)
   into a segment of a second window on the node, as CSRP where L is CSRP
   else CSR, and maps every rank's into
   *S; `block` names it in errors. Collective over D->comm; on failure
   (agreed) *S may be partly built: hspmv_node_share_free. */
int hspmv_node_share_build(struct hspmv_dist *D, hspmv_node *N, node_share **S, const hspmv_csr *B,
                           const hspmv_local *L, int tail, const char *block, hspmv_error *err);
/* The kernel set L uses from now on (after the ranks agreed on one). */
void hspmv_node_share_kernels(node_share *S, const hspmv_local *L);
/* Opens the next product's claims on this rank's chunks, its own to be
   multiplied with L (before it publishes ready: every rank must open
   before any claims). ywin >= 0: the y this product writes is in the node
   vectors (N->vecs) at offset ywin (the block's first row), the block's
   rows are written (not added) and only here, so others write the rows
   they take straight into it; -1: into the result buffer, which
   hspmv_node_share_mul adds from. */
void hspmv_node_share_open(node_share *S, const hspmv_local *L, int64_t ywin);
/* Where the chunks of node rank q read x (called once a chunk of q is
   claimed, so q has entered the product). */
typedef const hspmv_real *hspmv_share_x(void *ctx, int q);
/* y (+)= the block B's product (B: this rank's, for its row map), rows
   shared within the node: its own chunks with x, node rank q's with
   xq(ctx, q); the main thread lets the nreq requests progress between
   chunks. Returns the seconds spent waiting for chunks others took. */
double hspmv_node_share_mul(node_share *S, const node_block *B, const hspmv_real *x, hspmv_share_x *xq, void *ctx,
                            hspmv_real *y, int add, MPI_Request *req, int nreq);
/* 1 when others wrote the rows they took straight into this rank's y in the last product. */
int hspmv_node_share_direct(const node_share *S);
/* Bytes of this rank's segment (its tail copy) on huge pages: collapsed
   where the kernel can (none with huge pages off); every process maps the
   segments 2 MiB-congruent with the window's file, so those pages are
   read 2 MiB at a time. */
size_t hspmv_node_share_huge_bytes(const node_share *S);
/* Adds to run_s the thread-seconds this rank spent in its own chunks [0]
   and in chunks it took from others [1], and to run_nnz the entries of its
   chunks it ran [0] and others ran [1], since the last call; starts again.
   (Summed over the node's ranks, run_nnz[1] is what run_s[1] ran.) */
void hspmv_node_share_stats(node_share *S, double run_s[2], int64_t run_nnz[2]);
/* 1 when this rank's tail copy is CSRP. */
int hspmv_node_share_copy_csrp(const node_share *S);
/* 64ths of this rank's block that others ran in the last product. */
int64_t hspmv_node_share_taken(const node_share *S);
/* Tests: this rank's long chunks (run first, by itself), and in *taken how
   many of them others ran in the last product (none, by design). */
int hspmv_node_share_long(const node_share *S, int *taken);
/* Collective over the node when built. */
void hspmv_node_share_free(node_share **S);

/* node_block.c. A's rows as blk: blk->row and gy when its non-empty rows
   are at most half (A compressed in place); HSPMV_ERR_NOMEM. */
int hspmv_node_block_compress(hspmv_csr *A, node_block *blk);
/* A's entries as row1/col1/val1 when each of its (compressed) rows holds one. */
int hspmv_node_block_single(const hspmv_csr *A, node_block *blk);
/* b gets a's row map (its own arrays). */
int hspmv_node_block_copy(const node_block *a, node_block *b);
/* dst[j] = src[idx[j]], j < n, with threads threads (when n is large). */
void hspmv_node_gather_copy(hspmv_real *dst, const hspmv_real *src, const int64_t *idx, int64_t n, int threads);

/* y (+)= the block's product of x (compressed rows added in place). */
void hspmv_node_block_add(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads);
/* hspmv_node_block_add of a block of compressed rows and, with dot (not
   NULL), dot += the sum of xo[row]*(what is added to y[row]) (the rank's
   own x: CG's p'q, hspmv_dist_dot_fused); the sum in a fixed order. */
void hspmv_node_block_add_dot(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads,
                              const hspmv_real *xo, double *dot);
/* The same with add == 0: y = the block's product (every row: only for a block without compressed rows). */
void hspmv_node_block_mul(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads, int add);
void hspmv_node_block_free(node_block *B);

#endif
