/* local.h — the prepared one-rank matrix behind hspmv_local (private). */
#ifndef HSPMV_LOCAL_H
#define HSPMV_LOCAL_H

#include "hspmv.h"
#include "bcoo.h"
#include "csrl.h"
#include "csr16.h"
#include "csrvi.h"
#include "csrdu.h"
#include "csrp.h"
#include "panels.h"
#include "sym.h"
#include "kernel_select.h"
#include "local_calls.h" /* hspmv_local_touch, the kernel timing of groups */

/* OpenMP queries that also build without -fopenmp (then one thread does
   every chunk, in order). */
#ifdef _OPENMP
#include <omp.h>
static inline int hspmv_omp_thread(void) { return omp_get_thread_num(); }
static inline int hspmv_omp_nthreads(void) { return omp_get_num_threads(); }
static inline int hspmv_omp_max(void) { return omp_get_max_threads(); }
#else
static inline int hspmv_omp_thread(void) { return 0; }
static inline int hspmv_omp_nthreads(void) { return 1; }
static inline int hspmv_omp_max(void) { return 1; }
#endif

/* Thread t of the team takes chunks t, t+nth, ...: every chunk is done even
   when OpenMP gives fewer threads than asked (nested regions, limits). */
#define HSPMV_FOR_MY_CHUNKS(c, nchunks) \
    for (int c = hspmv_omp_thread(); c < (nchunks); c += hspmv_omp_nthreads())

struct hspmv_local {
    int format;                  /* HSPMV_FORMAT_CSR, _CSRL, _BCOO, _CSR16, _CSRVI, _CSRP, _CSRDU or _PANELS */
    int threads;                 /* chunks = threads each call uses, >= 1 */
    const hspmv_kernel_set *ks;  /* kernels in use */
    int ks_auto;                 /* 1: kernel "auto" (ks timed for one vector): the block
                                    product runs the CPU's best set (local_spmm.c) */
    int64_t nrows, ncols, nnz;   /* size */
    int64_t nseg;                /* segments of consecutive columns (all formats) */
    int64_t *rows;               /* threads+1 entries: thread c owns rows [rows[c], rows[c+1]) */
    int pieces;                  /* each chunk's pieces, which idle threads take (local_pieces.c); 1: none */
    int nblocks;                 /* the block product's row blocks (local_spmm.c), a multiple of threads */
    int64_t *blocks;             /* nblocks+1 entries, balanced by nonzeros; thread t takes t, t+threads, ... */
    int64_t *tiles;              /* BCOO only, threads+1 entries: tile rows of thread c */
    hspmv_csr csr;               /* HSPMV_FORMAT_CSR: own copy, first-touched per thread */
    hspmv_csrl csrl;             /* HSPMV_FORMAT_CSRL */
    hspmv_bcoo bcoo;             /* HSPMV_FORMAT_BCOO */
    hspmv_csr16 csr16;           /* HSPMV_FORMAT_CSR16 */
    hspmv_csrvi csrvi;           /* HSPMV_FORMAT_CSRVI */
    hspmv_csrp csrp;             /* HSPMV_FORMAT_CSRP */
    hspmv_csrdu csrdu;           /* HSPMV_FORMAT_CSRDU */
    hspmv_panels panels;         /* HSPMV_FORMAT_PANELS */
    int fits16;                  /* every |col - row| <= 32767 (CSR16 possible) */
    hspmv_csrvi_set *vals;       /* during create only: the distinct values, when counted */
    int fitsvi;                  /* vals holds every value, at most 256 (CSRVI possible) */
    hspmv_csrp_set *pats;        /* during create only: the row patterns, when collected */
    int fitsp;                   /* pats holds every row's pattern (CSRP possible) */
    int64_t *esc;                /* during create only, threads+1 entries: CSRDU escapes before each chunk */
    int stream_y_forced;         /* HSPMV_TEST's stream_y at create (0 or 1), -1: the rule decides */
    int spmm_stream_forced;      /* HSPMV_TEST's spmm_stream (block product), likewise */
    int asked_format;            /* hspmv_opts.format at creation (the transposed copy's too) */
    double csrl_threshold;       /* hspmv_opts.csrl_threshold at creation */
    struct hspmv_local *T;       /* the transposed copy, made by the first transposed product; NULL before */
    struct hspmv_local_order *ord; /* hspmv_opts.reorder's order (local_reorder.h); NULL: reorder none */
    int symmetric;               /* 1 or -1: one triangle kept in sym (local_sym.c), format CSR16 or CSR
                                    naming its index width; 0: the format's own arrays */
    hspmv_sym sym;               /* one triangle: diagonal and strictly lower entries */
    int64_t *hlo;                /* one triangle, threads entries: thread c's private rows are [hlo[c], rows[c]) */
    hspmv_real **hbuf;           /* one triangle, threads entries: those private rows of y (NULL when none) */
    int64_t sym_halo;            /* one triangle: private rows, all threads */
    double sym_check_s;          /* seconds of the symmetry check at creation */
};

/* Makes L->T, A^T prepared like L (local_transpose.c), unless it is there.
   HSPMV_OK, or HSPMV_ERR_NOMEM with err set. */
int hspmv_local_transposed(hspmv_local *L, hspmv_error *err);

/* Kernel "auto" times the kernel sets on matrices with at least this many
   nonzeros (below it timing is noise, and any set is fast enough). */
#define HSPMV_TUNE_MIN_NNZ ((int64_t)1 << 20)

/* Kernel "auto" on a big matrix: times every kernel set this CPU runs on L
   (a few products into scratch vectors) and keeps the fastest, unless it
   beats the narrowest vector set (AVX2 beside AVX-512) by less than 3%. */
void hspmv_local_tune_kernels(hspmv_local *L);

/* Times a and b (their kernels as set) in interleaved rounds, a warm-up
   round first, into t[0] and t[1] (each its fastest round, seconds).
   Returns 0 when scratch vectors could not be had (t untouched). */
int hspmv_local_time_pair(hspmv_local *a, hspmv_local *b, double t[2]);

/* Nonzeros per row block of the block product when the rule sets the
   count (local_spmm.c): about 9400 rows of a 7-point stencil; blocks of
   512 to 8192 rows measured alike on lap3d 200 at k = 8, 16 threads. */
#define HSPMV_SPMM_BLOCK_NNZ ((int64_t)1 << 16)

/* Splits rows [0, nrows) of rp into nchunks contiguous ranges balanced by
   nonzeros: start has nchunks+1 entries, chunk c is [start[c], start[c+1]).
   Chunk c begins at the first row whose rp reaches c*nnz/nchunks, so each
   chunk holds at most nnz/nchunks + (longest row) nonzeros. */
void hspmv_local_split(const int64_t *rp, int64_t nrows, int nchunks, int64_t *start);

/* nzseg of A, counted in parallel over the chunks in start. */
int64_t hspmv_local_count_segments(const hspmv_csr *A, int nchunks, const int64_t *start);

/* 1 when every entry of A lies within 32767 columns of its row (CSR16 fits),
   checked in parallel over the chunks in start. */
int hspmv_local_fits_csr16(const hspmv_csr *A, int nchunks, const int64_t *start);

/* Builds L->csr16 from A (which must fit), each chunk's rows written by its thread. */
int hspmv_local_build_csr16(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

/* Collects A's distinct values into S (sorted), in parallel over the
   chunks in start: each thread into its own set, merged at the end.
   Returns 1, or 0 as soon as one chunk or the union passes 256 (the other
   threads stop at their next block of entries). */
int hspmv_local_csrvi_values(const hspmv_csr *A, int nchunks, const int64_t *start, hspmv_csrvi_set *S);

/* Builds L->csrvi from A and the set L->vals of its values (which must
   fit), each chunk's rows written by its thread. */
int hspmv_local_build_csrvi(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

/* Collects the patterns of A's rows into S (sorted), in parallel over the
   chunks in start: each thread into its own set, merged at the end.
   Returns 1, 0 as soon as one chunk or the union does not fit, -1 when out
   of memory. */
int hspmv_local_csrp_patterns(const hspmv_csr *A, int nchunks, const int64_t *start, hspmv_csrp_set *S);

/* Builds L->csrp from A and the set L->pats of its patterns, each thread
   writing the slices that start in its rows (L->rows is cut at multiples
   of the slice height first). */
int hspmv_local_build_csrp(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

/* The escaped numbers of CSRDU, counted per chunk into esc[c+1] and summed
   into esc[c] = escapes before chunk c (esc has nchunks+1 entries). */
void hspmv_local_csrdu_escapes(const hspmv_csr *A, int nchunks, const int64_t *start, int64_t *esc);

/* Builds L->csrdu from A and the escape counts in L->esc, each chunk's rows written by its thread. */
int hspmv_local_build_csrdu(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

/* Builds L->panels (npanels panels, x prefetched HSPMV_PANELS_XPF entries
   ahead) from A, each chunk's rows of every panel written by its thread. */
int hspmv_local_build_panels(hspmv_local *L, const hspmv_csr *A, int npanels, hspmv_error *err);

/* Panels for AUTO and --format panels: the fewest that cut x (ncols
   values) into pieces of at most half the last-level cache (all threads
   read the same panel's piece at about the same time; 1 when the cache
   size is unknown), clamped to 1..HSPMV_PANELS_MAX; test (an HSPMV_TEST
   string, checked) may force the count with panels=N. */
int hspmv_local_panel_count(int64_t ncols, int threads, const char *test);
/* 1 when a product that streams `bytes` should store y with streaming
   stores: more than the last-level cache holds; forced 0 or 1 decides
   instead (HSPMV_TEST's stream_y), -1 leaves it to the rule. */
int hspmv_local_stream_y(double bytes, int forced);

/* local_pieces.c. Pieces per chunk: one per 16384 nonzeros of a chunk, at
   most 16 (1 with one thread); test (an HSPMV_TEST string, checked) may
   force the count with pieces=N. */
int hspmv_local_piece_count(const hspmv_local *L, const char *test);
/* Part `part` of `nparts` of y = A*x (add: y += A*x) with the chunks'
   parts cut into pieces that idle threads take; the same y, bit for bit,
   as the static split (each row's sum is made by one kernel call). */
/* Rows [*r0, *r1) of piece p of S of chunk c's part `part` of `nparts`
   (whole tile rows in blocked COO). */
void hspmv_local_piece_rows(const hspmv_local *L, int c, int part, int nparts, int p, int S, int64_t *r0, int64_t *r1);
void hspmv_local_run_pieces(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                            int add);

/* Asks for transparent huge pages on [p, p+bytes) when it is 4 MiB or more;
   call before the first touch. A hint: failure is ignored. */
void hspmv_local_advise(void *p, size_t bytes);

/* Copies A into L->csr, each chunk's part written by the thread that owns it. */
int hspmv_local_build_csr(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

/* Builds L->csrl from A in parallel, each chunk's part written by its thread. */
int hspmv_local_build_csrl(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

/* Builds L->bcoo from A and moves its arrays to pages first touched by the
   threads that own the tile rows; sets L->tiles and L->rows. */
int hspmv_local_build_bcoo(hspmv_local *L, const hspmv_csr *A, hspmv_error *err);

#endif
