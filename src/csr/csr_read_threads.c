/* csr_read_threads.c — a plain Matrix Market file to CSR with OpenMP threads:
   each thread parses a byte range into its own triplets, the ranges' row
   counts give every thread its places in the CSR arrays, and rows are
   sorted and summed in parallel; the result is the one-thread read's, bit
   for bit, and so is every message. */
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "csr_build.h"
#include "csr_read_threads.h"

/* A range's entries, their row window and per-row counts (then offsets). */
typedef struct piece_job {
    int64_t begin, end;
    mtx_piece p;
    hspmv_error err;
    int64_t lo, hi;     /* rows its entries (and mirrors) fall in: [lo, hi] */
    uint32_t *cnt;      /* hi-lo+1: entries per row, then each row's first place for this range */
} piece_job;

/* Progress over all ranges, reported from the master thread only. */
typedef struct progress_all {
    const hspmv_read_opts *opts;
    piece_job *jobs;
    int64_t *done;      /* per range: bytes read */
    int n;
    int64_t head, size; /* bytes before the ranges, file size */
} progress_all;

typedef struct progress_one {
    progress_all *all;
    int i;
} progress_one;

static void report(progress_all *a)
{
    int64_t sum = a->head;
    for (int i = 0; i < a->n; i++) {
        int64_t d;
#pragma omp atomic read
        d = a->done[i];
        sum += d;
    }
    a->opts->progress(sum, a->size, a->opts->progress_ctx);
}

static void piece_progress(int64_t offset, int64_t total, void *ctx)
{
    progress_one *o = ctx;
    const piece_job *j = &o->all->jobs[o->i];
    int64_t *slot = &o->all->done[o->i];
    (void)total;
    /* a range reads on to finish its last line: count only its own bytes */
    if (offset > j->end) offset = j->end;
#pragma omp atomic write
    *slot = offset > j->begin ? offset - j->begin : 0;
    if (omp_get_thread_num() == 0) report(o->all);
}

/* Ranges: one per thread, more when a range would pass 2^31 bytes (so a
   range's per-row counts fit 32 bits: at most 2^29 lines, 2^30 entries with
   mirrors), or every `chunk` bytes (test knob). */
static int64_t count_ranges(int64_t data, int threads, int64_t chunk)
{
    int64_t n = threads, most = ((int64_t)1 << 31);
    if (chunk > 0) n = data > 0 ? (data + chunk - 1) / chunk : 1;
    if (data / n >= most) n = data / most + 1;
    if (n < 1) n = 1;
    if (n > INT32_MAX / 2) n = INT32_MAX / 2;
    return n;
}

static void free_jobs(piece_job *J, int64_t n)
{
    if (!J) return;
    for (int64_t i = 0; i < n; i++) {
        hspmv_mtx_piece_free(&J[i].p);
        hspmv_free(J[i].cnt);
    }
    hspmv_free(J);
}

/* Rows the entries of a range fall in, and its counts per row. */
static int count_rows(piece_job *j, int mirror)
{
    const int32_t *r = j->p.row, *c = j->p.col;
    int64_t n = j->p.nnz, lo = INT32_MAX, hi = -1;
    for (int64_t k = 0; k < n; k++) {
        if (r[k] < lo) lo = r[k];
        if (r[k] > hi) hi = r[k];
        if (mirror) {
            if (c[k] < lo) lo = c[k];
            if (c[k] > hi) hi = c[k];
        }
    }
    if (hi < lo) lo = hi = 0;
    j->lo = lo;
    j->hi = hi;
    if (!(j->cnt = hspmv_calloc((size_t)(hi - lo + 1), sizeof(uint32_t)))) return HSPMV_ERR_NOMEM;
    uint32_t *cnt = j->cnt - lo;
    for (int64_t k = 0; k < n; k++) {
        cnt[r[k]]++;
        if (mirror && r[k] != c[k]) cnt[c[k]]++;
    }
    return HSPMV_OK;
}

/* Row i's length over all ranges; each range's count becomes its first
   place within the row (ranges in file order). */
static int64_t row_places(piece_job *J, int64_t n, int64_t i)
{
    int64_t acc = 0;
    for (int64_t p = 0; p < n; p++) {
        if (i < J[p].lo || i > J[p].hi) continue;
        uint32_t *c = &J[p].cnt[i - J[p].lo];
        uint32_t k = *c;
        *c = (uint32_t)acc;
        acc += k;
    }
    return acc;
}

/* Places a range's entries (and mirrors) in A and frees them. */
static void place(piece_job *j, hspmv_csr *A, int sym)
{
    const int32_t *r = j->p.row, *c = j->p.col;
    const hspmv_real *v = j->p.val;
    const hspmv_real sign = sym == HSPMV_SKEW_SYMMETRIC ? -1 : 1;
    const int64_t *rp = A->rowptr;
    uint32_t *cnt = j->cnt - j->lo;
    int32_t *ci = A->colind;
    hspmv_real *av = A->val;
    for (int64_t k = 0, n = j->p.nnz; k < n; k++) {
        int64_t q = rp[r[k]] + cnt[r[k]]++;
        ci[q] = c[k];
        av[q] = v[k];
        if (sym != HSPMV_GENERAL && r[k] != c[k]) {
            q = rp[c[k]] + cnt[c[k]]++;
            ci[q] = r[k];
            av[q] = sign * v[k];
        }
    }
    hspmv_mtx_piece_free(&j->p);
    hspmv_free(j->cnt);
    j->cnt = NULL;
}

/* Exclusive prefix sum in place over a[0..n] (a[n] gets the total), by blocks. */
void hspmv_prefix_sum_threads(int64_t *a, int64_t n, int threads)
{
    int64_t sums[257];
    int T = threads > 256 ? 256 : threads;
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t b = n * t / nt, e = n * (t + 1) / nt, s = 0;
        for (int64_t i = b; i < e; i++) s += a[i];
        sums[t + 1] = s;
#pragma omp barrier
#pragma omp single
        {
            sums[0] = 0;
            for (int k = 0; k < nt; k++) sums[k + 1] += sums[k];
            a[n] = sums[nt];
        }
        s = sums[t];
        for (int64_t i = b; i < e; i++) {
            int64_t x = a[i];
            a[i] = s;
            s += x;
        }
    }
}

int hspmv_csr_sort_and_sum_threads(hspmv_csr *A, int threads, const char *path, int64_t row0, hspmv_error *err)
{
    const int64_t n = A->nrows;
    int64_t *len = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t)), badrow = INT64_MAX;
    int32_t badcol = 0;
    if (!len) return hspmv_err(err, HSPMV_ERR_NOMEM, "CSR build: out of memory for %lld rows", (long long)n);
#pragma omp parallel num_threads(threads)
    {
        int bad = 0;
        int32_t bc = 0;
        int64_t br = -1;
#pragma omp for schedule(dynamic, 4096)
        for (int64_t i = 0; i < n; i++) {
            int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
            hspmv_csr_sort_row(A->colind + b, A->val + b, e - b);
            int was = bad;
            len[i] = hspmv_csr_sum_row(A->colind + b, A->val + b, e - b, &bad, &bc);
            if (bad && !was) br = i;
        }
#pragma omp critical
        if (br >= 0 && br < badrow) {
            badrow = br;
            badcol = bc;
        }
    }
    if (badrow != INT64_MAX) {
        hspmv_free(len);
        return hspmv_csr_fault_dup(err, path, row0 + badrow, badcol);
    }
    hspmv_prefix_sum_threads(len, n, threads);
    if (len[n] != A->nnz) { /* duplicates were summed: copy the rows to their new places */
        int32_t *ci = hspmv_alloc_array((size_t)(len[n] ? len[n] : 1), sizeof(int32_t));
        hspmv_real *v = hspmv_alloc_array((size_t)(len[n] ? len[n] : 1), sizeof(hspmv_real));
        if (!ci || !v) {
            hspmv_free(ci);
            hspmv_free(v);
            hspmv_free(len);
            return hspmv_err(err, HSPMV_ERR_NOMEM, "CSR build: out of memory for %lld entries", (long long)A->nnz);
        }
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            int64_t k = len[i + 1] - len[i];
            memcpy(ci + len[i], A->colind + A->rowptr[i], (size_t)k * sizeof(int32_t));
            memcpy(v + len[i], A->val + A->rowptr[i], (size_t)k * sizeof(hspmv_real));
        }
        hspmv_free(A->colind);
        hspmv_free(A->val);
        A->colind = ci;
        A->val = v;
        A->nnz = len[n];
        memcpy(A->rowptr, len, ((size_t)n + 1) * sizeof(int64_t));
    }
    hspmv_free(len);
    return hspmv_ok(err);
}

/* Transparent huge pages for a big fresh array, as the reader asks for its
   triplets: first touch is otherwise a page fault per 4 KB. */
static void want_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = (uintptr_t)p + bytes;
    if (bytes >= 2 * huge && e > a) madvise((void *)a, (e - a) & ~(huge - 1), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* The CSR of the parsed ranges (freed as they are placed). */
static int build(piece_job *J, int64_t nj, const mtx_header *h, int threads, const char *path, hspmv_csr *A,
                 hspmv_error *err)
{
    const int64_t n = h->nrows;
    const int mirror = h->symmetry != HSPMV_GENERAL;
    int nomem = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(|| : nomem)
    for (int64_t i = 0; i < nj; i++) nomem = count_rows(&J[i], mirror) != HSPMV_OK;
    A->nrows = n;
    A->ncols = h->ncols;
    A->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    if (nomem || !A->rowptr) goto nomem;
    int64_t longest = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : longest)
    for (int64_t i = 0; i < n; i++) {
        A->rowptr[i] = row_places(J, nj, i);
        if (A->rowptr[i] > longest) longest = A->rowptr[i];
    }
    if (longest > UINT32_MAX)
        return hspmv_err_file(err, HSPMV_ERR_UNSUPPORTED, path, 0,
                              "a row holds %lld entries before duplicates are summed; at most 2^32-1 are "
                              "read with threads (read it with one thread)", (long long)longest);
    hspmv_prefix_sum_threads(A->rowptr, n, threads);
    A->nnz = A->rowptr[n];
    A->colind = hspmv_alloc_array((size_t)(A->nnz ? A->nnz : 1), sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)(A->nnz ? A->nnz : 1), sizeof(hspmv_real));
    if (!A->colind || !A->val) goto nomem;
    want_huge_pages(A->colind, (size_t)A->nnz * sizeof(int32_t));
    want_huge_pages(A->val, (size_t)A->nnz * sizeof(hspmv_real));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < nj; i++) place(&J[i], A, h->symmetry);
    return hspmv_csr_sort_and_sum_threads(A, threads, path, 0, err);
nomem:
    return hspmv_err(err, HSPMV_ERR_NOMEM, "CSR build: out of memory for a %lld x %lld matrix with %lld entries",
                     (long long)n, (long long)h->ncols, (long long)h->nnz);
}

int hspmv_csr_read_ranges(const char *path, const mtx_prologue *pr, int threads, int64_t chunk, hspmv_csr *A,
                          const hspmv_read_opts *opts, hspmv_read_info *info, hspmv_error *err)
{
    const int64_t lo = pr->data_offset < pr->file_size ? pr->data_offset : pr->file_size, hi = pr->file_size;
    const int64_t nj = count_ranges(hi - lo, threads, chunk);
    piece_job *J = hspmv_calloc((size_t)nj, sizeof(piece_job));
    mtx_outcome *o = hspmv_calloc((size_t)nj, sizeof(mtx_outcome));
    progress_one *po = hspmv_calloc((size_t)nj, sizeof(progress_one));
    int64_t *done = hspmv_calloc((size_t)nj, sizeof(int64_t));
    progress_all pa = {opts, J, done, (int)nj, lo, pr->file_size};
    int rc = HSPMV_OK, fd = -1;
    mtx_first f;

    memset(A, 0, sizeof(*A));
    if (info) memset(info, 0, sizeof(*info));
    if (!J || !o || !po || !done) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "out of memory for %lld ranges", (long long)nj);
        goto out;
    }
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
        goto out;
    }
    int with_progress = opts && opts->progress && nj <= INT32_MAX;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < nj; i++) {
        piece_job *j = &J[i];
        hspmv_mtx_split(lo, hi, chunk, (int)i, (int)nj, &j->begin, &j->end);
        po[i].all = &pa;
        po[i].i = (int)i;
        /* line numbers are guessed (0): only a fault's message needs them, and
           the fault that comes first is parsed again below with the true one */
        hspmv_mtx_read_range(path, fd, pr, j->begin, j->end, 0, pr->h.nnz, 0, with_progress ? piece_progress : NULL,
                       &po[i], &j->p, &j->err);
        o[i].lines = j->p.lines;
        o[i].nnz = j->p.nnz;
        o[i].failed = j->p.rc != HSPMV_OK;
    }
    hspmv_mtx_decide(pr, o, nj, &f);
    if (f.kind == MTX_FIRST_PIECE) {
        mtx_piece again;
        free_jobs(J, nj);
        J = NULL;
        int64_t b, e;
        hspmv_mtx_split(lo, hi, chunk, (int)f.piece, (int)nj, &b, &e);
        rc = hspmv_mtx_read_range(path, fd, pr, b, e, f.first_line, f.cap, 0, NULL, NULL, &again, err);
        hspmv_mtx_piece_free(&again);
        if (rc == HSPMV_OK) /* a fault that did not come back (out of memory): report it as it was */
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    if (info) {
        info->bytes = pr->file_size;
        info->lines = f.total_lines;
        info->array = pr->h.array;
    }
    if (f.kind == MTX_FIRST_END) {
        rc = hspmv_mtx_fault_end(path, pr, &f, err);
        goto out;
    }
    if (pr->h.array) { /* the places of a dense file's values follow from the values before them */
        int64_t *k0 = hspmv_alloc_array((size_t)nj + 1, sizeof(int64_t));
        if (!k0) {
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "out of memory for %lld ranges", (long long)nj);
            goto out;
        }
        k0[0] = 0;
        for (int64_t i = 0; i < nj; i++) k0[i + 1] = k0[i] + J[i].p.nnz;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < nj; i++) hspmv_mtx_array_place(&pr->h, k0[i], J[i].p.row, J[i].p.col, J[i].p.nnz);
        hspmv_free(k0);
    }
    rc = build(J, nj, &pr->h, threads, path, A, err);
    if (rc == HSPMV_OK && with_progress) opts->progress(pr->file_size, pr->file_size, opts->progress_ctx);
out:
    if (fd >= 0) close(fd);
    free_jobs(J, nj);
    hspmv_free(o);
    hspmv_free(po);
    hspmv_free(done);
    if (rc != HSPMV_OK) hspmv_csr_free(A);
    return rc;
}
