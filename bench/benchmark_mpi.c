/* benchmark_mpi.c — the distributed program: rank 0 reads the Matrix Market
   file, the rows are partitioned and scattered, every rank builds its halo
   plan, and y = A*x is timed with the halo exchange overlapped; the gathered
   y is checked against the serial reference on rank 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_stream.h"
#include "bench_util.h"
#include "mpi_prog.h"

static const char *prog = "benchmark-mpi";
static int me, P;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P benchmark-mpi matrix.mtx[.gz] [--partition nnz|rows|metis] [--threshold T]\n"
            "         [--format auto|csr|csrl|bcoo|csr16|csrvi] [--kernel K] [--threads N] [--reps N] [--warmup N]\n"
            "         [--triad MIB] [--json] [--verbose]\n"
            "  Rank 0 reads the matrix and sends each rank its rows; y = A*x is timed with the halo\n"
            "  exchange overlapped (median/min/max over N calls, default 50, each barrier-separated and\n"
            "  the max over ranks), and y is checked against the long-double reference on rank 0.\n"
            "  --threshold: CSRL when nzseg/nnz < T (default 0.3); --threads: OpenMP threads per rank\n"
            "  (default OMP_NUM_THREADS); --triad MIB: also run a STREAM triad on every rank at once with\n"
            "  arrays of MIB MiB per rank and report SpMV GB/s as a fraction of the summed triad.\n");
}

int main(int argc, char **argv)
{
    const char *path = NULL, *part_names[] = {"nnz", "rows", "metis"};
    long reps = 50, warmup = 5, triad_mib = 0;
    int json = 0, verbose = 0;
    hspmv_opts o;
    hspmv_error e = {0, ""};
    hspmv_csr A = {0};

    mp_start(&argc, &argv, prog, usage, &me, &P);
    hspmv_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--reps")) reps = bu_parse_int(a, bu_value(argc, argv, &i), 1, BU_MAX_REPS);
        else if (!strcmp(a, "--warmup")) warmup = bu_parse_int(a, bu_value(argc, argv, &i), 0, BU_MAX_REPS);
        else if (!strcmp(a, "--threads")) o.threads = mp_parse_threads(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--triad")) triad_mib = (long)(bu_parse_mib(a, bu_value(argc, argv, &i)) >> 20);
        else if (!strcmp(a, "--kernel")) o.kernel = bu_parse_kernel(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--threshold")) o.csrl_threshold = bu_parse_real(a, bu_value(argc, argv, &i), 0, 1);
        else if (!strcmp(a, "--partition")) {
            if ((o.partition = bu_partition_of(v = bu_value(argc, argv, &i))) < 0)
                bu_fail("--partition takes nnz, rows or metis, not '%.40s'", v);
        } else if (!strcmp(a, "--format")) {
            if ((o.format = bu_format_of(v = bu_value(argc, argv, &i))) < 0)
                bu_fail("--format takes auto, csr, csrl, bcoo, csr16 or csrvi, not '%.40s'", v);
        } else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--verbose")) verbose = 1;
        else mp_other_arg(a, &path);
    }
    mp_need_path(path);
    mp_check_threads(o.threads);

    /* rank 0 reads; the status is everyone's before anyone waits */
    double t0 = MPI_Wtime(), t_read = 0, peak_read = 0;
    int rc = HSPMV_OK;
    if (me == 0) {
        hspmv_read_opts ro = bu_progress_opts(path);
        rc = hspmv_csr_read(path, &A, &ro, NULL, &e);
        t_read = MPI_Wtime() - t0;
        peak_read = bu_peak_rss();
    }
    struct { int code; char msg[512]; } st = {rc, ""};
    if (me == 0) memcpy(st.msg, e.msg, sizeof(st.msg));
    MPI_Bcast(&st, (int)sizeof(st), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (st.code) {
        e.code = st.code;
        memcpy(e.msg, st.msg, sizeof(e.msg));
        mp_die(&e);
    }
    t0 = MPI_Wtime();
    hspmv_dist *D = NULL;
    if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e)) mp_die(&e);
    double t_create = MPI_Wtime() - t0;
    double peak = bu_peak_rss(), peak_others = 0, zero = 0;
    MPI_Reduce(me == 0 ? &zero : &peak, &peak_others, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);

    /* x in the file ordering on rank 0, scattered; y gathered back */
    hspmv_real *xg = NULL, *yg = NULL;
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS);
    double *t = malloc(sizeof(double) * (size_t)reps);
    int nomem = !x || !y || !t;
    if (me == 0) {
        xg = hspmv_malloc(((size_t)A.ncols + 1) * sizeof(hspmv_real));
        yg = hspmv_malloc(((size_t)A.nrows + 1) * sizeof(hspmv_real));
        nomem |= !xg || !yg;
        if (xg) bu_fill_x(xg, A.ncols);
    }
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the vectors");
    if (hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, x, &e)) mp_die(&e);

    for (long r = 0; r < warmup; r++)
        if (hspmv_dist_spmv(D, x, y, &e)) mp_die(&e);
    hspmv_dist_reset_timing(D);
    for (long r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double s = MPI_Wtime();
        rc = hspmv_dist_spmv(D, x, y, &e);
        double d = MPI_Wtime() - s;
        MPI_Allreduce(&d, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rc) mp_die(&e);
    }
    hspmv_dist_timing tm;
    hspmv_dist_get_timing(D, &tm);
    /* per call, this rank; then max and average over ranks */
    double mine[5] = {tm.post_s / reps, tm.owned_s / reps, tm.wait_s / reps, tm.ghost_s / reps, tm.total_s / reps};
    double tmax[5], tsum[5];
    MPI_Reduce(mine, tmax, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, tsum, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (hspmv_dist_gather(D, HSPMV_VEC_ROWS, y, yg, &e)) mp_die(&e);

    /* optional bandwidth yardstick: a triad on every rank at once */
    double triad = 0;
    if (triad_mib > 0) {
        bs_triad_result tr = {0};
        MPI_Barrier(MPI_COMM_WORLD);
        double g = bs_triad(in.owned.threads > 0 ? in.owned.threads : 1, (size_t)triad_mib << 20, 10, &tr) ? 0
                                                                                                          : tr.median_gbs;
        MPI_Reduce(&g, &triad, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }

    /* per-rank details for --verbose */
    struct { int64_t rows, nnz, nghost, nsend; int nrecv, nsendr; char fo[8], fg[8]; double seg; } mi, *all = NULL;
    memset(&mi, 0, sizeof(mi));
    mi.rows = in.nrows_local;
    mi.nnz = in.nnz_local;
    mi.nghost = in.nghost;
    mi.nsend = in.nsend;
    mi.nrecv = in.nrecv_ranks;
    mi.nsendr = in.nsend_ranks;
    mi.seg = in.owned.seg_ratio;
    snprintf(mi.fo, sizeof(mi.fo), "%s", in.owned.format_name);
    snprintf(mi.fg, sizeof(mi.fg), "%s", in.ghost.format_name);
    if (me == 0) all = malloc(sizeof(mi) * (size_t)P);
    MPI_Gather(&mi, (int)sizeof(mi), MPI_BYTE, all, (int)sizeof(mi), MPI_BYTE, 0, MPI_COMM_WORLD);

    int bad = 0;
    if (me == 0) {
        double med, mn, mx;
        bu_stats(t, (int)reps, &med, &mn, &mx);
        hspmv_check chk;
        hspmv_ref_check(&A, xg, yg, 2.0, &chk);
        bad = chk.violations != 0 || chk.overflows != 0;
        double ysum, ychk;
        bu_ysums(yg, A.nrows, &ysum, &ychk);
        double bytes = bu_csr_bytes(&A), flops = 2.0 * A.nnz, rs = (double)sizeof(hspmv_real);
        double imb = in.nnz > 0 ? (double)in.nnz_max / ((double)in.nnz / P) : 1;
        double halo_b = (double)in.halo_total * rs, halo_mx = (double)in.halo_max * rs;
        double wait_share = tmax[4] > 0 ? tmax[2] / tmax[4] : 0;
        const char *prec = sizeof(hspmv_real) == 8 ? "double" : "single";
        int thr = in.owned.threads > 0 ? in.owned.threads : in.ghost.threads;
        if (!json) {
            printf("matrix=%s rows=%lld cols=%lld nnz=%lld precision=%s read_s=%.3f distribute_s=%.3f\n", path,
                   (long long)A.nrows, (long long)A.ncols, (long long)A.nnz, prec, t_read, t_create);
            printf("  ranks %d x threads %d, partition %s%s, nnz imbalance (max/avg) %.3f, kernels %s\n", P, thr,
                   part_names[in.partition], in.permuted ? " (rows renumbered)" : "", imb, in.owned.isa);
            printf("  formats (owned blocks): csr %d, csrl %d, bcoo %d, csr16 %d, csrvi %d, none %d (CSRL when "
                   "nzseg/nnz < %.2f)\n",
                   in.format_counts[HSPMV_FORMAT_CSR], in.format_counts[HSPMV_FORMAT_CSRL],
                   in.format_counts[HSPMV_FORMAT_BCOO], in.format_counts[HSPMV_FORMAT_CSR16],
                   in.format_counts[HSPMV_FORMAT_CSRVI],
                   P - in.format_counts[1] - in.format_counts[2] - in.format_counts[3] - in.format_counts[4] -
                       in.format_counts[5],
                   o.csrl_threshold);
            if (verbose)
                for (int p = 0; p < P; p++)
                    printf("    rank %d: rows %lld nnz %lld owned %s (nzseg/nnz %.3f) ghost %s, receives %lld "
                           "entries from %d ranks, sends %lld to %d\n",
                           p, (long long)all[p].rows, (long long)all[p].nnz, all[p].fo, all[p].seg, all[p].fg,
                           (long long)all[p].nghost, all[p].nrecv, (long long)all[p].nsend, all[p].nsendr);
            printf("  halo per SpMV: %.0f bytes in all (%lld entries), max %.0f bytes received by one rank\n",
                   halo_b, (long long)in.halo_total, halo_mx);
            printf("  spmv (incl. halo exchange): median %.6f ms, min %.6f ms, max %.6f ms over %ld calls after "
                   "%ld warm-up (max over ranks, barrier-separated)\n", med * 1e3, mn * 1e3, mx * 1e3, reps, warmup);
            printf("  per call, max (avg) over ranks: post+pack %.4f (%.4f) ms, owned block %.4f (%.4f) ms, "
                   "wait %.4f (%.4f) ms, ghost block %.4f (%.4f) ms\n", tmax[0] * 1e3, tsum[0] / P * 1e3,
                   tmax[1] * 1e3, tsum[1] / P * 1e3, tmax[2] * 1e3, tsum[2] / P * 1e3, tmax[3] * 1e3,
                   tsum[3] / P * 1e3);
            printf("  %.3f GFLOP/s (2*nnz/t), %.2f GB/s (bytes = nnz*(%zu+4) + (rows+1)*8 + cols*%zu + rows*%zu)%s",
                   flops / med / 1e9, bytes / med / 1e9, sizeof(hspmv_real), sizeof(hspmv_real),
                   sizeof(hspmv_real), triad > 0 ? "" : "\n");
            if (triad > 0) printf(", %.1f%% of a %.1f GB/s triad on all ranks\n", 100 * bytes / med / 1e9 / triad, triad);
            printf("  peak memory: rank 0 %.1f MB after reading, %.1f MB after scattering; other ranks max %.1f MB\n",
                   peak_read / 1e6, peak / 1e6, peak_others / 1e6);
            printf("  check vs long-double reference: max_rel=%.3e avg_rel=%.3e rows_off_bound=%lld %s\n",
                   chk.max_rel, chk.avg_rel, (long long)chk.violations, bu_check_word(&chk));
            printf("bench=mpi matrix=%s precision=%s ranks=%d threads=%d partition=%s rows=%lld cols=%lld "
                   "nnz=%lld imbalance=%.4f csr=%d csrl=%d bcoo=%d csr16=%d csrvi=%d halo_bytes=%.0f halo_max_bytes=%.0f reps=%ld "
                   "median_ms=%.6f min_ms=%.6f max_ms=%.6f gflops=%.4f gbs=%.3f post_ms=%.5f owned_ms=%.5f "
                   "wait_ms=%.5f ghost_ms=%.5f wait_share=%.4f triad_gbs=%.2f peak_mb_root_read=%.1f "
                   "peak_mb_root=%.1f peak_mb_others=%.1f max_rel=%.3e avg_rel=%.3e violations=%lld ysum=%.10g "
                   "ychk=%.10g overflows=%lld\n",
                   path, prec, P, thr, part_names[in.partition], (long long)A.nrows, (long long)A.ncols,
                   (long long)A.nnz, imb, in.format_counts[1], in.format_counts[2], in.format_counts[3],
                   in.format_counts[4], in.format_counts[5], halo_b,
                   halo_mx, reps, med * 1e3, mn * 1e3, mx * 1e3, flops / med / 1e9, bytes / med / 1e9,
                   tmax[0] * 1e3, tmax[1] * 1e3, tmax[2] * 1e3, tmax[3] * 1e3, wait_share, triad,
                   peak_read / 1e6, peak / 1e6, peak_others / 1e6, chk.max_rel, chk.avg_rel,
                   (long long)chk.violations, ysum, ychk, (long long)chk.overflows);
        } else {
            printf("{\"bench\":\"mpi\",\"matrix\":\"%s\",\"precision\":\"%s\",\"ranks\":%d,\"threads\":%d,"
                   "\"partition\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"nnz\":%lld,\"imbalance\":%.4f,"
                   "\"formats\":{\"csr\":%d,\"csrl\":%d,\"bcoo\":%d,\"csr16\":%d,\"csrvi\":%d},\"halo_bytes\":%.0f,\"halo_max_bytes\":%.0f,"
                   "\"reps\":%ld,\"median_ms\":%.6f,\"min_ms\":%.6f,\"max_ms\":%.6f,\"gflops\":%.4f,\"gbs\":%.3f,"
                   "\"post_ms\":%.5f,\"owned_ms\":%.5f,\"wait_ms\":%.5f,\"ghost_ms\":%.5f,\"wait_share\":%.4f,"
                   "\"triad_gbs\":%.2f,\"peak_mb_root_read\":%.1f,\"peak_mb_root\":%.1f,\"peak_mb_others\":%.1f,"
                   "\"max_rel\":%.3e,\"avg_rel\":%.3e,\"violations\":%lld,\"ysum\":%.10g,\"ychk\":%.10g,"
                   "\"overflows\":%lld",
                   path, prec, P, thr, part_names[in.partition], (long long)A.nrows, (long long)A.ncols,
                   (long long)A.nnz, imb, in.format_counts[1], in.format_counts[2], in.format_counts[3],
                   in.format_counts[4], in.format_counts[5], halo_b,
                   halo_mx, reps, med * 1e3, mn * 1e3, mx * 1e3, flops / med / 1e9, bytes / med / 1e9,
                   tmax[0] * 1e3, tmax[1] * 1e3, tmax[2] * 1e3, tmax[3] * 1e3, wait_share, triad,
                   peak_read / 1e6, peak / 1e6, peak_others / 1e6, chk.max_rel, chk.avg_rel,
                   (long long)chk.violations, ysum, ychk, (long long)chk.overflows);
            if (verbose) {
                printf(",\"per_rank\":[");
                for (int p = 0; p < P; p++)
                    printf("%s{\"rows\":%lld,\"nnz\":%lld,\"format\":\"%s\",\"ghost_format\":\"%s\",\"nghost\":%lld}",
                           p ? "," : "", (long long)all[p].rows, (long long)all[p].nnz, all[p].fo, all[p].fg,
                           (long long)all[p].nghost);
                printf("]");
            }
            printf("}\n");
        }
        bu_check_report(path, &chk); /* a wrong kernel, or a product that overflows */
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(t);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(xg);
    hspmv_free(yg);
    hspmv_dist_destroy(&D);
    hspmv_csr_free(&A);
    if (me == 0) bu_check_stdout(); /* results lost on a full disk are a failure */
    MPI_Finalize();
    return bad ? 1 : 0;
}
