/* local_calls.h — private: what the layers above (src/mpi, the programs,
   the tests) call on prepared one-rank matrices beyond the public create,
   spmv, get_info and destroy: first touch, cache sharing and the kernel
   timing of a group of matrices. */
#ifndef HSPMV_LOCAL_CALLS_H
#define HSPMV_LOCAL_CALLS_H

#include <stdint.h>
#include "hspmv.h"

#include "util.h" /* hspmv_max_threads, hspmv_cpus_allowed */

/* Sets v[0..n) to zero with the same static thread layout the kernels use,
   so its pages are first touched where they will be read (x) or written (y),
   after asking for transparent huge pages on it (4 MiB or more): the random gathers of a large x miss the TLB on nearly
   every entry with 4 KiB pages, far less often with 2 MiB ones. */
void hspmv_local_touch(const hspmv_local *L, hspmv_real *v, int64_t n);

/* L's products run beside those of ranks-1 other processes of about its
   size on the same last-level cache (the ranks of a node): its choice of
   streaming stores for y (hspmv_local_info.stream_y) counts their bytes
   too. Not thread-safe against products of L in flight; accepts NULL. */
void hspmv_local_cache_sharers(hspmv_local *L, int ranks);

/* Kernel "auto" for matrices always multiplied together (row pieces of one
   block, a block and its ghost part), each created with kernel "auto":
   when their nonzeros add up to 2^20 or more, times every kernel set on all
   of them at once and gives every one the fastest (pieces under 2^20 are
   not timed on their own, and one choice for all keeps them consistent).
   NULL entries are skipped. */
void hspmv_local_tune_group(hspmv_local **L, int n);

/* The steps of hspmv_local_tune_group, for callers that combine timings
   (e.g. the slowest rank's): t[s] = seconds of one product of the whole
   group with kernel set s (the sets this CPU runs, best guess first, at
   most max), the fastest of five rounds that each time every set once, in
   turn, after one untimed round; returns how many sets, 0 when there is
   nothing to time or no memory. */
int hspmv_local_time_kernels(hspmv_local **L, int n, double *t, int max);

/* The same with sync(ctx) called before every timed product (and the
   untimed round's), for callers that run it on several processes at once
   and keep them in step (an MPI barrier): each set is then timed while
   every core runs that set, as in a product of them all. Called
   (rounds x sets) times whatever happens, also where L has nothing to
   time (n = 0) or memory ran out (t all 0 there): max must be the same
   everywhere (no more than this CPU's sets). */
int hspmv_local_time_kernels_in_step(hspmv_local **L, int n, double *t, int max, void (*sync)(void *), void *ctx);

/* Gives every matrix of the group kernel set s (as numbered above). */
void hspmv_local_use_kernels(hspmv_local **L, int n, int s);

/* Index of the set to keep from times t[0..ns): the fastest, unless it beats
   the narrowest vector set (set ns-2: AVX2 where AVX-512 is there too; the
   scalar set is always last) by less than the timing noise (3%). */
int hspmv_local_pick_kernels(const double *t, int ns);

/* local_transpose.c. A's entries decoded back from L's format into *A
   (allocated here; free with hspmv_csr_free): the same entries and value
   bits as the CSR L was made from, rows in order (a row's entries in
   column order where the CSR's were). HSPMV_ERR_NOMEM. */
int hspmv_local_to_csr(const hspmv_local *L, hspmv_csr *A, hspmv_error *err);
/* *T = A^T (allocated here), by a counting sort with up to `threads`
   OpenMP threads (the same T for any count): T's rows are sorted.
   HSPMV_OK or HSPMV_ERR_NOMEM (T zeroed). */
int hspmv_local_csr_transpose(const hspmv_csr *A, hspmv_csr *T, int threads);
#endif
