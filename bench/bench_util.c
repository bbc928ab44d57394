/* bench_util.c — clocks, medians, peak memory, progress, and the one checked
   parser of every number and name the programs take. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bench_out.h"
#include "bench_util.h"
#include "csr.h"
#include "local_calls.h"

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

void bu_die(const char *prog, const hspmv_error *e)
{
    bu_step_abort(); /* a progress line in place is ended first */
    fflush(stdout);
    fprintf(stderr, "%s: error: %s\n", prog, e->msg[0] ? e->msg : hspmv_strerror(e->code));
    exit(1);
}

hspmv_real bu_x_at(int64_t j) { return (hspmv_real)(1 + 0.001 * (double)(j % 1000)); }

void bu_check_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) /* errno is 0 when an earlier write already failed */
        bu_fail_status(1, "writing standard output failed: %s", errno ? strerror(errno) : "an earlier write failed");
}

const char *bu_check_word(const hspmv_check *c)
{
    return c->violations ? "FAILED" : c->overflows ? "OVERFLOW" : "ok";
}

int bu_check_report(const char *path, const hspmv_check *c)
{
    const char *prec = sizeof(hspmv_real) == sizeof(float) ? "float" : "double";
    /* what stdout holds first: a key=value line longer than stdio's buffer
       was otherwise cut by this message where both go to one file */
    if (c->violations || c->overflows) fflush(stdout);
    if (c->violations)
        fprintf(stderr, "%s: error: %s: result off the reference bound in %lld rows (first row %lld, worst %.3g x "
                "the bound): a wrong kernel\n", bu_prog(), path, (long long)c->violations, (long long)c->first_bad + 1,
                c->worst);
    if (c->overflows)
        fprintf(stderr, "%s: error: %s: the product overflows the %s range in %lld rows (first row %lld): "
                "|A|*|x| is beyond %.3g there; a fault of the matrix's values, not of the kernel\n", bu_prog(), path,
                prec, (long long)c->overflows, (long long)c->first_overflow + 1,
                sizeof(hspmv_real) == sizeof(float) ? 3.4028234663852886e38 : 1.7976931348623157e308);
    return c->violations || c->overflows;
}

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

static const char *prog_name = "hspmv";

void bu_set_prog(const char *prog) { prog_name = prog; }

/* The build's commit: build/.../include/hspmv_commit.h, made by the Makefile. */
#if defined(__has_include)
#if __has_include("hspmv_commit.h")
#include "hspmv_commit.h"
#endif
#endif
#ifndef HSPMV_GIT_COMMIT
#define HSPMV_GIT_COMMIT "unknown"
#endif

static const char *invoked = NULL;
static time_t start_time;

const char *bu_commit(void) { return HSPMV_GIT_COMMIT[0] ? HSPMV_GIT_COMMIT : "unknown"; }

const char *bu_invoked_name(void) { return invoked ? invoked : prog_name; }

void bu_version(int argc, char **argv, const char *name)
{
    const char *base = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
    base = base ? base + 1 : argc > 0 && argv[0] ? argv[0] : "";
    invoked = *base ? base : name;
    start_time = time(NULL);
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (strcmp(argv[i], "--version")) continue;
        printf("%s hspmv %s (%s) commit %s\n", invoked, hspmv_version(), sizeof(hspmv_real) == 4 ? "single" : "double",
               bu_commit());
        if (fflush(stdout) || ferror(stdout)) {
            fprintf(stderr, "%s: error: writing the version to stdout failed\n", invoked);
            exit(1);
        }
        exit(0);
    }
}

/* The compiler that built this file, one word. */
static const char *compiler_id(void)
{
    static char b[64];
#if defined(__INTEL_LLVM_COMPILER)
    snprintf(b, sizeof(b), "icx-%d", __INTEL_LLVM_COMPILER);
#elif defined(__NVCOMPILER)
    snprintf(b, sizeof(b), "nvc-%d.%d.%d", __NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, __NVCOMPILER_PATCHLEVEL__);
#elif defined(__clang__)
    snprintf(b, sizeof(b), "clang-%d.%d.%d", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
    snprintf(b, sizeof(b), "gcc-%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
    snprintf(b, sizeof(b), "unknown");
#endif
    return b;
}

/* The five facts, each one word without quotes or commas. */
static void meta_values(const char *v[5])
{
    static char host[256], date[32];
    struct tm tm;
    time_t t = start_time ? start_time : time(NULL);
    if (gethostname(host, sizeof(host)) != 0 || !host[0]) snprintf(host, sizeof(host), "unknown");
    host[sizeof(host) - 1] = 0;
    for (char *c = host; *c; c++)
        if (*c == ' ' || *c == ',' || *c == '"' || *c == '=' || *c == '\\' || (unsigned char)*c < 32) *c = '_';
    if (!gmtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm)) snprintf(date, sizeof(date), "unknown");
    v[0] = hspmv_version();
    v[1] = bu_commit();
    v[2] = host;
    v[3] = date;
    v[4] = compiler_id();
}

static const char *const meta_keys[5] = {"version", "commit", "host", "date", "compiler"};

void bu_meta_kv(FILE *f, int ranks, int threads)
{
    const char *v[5];
    meta_values(v);
    for (int k = 0; k < 5; k++) fprintf(f, " %s=%s", meta_keys[k], v[k]);
    fprintf(f, " progress=%s", bu_progress_name(bu_progress_mode()));
    if (ranks > 0) fprintf(f, " ranks=%d", ranks);
    if (threads > 0) fprintf(f, " threads=%d", threads);
}

void bu_meta_json(FILE *f, int ranks, int threads)
{
    const char *v[5];
    meta_values(v);
    for (int k = 0; k < 5; k++) fprintf(f, ",\"%s\":\"%s\"", meta_keys[k], v[k]);
    fprintf(f, ",\"progress\":\"%s\"", bu_progress_name(bu_progress_mode()));
    if (ranks > 0) fprintf(f, ",\"ranks\":%d", ranks);
    if (threads > 0) fprintf(f, ",\"threads\":%d", threads);
}

void bu_meta_csv(FILE *f)
{
    const char *v[5];
    meta_values(v);
    for (int k = 0; k < 5; k++) fprintf(f, ",%s", v[k]);
}

const char *bu_prog(void) { return prog_name; }

static void fail_plain(int status, const char *msg)
{
    fprintf(stderr, "%s: error: %s\n", prog_name, msg);
    exit(status);
}

static void (*fail_fn)(int status, const char *msg) = fail_plain;

void bu_set_fail(void (*fail)(int status, const char *msg)) { fail_fn = fail ? fail : fail_plain; }

__attribute__((noreturn)) static void fail_v(int status, const char *fmt, va_list ap)
{
    char m[600];
    vsnprintf(m, sizeof(m), fmt, ap);
    bu_step_abort(); /* a progress line in place is ended first */
    fail_fn(status, m);
    exit(status); /* a hook that returns still leaves */
}

void bu_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(2, fmt, ap);
}

void bu_fail_status(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(status, fmt, ap);
}

const char *bu_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) bu_fail("%s needs a value", argv[*i]);
    return argv[++*i];
}

/* At most 40 characters of s for a message, so a huge argument cannot crowd out the rest. */
static const char *clip(const char *s, char *out, size_t n)
{
    size_t len = strlen(s);
    if (len < n) return s;
    snprintf(out, n, "%.*s...", (int)(n - 4), s);
    return out;
}

long long bu_parse_int(const char *opt, const char *s, long long lo, long long hi)
{
    char *end, c[48];
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    /* strtoll takes leading blanks; a number here starts at its sign or first digit */
    if (end == s || *end || errno == ERANGE || v < lo || v > hi || !(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9')))
        bu_fail("%s takes an integer from %lld to %lld, not '%s'", opt, lo, hi, clip(s, c, sizeof(c)));
    return v;
}

double bu_parse_real(const char *opt, const char *s, double lo, double hi)
{
    char *end, c[48];
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || !(v >= lo && v <= hi) || strpbrk(s, "xX") || /* no hex floats */
        !(*s == '-' || *s == '+' || *s == '.' || (*s >= '0' && *s <= '9')))
        bu_fail("%s takes a number from %g to %g, not '%s'", opt, lo, hi, clip(s, c, sizeof(c)));
    return v;
}

double bu_parse_real_above(const char *opt, const char *s, double lo, double hi)
{
    char *end, c[48];
    double v;
    v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || !(v > lo && v <= hi) || strpbrk(s, "xX") ||
        !(*s == '-' || *s == '+' || *s == '.' || (*s >= '0' && *s <= '9')))
        bu_fail("%s takes a number above %g and at most %g, not '%s'", opt, lo, hi, clip(s, c, sizeof(c)));
    return v;
}

size_t bu_parse_mib(const char *opt, const char *s)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    long long phys_mib = pages > 0 && page > 0 ? (long long)((double)pages * (double)page / 1048576.0) : 1 << 20;
    long long hi = phys_mib / 3 > 1 ? phys_mib / 3 : 1;
    return (size_t)bu_parse_int(opt, s, 1, hi) << 20;
}

void bu_warn_threads(const char *prog, const int *threads, int n)
{
    int most = 0, cpus = hspmv_cpus_allowed();
    for (int i = 0; i < n; i++) most = threads[i] > most ? threads[i] : most;
    if (most > cpus)
        fprintf(stderr, "%s: warning: %d threads on the %d processors this process may run on, so they take turns "
                "and the timings above %d threads are not the machine's; give at most %d threads (or run where "
                "more processors are free)\n", prog, most, cpus, cpus, cpus);
}

int bu_parse_threads(const char *opt, const char *s)
{
    return (int)bu_parse_int(opt, s, 1, hspmv_max_threads());
}

const char *bu_parse_kernel(const char *opt, const char *s)
{
    static const char *const known[] = {"auto", "avx512", "avx2", "neon", "scalar"};
    char c[48];
    for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
        if (!strcmp(s, known[k])) return known[k];
    bu_fail("%s takes auto, avx512, avx2, neon or scalar, not '%s'", opt, clip(s, c, sizeof(c)));
}

static const char *const reorder_names[] = {"none", "rcm", "nd", "auto"}; /* HSPMV_REORDER_* order */

int bu_parse_reorder(const char *opt, const char *s)
{
    char c[48];
    for (int k = 0; k < 4; k++)
        if (!strcmp(s, reorder_names[k])) return k;
    bu_fail("%s takes none, rcm, nd or auto, not '%s'", opt, clip(s, c, sizeof(c)));
}

const char *bu_reorder_name(int reorder)
{
    return reorder >= 0 && reorder < 4 ? reorder_names[reorder] : "?";
}

int bu_parse_symmetric(const char *opt, const char *s)
{
    char c[48];
    if (!strcmp(s, "auto")) return HSPMV_SYMMETRIC_AUTO;
    if (!strcmp(s, "no")) return HSPMV_SYMMETRIC_NO;
    if (!strcmp(s, "yes")) return HSPMV_SYMMETRIC_YES;
    bu_fail("%s takes auto, no or yes, not '%s'", opt, clip(s, c, sizeof(c)));
}

const char *bu_symmetric_name(int symmetric)
{
    return symmetric == HSPMV_SYMMETRIC_AUTO ? "auto" : symmetric == HSPMV_SYMMETRIC_NO ? "no"
           : symmetric == HSPMV_SYMMETRIC_YES ? "yes" : "?";
}

const char *bu_symmetric_kept(int kept)
{
    return kept > 0 ? "yes" : kept < 0 ? "skew" : "no";
}

long bu_parse_long(const char *prog, const char *opt, const char *s)
{
    bu_set_prog(prog);
    if (!s) bu_fail("%s needs a value", opt);
    return (long)bu_parse_int(opt, s, 1, LONG_MAX);
}

const bu_format bu_formats[HSPMV_NFORMATS] = {
    {"auto", HSPMV_FORMAT_AUTO, "the library's choice for the matrix (CSRL when nzseg/nnz < threshold, ...)"},
    {"csr", HSPMV_FORMAT_CSR, "compressed sparse rows"},
    {"csrl", HSPMV_FORMAT_CSRL, "CSR with rows stored as segments of consecutive columns"},
    {"bcoo", HSPMV_FORMAT_BCOO, "blocked coordinates: tiles with 8- or 16-bit row and column offsets"},
    {"csr16", HSPMV_FORMAT_CSR16, "CSR with 16-bit column offsets from the row (every |col - row| <= 32767)"},
    {"csrvi", HSPMV_FORMAT_CSRVI, "CSR with 8-bit indices into a table of at most 256 distinct values"},
    {"csrp", HSPMV_FORMAT_CSRP, "rows as one of at most 256 column patterns (offsets from the row)"},
    {"csrdu", HSPMV_FORMAT_CSRDU, "CSR with 1-byte column deltas and 1-byte row lengths"},
    {"panels", HSPMV_FORMAT_PANELS, "CSR cut into column panels whose x fits in cache, x prefetched"},
};

const char *bu_format_name(int format)
{
    return format >= 0 && format < HSPMV_NFORMATS ? bu_formats[format].name : "?";
}

int bu_format_of(const char *name)
{
    for (int f = 0; name && f < HSPMV_NFORMATS; f++)
        if (!strcmp(name, bu_formats[f].name)) return bu_formats[f].format;
    return -1;
}

const char *bu_format_list(const char *sep)
{
    static char bar[160], words[160], *out;
    out = sep ? bar : words;
    out[0] = 0;
    for (int f = 0; f < HSPMV_NFORMATS; f++) {
        const char *s = f == 0 ? "" : sep ? sep : f == HSPMV_NFORMATS - 1 ? " or " : ", ";
        snprintf(out + strlen(out), sizeof(bar) - strlen(out), "%s%s", s, bu_formats[f].name);
    }
    return out;
}

void bu_format_usage(FILE *f, const char *indent)
{
    for (int k = 0; k < HSPMV_NFORMATS; k++)
        fprintf(f, "%s%-7s %s\n", indent, bu_formats[k].name, bu_formats[k].about);
}

void bu_format_refuse(const char *opt, const char *s)
{
    char c[48];
    bu_fail("%s takes %s, not '%s'", opt, bu_format_list(NULL), clip(s, c, sizeof(c)));
}

int bu_partition_of(const char *name)
{
    static const char *const names[] = {"nnz", "rows", "metis"}; /* HSPMV_PART_* order */
    for (int p = 0; name && p < 3; p++)
        if (!strcmp(name, names[p])) return p;
    return -1;
}

FILE *bu_csv_open(bo_file *o, const char *opt, const char *path, const char *input)
{
    char first[1024], m[1024];
    int fresh = 1;
    int st = bo_open(o, opt, path, &input, 1, BO_STREAM | BO_APPEND, m, sizeof(m));
    if (st) bu_fail_status(st, "%s", m);
    if (o->tmp[0]) { /* a regular file (its copy is the temporary one): its header first */
        FILE *f = fopen(o->path, "r");
        if (f && fgets(first, sizeof(first), f)) {
            fresh = 0;
            first[strcspn(first, "\r\n")] = 0;
        }
        int bad = !f || ferror(f), e = errno;
        if (f) fclose(f);
        if (bad && e != ENOENT) {
            bo_abort(o);
            bu_fail_status(2, "%s %s: reading failed: %s", opt, path, strerror(e));
        }
        if (!fresh && strcmp(first, BU_CSV_HEADER)) {
            bo_abort(o);
            bu_fail_status(1, "%s %s: it holds other columns (first line: %.60s...); give a new file", opt, path,
                           first);
        }
    }
    /* a new or empty file, or no file at all (a device, a pipe): the header; in place, tried now */
    errno = 0;
    if ((fresh && fprintf(o->f, "%s\n", BU_CSV_HEADER) < 0) || (!o->tmp[0] && fflush(o->f) != 0))
        bu_fail_status(2, "%s %s: writing failed: %s", opt, path, strerror(errno ? errno : EIO));
    return o->f;
}

void bu_csv_field(FILE *f, const char *text)
{
    fputc(',', f);
    if (!text) return;
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}
