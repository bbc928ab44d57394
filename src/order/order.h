/* order.h — private: locality orderings of a CSR matrix (reverse
   Cuthill-McKee, METIS nested dissection), the locality measure `auto`
   decides by, permutation checks and applying a permutation to a CSR.
   No MPI. Permutations are "new -> old": p[k] is the old index of the row
   (or column) that comes k-th in the new order. */
#ifndef HSPMV_ORDER_H
#define HSPMV_ORDER_H

#include <stdint.h>
#include "hspmv.h"

/* What hspmv_order_measure counts. For a rectangular matrix row i's
   "diagonal" is column floor(i*ncols/nrows); d(i,j) = |j - that|. */
typedef struct hspmv_order_stats {
    int64_t bandwidth;  /* max d(i,j) over the entries (0 when there are none) */
    double profile;     /* sum over rows of max(0, diag(i) - first column of row i) */
    double mean_dist;   /* mean d(i,j) over the entries */
    double local_frac;  /* fraction of the entries with d(i,j) <= window (1 when none) */
    int64_t window;     /* the window used, in columns */
} hspmv_order_stats;

/* Counts the stats of A with the given window, in parallel (threads <= 0: all). */
void hspmv_order_measure(const hspmv_csr *A, int64_t window, int threads, hspmv_order_stats *s);

/* The window `auto` measures with: half the columns the L2 cache of one
   core holds (x entries of that many columns either side of the diagonal
   stay in the core's cache while a thread sweeps its rows); test (an
   HSPMV_TEST string) may force it with reorder_window=N. */
int64_t hspmv_order_window(const char *test);

/* Reverse Cuthill-McKee of A into rp (nrows entries) and cp (ncols).
   Square: on the pattern of A + A^T (A's own when it is structurally
   symmetric), the diagonal ignored; each connected component from a
   pseudo-peripheral node found by George and Liu's repeated breadth-first
   search, neighbours taken by ascending degree; rp == cp on return.
   Rectangular: RCM of the bipartite graph of rows and columns (row i
   joined to the columns of its entries); rows take the order in which the
   row nodes come, columns that of the column nodes. HSPMV_OK, or
   HSPMV_ERR_NOMEM / _UNSUPPORTED (nrows + ncols >= 2^31 for a rectangular
   matrix) with err set. All threads (hspmv_order_rcm_within: how many). */
int hspmv_order_rcm(const hspmv_csr *A, int64_t *rp, int64_t *cp, hspmv_error *err);

/* Nested dissection by METIS_NodeND on the graph of A + A^T (square
   matrices only), rp == cp. HSPMV_ERR_UNSUPPORTED for a rectangular
   matrix, or where the library was built without METIS. */
int hspmv_order_nd(const hspmv_csr *A, int64_t *rp, int64_t *cp, hspmv_error *err);

/* HSPMV_OK when p[0..n) is a permutation of 0..n-1, else HSPMV_ERR_ARG
   naming what (e.g. "row_perm") and the first bad entry. */
int hspmv_order_check(const int64_t *p, int64_t n, const char *what, hspmv_error *err);

/* inv[p[k]] = k. */
void hspmv_order_invert(const int64_t *p, int64_t n, int64_t *inv);

/* 1 when p is the identity. */
int hspmv_order_is_identity(const int64_t *p, int64_t n);

/* B = A(rp, cp): row k of B is row rp[k] of A, column k of B column cp[k]
   of A, columns ascending in each row; the permutations are trusted
   (hspmv_order_check them first). In parallel over rows (threads <= 0: all). */
int hspmv_order_apply(const hspmv_csr *A, const int64_t *rp, const int64_t *cp, int threads, hspmv_csr *B,
                      hspmv_error *err);

/* x[k] = x[0] + ... + x[k] for k in 0..n (n + 1 entries), in place, in
   parallel (threads <= 0: all): row pointers from row lengths. */
void hspmv_order_scan(int64_t *x, int64_t n, int threads);
/* The threads a step of an ordering runs on: threads, or all (omp_get_max_threads()) when <= 0. */
int hspmv_order_threads(int threads);

/* A random permutation of 0..n-1 from seed (Fisher-Yates over splitmix64). */
void hspmv_order_random(int64_t *p, int64_t n, uint64_t seed);

/* What hspmv_order_choose decided and measured. */
typedef struct hspmv_order_choice {
    int asked, used;          /* HSPMV_REORDER_*: used is NONE where auto kept the caller's order */
    hspmv_order_stats before; /* of A as given */
    hspmv_order_stats after;  /* of the order in use (== before when none) */
    double seconds;           /* ordering, measuring and permuting */
    int64_t *rp, *cp;         /* the order in use (new -> old), NULL when none; hspmv_free them */
    int tried;                /* an order was computed (auto: 0 when RCM gave up after one search) */
} hspmv_order_choice;

/* `auto` reorders only where the caller's order is poor: fewer than
   HSPMV_AUTO_LOCAL of the entries within the window, and RCM then raises
   that fraction by at least HSPMV_AUTO_GAIN (else the caller's order stays,
   and the RCM that was tried is counted in the seconds). */
#define HSPMV_AUTO_LOCAL 0.9
#define HSPMV_AUTO_GAIN 0.25
/* ... and RCM gives up after its first breadth-first search where that
   search's levels are on average wider than HSPMV_AUTO_WIDTH windows (an
   expander graph: random or power-law columns reach everything in a few
   levels): RCM's levels, and so most entries' distances, cannot come
   within the window, and the caller's order stays. */
#define HSPMV_AUTO_WIDTH 4

/* How hspmv_order_rcm_within runs. */
typedef struct hspmv_rcm_opts {
    double width_limit;   /* > 0: give up (*hopeless = 1, rp and cp unset) when the first
                             breadth-first search of the first component (the search the
                             George-Liu start begins with anyway) has levels wider than
                             this on average; 0: never */
    int threads;          /* threads for the graph, the searches and the sweep (<= 0: all) */
    int64_t serial_below; /* levels narrower than this are taken by one thread (0: the
                             default below; tests pass 1 to take every level by all) */
} hspmv_rcm_opts;
/* A level of this many nodes is worth a barrier or two of the team. */
#define HSPMV_RCM_SERIAL_BELOW 2048

/* hspmv_order_rcm as o says; the same order at every thread count. */
int hspmv_order_rcm_within(const hspmv_csr *A, int64_t *rp, int64_t *cp, const hspmv_rcm_opts *o, int *hopeless,
                           hspmv_error *err);

/* Orders A by asked (HSPMV_REORDER_NONE, _RCM, _ND or _AUTO; test: the
   HSPMV_TEST string for the window) into *C and, when an order is used,
   B = A(rp, cp) (else B is zeroed). threads: for the parallel parts
   (<= 0: all). HSPMV_OK, HSPMV_ERR_ARG (unknown method),
   HSPMV_ERR_UNSUPPORTED (nd: rectangular, no METIS), HSPMV_ERR_NOMEM. */
int hspmv_order_choose(const hspmv_csr *A, int asked, const char *test, int threads, hspmv_order_choice *C,
                       hspmv_csr *B, hspmv_error *err);

/* B = A(row_perm, col_perm) after checking A (hspmv_csr_validate) and that
   both are permutations (HSPMV_ERR_ARG naming the entry, B zeroed). */
int hspmv_order_permute(const hspmv_csr *A, const int64_t *row_perm, const int64_t *col_perm, hspmv_csr *B,
                        hspmv_error *err);

/* "none", "rcm", "nd", "auto" (NULL for an unknown value). */
const char *hspmv_order_name(int method);

#endif
