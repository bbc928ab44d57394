/* util.h — private helpers shared by every layer: error messages, allocation. */
#ifndef HSPMV_UTIL_H
#define HSPMV_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include "hspmv.h"
#include "settings.h" /* hspmv_test_* */
#include "alloc.h"    /* hspmv_calloc, hspmv_alloc_fail_after */

/* Records code and a printf-style message in *err (if not NULL); returns code. */
int hspmv_err(hspmv_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* hspmv_err for a message about a file: "NAME:LINE: TEXT" (":LINE" left
   out when line <= 0). A name too long to leave room for the text is
   shortened from the front ("...tail of the path"), so the reason is
   never cut off. */
int hspmv_err_file(hspmv_error *err, int code, const char *name, int64_t line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Clears *err (if not NULL) and returns HSPMV_OK. */
int hspmv_ok(hspmv_error *err);

/* Bytes this process can still be given: the smallest of physical memory,
   its cgroup's memory.max, and the address-space (ulimit -v) and data
   (ulimit -d) limits less what it uses of them now; *what names which. */
double hspmv_mem_available(const char **what);

/* HSPMV_OK when need bytes fit in hspmv_mem_available(), else HSPMV_ERR_NOMEM
   with "NAME:LINE: WHAT needs X GB, more than LIMIT allows (Y GB)" (name
   NULL: "WHAT needs ..."). Called before allocating for sizes a file or a
   caller declares, so that an absurd size is refused with its figure
   instead of paging the machine to death. */
int hspmv_mem_check(double need, const char *name, int64_t line, const char *what, hspmv_error *err);

/* The same against one kind of limit: what this process alone may map
   (HSPMV_MEM_PROCESS: ulimit -v and -d) or what it shares with every
   process of its machine (HSPMV_MEM_MACHINE: physical memory, the cgroup's
   memory.max), e.g. the sum of what the ranks of one node will hold. */
enum { HSPMV_MEM_PROCESS = 1, HSPMV_MEM_MACHINE = 2, HSPMV_MEM_ALL = 3 };
double hspmv_mem_available_of(int kinds, const char **what);
int hspmv_mem_check_of(int kinds, double need, const char *name, int64_t line, const char *what, hspmv_error *err);

/* Test hooks: > 0 stands in for the physical memory (bytes), and for what
   this process's own limits (ulimit -v, -d) leave it. */
extern double hspmv_mem_test_bytes;
extern double hspmv_mem_test_process_bytes;

/* n*size with overflow check; returns 0 on overflow (callers treat as NOMEM). */
size_t hspmv_bytes(size_t n, size_t size);

/* Allocates n elements of size bytes, 64-byte aligned; NULL on failure or
   overflow. From 2 MiB on (hspmv_malloc too): a fresh mapping, 2 MiB
   aligned, advised MADV_HUGEPAGE before the first touch. */
void *hspmv_alloc_array(size_t n, size_t size);

/* Like hspmv_alloc_array, for arrays a product streams or gathers from:
   from 1 MiB on, rounded up to whole 2 MiB pages (then all of it can be on
   huge pages). Freed with hspmv_free. */
void *hspmv_alloc_pages(size_t n, size_t size);


/* Shared memory on huge pages (shared_pages.c). hspmv_shared_alias maps
   the page range of [p, p+len) of a shared file mapping (an MPI shared
   window) a second time, at an address congruent with its file offset
   modulo 2 MiB, where the kernel can map it 2 MiB at a time; returns 1 and
   fills A, or 0 (A->to NULL) where not needed (already congruent), not
   possible. */
typedef struct hspmv_alias {
    char *from, *to; /* the aliased page range and its second mapping */
    size_t len;
} hspmv_alias;
int hspmv_shared_alias(hspmv_alias *A, void *p, size_t len);
/* [p, p+len) where its pages can be mapped 2 MiB at a time: in a second
   mapping made by hspmv_shared_alias (into A) where p's is not congruent,
   else p itself; advised MADV_HUGEPAGE either way. */
void *hspmv_shared_view(hspmv_alias *A, void *p, size_t len);
/* p's address in the alias when p lies in the aliased range, else p. */
void *hspmv_alias_of(const hspmv_alias *A, void *p);
void hspmv_shared_unalias(hspmv_alias *A);
/* Part part of nparts of the whole 2 MiB pages in [p, p+len), populated
   (contents kept) and collapsed into huge pages (MADV_COLLAPSE), which
   shared memory gets whatever /sys/kernel/mm/transparent_hugepage/
   shmem_enabled says; returns the bytes now on huge pages (0 where the
   kernel cannot, or p's mapping is not congruent: see hspmv_shared_alias). */
size_t hspmv_shared_huge(void *p, size_t len, int part, int nparts);

/* Memory another layer lends out as if allocated (vectors in a shared
   window): hspmv_free(p) of a p in [lo, lo+bytes) calls release(ctx, p)
   instead of free. Thread-safe. Returns HSPMV_OK or HSPMV_ERR_NOMEM. */
int hspmv_lend_range(void *lo, size_t bytes, void (*release)(void *ctx, void *p), void *ctx);
/* Forgets the range that starts at lo. */
void hspmv_unlend_range(void *lo);

/* csr_basic.c. Checks the invariants of *csr (pointers monotone, columns in
   range and ascending). Returns HSPMV_OK or HSPMV_ERR_FORMAT with the first
   offence. (hspmv_csr_free, public, is defined beside it.) */
int hspmv_csr_validate(const hspmv_csr *csr, hspmv_error *err);

/* threads.c. The most OpenMP threads a call may be given (hspmv_opts.threads,
   hspmv_read_opts.threads, or omp_get_max_threads() when that is 0): 8 per
   processor this process may run on (omp_get_num_procs()), and never fewer
   than 256. More is refused with HSPMV_ERR_ARG: the OpenMP runtime crashes
   or exits on absurd counts. */
int hspmv_max_threads(void);
/* Processors this process may run on: its affinity mask's count
   (sched_getaffinity; mpirun's binding narrows it), else the online ones. */
int hspmv_cpus_allowed(void);
/* The affinity mask as bits (processor c: bit c%64 of words[c/64], at most
   64*nwords processors); returns how many are set (0 if unknown). */
int hspmv_cpu_mask(uint64_t *words, int nwords);

#endif
