/* mtx_range.c — a plain Matrix Market file read in byte ranges: the prologue
   (banner to size line) read once, each range parsed on its own, and which
   range's fault a whole-file read would have reported first. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io.h"

int hspmv_mtx_read_prologue(const char *path, mtx_prologue *pr, hspmv_error *err)
{
    struct stat st;
    mtx_reader R;
    int rc;
    memset(pr, 0, sizeof(*pr));
    pr->whole_why = "not a regular file";
    /* pipes are not opened here: what is read from them is gone */
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return hspmv_ok(err);
    hspmv_mtx_reader_init(&R, path, err);
    R.header_only = 1;
    if ((rc = hspmv_mtx_source_open_path(&R.src, path, NULL, err)) != HSPMV_OK) return rc;
    if (R.src.gzip) {
        hspmv_mtx_source_close(&R.src);
        pr->whole_why = "gzip";
        return hspmv_ok(err);
    }
    R.src.lines = &R.line;
    rc = hspmv_mtx_read_text(&R, 1);
    if (rc == HSPMV_OK) {
        pr->h = R.h;
        pr->data_offset = R.data_offset;
        pr->lines = R.line;
        pr->file_size = R.src.raw_total;
        pr->splittable = 1;
        pr->whole_why = NULL;
    }
    hspmv_mtx_source_close(&R.src);
    return rc == HSPMV_OK ? hspmv_ok(err) : rc;
}

void hspmv_mtx_split(int64_t lo, int64_t hi, int64_t chunk, int i, int n, int64_t *begin, int64_t *end)
{
    if (hi < lo) hi = lo;
    if (chunk > 0) {
        __int128 b = (__int128)lo + (__int128)chunk * i, e = b + chunk;
        *begin = b < hi ? (int64_t)b : hi;
        *end = i == n - 1 || e > hi ? hi : (int64_t)e;
        return;
    }
    *begin = lo + (int64_t)((__int128)(hi - lo) * i / n);
    *end = lo + (int64_t)((__int128)(hi - lo) * (i + 1) / n);
}

int64_t hspmv_mtx_read_chunk_env(void)
{
    return hspmv_test_int(hspmv_test_spec(), "read_chunk", 0);
}

int hspmv_mtx_read_range(const char *name, int fd, const mtx_prologue *pr, int64_t begin, int64_t end,
                   int64_t first_line, int64_t cap, int keep_on_fault, mtx_range_progress_fn progress,
                   void *progress_ctx, mtx_piece *p, hspmv_error *err)
{
    mtx_reader R;
    int rc;
    memset(p, 0, sizeof(*p));
    hspmv_mtx_reader_init(&R, name, err);
    R.h = pr->h;
    R.state = MTX_AT_ENTRIES;
    R.line = first_line;
    R.limit = cap;
    R.ai = R.h.symmetry == HSPMV_SKEW_SYMMETRIC ? 1 : 0; /* array places are set later (hspmv_mtx_array_place) */
    rc = hspmv_mtx_source_open_range(&R.src, name, fd, begin, end, begin <= pr->data_offset, pr->file_size, err);
    if (rc != HSPMV_OK) return p->rc = rc;
    R.src.lines = &R.line;
    R.src.progress = progress;
    R.src.progress_ctx = progress_ctx;
    int64_t start = R.src.base;
    /* room for what the range should hold at the file's average bytes per
       entry, plus a margin; the arrays grow past it if needed */
    int64_t data = pr->file_size - pr->data_offset, bytes = end - start, est = 1024;
    if (data > 0 && bytes > 0)
        est += (int64_t)((double)bytes / (double)data * (double)pr->h.nnz * 1.1);
    if (bytes > 0 && est > bytes / hspmv_mtx_min_entry_bytes(&pr->h) + 2) est = bytes / hspmv_mtx_min_entry_bytes(&pr->h) + 2;
    if (est > cap) est = cap;
    if (est < 0) est = 0;
    rc = hspmv_mtx_reader_alloc(&R, est);
    if (rc == HSPMV_OK) rc = hspmv_mtx_read_text(&R, 0);
    p->nnz = R.k;
    p->lines = R.line - first_line;
    p->bytes = hspmv_mtx_source_bytes(&R.src) - start;
    hspmv_mtx_source_close(&R.src);
    if (rc != HSPMV_OK && !keep_on_fault) {
        hspmv_free(R.row);
        hspmv_free(R.col);
        hspmv_free(R.val);
        R.row = R.col = NULL;
        R.val = NULL;
    }
    p->row = R.row;
    p->col = R.col;
    p->val = R.val;
    p->rc = rc;
    return rc == HSPMV_OK ? hspmv_ok(err) : rc;
}

void hspmv_mtx_piece_free(mtx_piece *p)
{
    if (!p) return;
    hspmv_free(p->row);
    hspmv_free(p->col);
    hspmv_free(p->val);
    p->row = p->col = NULL;
    p->val = NULL;
}

/* Values stored in column j of an array file of m rows. */
static int64_t array_column_length(int sym, int64_t m, int64_t j)
{
    int64_t n = sym == HSPMV_GENERAL ? m : sym == HSPMV_SYMMETRIC ? m - j : m - j - 1;
    return n > 0 ? n : 0;
}

static int64_t array_first_row(int sym, int64_t j)
{
    return sym == HSPMV_GENERAL ? 0 : sym == HSPMV_SYMMETRIC ? j : j + 1;
}

void hspmv_mtx_array_place(const mtx_header *h, int64_t k0, int32_t *row, int32_t *col, int64_t n)
{
    const int sym = h->symmetry;
    const int64_t m = h->nrows;
    int64_t j = 0, k = k0, i;
    if (n <= 0) return;
    if (sym == HSPMV_GENERAL) {
        j = k / m;
        k -= j * m;
    } else {
        while (k >= array_column_length(sym, m, j)) k -= array_column_length(sym, m, j++);
    }
    i = array_first_row(sym, j) + k;
    for (int64_t t = 0; t < n; t++) {
        row[t] = (int32_t)i;
        col[t] = (int32_t)j;
        if (++i == m) {
            j++;
            i = array_first_row(sym, j);
        }
    }
}

void hspmv_mtx_decide(const mtx_prologue *pr, const mtx_outcome *o, int64_t n, mtx_first *f)
{
    int64_t line = pr->lines, k = 0, limit = pr->h.nnz;
    memset(f, 0, sizeof(*f));
    for (int64_t i = 0; i < n; i++) {
        /* the (limit+1)-th entry lies in range i, before its fault if it has one;
           or range i's fault comes first: both are found by re-parsing range i
           with the entries left */
        if (o[i].failed || k + o[i].nnz > limit) {
            f->kind = MTX_FIRST_PIECE;
            f->piece = i;
            f->first_line = line;
            f->cap = limit - k;
            return;
        }
        line += o[i].lines;
        k += o[i].nnz;
    }
    f->total_lines = line;
    f->total_nnz = k;
    f->kind = k < limit ? MTX_FIRST_END : MTX_FIRST_NONE;
}

int hspmv_mtx_fault_end(const char *name, const mtx_prologue *pr, const mtx_first *f, hspmv_error *err)
{
    /* as the whole-file read decides it when it meets the size line */
    int64_t left = pr->file_size - pr->data_offset, short_left = -1;
    if (left >= 0 && pr->h.nnz > (left + 1) / hspmv_mtx_min_entry_bytes(&pr->h)) short_left = left;
    return hspmv_mtx_fault_too_few(name, &pr->h, f->total_nnz, f->total_lines, short_left, err);
}
