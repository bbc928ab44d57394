/* bench_util.c — clocks, medians, peak memory and progress for the programs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

double bu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bu_stats(double *t, int n, double *median, double *min, double *max)
{
    if (n <= 0) {
        *median = *min = *max = 0;
        return;
    }
    qsort(t, (size_t)n, sizeof(*t), cmp_double);
    *min = t[0];
    *max = t[n - 1];
    *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

double bu_peak_rss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024.0; /* Linux reports KiB */
}

struct progress {
    const char *path;
    double start;
    int shown;
};

static void show_progress(int64_t done, int64_t total, void *ctx)
{
    struct progress *p = ctx;
    double t = bu_now() - p->start;
    if (t < 2.0) return;
    p->shown = 1;
    if (total > 0)
        fprintf(stderr, "\rreading %s: %.0f of %.0f MB (%.0f%%), %.0f MB/s   ", p->path, done / 1e6,
                total / 1e6, 100.0 * done / total, done / 1e6 / t);
    else
        fprintf(stderr, "\rreading %s: %.0f MB, %.0f MB/s   ", p->path, done / 1e6, done / 1e6 / t);
    if (total > 0 && done >= total) fputc('\n', stderr);
}

hspmv_read_opts bu_progress_opts(const char *path)
{
    static struct progress p;
    hspmv_read_opts o = {NULL, NULL, 0};
    if (!isatty(2)) return o;
    p.path = path;
    p.start = bu_now();
    p.shown = 0;
    o.progress = show_progress;
    o.progress_ctx = &p;
    return o;
}

void bu_die(const char *prog, const hspmv_error *e)
{
    fprintf(stderr, "%s: error: %s\n", prog, e->msg[0] ? e->msg : hspmv_strerror(e->code));
    exit(1);
}

hspmv_real bu_x_at(int64_t j) { return (hspmv_real)(1 + 0.001 * (double)(j % 1000)); }

void bu_fill_x(hspmv_real *x, int64_t n)
{
    for (int64_t j = 0; j < n; j++) x[j] = bu_x_at(j);
}

void bu_ysums(const hspmv_real *y, int64_t n, double *ysum, double *ychk)
{
    double s = 0, c = 0;
    for (int64_t i = 0; i < n; i++) {
        s += y[i];
        c += y[i] * (double)(1 + i % 17);
    }
    *ysum = s;
    *ychk = c;
}

double bu_csr_bytes(const hspmv_csr *A)
{
    double r = sizeof(hspmv_real);
    return (double)A->nnz * (r + 4) + (double)(A->nrows + 1) * 8 + (double)A->ncols * r +
           (double)A->nrows * r;
}

long bu_parse_long(const char *prog, const char *opt, const char *s)
{
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || *end || v <= 0) {
        fprintf(stderr, "%s: error: %s needs a positive integer, got '%s'\n", prog, opt, s ? s : "");
        exit(2);
    }
    return v;
}

const char *const bu_format_names[HSPMV_NFORMATS] = {"auto", "csr", "csrl", "bcoo", "csr16", "csrvi"};

int bu_format_of(const char *name)
{
    for (int f = 0; name && f < HSPMV_NFORMATS; f++)
        if (!strcmp(name, bu_format_names[f])) return f;
    return -1;
}

int bu_partition_of(const char *name)
{
    static const char *const names[] = {"nnz", "rows", "metis"}; /* HSPMV_PART_* order */
    for (int p = 0; name && p < 3; p++)
        if (!strcmp(name, names[p])) return p;
    return -1;
}
