/* benchmark_omp.c — node-level SpMV: read a Matrix Market file, prepare it in
   each storage format (the table of bench_util) and in the automatic choice, time
   y = A*x with OpenMP threads, and quote every rate as a fraction of the
   STREAM-triad bandwidth measured in the same run on the same threads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_block.h"
#include "bench_stream.h"
#include "bench_out.h"
#include "bench_util.h"
#include "local_calls.h"
#ifdef _OPENMP
#include <omp.h>
#else /* a build without OpenMP runs one thread */
static int omp_get_max_threads(void) { return 1; }
static int omp_get_num_procs(void) { return 1; }
#endif

static const char *prog = "benchmark-omp";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s matrix.mtx[.gz] [threads[,threads...]] [--reps N] [--warmup N]\n"
            "         [--format %s|all[,...]] [--threshold T]\n"
            "         [--kernel K] [--symmetric auto|no|yes] [--progress auto|on|off]\n"
            "         [--bw | --no-bw] [--bw-mib M] [--csv FILE] [--transpose] [--vectors K[,K...]]\n"
            "         [--reorder none|rcm|nd|auto]\n"
            "  Prepares the matrix in each format asked for (default all: every format below\n"
            "  but auto, then the automatic choice; a format that\n"
            "  cannot hold the matrix is skipped) and times y = A*x with `threads` OpenMP threads\n"
            "  (default: OMP_NUM_THREADS or all cores; a list such as 1,2,4 reads the file\n"
            "  once and measures each count in turn): median/min/max of N timed calls\n"
            "  (default 50, in 5 rounds that cycle through the formats, each round after\n"
            "  --warmup calls, default 2). --threshold: CSRL when nzseg/nnz < T (0.3).\n"
            "  --kernel: auto, avx512, avx2, neon or scalar. --symmetric (hspmv_opts.symmetric):\n"
            "  no (default) keeps both triangles; auto keeps one triangle of a symmetric or\n"
            "  skew-symmetric matrix for format auto (the other formats keep both, so one run\n"
            "  compares them); yes for every format asked for (auto, csrp, csr16, csr; the\n"
            "  others are skipped).\n"
            "  --bw (default): a STREAM triad\n"
            "  with the same threads over 3 arrays of M MiB (default: together 4x the\n"
            "  last-level cache the process's CPUs reach, each at least 16 MiB; see\n"
            "  docs/tuning.md) before and after the SpMV timings; every GB/s is\n"
            "  also given as a fraction of its median (in-cache instead where the product's\n"
            "  bytes fit in the last-level cache). --csv appends one row per format (the\n"
            "  CSV schema of docs/programs.md) to a copy of the file, renamed over it when the run\n"
            "  ends (exit status 2 when it cannot be written). --progress: lines on stderr for the\n"
            "  read and each format's preparation (auto: on a terminal after 2 s, elsewhere every\n"
            "  5 s; on: every 2 s and when each step ends; off).\n"
            "  --transpose: times y = A^T x instead (hspmv_local_spmm; its transposed copy\n"
            "  is made before the timings and counted in the preparation time).\n"
            "  --vectors: time the block product Y = A X of K row-major vectors instead\n"
            "  (a list: each K in interleaved rounds; products/s = K / time, and the\n"
            "  k=1 rate beside it; no triad probe or CSV: --bw, --bw-mib and --csv are refused);\n"
            "  with --transpose Y = A^T X. --reps N times exactly N calls.\n"
            "  --reorder: prepare each format in a locality order (docs/reordering.md): rcm\n"
            "  (reverse Cuthill-McKee), nd (METIS nested dissection), auto (rcm where the\n"
            "  order is poor and rcm helps); median_ms times the product in that order\n"
            "  (vectors moved once), user_ms the call in the file's order (x gathered in,\n"
            "  y scattered out in every call), timed in the same rounds.\n"
            "  Exit status 1 when a result is off the reference bound (FAIL), the product overflows\n"
            "  (OVFL: the matrix's values, not the kernel) or input is bad.\n"
            "formats:\n", bu_invoked_name(), bu_format_list("|"));
    bu_format_usage(f, "  ");
}

enum { MAXRUN = 10, MAXTHR = 32, ROUNDS = 5 };

/* One prepared matrix under test and its timings. */
typedef struct run {
    int asked;        /* HSPMV_FORMAT_* asked for (AUTO for the automatic choice) */
    hspmv_local *L;
    hspmv_local_info info;
    double build_s;   /* hspmv_local_create time */
    double *t;        /* per-call seconds */
    int nt;
    double med, mn, mx;
    hspmv_check chk;
    double ysum, ychk;
    hspmv_real *xi, *yi; /* --reorder: x and y in the matrix's order */
    double *tu;          /* --reorder: per-call seconds of the user-order call */
    int ntu;
    double umed;
} run;

#define fmt_word(f) bu_format_name(f)

/* "all" (every format, then auto), or a comma list of format names;
   returns the count, 0 if bad. */
static int parse_format(const char *s, int *list)
{
    int n = 0;
    char tok[16];
    if (!s) return 0;
    if (!strcmp(s, "all")) {
        for (int f = 0; f < HSPMV_NFORMATS; f++)
            if (bu_formats[f].format != HSPMV_FORMAT_AUTO) list[n++] = bu_formats[f].format;
        list[n++] = HSPMV_FORMAT_AUTO;
        return n;
    }
    while (*s) {
        size_t len = strcspn(s, ",");
        int f = -1;
        if (len < sizeof(tok)) {
            memcpy(tok, s, len);
            tok[len] = 0;
            f = bu_format_of(tok);
        }
        if (f < 0 || n == MAXRUN) return 0;
        list[n++] = f;
        s += len + (s[len] == ',');
    }
    return n;
}

/* ", 2 column panels, x prefetched 64 ahead" for the panel format, ", y by streaming
   stores" for CSRP with them, else "". */
static const char *format_note(const hspmv_local_info *in)
{
    static char b[128];
    if (in->symmetric) {
        snprintf(b, sizeof(b), ", one triangle (%s), %lld private rows of y, checked in %.3f s",
                 in->symmetric > 0 ? "symmetric" : "skew", (long long)in->sym_halo, in->sym_check_s);
        return b;
    }
    if (in->stream_y) return ", y by streaming stores";
    if (in->format != HSPMV_FORMAT_PANELS) return "";
    snprintf(b, sizeof(b), ", %d column panel%s, x prefetched %d ahead", in->npanels, in->npanels > 1 ? "s" : "",
             in->xpf);
    return b;
}

/* --transpose: y = A^T x is timed and checked against tA = A^T. */
static int transpose;
static hspmv_csr tA;

/* y = A*x, or y = A^T x with --transpose. */
static void product(hspmv_local *L, const hspmv_real *x, hspmv_real *y)
{
    if (transpose) hspmv_local_spmm(L, HSPMV_TRANSPOSE, 1, x, y, 0, NULL);
    else hspmv_local_spmv(L, x, y, 0);
}

/* --reorder: the products are timed in the matrix's order (reorder_on). */
static int reorder_on;

/* Times one round of run r: warmup calls, then `calls` timed calls; with
   --reorder the product in the matrix's order, then the user-order call. */
static void time_round(run *r, const hspmv_real *x, hspmv_real *y, long warmup, long calls)
{
    for (long k = 0; k < warmup; k++)
        if (reorder_on) hspmv_local_spmm(r->L, HSPMV_REORDERED, 1, r->xi, r->yi, 0, NULL);
        else product(r->L, x, y);
    for (long k = 0; k < calls; k++) {
        double t0 = bu_now();
        if (reorder_on) hspmv_local_spmm(r->L, HSPMV_REORDERED, 1, r->xi, r->yi, 0, NULL);
        else product(r->L, x, y);
        r->t[r->nt++] = bu_now() - t0;
    }
    if (!reorder_on) return;
    for (long k = 0; k < warmup; k++) product(r->L, x, y);
    for (long k = 0; k < calls; k++) {
        double t0 = bu_now();
        product(r->L, x, y);
        r->tu[r->ntu++] = bu_now() - t0;
    }
}

static void probe(int threads, size_t bytes, int reps, bs_triad_result *p, const char *when)
{
    if (bs_triad(threads, bytes, reps, p) != 0)
        bu_fail("out of memory for the triad probe (3 arrays of %zu MiB); try a smaller --bw-mib",
                (bytes ? bytes : bs_default_array_bytes()) >> 20);
    const char *src = NULL;
    size_t llc = bytes ? 0 : bs_llc_bytes(&src);
    printf("  triad (%s): %.2f GB/s median (min %.2f, max %.2f) over %d passes, %d threads, "
           "3 x %.0f MiB",
           when, p->median_gbs, p->min_gbs, p->max_gbs, p->reps, p->threads,
           p->array_bytes / 1048576.0);
    if (llc) printf(" (%.0f MiB of last-level cache reached, from %s)", llc / 1048576.0, src);
    printf("\n");
}

/* What the command line asked for. */
typedef struct cfg {
    const char *path, *csv, *kernel;
    FILE *cf;          /* the --csv file's stream (csv_out), opened before anything is measured */
    bo_file csv_out;   /* written under a temporary name, renamed over the file when complete */
    long reps, warmup;
    size_t bw_bytes;
    int bw, nfmt, fmts[MAXRUN];
    double threshold;
    int symmetric;     /* --symmetric: HSPMV_SYMMETRIC_* */
    bb_cfg block;      /* --vectors: block.nk > 0 */
    int reorder;       /* --reorder: HSPMV_REORDER_* */
} cfg;

/* Prepares every format of c with `threads` threads, probes the bandwidth,
   times the formats in rounds, checks and prints. Returns 1 on a bound violation. */
static int measure(const cfg *c0, const hspmv_csr *A0, int threads)
{
    const hspmv_csr *A = transpose ? &tA : A0; /* the product's matrix: x has A->ncols entries, y A->nrows */
    cfg copy = *c0; /* formats that do not apply to this matrix are dropped */
    const cfg *c = &copy;
    const char *path = c->path;
    int nfmt = c->nfmt;
    long reps = c->reps;
    hspmv_error e = {0, ""};
    run runs[MAXRUN];
    double t0;

    memset(runs, 0, sizeof(runs));
    hspmv_real *x = hspmv_malloc((size_t)A->ncols * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)A->nrows * sizeof(hspmv_real));
    if (!x || !y) {
        e.code = HSPMV_ERR_NOMEM;
        snprintf(e.msg, sizeof(e.msg), "%s: out of memory for vectors of %lld rows", path, (long long)A->nrows);
        bu_die(prog, &e);
    }
    printf("threads=%d\n", threads);
    for (int f = 0; f < nfmt; f++) {
        run *r = &runs[f];
        hspmv_opts o;
        hspmv_opts_default(&o);
        o.format = c->fmts[f];
        o.csrl_threshold = c->threshold;
        o.kernel = c->kernel;
        o.threads = threads;
        o.reorder = c->reorder;
        o.symmetric = c->symmetric;
        r->asked = c->fmts[f];
        char step[64];
        snprintf(step, sizeof(step), "preparing %s with %d threads", fmt_word(r->asked), threads);
        bu_step_begin(step, 0, NULL);
        t0 = bu_now();
        int rc = hspmv_local_create(A0, &o, &r->L, &e);
        if (rc) bu_step_abort(); /* skipped or failed: no "done" */
        else bu_step_end();
        if (rc == HSPMV_ERR_UNSUPPORTED && r->asked != HSPMV_FORMAT_AUTO && nfmt > 1) {
            printf("  %s: not applicable to this matrix (%s)\n", fmt_word(r->asked), e.msg);
            memmove(&copy.fmts[f], &copy.fmts[f + 1], (size_t)(nfmt - f - 1) * sizeof(int));
            copy.nfmt = --nfmt;
            f--;
            continue;
        }
        if (rc) {
            char m[sizeof(e.msg)];
            snprintf(m, sizeof(m), "%s (%s): %s", path, fmt_word(c->fmts[f]), e.msg);
            strcpy(e.msg, m);
            bu_die(prog, &e);
        }
        if (transpose && hspmv_local_spmm(r->L, HSPMV_TRANSPOSE, 1, x, y, 0, &e)) bu_die(prog, &e);
        r->build_s = bu_now() - t0;
        hspmv_local_get_info(r->L, &r->info);
        if (r->asked != HSPMV_FORMAT_AUTO && r->info.format != r->asked) {
            /* never time one format under another's name */
            e.code = HSPMV_ERR_UNSUPPORTED;
            snprintf(e.msg, sizeof(e.msg), "%s: asked for %s, the library prepared %s", path,
                     fmt_word(r->asked), r->info.format_name);
            bu_die(prog, &e);
        }
        r->t = malloc((size_t)reps * sizeof(double));
        r->tu = malloc((size_t)reps * sizeof(double));
        r->xi = reorder_on ? hspmv_malloc((size_t)(A->ncols + 1) * sizeof(hspmv_real)) : NULL;
        r->yi = reorder_on ? hspmv_malloc((size_t)(A->nrows + 1) * sizeof(hspmv_real)) : NULL;
        if (!r->t || !r->tu || (reorder_on && (!r->xi || !r->yi))) {
            e.code = HSPMV_ERR_NOMEM;
            snprintf(e.msg, sizeof(e.msg), "out of memory");
            bu_die(prog, &e);
        }
        if (f == 0) { /* x and y pages go where the threads that use them run */
            bs_advise_huge(x, (size_t)A->ncols * sizeof(hspmv_real));
            bs_advise_huge(y, (size_t)A->nrows * sizeof(hspmv_real));
            hspmv_local_touch(r->L, x, A->ncols);
            hspmv_local_touch(r->L, y, A->nrows);
            bu_fill_x(x, A->ncols);
        }
        printf("  %s%s%s: nzseg/nnz=%.4f (nzseg=%lld) kernels=%s threads=%d prepared in %.3f s, "
               "%.2f bytes/nonzero%s\n",
               fmt_word(c->fmts[f]), c->fmts[f] == HSPMV_FORMAT_AUTO ? " -> " : "",
               c->fmts[f] == HSPMV_FORMAT_AUTO ? r->info.format_name : "", r->info.seg_ratio,
               (long long)r->info.nseg, r->info.isa, r->info.threads, r->build_s,
               A->nnz > 0 ? r->info.bytes / (double)A->nnz : 0.0, format_note(&r->info));
        if (reorder_on)
            printf("    reorder=%s (asked %s): bandwidth %lld -> %lld, entries within %lld columns of the diagonal "
                   "%.1f%% -> %.1f%%, ordered in %.3f s\n", r->info.reorder_name, bu_reorder_name(c->reorder),
                   (long long)r->info.bandwidth_before, (long long)r->info.bandwidth_after,
                   (long long)r->info.reorder_window, 100 * r->info.local_before, 100 * r->info.local_after,
                   r->info.reorder_s);
    }
    if (reorder_on) /* x in each matrix's order (filled now, after the first touch) */
        for (int f = 0; f < nfmt; f++) {
            hspmv_local_touch(runs[f].L, runs[f].xi, A->ncols);
            hspmv_local_touch(runs[f].L, runs[f].yi, A->nrows);
            hspmv_local_vec_order(runs[f].L, 0, x, runs[f].xi, NULL);
        }
    printf("  memory on huge pages: %.0f MiB\n", bs_huge_mib());

    /* bandwidth probe, SpMV rounds cycling through the formats, probe again */
    bs_triad_result p0 = {0}, p1 = {0};
    size_t bw_bytes = c->bw_bytes;
    if (c->bw) probe(threads, bw_bytes, 10, &p0, "before");
    for (int round = 0; round < ROUNDS; round++)
        for (int f = 0; f < nfmt; f++)
            time_round(&runs[f], x, y, c->warmup, reps / ROUNDS + (round < reps % ROUNDS));
    if (c->bw) probe(threads, bw_bytes, 10, &p1, "after");
    double triad = c->bw ? (p0.median_gbs + p1.median_gbs) / 2 : 0;

    /* check and report; a product whose bytes fit in the last-level cache
       is marked in-cache: its GB/s is no fraction of the memory's limit */
    FILE *cf = c->cf;
    size_t llc = bs_llc_bytes(NULL);
    int bad = 0, best = -1, fixed = -1, autoi = -1, reported = 0;
    for (int f = 0; f < nfmt; f++) {
        run *r = &runs[f];
        if (reorder_on) { /* the product in the matrix's order, moved out, checked too */
            hspmv_local_spmm(r->L, HSPMV_REORDERED, 1, r->xi, r->yi, 0, NULL);
            hspmv_local_vec_order(r->L, HSPMV_ORDER_ROWS | HSPMV_ORDER_OUT, r->yi, y, NULL);
            hspmv_check ci;
            hspmv_ref_check(A, x, y, 2.0, &ci);
            if (ci.violations) {
                char what[600];
                snprintf(what, sizeof(what), "%s (%s, %d threads, in the reordered operator's order)", path,
                         fmt_word(r->asked), r->info.threads);
                bu_check_report(what, &ci);
                bad = 1;
            }
            bu_stats(r->tu, r->ntu, &r->umed, &r->mn, &r->mx);
        }
        product(r->L, x, y);
        hspmv_ref_check(A, x, y, 2.0, &r->chk);
        bu_ysums(y, A->nrows, &r->ysum, &r->ychk);
        bu_stats(r->t, r->nt, &r->med, &r->mn, &r->mx);
        bad |= r->chk.violations != 0 || r->chk.overflows != 0;
        hspmv_check k = r->chk; /* each wrong kernel is named; an overflowing product once */
        if (reported) k.overflows = 0;
        if (k.violations || k.overflows) {
            char what[600];
            snprintf(what, sizeof(what), "%s (%s, %d threads)", path, fmt_word(r->asked), r->info.threads);
            bu_check_report(what, &k);
            reported |= k.overflows != 0;
        }
        if (r->asked == HSPMV_FORMAT_AUTO) autoi = f;
        else if (fixed < 0 || r->med < runs[fixed].med) fixed = f;
    }
    /* best: the fastest of all that ran, auto when strictly faster than every asked format */
    best = fixed >= 0 ? fixed : autoi;
    if (autoi >= 0 && runs[autoi].med < runs[best].med) best = autoi;
    printf("  %-12s %8s %10s %10s %10s %8s %8s %8s %10s %10s %5s\n", "format", "seg", "median_ms",
           "min_ms", "max_ms", "GFLOP/s", "GB/s", "triad", "max_rel", "avg_rel", "check");
    for (int f = 0; f < nfmt; f++) {
        run *r = &runs[f];
        char name[32];
        double gflops = 2.0 * A->nnz / r->med / 1e9, gbs = r->info.bytes / r->med / 1e9;
        snprintf(name, sizeof(name), "%s%s%s", r->asked == HSPMV_FORMAT_AUTO ? "auto->" : "",
                 r->info.format_name, r->info.symmetric ? "/sym" : "");
        char frac[16] = "      -";
        if (r->info.bytes <= llc) snprintf(frac, sizeof(frac), "in-cache");
        else if (triad > 0) snprintf(frac, sizeof(frac), "%6.1f%%", 100 * gbs / triad);
        printf("  %-12s %8.4f %10.4f %10.4f %10.4f %8.3f %8.2f %8s %10.3e %10.3e %5s\n", name,
               r->info.seg_ratio, r->med * 1e3, r->mn * 1e3, r->mx * 1e3, gflops, gbs, frac,
               r->chk.max_rel, r->chk.avg_rel, r->chk.violations ? "FAIL" : r->chk.overflows ? "OVFL" : "ok");
    }
    for (int f = 0; f < nfmt; f++) { /* each format's bytes model once */
        int seen = 0;
        for (int g = 0; g < f; g++)
            seen |= runs[g].info.format == runs[f].info.format && runs[g].info.symmetric == runs[f].info.symmetric;
        if (!seen)
            printf("  bytes %s%s = %s\n", runs[f].info.format_name, runs[f].info.symmetric ? "/sym" : "",
                   runs[f].info.bytes_formula);
    }
    for (int f = 0; f < nfmt; f++) {
        run *r = &runs[f];
        double gflops = 2.0 * A->nnz / r->med / 1e9, gbs = r->info.bytes / r->med / 1e9;
        printf("bench=omp matrix=%s precision=%s transpose=%d threads=%d format=%s asked=%s isa=%s rows=%lld "
               "cols=%lld nnz=%lld nseg=%lld seg_ratio=%.4f threshold=%g reps=%d median_ms=%.6f "
               "min_ms=%.6f max_ms=%.6f gflops=%.4f gbs=%.3f bytes=%.0f triad_gbs=%.3f "
               "frac_triad=%.4f in_cache=%d llc_bytes=%zu build_s=%.3f max_rel=%.3e avg_rel=%.3e violations=%lld overflows=%lld ysum=%.10g "
               "ychk=%.10g reorder=%s reorder_asked=%s bandwidth_before=%lld bandwidth_after=%lld "
               "local_before=%.4f local_after=%.4f reorder_window=%lld reorder_s=%.4f user_ms=%.6f "
               "symmetric=%s sym_halo=%lld sym_check_s=%.4f",
               path, sizeof(hspmv_real) == 8 ? "double" : "single", transpose, r->info.threads,
               r->info.format_name, fmt_word(r->asked), r->info.isa, (long long)A->nrows,
               (long long)A->ncols, (long long)A->nnz, (long long)r->info.nseg, r->info.seg_ratio,
               c->threshold, r->nt, r->med * 1e3, r->mn * 1e3, r->mx * 1e3, gflops, gbs, r->info.bytes,
               triad, triad > 0 ? gbs / triad : 0.0, r->info.bytes <= llc, llc, r->build_s, r->chk.max_rel, r->chk.avg_rel,
               (long long)r->chk.violations, (long long)r->chk.overflows, r->ysum, r->ychk, r->info.reorder_name,
               bu_reorder_name(c->reorder), (long long)r->info.bandwidth_before, (long long)r->info.bandwidth_after,
               r->info.local_before, r->info.local_after, (long long)r->info.reorder_window, r->info.reorder_s,
               (reorder_on ? r->umed : r->med) * 1e3,
               r->info.symmetric > 0 ? "yes" : r->info.symmetric < 0 ? "skew" : "no", (long long)r->info.sym_halo,
               r->info.sym_check_s);
        bu_meta_kv(stdout, 1, 0);
        printf("\n");
        if (cf) { /* the schema of BU_CSV_HEADER; no triad: empty, not 0 */
            char tr[2][32] = {"", ""};
            if (triad > 0) snprintf(tr[0], sizeof(tr[0]), "%.3f", triad), snprintf(tr[1], sizeof(tr[1]), "%.4f", gbs / triad);
            fprintf(cf, "omp");
            bu_csv_field(cf, path);
            fprintf(cf, ",%s,1,%d,,%s,%s,%s,%lld,%lld,%lld,%.4f,,,%d,%.6f,%.6f,%.6f,%.4f,%.3f,%s,%s,,,%.3e,%.3e,%lld",
                    sizeof(hspmv_real) == 8 ? "double" : "single", r->info.threads, r->info.format_name,
                    fmt_word(r->asked), r->info.isa, (long long)A->nrows, (long long)A->ncols, (long long)A->nnz,
                    r->info.seg_ratio, r->nt, r->med * 1e3, r->mn * 1e3, r->mx * 1e3, gflops, gbs, tr[0], tr[1],
                    r->chk.max_rel, r->chk.avg_rel, (long long)r->chk.violations);
            bu_meta_csv(cf);
            fputc('\n', cf);
        }
    }
    if (autoi >= 0 && fixed >= 0) {
        printf("bench=omp-summary matrix=%s threads=%d auto=%s auto_ms=%.6f best=%s best_asked=%s best_ms=%.6f "
               "fixed_best=%s fixed_best_ms=%.6f auto_vs_best=%.4f auto_frac_triad=%.4f triad_gbs=%.3f "
               "triad_before=%.3f triad_after=%.3f",
               path, threads, runs[autoi].info.format_name, runs[autoi].med * 1e3, runs[best].info.format_name,
               fmt_word(runs[best].asked), runs[best].med * 1e3, runs[fixed].info.format_name, runs[fixed].med * 1e3,
               runs[best].med / runs[autoi].med,
               triad > 0 ? runs[autoi].info.bytes / runs[autoi].med / 1e9 / triad : 0.0, triad,
               p0.median_gbs, p1.median_gbs);
        bu_meta_kv(stdout, 1, 0);
        printf("\n");
    }
    if (cf && (fflush(cf) != 0 || ferror(cf)))
        bu_fail_status(1, "--csv %s: writing failed: %s", c->csv, strerror(errno));
    for (int f = 0; f < nfmt; f++) {
        hspmv_local_destroy(&runs[f].L);
        free(runs[f].t);
        free(runs[f].tu);
        hspmv_free(runs[f].xi);
        hspmv_free(runs[f].yi);
    }
    hspmv_free(x);
    hspmv_free(y);
    return bad;
}

/* "4" or "1,2,4,8": fills list, returns the count (refuses a bad one). */
static int parse_threads(const char *s, int *list)
{
    char tok[64];
    int n = 0;
    if (!*s) bu_fail("threads: an empty count");
    for (;;) {
        size_t len = strcspn(s, ",");
        if (n == MAXTHR) bu_fail("threads: at most %d counts in a list, not '%s'", MAXTHR, s);
        snprintf(tok, sizeof(tok), "%.*s", (int)(len < sizeof(tok) - 1 ? len : sizeof(tok) - 1), s);
        list[n++] = (int)bu_parse_int("threads", tok, 1, hspmv_max_threads());
        if (!s[len]) return n;
        s += len + 1;
    }
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "benchmark-omp"); /* --version: prints it and exits 0 */
    cfg c = {.kernel = "auto", .reps = 50, .warmup = 2, .bw = 1, .threshold = 0.3,
             .symmetric = HSPMV_SYMMETRIC_NO};
    int nthr = 0, thr[MAXTHR], bad = 0, bw_given = 0;
    hspmv_error e = {0, ""};
    hspmv_csr A;
    hspmv_read_info rinfo;

    bu_set_prog(prog);
    c.nfmt = parse_format("all", c.fmts); /* the default the usage states: every format, then auto */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--reps")) c.reps = bu_parse_int(a, bu_value(argc, argv, &i), 1, BU_MAX_REPS);
        else if (!strcmp(a, "--warmup")) c.warmup = bu_parse_int(a, bu_value(argc, argv, &i), 0, BU_MAX_REPS);
        else if (!strcmp(a, "--format")) {
            if (!(c.nfmt = parse_format(v = bu_value(argc, argv, &i), c.fmts)))
                bu_fail("--format takes all or a comma list of at most %d of %s, not '%.40s'", MAXRUN,
                        bu_format_list(NULL), v);
        } else if (!strcmp(a, "--threshold")) c.threshold = bu_parse_real(a, bu_value(argc, argv, &i), 0, 1);
        else if (!strcmp(a, "--kernel")) c.kernel = bu_parse_kernel(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--symmetric")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "auto")) c.symmetric = HSPMV_SYMMETRIC_AUTO;
            else if (!strcmp(v, "no")) c.symmetric = HSPMV_SYMMETRIC_NO;
            else if (!strcmp(v, "yes")) c.symmetric = HSPMV_SYMMETRIC_YES;
            else bu_fail("--symmetric takes auto, no or yes, not '%.40s'", v);
        }
        else if (!strcmp(a, "--bw")) c.bw = bw_given = 1;
        else if (!strcmp(a, "--no-bw")) c.bw = 0;
        else if (!strcmp(a, "--bw-mib")) c.bw_bytes = bu_parse_mib(a, bu_value(argc, argv, &i)), bw_given = 1;
        else if (!strcmp(a, "--csv")) c.csv = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--progress")) bu_progress_set(bu_parse_progress(a, bu_value(argc, argv, &i)));
        else if (!strcmp(a, "--transpose")) transpose = 1;
        else if (!strcmp(a, "--vectors")) bb_parse_vectors(a, bu_value(argc, argv, &i), &c.block);
        else if (!strcmp(a, "--reorder")) c.reorder = bu_parse_reorder(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) bu_fail("unknown option '%s' (see %s --help)", a, prog);
        else if (!c.path) c.path = a;
        else if (!nthr) nthr = parse_threads(a, thr);
        else bu_fail("unexpected argument '%.40s' after the thread counts", a);
    }
    if (!c.path) bu_fail("no matrix given (usage: %s matrix.mtx[.gz] [threads] [options]; see --help)", prog);
    if (c.reorder && (c.block.nk || transpose))
        bu_fail("--reorder times y = A*x only: not with %s", c.block.nk ? "--vectors" : "--transpose");
    reorder_on = c.reorder != HSPMV_REORDER_NONE;
    if (c.block.nk && c.csv) bu_fail("--csv does not apply to --vectors (the key=value lines hold its results)");
    if (c.block.nk && bw_given) bu_fail("--bw and --bw-mib do not apply to --vectors (it runs no triad probe)");
    if (c.csv) c.cf = bu_csv_open(&c.csv_out, "--csv", c.csv, c.path); /* found now, not after the timings */
    if (!nthr) {
        thr[nthr++] = omp_get_max_threads();
        if (thr[0] > hspmv_max_threads())
            bu_fail("OMP_NUM_THREADS asks for %d threads, more than the %d allowed (8 per processor, at least 256)",
                    thr[0], hspmv_max_threads());
    }

    bu_warn_threads(prog, thr, nthr);
    hspmv_read_opts ro = bu_progress_opts(c.path);
    double t0 = bu_now();
    if (hspmv_csr_read(c.path, &A, &ro, &rinfo, &e)) bu_die(prog, &e);
    bu_step_end();
    printf("matrix=%s read_s=%.3f rows=%lld cols=%lld nnz=%lld precision=%s omp_procs=%d\n",
           c.path, bu_now() - t0, (long long)A.nrows, (long long)A.ncols, (long long)A.nnz,
           sizeof(hspmv_real) == 8 ? "double" : "single", omp_get_num_procs());
    if (transpose && hspmv_local_csr_transpose(&A, &tA, 1)) bu_fail("out of memory transposing the matrix");
    if (c.block.nk) { /* --vectors: the block product instead */
        c.block.path = c.path;
        c.block.kernel = c.kernel;
        c.block.nfmt = c.nfmt;
        c.block.fmts = c.fmts;
        c.block.reps = c.reps;
        c.block.warmup = c.warmup;
        c.block.rounds = ROUNDS;
        c.block.threshold = c.threshold;
        c.block.tA = transpose ? &tA : NULL;
        for (int t = 0; t < nthr; t++) bad |= bb_measure(&c.block, &A, thr[t]);
    } else
        for (int t = 0; t < nthr; t++) bad |= measure(&c, &A, thr[t]);
    hspmv_csr_free(&tA);
    hspmv_csr_free(&A);
    char why[1024];
    if (c.cf && bo_commit(&c.csv_out, why, sizeof(why))) bu_fail_status(1, "--csv: %s", why);
    bu_check_stdout();
    return bad ? 1 : 0;
}
