/* node_share.h — private to node_share*.c: the shared-rows state of one
   block (a second window of the ranks' tail copies, the claim words), and
   how it works (below). */
#ifndef HSPMV_NODE_SHARE_H
#define HSPMV_NODE_SHARE_H

#include <stdint.h>
#include "dist.h"
#include "kernel_select.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

/* Shared rows: a block's rows shared out among the ranks of a node while
   a product runs, so that a rank slowed down by its core, its cache, its
   rows or where its memory lies does not hold up the node. Two blocks use
   it: the node block where the owned columns are merged into it (gather
   "share", random-like columns), and the owned block where it is separate
   (stencils and other local columns: "owned rows shared",
   halo_plan.c).

   With a static split every product waits for the slowest rank of the node:
   on the power-law matrix (16 ranks of equal nonzeros, one 16-core Xeon,
   one job) the ranks' node blocks took 40.2-50.7 ms per product, the same
   ranks being slow call after call, and each product took 51.6 ms where
   one process of 16 threads took 48.2; on the real-valued lap3d 200, 4 of
   16 ranks took 5.6-5.8 ms for their owned blocks where the rest took
   3.8-4.4, different ranks in each launch. Threads of one process balance
   that by sharing memory; ranks can too, for the part of the work whose
   data every rank of the node can read.

   Each rank cuts its block into NCHUNK chunks of equal entries and copies
   the last of them (a number of 64ths: default 48,
   for the node block; 16 or 32 for the owned
   block), as plain CSR, into its segment of a second shared window. Every
   product each rank multiplies its chunks from the front with its own
   prepared block (private memory, huge pages, its own format), and when it
   has none left takes chunks from the back of the other ranks' tails,
   multiplying them from the window copy straight into the owner's y where
   that y is a window vector (hspmv_dist_vec_alloc's, as solvers and
   benchmark-mpi have it) and the block writes its rows rather than adds to
   them; else into the owner's result buffer in the window, whose rows the
   owner adds into its y once it has run out of chunks. (That pass ran on
   one thread of the owner, the slow rank, after its chunks: on one 16-core
   Xeon, 3 rounds, the real-valued lap3d 200 took 3.80 ms at 16x1 direct
   against 4.13 through the buffer, 4.43 against 5.06 at 4x4 and 4.29
   against 5.12 at 2x8, medians of the same launches.) Three quarters of
   each rank's node block can move, at three quarters more memory for it:
   one job had two of 16 ranks 2.6 times slower than the rest on random
   columns whatever the gathers (28.5 ms per product against 11.1,
   direct), and with a quarter movable they still took 21.4 ms. (A copy
   of all of it, on the window's 4 KiB pages, ran 17% slower than the
   private block on 2 ranks of random columns: the owner keeps its own.)
   Half of the owned block moves at one thread a rank, a
   quarter at more (halo_plan.c); a CSRP block's tail is copied as CSRP,
   so a rank that takes a chunk reads 8.2 bytes an entry of the
   real-valued lap3d 200, as its owner would, not a CSR copy's 12 (4x4 on
   that matrix, one 16-core Xeon, 3 launches: 4.27, 4.53, 4.45 ms against
   4.39, 4.77, 4.73 with CSR copies).

   Claims are a compare-and-swap on the owner's word: epoch (24 bits), next
   chunk from the front (20 bits), one past the last chunk left at the back
   (20 bits). The owner resets it for a product before it publishes its x
   part (docs/node-aware.md, step 1), so a claim that succeeds finds the owner's x
   of that product published or about to be (the owned block's thieves
   wait for the owner's ready flag; the node block's take chunks only after
   seeing every rank's x, step 4). A thief finding an owner still in the
   product before waits for it to open this one (it is the late one whose
   tail is worth taking), and skips an owner already a product ahead. An
   owner leaves a product only after the chunks taken from it are done, so
   its result buffer and word are free again at the next reset.

   Long chunks first. A row longer than a chunk's share of the entries
   makes its chunk long (the power-law matrix's longest rows hold a million
   entries and more: about 4 ms on one core). Run when the front and back
   meet, such a chunk kept every other rank of the node waiting for it at
   the end of each product: 16 ranks of power law 4M k8 waited 2.4-2.9 ms
   of a 40 ms product. So an owner runs its long chunks (more than twice
   the average entries; flagged in its segment, which others skip) before
   its others, while there is still work left for everyone else
   (longest-processing-time first, Graham 1969).

   A rank's threads. With several threads a rank, the chunks others never
   take are cut into one contiguous range a thread, run from the front,
   and a thread done with its range takes chunks from the back of its
   siblings' ranges (as local_pieces.c does within one process); only then
   do they claim the tail from the rank's word. Claimed one by one from
   the word, the threads ran interleaved chunks, thread k chunks k, k+T,
   ...: on one 16-core Xeon, 8 rounds, each launch timing both, the real-valued lap3d 200 took 2%
   longer at 8x2 (7 of 8 launches), 1% at 2x8 and 0.5% at 4x4 (6 of 8
   each); random columns were the same either way.

   A rank that runs another's node-block chunk reads x entries of ranks
   whose readers it may not be: with that sharing, a rank whose x is a
   window vector waits for every rank of the node at step 7, not only its
   readers. An owned-block chunk reads only its owner's part, whose owner
   waits for it before it leaves the product. */
/* chunks per rank; tails are given in 64ths (by default others may take the
   last NTAIL of them), each 64th being SUB chunks: fine chunks, so that an
   owner waits less for the last chunk a thief runs (measured: 64 chunks per
   rank cost 16 ranks of the real-valued lap3d 200 a tenth of a millisecond
   per product where no rank was slow) */
enum { SUB = 4, NCHUNK = 64 * SUB, NTAIL = 48 };
#define EPOCH_MASK 0xffffffu

/* What each rank publishes at the start of its segment. */
typedef struct share_head {
    uint64_t word; /* epoch << 40 | front << 20 | back: chunks [front, back) are left */
    char pad0[120];
    int64_t base;  /* first row of the tail (row bounds[NCHUNK - tail] of the block) */
    int32_t tail;  /* chunks others may take: the last tail */
    int64_t nrows, ncols, nnz; /* of the tail */
    int64_t off_bounds, off_done, off_long, off_rowptr, off_colind, off_val, off_ybuf; /* from the segment's start */
    int32_t xpf;
    int32_t csrp;  /* 1: the tail is CSRP (the arrays below; off_val its values), 0: CSR (off_rowptr, off_colind) */
    int32_t npat;
    int64_t nslices, nmixed, off_start, off_ofs, off_pid, off_sp, off_spat;
    int64_t ywin; /* this product: the owner's y (its block's row 0) at node vector offset ywin, or -1: ybuf */
} share_head;

struct node_share {
    MPI_Win win;
    int size, rank, threads;
    unsigned spin;          /* the node's wait budget (hspmv_node.spin) */
    uint32_t epoch;
    const hspmv_kernel_set *ks;
    share_head **head;      /* size entries: each rank's head in this process's mapping */
    hspmv_panels *view;     /* size entries: each rank's tail as a one-panel CSR over its segment */
    hspmv_csrp *pview;      /* size entries: each rank's tail as CSRP over its segment, where it is */
    const int64_t **bounds; /* size entries of NCHUNK+1: chunk c is block rows [bounds[c], bounds[c+1]) */
    uint64_t **done;        /* size entries of NCHUNK: the epoch in which another rank last did chunk c */
    const uint8_t **islong; /* size entries of NCHUNK: 1 for a long chunk (its owner runs it first) */
    int nlong;              /* this rank's long chunks, */
    int16_t longs[NCHUNK];  /* which they are */
    int next_long;          /* the next of them to run this epoch (claimed by the owner's threads) */
    hspmv_real **ybuf;      /* size entries: tail rows taken by others land here (row - base) */
    hspmv_real *vecs;       /* the node vectors in this process's mapping (a y there is written directly) */
    hspmv_alias *alias;     /* size entries: this process's second mapping of each segment, on huge pages */
    size_t huge_bytes;      /* of this rank's segment, collapsed into huge pages */
    int direct;             /* this product: others write this rank's tail rows straight into its y */
    const hspmv_local *L;   /* this rank's own block */
    int delay_us;           /* tests: this rank starts each product late (HSPMV_TEST share_delay, late_start) */
    int progress;           /* MPI allows calls from the main thread inside a parallel region */
    unsigned char mine[NCHUNK]; /* this epoch: 1 when this rank ran its own chunk c */
    int64_t cnnz[NCHUNK];   /* entries of this rank's chunk c */
    double run_s[2];        /* since the last stats: thread-seconds in its own chunks [0] and in others' [1]; */
    int64_t run_nnz[2];     /* entries of its chunks it ran [0] and others ran [1] */
    int ranges;             /* 1 (several threads): its threads start on contiguous ranges of its front chunks */
    hspmv_claim_word *rw;   /* threads entries: this epoch, thread t's front chunks [front, back) are left */
};

#endif
