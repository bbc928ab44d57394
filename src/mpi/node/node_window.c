/* node_window.c — the node's MPI-3 shared window: the ranks' flags, the
   node vectors (slots for hspmv_dist_vec_alloc, two parity buffers for a
   caller's x) and the two ghost areas; lending slots as vectors, and the
   spin waits on the flags. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

#define PAGE ((size_t)4096)
#define SLOTS_DEFAULT 16

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

double hspmv_node_wait(const uint64_t *flag, uint64_t n, unsigned spin)
{
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= n) return 0;
    double t0 = MPI_Wtime();
    /* spin a little (one rank per core: the other is about to publish),
       then yield the core (oversubscribed runs, spin 0: at once, as the
       other may need it to get here) */
    for (unsigned it = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) < n; it++) hspmv_node_pause(it, spin);
    return MPI_Wtime() - t0;
}

void hspmv_node_pause(unsigned it, unsigned spin)
{
    if (it < spin) cpu_relax();
    else sched_yield();
}

void hspmv_node_publish(uint64_t *flag, uint64_t n) { __atomic_store_n(flag, n, __ATOMIC_RELEASE); }

/* hspmv_free of a window vector: its slot is free again. */
static void give_back_slot(void *ctx, void *p)
{
    node_pool *pool = ctx;
    int64_t d = (hspmv_real *)p - pool->vecs, s = d / pool->stride;
    if (d >= 0 && s < pool->nslots) __atomic_store_n(&pool->used[s], 0, __ATOMIC_RELEASE);
}

int hspmv_node_slot_of(const hspmv_node *N, const hspmv_real *x)
{
    if (!N->pool || N->nslots == 0 || !x) return -1;
    uintptr_t a = (uintptr_t)x, lo = (uintptr_t)N->vecs,
              hi = (uintptr_t)(N->vecs + (int64_t)N->nslots * N->vec_stride);
    if (a < lo || a >= hi) return -1;
    int64_t d = (int64_t)((a - lo) / sizeof(hspmv_real)), s = d / N->vec_stride;
    if (d != s * N->vec_stride + N->part_off[N->rank] || (a - lo) % sizeof(hspmv_real)) return -1;
    return __atomic_load_n(&N->pool->used[s], __ATOMIC_ACQUIRE) ? (int)s : -1;
}

int hspmv_node_x_slot(const hspmv_node *N, const hspmv_real *x)
{
    int s = hspmv_node_slot_of(N, x);
    if (s < 0 && N->lend && (s = hspmv_node_slot_of(N->lend, x)) >= 0) s += HSPMV_NODE_LENT;
    return s;
}

hspmv_real *hspmv_node_slot_vec(const hspmv_node *N, int s, int b)
{
    if (s >= HSPMV_NODE_LENT) return N->lend->vecs + (int64_t)(s - HSPMV_NODE_LENT) * N->lend->vec_stride;
    return N->vecs + (int64_t)(s >= 0 ? s : N->nslots + b) * N->vec_stride;
}

void hspmv_node_lend(hspmv_node *N, const hspmv_node *from)
{
    int ok = from && from->have_win && N->have_win && from->nslots > 0 && from->size == N->size &&
             from->vec_stride == N->vec_stride, all = 0;
    for (int q = 0; ok && q <= N->size; q++) ok = from->part_off[q] == N->part_off[q];
    for (int q = 0; ok && q < N->size; q++) ok = from->member[q] == N->member[q];
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, N->comm);
    N->lend = all ? from : NULL;
}

hspmv_real *hspmv_node_vec_take(hspmv_node *N)
{
    if (!N->pool) return NULL;
    for (int s = 0; s < N->nslots; s++) {
        int zero = 0;
        if (__atomic_compare_exchange_n(&N->pool->used[s], &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            hspmv_real *v = N->vecs + (int64_t)s * N->vec_stride;
            if (!(N->huge_slots >> s & 1)) { /* this rank's share of the slot's huge pages, once */
                N->huge_slots |= (uint64_t)1 << s;
                (void)hspmv_shared_huge(v, (size_t)N->vec_stride * sizeof(hspmv_real), N->rank, N->size);
            }
            return v + N->part_off[N->rank];
        }
    }
    return NULL;
}

/* Slots forced by HSPMV_TEST's node_slots (0..64), else the
   default, or none on a node of one rank: no other rank reads its x, so
   its vectors are better off in private memory on huge pages (measured
   while the window was on 4 KiB pages: 1 rank x 16 threads, random 4M x 8,
   one job on the 16-core Xeon, 13.47 ms per product with x in the window,
   benchmark-omp 11.38 ms with x on huge pages; where the kernel cannot
   collapse shared memory it still is). */
static int slots_wanted(const hspmv_dist *D, const hspmv_node *N)
{
    return (int)hspmv_test_int(D->test, "node_slots", N->size > 1 ? SLOTS_DEFAULT : 0);
}

/* The layout's size in bytes for nslots slots. */
static size_t layout_bytes(const hspmv_node *N, int nslots, size_t *flags_b, size_t *vec_b, size_t *gh_b)
{
    *flags_b = round_up((size_t)N->size * sizeof(node_flags), PAGE);
    *vec_b = (size_t)N->vec_stride * sizeof(hspmv_real);
    *gh_b = (size_t)N->gh_stride * sizeof(hspmv_real);
    return *flags_b + (size_t)(nslots + 2) * *vec_b + 2 * *gh_b;
}

/* One try at a window of nslots slots; the status agreed over D->comm. */
static int try_window(hspmv_dist *D, hspmv_node *N, int nslots, hspmv_error *err)
{
    size_t fb, vb, gb, bytes = layout_bytes(N, nslots, &fb, &vb, &gb) + PAGE; /* room to align */
    void *mine = NULL, *b0 = NULL;
    MPI_Aint qsize;
    int qdisp, rc = HSPMV_OK;
    /* every rank of the node maps all of it: checked on every rank and agreed
       before MPI is asked, because Open MPI 4.1 hangs when the allocation
       fails on some ranks of a node only (the others wait in its collectives) */
    char what[240];
    snprintf(what, sizeof(what), "rank %d: the node's shared window (the node's x %d times, %d of them vectors to "
             "lend, and 2 ghost areas)", D->rank, nslots + 2, nslots);
    rc = hspmv_mem_check((double)bytes, NULL, 0, what, err);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) return rc;
    if (MPI_Win_allocate_shared(N->rank == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, N->comm, &mine, &N->win) !=
        MPI_SUCCESS) {
        N->win = MPI_WIN_NULL;
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: MPI_Win_allocate_shared of %zu bytes failed", D->rank,
                       bytes);
    } else if (MPI_Win_shared_query(N->win, 0, &qsize, &qdisp, &b0) != MPI_SUCCESS || !b0 ||
               (size_t)qsize < bytes) {
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: MPI_Win_shared_query gave no usable memory", D->rank);
    }
    rc = hspmv_dist_agree(D->comm, rc, err);
    if (rc) {
        if (N->win != MPI_WIN_NULL) MPI_Win_free(&N->win);
        N->win = MPI_WIN_NULL;
        return rc;
    }
    /* a passive-target epoch for the lifetime of the window (MPI-3's model
       for load/store access to shared windows); synchronisation is by the
       flags, with C11-style acquire/release atomics */
    MPI_Win_lock_all(MPI_MODE_NOCHECK, N->win);
    N->have_win = 1;
    /* each process maps the segment at its own address: the layout starts
       at an offset from the segment all agree on (node rank 0's 4 KiB
       boundary; mappings start on page boundaries, so it is one everywhere) */
    int64_t off = (int64_t)((((uintptr_t)b0 + PAGE - 1) & ~(uintptr_t)(PAGE - 1)) - (uintptr_t)b0);
    MPI_Bcast(&off, 1, MPI_INT64_T, 0, N->comm);
    N->base = (char *)b0 + off;
    /* Open MPI maps the window wherever mmap puts it, rarely 2 MiB
       congruent with the file: a second mapping of it that is, so that its
       pages can be huge (shared_pages.c); used for all the layout's reads
       and writes (the same pages: Open MPI's mapping sees them) */
    N->base = hspmv_shared_view(&N->alias, N->base, bytes - PAGE); /* advised huge before anything is touched */
    N->nslots = nslots;
    N->flags = (node_flags *)N->base;
    N->vecs = (hspmv_real *)(N->base + fb);
    N->ghost = (hspmv_real *)(N->base + fb + (size_t)(nslots + 2) * vb);
    /* the parity buffers and ghost areas now, each rank a share; the
       slots when they are first lent (hspmv_node_vec_take): collapsing
       commits the memory */
    char *ex = (char *)(N->vecs + (int64_t)nslots * N->vec_stride);
    (void)hspmv_shared_huge(ex, (size_t)(N->base + bytes - PAGE - ex), N->rank, N->size);
    return HSPMV_OK;
}

int hspmv_node_window(hspmv_dist *D, hspmv_node *N, hspmv_error *err)
{
    const int64_t pad = (int64_t)(PAGE / sizeof(hspmv_real));
    int rc, want = slots_wanted(D, N), tries[3] = {want, want > 2 ? 2 : want, 0};
    N->vec_stride = (N->vec_len + pad - 1) / pad * pad;
    if (N->vec_stride == 0) N->vec_stride = pad;
    N->gh_stride = (N->gh_len + pad - 1) / pad * pad;
    N->pool = malloc(sizeof(*N->pool)); /* may outlive the matrix: plain malloc, not hspmv's hook */
    rc = N->pool ? HSPMV_OK : hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the window", D->rank);
    if (!rc && hspmv_test_int(D->test, "no_window", 0) && D->rank == D->size - 1) /* tests: an MPI without windows */
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: no shared-memory window (HSPMV_TEST no_window=1)", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) {
        free(N->pool);
        N->pool = NULL;
        return rc;
    }
    memset(N->pool, 0, sizeof(*N->pool));
    for (int t = 0; t < 3; t++) { /* fewer slots if a large window is refused */
        if (t > 0 && tries[t] == tries[t - 1]) continue;
        rc = try_window(D, N, tries[t], err);
        if (!rc) break;
    }
    if (rc) {
        free(N->pool);
        N->pool = NULL;
        return rc;
    }
    /* flags start at 0 (call numbers start at 1): each rank clears its own */
    memset(&N->flags[N->rank], 0, sizeof(node_flags));
    N->pool->vecs = N->vecs;
    N->pool->stride = N->vec_stride;
    N->pool->nslots = N->nslots;
    if (N->nslots > 0 &&
        hspmv_lend_range(N->vecs, (size_t)N->nslots * (size_t)N->vec_stride * sizeof(hspmv_real), give_back_slot,
                         N->pool) != HSPMV_OK)
        N->pool->nslots = N->nslots = 0; /* no zero-copy vectors, nothing else lost */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    MPI_Barrier(N->comm);
    return HSPMV_OK;
}

/* Collective over the node. A window whose vectors are still lent out (a
   caller kept a vector of hspmv_dist_vec_alloc past hspmv_dist_destroy)
   stays mapped, so that the vector remains valid, until the program ends. */
void hspmv_node_window_free(hspmv_node *N)
{
    if (!N->have_win) return;
    int live = 0, any = 0;
    for (int s = 0; N->pool && s < N->pool->nslots; s++) live |= __atomic_load_n(&N->pool->used[s], __ATOMIC_ACQUIRE);
    MPI_Allreduce(&live, &any, 1, MPI_INT, MPI_MAX, N->comm);
    if (any) return; /* the pool stays lent, and the window with it */
    if (N->pool && N->pool->nslots > 0) hspmv_unlend_range(N->vecs);
    free(N->pool);
    N->pool = NULL;
    hspmv_shared_unalias(&N->alias);
    MPI_Win_unlock_all(N->win);
    MPI_Win_free(&N->win);
    N->have_win = 0;
}
