/* mpi_gpu.c — benchmark-mpi --gpu and solve --gpu: one rank per GPU (the
   several-GPU library, hspmv_gpu_dist), on a matrix file or on rows each
   rank generates (--gen); --cpu-compare runs the CPU library on the same
   rows for comparison. Built with CUDA=1; without it --gpu is refused. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bench_util.h"
#include "mpi_prog.h"
#include "mpi_check.h"
#include "mpi_gen.h"
#include "mpi_gpu.h"
#include "csr.h"
#ifdef HSPMV_CUDA
#include "hspmv_gpu.h"
#endif

static int me, P;
static int host_mask; /* cores in the main thread's affinity mask (host_mask=), after host_setup */

/* gpu: before any CUDA or NCCL call, the main thread's mask widened back
   from the OpenMP runtime's one core (mp_unpin_main_thread), so that the
   threads CUDA and NCCL make do not share its core while it waits. Then
   host_mask, the fewest over ranks. */
static void host_setup(int gpu)
{
    cpu_set_t set;
    if (gpu) mp_unpin_main_thread();
    host_mask = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    MPI_Allreduce(MPI_IN_PLACE, &host_mask, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
}

int mg_wants_gpu(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--gpu") || !strcmp(argv[i], "--cpu-compare")) return 1;
    return 0;
}

/* What both programs take. */
typedef struct gpu_args {
    const char *path;  /* the file, or --gen's name (gen:KIND:N...) */
    mg_args gen;       /* --gen KIND N, --values, --seed: the CPU path's generator (mpi_gen.c) */
    int cpu, check, threads;
    long reps, warmup;
    int comms[4], ncomm;   /* --gpu-comm list */
    int kernel, aware, device;
    double tol;
    long maxit;
} gpu_args;

static void usage_bench(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P benchmark-mpi --gpu (matrix.mtx | --gen KIND N [--values stencil|random]\n"
            "         [--seed S]) [--gpu-comm auto|nccl|mpi|host[,...]]\n"
            "         [--gpu-kernel K] [--gpu-mpi-aware ask|yes|no] [--gpu-device D] [--reps N] [--warmup N]\n"
            "         [--check full|none] [--cpu-compare [--threads N]]\n"
            "  One rank per GPU (the GPU from the rank's place on its node: local rank %% visible devices,\n"
            "  so Slurm's --gpus-per-task or CUDA_VISIBLE_DEVICES decide); the rows split as given (a file:\n"
            "  by nonzeros, as the CPU path), the owned and ghost blocks on each GPU, the halo packed on\n"
            "  the device and moved by NCCL (nccl), device pointers to a CUDA-aware MPI (mpi) or pinned\n"
            "  host buffers (host); auto: nccl where built with it and no GPU is shared, else mpi where\n"
            "  MPI is CUDA-aware, else host. A list times each path in turn. --gen KIND N: as without\n"
            "  --gpu (lap2d, lap3d, lap3d27, random[:K], powerlaw[:K]; each rank its own rows, split by nonzeros).\n"
            "  --cpu-compare: the CPU library (hspmv_dist_create, halo auto) on the same rows instead.\n"
            "  Prints per product pack_ms, exchange_ms, local_ms, ghost_ms, halo_bytes, gpu_comm,\n"
            "  the device, its device-to-device copy rate and the fraction of it the product reached.\n");
}

static void usage_solve(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P solve --gpu (matrix.mtx | --gen KIND N [options as benchmark-mpi --gpu])\n"
            "         [--tol T] [--maxit N] [--gpu-comm auto|nccl|mpi|host] [--cpu-compare [--threads N]]\n"
            "  CG with every vector on the GPUs (one rank each), b = A*1 (x* = 1), x0 = 0; the stopping\n"
            "  rule of the CPU solver. --cpu-compare: the CPU solver (hspmv_solve, CG) on the same rows.\n"
            "  Prints iterations, time, iterations per second and max|x - 1|.\n");
}

/* The options of benchmark-mpi and solve without --gpu that the GPU path does not take. */
static int cpu_only(const char *s)
{
    static const char *const names[] = {"--transpose", "--vectors", "--halo", "--partition", "--read", "--format",
                                        "--kernel", "--threshold", "--triad", "--passes", "--node-ranks", "--caller-x",
                                        "--json", "--verbose", "--progress", "--rhs", "--method", "--jacobi", "--out"};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if (!strcmp(s, names[k])) return 1;
    return 0;
}

static void parse(int argc, char **argv, gpu_args *a, int solve)
{
    memset(a, 0, sizeof(*a));
    mg_init(&a->gen);
    a->reps = 50;
    a->warmup = 5;
    a->check = 1;
    a->aware = -1;
    a->device = -1;
    a->tol = sizeof(hspmv_real) == 4 ? 1e-5 : 1e-8;
    a->maxit = 1000;
    a->comms[0] = 0;
    a->ncomm = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v;
        if (!strcmp(s, "--gpu")) continue;
        else if (!strcmp(s, "--cpu-compare")) a->cpu = 1;
        else if (mg_parse(argc, argv, &i, &a->gen)) continue;
        else if (!strcmp(s, "--reps")) a->reps = bu_parse_int(s, bu_value(argc, argv, &i), 1, 100000);
        else if (!strcmp(s, "--warmup")) a->warmup = bu_parse_int(s, bu_value(argc, argv, &i), 0, 100000);
        else if (!strcmp(s, "--threads")) a->threads = mp_parse_threads(s, bu_value(argc, argv, &i));
        else if (!strcmp(s, "--tol")) a->tol = bu_parse_real(s, bu_value(argc, argv, &i), 1e-300, 1);
        else if (!strcmp(s, "--maxit")) a->maxit = bu_parse_int(s, bu_value(argc, argv, &i), 0, 1L << 40);
        else if (!strcmp(s, "--gpu-device")) a->device = (int)bu_parse_int(s, bu_value(argc, argv, &i), 0, 1024);
        else if (!strcmp(s, "--check")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "none")) a->check = 0;
            else if (strcmp(v, "full")) bu_fail("--check takes full or none, not '%.40s'", v);
        } else if (!strcmp(s, "--gpu-mpi-aware")) {
            v = bu_value(argc, argv, &i);
            a->aware = !strcmp(v, "ask") ? -1 : !strcmp(v, "yes") ? 1 : !strcmp(v, "no") ? 0 : -2;
            if (a->aware == -2) bu_fail("--gpu-mpi-aware takes ask, yes or no, not '%.40s'", v);
        } else if (!strcmp(s, "--gpu-comm")) {
#ifdef HSPMV_CUDA
            char buf[128];
            snprintf(buf, sizeof(buf), "%s", bu_value(argc, argv, &i));
            a->ncomm = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int c = hspmv_gpu_comm_parse(t);
                if (c < 0 || a->ncomm == 4) bu_fail("--gpu-comm takes auto, nccl, mpi or host (up to 4, commas), not '%.40s'", t);
                a->comms[a->ncomm++] = c;
            }
            if (!a->ncomm) bu_fail("--gpu-comm needs a path");
#else
            bu_value(argc, argv, &i);
#endif
        } else if (!strcmp(s, "--gpu-kernel")) {
#ifdef HSPMV_CUDA
            v = bu_value(argc, argv, &i);
            if ((a->kernel = hspmv_gpu_kernel_parse(v)) < 0 || a->kernel >= HSPMV_GPU_NKERNELS)
                bu_fail("--gpu-kernel: unknown kernel '%.40s'", v);
#else
            bu_value(argc, argv, &i);
#endif
        } else if (cpu_only(s)) {
            bu_fail("%s is not an option of --gpu (the CPU path's: see %s --help; --gpu's: %s --gpu --help)", s,
                    solve ? "solve" : "benchmark-mpi", solve ? "solve" : "benchmark-mpi");
        } else mp_other_arg(s, &a->path);
    }
    if (!a->gen.s.kind) mp_need_path(a->path);
    a->path = mg_finish(&a->gen, a->path);
#ifndef HSPMV_CUDA
    if (!a->cpu) bu_fail("--gpu: this %s was built without CUDA (make CUDA=1)", solve ? "solve" : "benchmark-mpi");
#else
    (void)solve;
#endif
    mp_check_threads(a->threads);
}

/* This rank's rows, split by nonzeros: generated by every rank for its own
   rows (mpi_gen.c, as without --gpu), or the file's (every rank a byte range). */
static void load_rows(const gpu_args *a, hspmv_csr *S, char *name, size_t len)
{
    hspmv_error e = {0, ""};
    int rc;
    mc_rows R;
    double gen_s = 0;
    snprintf(name, len, "%s", a->path);
    rc = a->gen.s.kind ? mg_rows(&a->gen, a->threads, &R, &gen_s, &e) : mc_rows_read(a->path, a->threads, &R, &e);
    if (!rc) {
        *S = R.rows;
        memset(&R.rows, 0, sizeof(R.rows));
        mc_rows_free(&R);
    }
    int all = 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all) {
        /* rank 0's message when it failed, else a generic one */
        hspmv_error e0 = e;
        MPI_Bcast(&e0, (int)sizeof(e0), MPI_BYTE, 0, MPI_COMM_WORLD);
        if (!e0.code) snprintf(e0.msg, sizeof(e0.msg), "a rank could not get its rows");
        mp_die(&e0);
    }
}

/* Rows of this rank against the long-double reference, in parallel
   pieces; the outcome summed over all ranks. */
static void check_rows(const hspmv_csr *S, const hspmv_real *xg, const hspmv_real *y, hspmv_check *out)
{
    enum { PIECES = 64 };
    hspmv_check c[PIECES];
    memset(c, 0, sizeof(c));
#pragma omp parallel for schedule(dynamic, 1)
    for (int p = 0; p < PIECES; p++) {
        int64_t b = S->nrows * p / PIECES, e = S->nrows * (p + 1) / PIECES;
        hspmv_csr V = *S;
        V.rowptr = S->rowptr + b; /* absolute offsets into colind and val */
        V.nrows = e - b;
        hspmv_ref_check(&V, xg, y + b, 2.0, &c[p]);
    }
    double loc[4] = {0, 0, 0, 0}, sum[4], mx[2] = {0, 0}, gmx[2];
    for (int p = 0; p < PIECES; p++) {
        loc[0] += (double)c[p].violations;
        loc[1] += (double)c[p].overflows;
        loc[2] += c[p].avg_rel * (double)(S->nrows * (p + 1) / PIECES - S->nrows * p / PIECES);
        mx[0] = fmax(mx[0], c[p].max_rel);
        mx[1] = fmax(mx[1], c[p].worst);
    }
    loc[3] = (double)S->nrows;
    MPI_Allreduce(loc, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mx, gmx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    memset(out, 0, sizeof(*out));
    out->violations = (int64_t)sum[0];
    out->overflows = (int64_t)sum[1];
    out->avg_rel = sum[3] > 0 ? sum[2] / sum[3] : 0;
    out->max_rel = gmx[0];
    out->worst = gmx[1];
    out->first_bad = out->first_overflow = -1;
}

/* x[j] for every global column (the reference needs the ghosts' too). */
static hspmv_real *global_x(int64_t ncols)
{
    hspmv_real *x = hspmv_malloc((size_t)(ncols + 1) * sizeof(hspmv_real));
    if (!x) mp_die_msg("out of memory for x");
    bu_fill_x(x, ncols);
    return x;
}

static double median_of(double *t, long n)
{
    double med, mn, mx;
    bu_stats(t, (int)n, &med, &mn, &mx);
    return med;
}

/* ---- the CPU library on the same rows ------------------------------------ */

static int cpu_dist(const gpu_args *a, const hspmv_csr *S, hspmv_dist **D)
{
    hspmv_opts o;
    hspmv_error e = {0, ""};
    hspmv_opts_default(&o);
    o.threads = a->threads;
    int64_t *ci = hspmv_malloc((size_t)(S->nnz + 1) * sizeof(int64_t));
    if (!ci) mp_die_msg("out of memory for the CPU copy of the rows");
    for (int64_t k = 0; k < S->nnz; k++) ci[k] = S->colind[k];
    int rc = hspmv_dist_create(MPI_COMM_WORLD, S->nrows, S->ncols, -1, S->rowptr, ci, S->val, &o, D, &e);
    hspmv_free(ci);
    if (rc) mp_die(&e);
    return 0;
}

static int bench_cpu(const gpu_args *a, const hspmv_csr *S, const char *name)
{
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    hspmv_dist_info in;
    cpu_dist(a, S, &D);
    hspmv_dist_get_info(D, &in);
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    int64_t cb = in.col_begin, nc = in.ncols_local;
    for (int64_t j = 0; j < nc; j++) x[j] = bu_x_at(cb + j);
    double *t = calloc((size_t)a->reps, sizeof(double));
    for (long r = 0; r < a->warmup; r++) hspmv_dist_spmv(D, x, y, &e);
    for (long r = 0; r < a->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (hspmv_dist_spmv(D, x, y, &e)) mp_die(&e);
        t[r] = MPI_Wtime() - t0;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, (int)a->reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double med = median_of(t, a->reps);
    hspmv_check chk = {0, -1, 0, 0, 0, 0, -1};
    if (a->check) {
        hspmv_real *xg = global_x(S->ncols);
        check_rows(S, xg, y, &chk);
        hspmv_free(xg);
    }
    double bytes = (double)in.nnz * (sizeof(hspmv_real) + 4) + 8.0 * (double)(in.nrows + P) +
                   (double)sizeof(hspmv_real) * (double)(in.nrows + in.ncols);
    if (me == 0) {
        printf("bench=mpi-gpu device=cpu matrix=%s precision=%s ranks=%d threads=%d rows=%lld cols=%lld nnz=%lld "
               "reps=%ld median_ms=%.5f gflops=%.3f gbs=%.3f checked=%d violations=%lld max_rel=%.3e\n",
               name, sizeof(hspmv_real) == 8 ? "double" : "single", P, in.owned.nnz > 0 ? in.owned.threads : in.ghost.threads, (long long)in.nrows,
               (long long)in.ncols, (long long)in.nnz, a->reps, med * 1e3, 2.0 * (double)in.nnz / med / 1e9,
               bytes / med / 1e9, a->check, (long long)chk.violations, chk.max_rel);
        fflush(stdout);
    }
    free(t);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_dist_destroy(&D);
    return a->check && (chk.violations || chk.overflows);
}

/* b = A*1 on this rank's rows: the row sums. */
static hspmv_real *row_sums(const hspmv_csr *S)
{
    hspmv_real *b = hspmv_malloc((size_t)(S->nrows + 1) * sizeof(hspmv_real));
    if (!b) mp_die_msg("out of memory for b");
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < S->nrows; i++) {
        hspmv_real s = 0;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) s += S->val[k];
        b[i] = s;
    }
    return b;
}

/* CG's phases on the GPUs, per iteration and max over ranks, and the
   iteration's byte model. */
typedef struct cg_phases {
    double vector_ms, wait_ms, reduce_ms; /* vector kernels, host waits for the device, MPI_Allreduce */
    double model_bytes;                   /* the product's bytes and the vector passes, all ranks */
    double copy_gbs;                      /* the slowest GPU's copy rate (read + write) */
    double gpus;                          /* GPUs in use */
    int passes;                           /* vector passes in the model (9: p'q inside the product) */
} cg_phases;

/* ph: the GPUs' phases (NULL on the CPU). */
static void print_solve(const char *dev, const char *comm, const char *name, int64_t rows, int64_t nnz, int rc,
                        int64_t its, double relres, double secs, double spmv_s, double xerr, const double part[2],
                        const cg_phases *ph)
{
    if (me != 0) return;
    printf("bench=solve-gpu device=%s gpu_comm=%s matrix=%s precision=%s ranks=%d rows=%lld nnz=%lld method=cg "
           "converged=%d iterations=%lld relres=%.3e seconds=%.4f its_per_s=%.2f spmv_s=%.4f spmv_ms=%.5f exchange_ms=%.5f "
           "err_max=%.3e host_mask=%d",
           dev, comm, name, sizeof(hspmv_real) == 8 ? "double" : "single", P, (long long)rows, (long long)nnz,
           rc == 0, (long long)its, relres, secs, secs > 0 ? (double)its / secs : 0, spmv_s, part[0], part[1], xerr,
           host_mask);
    if (ph) {
        double it_ms = its > 0 ? secs / (double)its * 1e3 : 0,
               model_ms = ph->model_bytes / (ph->copy_gbs * 1e9 * ph->gpus) * 1e3;
        printf(" iter_ms=%.5f vector_ms=%.5f wait_ms=%.5f reduce_ms=%.5f passes_rows=%d model_bytes=%.0f copy_gbs=%.1f "
               "model_ms=%.5f frac_model=%.4f its_vs_products=%.4f",
               it_ms, ph->vector_ms, ph->wait_ms, ph->reduce_ms, ph->passes, ph->model_bytes, ph->copy_gbs, model_ms, it_ms > 0 ? model_ms / it_ms : 0,
               it_ms > 0 ? part[0] / it_ms : 0);
    }
    printf("\n");
    fflush(stdout);
}

static int solve_cpu(const gpu_args *a, const hspmv_csr *S, const char *name)
{
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    hspmv_solver_opts so;
    hspmv_solver_result res;
    hspmv_dist_info in;
    cpu_dist(a, S, &D);
    hspmv_dist_get_info(D, &in);
    hspmv_real *b = row_sums(S), *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    for (int64_t i = 0; i < S->nrows; i++) x[i] = 0;
    hspmv_solver_opts_default(&so);
    so.tol = a->tol;
    so.maxit = a->maxit;
    so.method = HSPMV_SOLVER_CG;
    int rc = hspmv_solve(D, b, x, &so, &res, &e);
    double err = 0, all = 0;
    for (int64_t i = 0; i < S->nrows; i++) err = fmax(err, fabs((double)x[i] - 1));
    MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double t = res.total_s, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double none[2] = {0, 0};
    print_solve("cpu", "-", name, in.nrows, in.nnz, rc, res.iterations, res.relres_true, tmax, res.spmv_s, all, none,
                NULL);
    if (rc && me == 0) fprintf(stderr, "solve: %s\n", e.msg);
    hspmv_free(b);
    hspmv_free(x);
    hspmv_dist_destroy(&D);
    return rc != 0;
}

#ifdef HSPMV_CUDA
/* ---- the GPUs ------------------------------------------------------------------ */

/* Collective: when some rank failed (rc), every rank leaves with the
   lowest such rank's message. */
static void agree_or_die(int rc, hspmv_error *e)
{
    int bad = rc != 0, any = 0, first = rc ? me : P, src = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) return;
    MPI_Allreduce(&first, &src, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Bcast(e, (int)sizeof(*e), MPI_BYTE, src, MPI_COMM_WORLD);
    mp_die(e);
}

static hspmv_gpu_dist *gpu_dist(const gpu_args *a, const hspmv_csr *S, int comm)
{
    hspmv_gpu_dist_opts o;
    hspmv_gpu_dist *G = NULL;
    hspmv_error e = {0, ""};
    hspmv_gpu_dist_opts_default(&o);
    o.comm = comm;
    o.kernel = a->kernel;
    o.mpi_cuda_aware = a->aware;
    o.device = a->device;
    if (hspmv_gpu_dist_create(MPI_COMM_WORLD, S, &o, &G, &e)) mp_die(&e);
    return G;
}

/* Distinct GPUs over all ranks: ranks on a node / the most sharing one GPU,
   summed over nodes (an estimate when the sharing is uneven). */
static int count_gpus(const hspmv_gpu_dist_info *in)
{
    int mine = in->local_rank == 0 ? (in->local_ranks + in->max_device_sharers - 1) / in->max_device_sharers : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

static int bench_gpu_one(const gpu_args *a, const hspmv_csr *S, const char *name, int comm, double copy_gbs)
{
    hspmv_gpu_dist *G = gpu_dist(a, S, comm);
    hspmv_gpu_dist_info in;
    hspmv_gpu_dist_timing tm;
    hspmv_error e = {0, ""};
    hspmv_real *dx = NULL, *dy = NULL;
    hspmv_gpu_dist_get_info(G, &in);
    int rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_COLS, &dx, &e);
    if (!rc) rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_ROWS, &dy, &e);
    hspmv_real *xl = hspmv_malloc((size_t)(in.ncols_local + 1) * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)(in.nrows_local + 1) * sizeof(hspmv_real));
    for (int64_t j = 0; xl && j < in.ncols_local; j++) xl[j] = bu_x_at(in.col_begin + j);
    if (!rc && (!xl || !y)) rc = hspmv_err(&e, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (!rc) rc = hspmv_gpu_vec_upload(dx, xl, in.ncols_local, &e);
    for (long r = 0; !rc && r < a->warmup; r++) rc = hspmv_gpu_dist_spmv(G, dx, dy, &e);
    hspmv_gpu_dist_get_timing(G, NULL, 1);
    double *t = calloc((size_t)a->reps, sizeof(double));
    for (long r = 0; r < a->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (!rc) rc = hspmv_gpu_dist_spmv(G, dx, dy, &e);
        t[r] = MPI_Wtime() - t0;
    }
    hspmv_gpu_dist_get_timing(G, &tm, 0);
    if (!rc) rc = hspmv_gpu_vec_download(y, dy, in.nrows_local, &e);
    agree_or_die(rc, &e); /* a failure on one rank ends every rank with its message */
    MPI_Allreduce(MPI_IN_PLACE, t, (int)a->reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double med, mn, mx;
    bu_stats(t, (int)a->reps, &med, &mn, &mx);
    hspmv_check chk = {0, -1, 0, 0, 0, 0, -1};
    if (a->check) {
        hspmv_real *xg = global_x(S->ncols);
        check_rows(S, xg, y, &chk);
        hspmv_free(xg);
    }
    /* per call, max over ranks: pack, exchange, local, ghost, total; halo bytes summed */
    double n = tm.calls ? (double)tm.calls : 1;
    double part[5] = {tm.pack_ms / n, tm.exchange_ms / n, tm.local_ms / n, tm.ghost_ms / n, tm.total_ms / n}, pmax[5];
    MPI_Allreduce(part, pmax, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double hb = tm.halo_bytes / n, hsum = 0;
    MPI_Allreduce(&hb, &hsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* this GPU's rate: its blocks' CSR bytes over its own device time, as a
       fraction of its copy rate; the smallest over ranks */
    double r_ = (double)sizeof(hspmv_real);
    double mybytes = (double)(in.nnz_owned + in.nnz_ghost) * (r_ + 4) + 8.0 * (double)(in.nrows_local + 1) +
                     8.0 * (double)(in.nghost_rows + 1) + r_ * (double)(in.ncols_local + in.nghost + in.nrows_local);
    double myfrac = tm.total_ms > 0 ? mybytes / (tm.total_ms / n * 1e-3) / 1e9 / copy_gbs : 0, fmin = 0, fmaxv = 0;
    MPI_Allreduce(&myfrac, &fmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&myfrac, &fmaxv, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double cmin = 0, cmax = 0;
    MPI_Allreduce(&copy_gbs, &cmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&copy_gbs, &cmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double bytes = (double)in.nnz * (r_ + 4) + 8.0 * (double)(in.nrows + P) + r_ * (double)(in.nrows + in.ncols);
    int gpus = count_gpus(&in);
    if (me == 0) {
        printf("bench=mpi-gpu device=gpu matrix=%s precision=%s ranks=%d gpus=%d gpu_comm=%s gpu=\"%s\" rows=%lld "
               "cols=%lld nnz=%lld owned_kernel=%s ghost_kernel=%s owned_panels=%d reps=%ld median_ms=%.5f "
               "min_ms=%.5f max_ms=%.5f gflops=%.3f gbs=%.3f pack_ms=%.5f exchange_ms=%.5f local_ms=%.5f "
               "ghost_ms=%.5f device_ms=%.5f halo_bytes=%.0f copy_gbs=%.1f copy_gbs_max=%.1f copy_frac=%.4f gpu_frac_min=%.4f "
               "gpu_frac_max=%.4f nccl_built=%d mpi_cuda_aware=%d host_mask=%d checked=%d violations=%lld max_rel=%.3e\n",
               name, r_ == 8 ? "double" : "single", P, gpus, hspmv_gpu_comm_name(in.comm), in.device_name,
               (long long)in.nrows, (long long)in.ncols, (long long)in.nnz,
               in.owned_kernel >= 0 ? hspmv_gpu_kernel_name(in.owned_kernel) : "none",
               in.ghost_kernel >= 0 ? hspmv_gpu_kernel_name(in.ghost_kernel) : "none", in.owned_panels, a->reps,
               med * 1e3, mn * 1e3, mx * 1e3, 2.0 * (double)in.nnz / med / 1e9, bytes / med / 1e9, pmax[0], pmax[1],
               pmax[2], pmax[3], pmax[4], hsum, cmin, cmax, bytes / med / 1e9 / (cmin * gpus), fmin, fmaxv,
               in.nccl_built, in.mpi_cuda_aware, host_mask, a->check, (long long)chk.violations, chk.max_rel);
        fflush(stdout);
    }
    free(t);
    hspmv_free(xl);
    hspmv_free(y);
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_gpu_dist_destroy(&G);
    return a->check && (chk.violations || chk.overflows);
}

/* This rank's GPU's device-to-device copy rate (GB/s, read + write), each
   rank at once; every rank its device first (the library's choice). */
static double copy_rate(const gpu_args *a)
{
    int dev = -1;
    double gbs = 0;
    hspmv_error e = {0, ""};
    if (hspmv_gpu_dist_device(MPI_COMM_WORLD, a->device, &dev, &e)) mp_die(&e); /* agreed */
    MPI_Barrier(MPI_COMM_WORLD); /* every GPU's copy at once, as in the products */
    agree_or_die(hspmv_gpu_copy_rate((size_t)1 << 30, 10, &gbs, &e), &e);
    return gbs;
}
#endif

int mg_benchmark_main(int argc, char **argv)
{
    gpu_args a;
    hspmv_csr S = {0};
    char name[512];
    int bad = 0;
    mp_start(&argc, &argv, "benchmark-mpi", usage_bench, &me, &P);
    parse(argc, argv, &a, 0);
    load_rows(&a, &S, name, sizeof(name));
    host_setup(!a.cpu);
    if (a.cpu) bad = bench_cpu(&a, &S, name);
#ifdef HSPMV_CUDA
    else {
        double gbs = copy_rate(&a); /* this rank's GPU, the library's choice of it */
        for (int c = 0; c < a.ncomm; c++) bad |= bench_gpu_one(&a, &S, name, a.comms[c], gbs);
    }
#endif
    hspmv_csr_free(&S);
    if (bad && me == 0) fprintf(stderr, "benchmark-mpi: error: %s: the product is off the reference bound\n", name);
    if (me == 0) bu_check_stdout();
    MPI_Finalize();
    return bad ? 1 : 0;
}

int mg_solve_main(int argc, char **argv)
{
    gpu_args a;
    hspmv_csr S = {0};
    char name[512];
    int bad = 0;
    mp_start(&argc, &argv, "solve", usage_solve, &me, &P);
    parse(argc, argv, &a, 1);
    load_rows(&a, &S, name, sizeof(name));
    host_setup(!a.cpu);
    if (a.cpu) bad = solve_cpu(&a, &S, name);
#ifdef HSPMV_CUDA
    else {
        hspmv_gpu_dist *G = gpu_dist(&a, &S, a.comms[0]);
        hspmv_gpu_dist_info in;
        hspmv_gpu_cg_result res;
        hspmv_error e = {0, ""};
        hspmv_real *db = NULL, *dx = NULL, *b = row_sums(&S), *x = hspmv_malloc((size_t)(S.nrows + 1) * sizeof(hspmv_real));
        hspmv_gpu_dist_get_info(G, &in);
        int rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_ROWS, &db, &e);
        if (!rc) rc = hspmv_gpu_dist_vec_create(G, HSPMV_VEC_ROWS, &dx, &e);
        if (!rc) rc = hspmv_gpu_vec_upload(db, b, S.nrows, &e);
        if (!rc) rc = hspmv_gpu_vec_fill_bytes(dx, 0, S.nrows, &e);
        agree_or_die(rc, &e);
        double gbs = copy_rate(&a), gmin = 0;
        MPI_Allreduce(&gbs, &gmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        rc = hspmv_gpu_cg(G, db, dx, a.tol, a.maxit, &res, &e);
        double err = 0, xerr = 0;
        if (!hspmv_gpu_vec_download(x, dx, S.nrows, NULL))
            for (int64_t i = 0; i < S.nrows; i++) err = fmax(err, fabs((double)x[i] - 1));
        else err = INFINITY;
        MPI_Allreduce(&err, &xerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        /* per product on the device, max over ranks: all of it, and the halo's part */
        hspmv_gpu_dist_timing tm;
        hspmv_gpu_dist_get_timing(G, &tm, 0);
        double n = tm.calls ? (double)tm.calls : 1, part[2] = {tm.total_ms / n, tm.exchange_ms / n};
        MPI_Allreduce(MPI_IN_PLACE, part, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        /* the phases per iteration, max over ranks; the byte model of an
           iteration: the product (as benchmark-mpi counts it) and CG's 11
           vector passes (p'q 2, the update of x, r and r'r 6, p = r + beta*p 3),
           9 where p'q is summed inside the product */
        double itn = res.iterations > 0 ? (double)res.iterations : 1, r_ = sizeof(hspmv_real);
        double t3[3] = {res.vector_seconds / itn * 1e3, res.wait_seconds / itn * 1e3, res.reduce_seconds / itn * 1e3};
        MPI_Allreduce(MPI_IN_PLACE, t3, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        cg_phases ph = {t3[0], t3[1], t3[2],
                        (double)in.nnz * (r_ + 4) + 8.0 * (double)(in.nrows + P) + r_ * (double)(in.nrows + in.ncols) +
                            (res.vector_passes > 0 ? res.vector_passes : 11) * r_ * (double)in.nrows,
                        gmin,
                        in.max_device_sharers > 0 ? (double)((P + in.max_device_sharers - 1) / in.max_device_sharers) : 1,
                        res.vector_passes > 0 ? res.vector_passes : 11};
        print_solve("gpu", hspmv_gpu_comm_name(in.comm), name, in.nrows, in.nnz, rc, res.iterations, res.relres,
                    res.seconds, res.spmv_seconds, xerr, part, &ph);
        if (rc && me == 0) fprintf(stderr, "solve: error: %s\n", e.msg);
        bad = rc != 0;
        hspmv_gpu_vec_destroy(&db);
        hspmv_gpu_vec_destroy(&dx);
        hspmv_free(b);
        hspmv_free(x);
        hspmv_gpu_dist_destroy(&G);
    }
#endif
    hspmv_csr_free(&S);
    if (me == 0) bu_check_stdout();
    MPI_Finalize();
    return bad ? 1 : 0;
}
