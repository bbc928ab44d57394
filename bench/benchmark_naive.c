/* benchmark_naive.c — the seed's serial program: read a Matrix Market file,
   build CSR, time the plain CSR loop, check it against the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "bench_util.h"
#include "alloc.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: %s matrix.mtx[.gz] [--reps N] [--warmup N] [--read-only]\n"
               "  Reads the matrix into CSR (a plain file in byte ranges by OMP_NUM_THREADS threads,\n"
               "  gzip by one) and times y = A*x with\n"
               "  the plain serial CSR loop: median/min/max over N timed calls (default 50)\n"
               "  after warm-up calls (default 5). --read-only stops after reading (read_s: file to CSR).\n", bu_invoked_name());
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "benchmark-naive"); /* --version: prints it and exits 0 */
    const char *prog = "benchmark-naive", *path = NULL;
    long reps = 50, warmup = 5;
    int read_only = 0;
    hspmv_error e = {0, ""};
    hspmv_csr A;
    hspmv_read_info info;

    bu_set_prog(prog);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--reps")) reps = bu_parse_int(a, bu_value(argc, argv, &i), 1, BU_MAX_REPS);
        else if (!strcmp(a, "--warmup")) warmup = bu_parse_int(a, bu_value(argc, argv, &i), 0, BU_MAX_REPS);
        else if (!strcmp(a, "--read-only")) read_only = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1]) bu_fail("unknown option '%s' (see %s --help)", a, prog);
        else if (!path) path = a;
        else bu_fail("more than one matrix given ('%s' after '%s')", a, path);
    }
    if (!path) bu_fail("no matrix given (usage: %s matrix.mtx[.gz] [options]; see --help)", prog);

    double rss0 = bu_peak_rss(); /* the process before any matrix */
    hspmv_read_opts ro = bu_progress_opts(path);
    double t0 = bu_now();
    /* a plain file is parsed in byte ranges by OMP_NUM_THREADS threads; gzip and pipes by one */
    if (hspmv_csr_read(path, &A, &ro, &info, &e)) bu_die(prog, &e);
    bu_step_end();
    double t_read = bu_now() - t0, mbs = info.bytes / 1e6 / t_read;
    int threads = info.gzip ? 1 : omp_get_max_threads();
    printf("matrix=%s read_s=%.3f read_mbs=%.1f text_mb=%.1f gzip=%d threads=%d rows=%lld cols=%lld nnz=%lld\n",
           path, t_read, mbs, info.bytes / 1e6, info.gzip, threads, (long long)A.nrows, (long long)A.ncols,
           (long long)A.nnz);
    double csr_mb = ((A.nrows + 1) * 8.0 + A.nnz * (4.0 + sizeof(hspmv_real))) / 1e6;
    double peak_mb = (bu_peak_rss() - rss0) / 1e6;
    if (read_only) {
        printf("bench=naive-read matrix=%s precision=%s threads=%d read_s=%.4f read_mbs=%.1f text_mb=%.1f nnz=%lld "
               "peak_mb=%.1f", path, sizeof(hspmv_real) == 8 ? "double" : "single", threads, t_read, mbs,
               info.bytes / 1e6, (long long)A.nnz, peak_mb);
        bu_meta_kv(stdout, 1, 0);
        printf("\n");
        hspmv_csr_free(&A);
        bu_check_stdout();
        return 0;
    }

    hspmv_real *x = hspmv_calloc((size_t)A.ncols, sizeof(hspmv_real));
    hspmv_real *y = hspmv_calloc((size_t)A.nrows, sizeof(hspmv_real));
    double *t = malloc((size_t)reps * sizeof(double));
    if (!x || !y || !t) {
        e.code = HSPMV_ERR_NOMEM;
        snprintf(e.msg, sizeof(e.msg), "out of memory for vectors of %lld rows", (long long)A.nrows);
        bu_die(prog, &e);
    }
    bu_fill_x(x, A.ncols);
    for (long r = 0; r < warmup; r++) hspmv_csr_spmv_naive(&A, x, y);
    for (long r = 0; r < reps; r++) {
        t0 = bu_now();
        hspmv_csr_spmv_naive(&A, x, y);
        t[r] = bu_now() - t0;
    }
    double med, mn, mx;
    bu_stats(t, (int)reps, &med, &mn, &mx);
    double bytes = bu_csr_bytes(&A), flops = 2.0 * A.nnz;
    hspmv_check chk;
    hspmv_ref_check(&A, x, y, 2.0, &chk);
    double ysum, ychk;
    bu_ysums(y, A.nrows, &ysum, &ychk);

    printf("  csr: nnz=%lld; CSR %.1f MB; peak memory of read+build (above the %.1f MB baseline) %.1f MB = %.2fx CSR\n",
           (long long)A.nnz, csr_mb, rss0 / 1e6, peak_mb, peak_mb / csr_mb);
    printf("  spmv naive (%s): median %.6f ms, min %.6f ms, max %.6f ms over %ld calls after %ld warm-up\n",
           sizeof(hspmv_real) == 8 ? "double" : "single", med * 1e3, mn * 1e3, mx * 1e3, reps, warmup);
    printf("  %.3f GFLOP/s (2*nnz/t), %.2f GB/s (bytes = nnz*(%zu+4) + (rows+1)*8 + cols*%zu + rows*%zu)\n",
           flops / med / 1e9, bytes / med / 1e9, sizeof(hspmv_real), sizeof(hspmv_real), sizeof(hspmv_real));
    printf("  check vs long-double reference: max_rel=%.3e avg_rel=%.3e rows_off_bound=%lld %s\n",
           chk.max_rel, chk.avg_rel, (long long)chk.violations, bu_check_word(&chk));
    printf("bench=naive matrix=%s precision=%s rows=%lld cols=%lld nnz=%lld reps=%ld median_ms=%.6f "
           "min_ms=%.6f max_ms=%.6f gflops=%.4f gbs=%.3f read_mbs=%.1f peak_mb=%.1f max_rel=%.3e "
           "avg_rel=%.3e violations=%lld overflows=%lld ysum=%.10g ychk=%.10g",
           path, sizeof(hspmv_real) == 8 ? "double" : "single", (long long)A.nrows, (long long)A.ncols,
           (long long)A.nnz, reps, med * 1e3, mn * 1e3, mx * 1e3, flops / med / 1e9, bytes / med / 1e9, mbs,
           peak_mb, chk.max_rel, chk.avg_rel, (long long)chk.violations, (long long)chk.overflows, ysum, ychk);
    bu_meta_kv(stdout, 1, 1);
    printf("\n");
    hspmv_free(x);
    hspmv_free(y);
    free(t);
    hspmv_csr_free(&A);
    int bad = bu_check_report(path, &chk);
    bu_check_stdout();
    return bad;
}
