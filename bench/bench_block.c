/* bench_block.c — benchmark-omp --vectors: the block product Y = A X (with
   --transpose Y = A^T X) of k row-major vectors (hspmv_local_spmm) timed
   for each format and k in interleaved rounds, with every vector checked
   against the reference.
   GB/s counts the format's bytes model of one product (hspmv_local_info's
   bytes; A's for A^T X) plus the k-1 further vectors of x and y:
       bytes(k) = bytes(1) + (k-1) * (ncols + nrows) * sizeof(real)
   and products/s is k over the median time of one call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_block.h"
#include "bench_stream.h"
#include "bench_util.h"
#include "local_calls.h"

void bb_parse_vectors(const char *opt, const char *s, bb_cfg *c)
{
    char tok[32];
    c->nk = 0;
    if (!s || !*s) bu_fail("%s: an empty list", opt);
    for (;;) {
        size_t len = strcspn(s, ",");
        if (c->nk == BB_MAXK) bu_fail("%s: at most %d vector counts, not '%.40s'", opt, BB_MAXK, s);
        snprintf(tok, sizeof(tok), "%.*s", (int)(len < sizeof(tok) - 1 ? len : sizeof(tok) - 1), s);
        c->ks[c->nk++] = (int)bu_parse_int(opt, tok, 1, BB_KMAX);
        if (!s[len]) return;
        s += len + 1;
    }
}

/* X[c*k + j]: the peers' x value of row c, scaled per vector. */
static hspmv_real x_of(int64_t c, int j) { return bu_x_at(c) * (hspmv_real)(1 + 0.125 * j); }

typedef struct bb_run {
    hspmv_local *L;
    hspmv_local_info info;
    int asked;
    double *t[BB_MAXK];
    int nt[BB_MAXK];
} bb_run;

/* Violations of the k vectors of Y = A X against the reference; *maxrel the worst relative error. */
static int64_t check_block(const hspmv_csr *A, int k, const hspmv_real *X, const hspmv_real *Y, hspmv_real *x,
                           hspmv_real *y, double *maxrel)
{
    int64_t bad = 0;
    *maxrel = 0;
    for (int j = 0; j < k; j++) {
        hspmv_check chk;
        for (int64_t c = 0; c < A->ncols; c++) x[c] = X[c * k + j];
        for (int64_t i = 0; i < A->nrows; i++) y[i] = Y[i * k + j];
        hspmv_ref_check(A, x, y, 2.0, &chk);
        bad += chk.violations + chk.overflows;
        if (chk.max_rel > *maxrel) *maxrel = chk.max_rel;
    }
    return bad;
}

int bb_measure(const bb_cfg *c, const hspmv_csr *A, int threads)
{
    int kmax = 1, bad = 0, nfmt = 0;
    long rounds = c->rounds < c->reps ? c->rounds : c->reps; /* reps calls in all, as asked */
    bb_run runs[16];
    hspmv_error e = {0, ""};
    const int flags = c->tA ? HSPMV_TRANSPOSE : 0;
    const hspmv_csr *P = c->tA ? c->tA : A; /* the product's matrix: X has P->ncols rows, Y P->nrows */
    for (int q = 0; q < c->nk; q++) kmax = c->ks[q] > kmax ? c->ks[q] : kmax;
    size_t xn = (size_t)(P->ncols ? P->ncols : 1) * kmax, yn = (size_t)(P->nrows ? P->nrows : 1) * kmax;
    hspmv_real *X = hspmv_malloc(xn * sizeof(hspmv_real)), *Y = hspmv_malloc(yn * sizeof(hspmv_real));
    hspmv_real *x = hspmv_malloc((size_t)(P->ncols + 1) * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)(P->nrows + 1) * sizeof(hspmv_real));
    if (!X || !Y || !x || !y) bu_fail("%s: out of memory for blocks of %d vectors", c->path, kmax);
    printf("threads=%d vectors=", threads);
    for (int q = 0; q < c->nk; q++) printf("%s%d", q ? "," : "", c->ks[q]);
    printf("\n");
    memset(runs, 0, sizeof(runs));
    for (int f = 0; f < c->nfmt && nfmt < 16; f++) {
        bb_run *r = &runs[nfmt];
        hspmv_opts o;
        hspmv_opts_default(&o);
        o.format = c->fmts[f];
        o.csrl_threshold = c->threshold;
        o.kernel = c->kernel;
        o.threads = threads;
        int rc = hspmv_local_create(A, &o, &r->L, &e);
        if (rc == HSPMV_ERR_UNSUPPORTED && o.format != HSPMV_FORMAT_AUTO && c->nfmt > 1) {
            printf("  %s: not applicable to this matrix (%s)\n", bu_format_name(o.format), e.msg);
            continue;
        }
        if (rc) bu_die(bu_prog(), &e);
        if (flags && hspmv_local_spmm(r->L, flags, 1, x, y, 0, &e)) bu_die(bu_prog(), &e); /* makes A^T */
        hspmv_local_get_info(r->L, &r->info);
        r->asked = o.format;
        for (int q = 0; q < c->nk; q++)
            if (!(r->t[q] = malloc((size_t)c->reps * sizeof(double)))) bu_fail("out of memory");
        if (nfmt == 0) { /* the blocks' pages go where the threads that use their rows run */
            bs_advise_huge(X, xn * sizeof(hspmv_real));
            bs_advise_huge(Y, yn * sizeof(hspmv_real));
            hspmv_local_touch(r->L, X, (int64_t)xn);
            hspmv_local_touch(r->L, Y, (int64_t)yn);
        }
        printf("  %s%s%s: kernels=%s threads=%d, %.2f bytes/nonzero for one vector\n", bu_format_name(o.format),
               o.format == HSPMV_FORMAT_AUTO ? " -> " : "", o.format == HSPMV_FORMAT_AUTO ? r->info.format_name : "",
               r->info.isa, r->info.threads, A->nnz > 0 ? r->info.bytes / (double)A->nnz : 0.0);
        nfmt++;
    }
    /* rounds: every format, every k, reps/rounds timed calls each (the first
       reps % rounds rounds one more) after the warm-up */
    for (long round = 0; round < rounds; round++)
        for (int f = 0; f < nfmt; f++)
            for (int q = 0; q < c->nk; q++) {
                int k = c->ks[q];
                bb_run *r = &runs[f];
                for (int64_t i = 0; i < P->ncols; i++)
                    for (int j = 0; j < k; j++) X[i * k + j] = x_of(i, j);
                for (long w = 0; w < c->warmup; w++)
                    if (hspmv_local_spmm(r->L, flags, k, X, Y, 0, &e)) bu_die(bu_prog(), &e);
                for (long n = 0; n < c->reps / rounds + (round < c->reps % rounds); n++) {
                    double t0 = bu_now();
                    hspmv_local_spmm(r->L, flags, k, X, Y, 0, &e);
                    r->t[q][r->nt[q]++] = bu_now() - t0;
                }
            }
    printf("  %-14s %4s %10s %10s %10s %12s %8s %9s %10s %5s\n", "format", "k", "median_ms", "min_ms", "max_ms",
           "products/s", "GB/s", "vs_k=1", "max_rel", "check");
    for (int f = 0; f < nfmt; f++) {
        bb_run *r = &runs[f];
        double rate1 = 0;
        for (int q = 0; q < c->nk; q++) {
            int k = c->ks[q];
            double med, mn, mx, maxrel;
            for (int64_t i = 0; i < P->ncols; i++)
                for (int j = 0; j < k; j++) X[i * k + j] = x_of(i, j);
            hspmv_local_spmm(r->L, flags, k, X, Y, 0, &e);
            int64_t viol = check_block(P, k, X, Y, x, y, &maxrel);
            bad |= viol != 0;
            bu_stats(r->t[q], r->nt[q], &med, &mn, &mx);
            double rate = k / med, bytes = r->info.bytes + (double)(k - 1) * (double)(A->ncols + A->nrows) *
                                                             sizeof(hspmv_real);
            if (k == 1) rate1 = rate;
            char name[40], vs[16] = "-";
            snprintf(name, sizeof(name), "%s%s", r->asked == HSPMV_FORMAT_AUTO ? "auto->" : "", r->info.format_name);
            if (rate1 > 0) snprintf(vs, sizeof(vs), "%.2fx", rate / rate1);
            printf("  %-14s %4d %10.4f %10.4f %10.4f %12.1f %8.2f %9s %10.3e %5s\n", name, k, med * 1e3, mn * 1e3,
                   mx * 1e3, rate, bytes / med / 1e9, vs, maxrel, viol ? "FAIL" : "ok");
            printf("bench=omp-block matrix=%s precision=%s transpose=%d threads=%d format=%s asked=%s isa=%s "
                   "rows=%lld cols=%lld nnz=%lld vectors=%d reps=%d median_ms=%.6f min_ms=%.6f max_ms=%.6f "
                   "products_per_s=%.3f gbs=%.3f bytes=%.0f vs_k1=%.4f max_rel=%.3e violations=%lld\n",
                   c->path, sizeof(hspmv_real) == 8 ? "double" : "single", flags != 0, r->info.threads,
                   r->info.format_name, bu_format_name(r->asked), r->info.isa, (long long)P->nrows, (long long)P->ncols, (long long)P->nnz,
                   k, r->nt[q], med * 1e3, mn * 1e3, mx * 1e3, rate, bytes / med / 1e9, bytes,
                   rate1 > 0 ? rate / rate1 : 0.0, maxrel, (long long)viol);
            if (viol) fprintf(stderr, "%s: error: %s (%s, k=%d): %lld rows off the reference bound\n", bu_prog(),
                              c->path, r->info.format_name, k, (long long)viol);
        }
    }
    printf("  bytes(k) = the format's bytes of one product + (k-1)*(cols+rows)*%zu\n", sizeof(hspmv_real));
    for (int f = 0; f < nfmt; f++) {
        hspmv_local_destroy(&runs[f].L);
        for (int q = 0; q < c->nk; q++) free(runs[f].t[q]);
    }
    hspmv_free(X);
    hspmv_free(Y);
    hspmv_free(x);
    hspmv_free(y);
    return bad;
}
