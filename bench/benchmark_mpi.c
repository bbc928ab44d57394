/* benchmark_mpi.c — the distributed program: rank 0 reads the Matrix Market
   file (or, with --read parallel, every rank reads a byte range; a PETSc
   binary file every rank its rows with MPI-IO), the rows are partitioned and
   distributed, every rank builds its halo plan, and y = A*x is timed with the
   halo exchange overlapped; y is checked against the serial reference (on
   rank 0, or row block by row block when no rank holds the matrix). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_stream.h"
#include "bench_util.h"
#include "mpi_check.h"
#include "mpi_prog.h"

static const char *prog = "benchmark-mpi";
static int me, P;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P benchmark-mpi matrix.mtx[.gz] [--partition nnz|rows|metis] [--read root|parallel]\n"
            "         [--threshold T]\n"
            "         [--format auto|csr|csrl|bcoo|csr16|csrvi] [--kernel K] [--threads N] [--reps N] [--warmup N]\n"
            "         [--halo node|p2p|node,p2p] [--caller-x] [--env K=V[,K=V]]... [--passes N] [--triad MIB]\n"
            "         [--json] [--verbose]\n"
            "  Rank 0 reads the matrix and sends each rank its rows (a PETSc binary file, told by its class\n"
            "  id: every rank reads its own rows with MPI-IO); y = A*x is timed with the halo\n"
            "  exchange overlapped (median/min/max over N calls, default 50, each barrier-separated and\n"
            "  the max over ranks), and y is checked against the long-double reference on rank 0.\n"
            "  --threshold: CSRL when nzseg/nnz < T (default 0.3); --threads: OpenMP threads per rank\n"
            "  (default OMP_NUM_THREADS); --triad MIB: also run a STREAM triad on every rank at once with\n"
            "  arrays of MIB MiB per rank and report SpMV GB/s as a fraction of the summed triad.\n"
            "  --halo: node (default where MPI gives shared-memory windows: ranks of a node read each\n"
            "  other's x in the window, only off-node entries travel, once per node pair) or p2p (every\n"
            "  ghost entry by message); HSPMV_NODE_RANKS=k makes pseudo-nodes of k ranks. --caller-x:\n"
            "  x in the program's own memory (copied into the window each product) instead of a vector\n"
            "  from hspmv_dist_vec_alloc (in the window: no copy). Variants: each halo mode of the list\n"
            "  times each --env (HSPMV_* settings in force while its matrix is made, e.g.\n"
            "  --env none --env HSPMV_NODE_RANKS=8 --env HSPMV_NODE_GATHER=copy; the word none: nothing\n"
            "  set; the word caller-x: that variant's x is the program's own), all made from one read and timed\n"
            "  in --passes interleaved passes of --reps products; one summary and key=value line each.\n"
            "  --read parallel: every rank reads a byte range of the file and the entries move to their\n"
            "  owners (gzip files and pipes cannot be split: rank 0 reads them, and the output says so);\n"
            "  --read root (default): rank 0 reads and sends the slices. Setup times (read, partition,\n"
            "  distribute, prepare; max over ranks) and each rank's peak memory are reported.\n");
}

/* One configuration to time: a halo mode and an environment (HSPMV_*
   knobs read while the matrix is made), with its own matrix and vectors. */
typedef struct variant {
    int halo;
    char env[256];     /* "K=V,K=V" set on every rank while it is made ("" = none) */
    hspmv_dist *D;
    hspmv_dist_info in;
    hspmv_real *x, *y;
    int caller_x;      /* x in the program's memory (--caller-x, or the word caller-x in env) */
    double t_create;   /* making the matrix (less a read inside the library), max over ranks */
    double su_max[4];  /* setup: read, partition, distribute, prepare seconds, max over ranks */
    double read_bytes; /* bytes read, all ranks */
    const char *read_note; /* why a parallel read fell back to rank 0, or what read it ("" when none) */
    int read_mode;     /* HSPMV_READ_ROOT or _PARALLEL: as it was read */
    double mem_max[2], rp_root; /* peak once the rows were in place above the start (max), and that
                                   over the rank's own CSR bytes (max); rank 0's peak */
    double huge_mb, rss_mb, shm_mb, shm_huge_mb; /* all ranks: memory it added (Pss), of it on huge pages; shared
                                                    memory (each page once); mapped 2 MiB at a time (per mapping) */
    double mine_mb[2]; /* this rank: memory it added, of it on huge pages */
    double *t;         /* reps * passes product times (max over ranks) */
    double pass_med[64];
    hspmv_dist_timing tm;
} variant;

/* kB of this process now (Linux; 0 when unknown): [0] its proportional
   set (Pss: a page shared by n processes counts 1/n, so summed over ranks
   every page counts once), [1] AnonHugePages, [2] its share of shared memory
   (Pss_Shmem; where the kernel lacks it, RssShmem, which counts a page once
   for every mapping of it: the window's aliases too), [3] ShmemPmdMapped
   (shared memory this process maps 2 MiB at a time). */
static void mem_now(double kb[4])
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    double v, rss = 0, shm = -1;
    kb[0] = kb[1] = kb[2] = kb[3] = 0;
    while (f && fgets(line, sizeof(line), f)) {
        if (sscanf(line, "Rss: %lf", &v) == 1) rss = v;
        else if (sscanf(line, "Pss: %lf", &v) == 1) kb[0] = v;
        else if (sscanf(line, "Pss_Shmem: %lf", &v) == 1) shm = v;
        else if (sscanf(line, "AnonHugePages: %lf", &v) == 1) kb[1] = v;
        else if (sscanf(line, "ShmemPmdMapped: %lf", &v) == 1) kb[3] = v;
    }
    if (f) fclose(f);
    if (kb[0] == 0) kb[0] = rss;
    f = shm < 0 ? fopen("/proc/self/status", "r") : NULL;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "RssShmem: %lf", &v) == 1) shm = v;
    if (f) fclose(f);
    kb[2] = shm > 0 ? shm : 0;
}

/* Sets the K=V pairs of spec (comma-separated); with restore, puts back
   what was there before (saved holds it). */
static void set_env(const char *spec, char saved[][2][128], int *n, int restore)
{
    if (restore) {
        for (int i = 0; i < *n; i++)
            if (saved[i][1][0] == 1) unsetenv(saved[i][0]);
            else setenv(saved[i][0], saved[i][1], 1);
        *n = 0;
        return;
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok && *n < 16; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        const char *old = getenv(tok);
        snprintf(saved[*n][0], 128, "%s", tok);
        if (old) snprintf(saved[*n][1], 128, "%s", old);
        else saved[*n][1][0] = 1, saved[*n][1][1] = 0;
        (*n)++;
        setenv(tok, eq + 1, 1);
    }
}

/* Refuses an --env spec set_env would not apply as written: every
   comma-separated part is the word caller-x, the word none (a variant
   with nothing set) or NAME=VALUE (a C identifier
   of under 128 characters, a value of under 128), at most 16 of them. */
static void check_env_spec(const char *spec)
{
    int n = 0;
    const char *p = spec;
    for (;;) {
        size_t len = strcspn(p, ","), name = strcspn(p, "=,");
        if ((len == 8 && !strncmp(p, "caller-x", 8)) || (len == 4 && !strncmp(p, "none", 4))) {
        } else if (name == len || name == 0 || name >= 128 || len - name - 1 >= 128 ||
                   !(isalpha((unsigned char)p[0]) || p[0] == '_')) {
            bu_fail("--env takes NAME=VALUE[,NAME=VALUE]... (or the word caller-x or none), not '%.60s'", spec);
        } else {
            for (size_t k = 1; k < name; k++)
                if (!isalnum((unsigned char)p[k]) && p[k] != '_')
                    bu_fail("--env: '%.*s' is not a variable name (in '%.60s')", (int)name, p, spec);
        }
        if (++n > 16) bu_fail("--env: at most 16 settings in one --env, not more (in '%.60s')", spec);
        if (!p[len]) break;
        p += len + 1;
    }
}

/* 1 when the comma-separated spec holds the word w. */
static int has_word(const char *spec, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = spec; (p = strstr(p, w)) != NULL; p += n)
        if ((p == spec || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

static double rss0; /* peak resident memory at the start */

/* Makes v's matrix from A on rank 0 (read by the program in t_read
   seconds, bytes_read bytes), or, with read_path, by hspmv_dist_read of that
   file (o.read: every rank a byte range; a PETSc file with MPI-IO);
   x is scattered later. */
static void make_variant(variant *v, const hspmv_csr *A, const char *read_path, double t_read, double bytes_read,
                         hspmv_opts o, int caller_x, int nt)
{
    char saved[16][2][128];
    int ns = 0;
    double kb0[4], kb1[4], d[4], sum[4];
    hspmv_error e = {0, ""};
    o.halo = v->halo;
    set_env(v->env, saved, &ns, 0);
    mem_now(kb0);
    double t0 = MPI_Wtime();
    int rc = read_path ? hspmv_dist_read(read_path, MPI_COMM_WORLD, &o, &v->D, &e)
                       : hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &v->D, &e);
    double dt = MPI_Wtime() - t0;
    if (rc) mp_die(&e);
    hspmv_dist_get_info(v->D, &v->in);
    hspmv_dist_setup su;
    hspmv_dist_get_setup(v->D, &su);
    if (!read_path) { /* this program read the file itself */
        su.read = HSPMV_READ_ROOT;
        su.read_s = me == 0 ? t_read : 0;
        su.read_bytes = me == 0 ? (int64_t)bytes_read : 0;
    } else dt -= su.read_s;
    /* setup phases, max over ranks; memory once the rows were in place,
       above each rank's start, against the CSR bytes of its own rows */
    double mine[6] = {su.read_s, su.partition_s, su.distribute_s, su.prepare_s, dt, 0}, mx[6];
    MPI_Allreduce(mine, mx, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    memcpy(v->su_max, mx, sizeof(v->su_max));
    v->t_create = mx[4];
    double b = (double)su.read_bytes;
    MPI_Allreduce(&b, &v->read_bytes, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    v->read_note = su.read_note ? su.read_note : "";
    v->read_mode = su.read;
    double own = (double)(v->in.nrows_local + 1) * 8 + (double)v->in.nnz_local * (4.0 + sizeof(hspmv_real));
    double rp = su.peak_read_bytes > rss0 ? su.peak_read_bytes - rss0 : 0;
    double mem_mine[2] = {rp, own > 0 ? rp / own : 0};
    MPI_Allreduce(mem_mine, v->mem_max, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    v->rp_root = rp;
    v->caller_x = caller_x = caller_x || has_word(v->env, "caller-x");
    v->x = caller_x ? hspmv_malloc(((size_t)v->in.ncols_local + 1) * sizeof(hspmv_real))
                    : hspmv_dist_vec_alloc(v->D, HSPMV_VEC_COLS);
    v->y = hspmv_dist_vec_alloc(v->D, HSPMV_VEC_ROWS);
    v->t = malloc(sizeof(double) * (size_t)nt);
    int nomem = !v->x || !v->y || !v->t;
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the vectors");
    mem_now(kb1);
    set_env(NULL, saved, &ns, 1);
    for (int i = 0; i < 4; i++) d[i] = (kb1[i] - kb0[i]) / 1024;
    MPI_Allreduce(d, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    v->rss_mb = sum[0];
    v->mine_mb[0] = d[0];
    v->mine_mb[1] = d[1];
    v->huge_mb = sum[1];
    v->shm_mb = sum[2];
    v->shm_huge_mb = sum[3];
}

/* One pass: warm-up, then reps products, each barrier-separated, max over ranks. */
static void time_variant(variant *v, int pass, long reps, long warmup)
{
    hspmv_error e = {0, ""};
    double *t = v->t + (size_t)pass * (size_t)reps, tmp[4096];
    for (long r = 0; r < warmup; r++)
        if (hspmv_dist_spmv(v->D, v->x, v->y, &e)) mp_die(&e);
    hspmv_dist_timing keep = v->tm;
    hspmv_dist_reset_timing(v->D);
    for (long r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double s = MPI_Wtime();
        int rc = hspmv_dist_spmv(v->D, v->x, v->y, &e);
        double d = MPI_Wtime() - s;
        MPI_Allreduce(&d, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rc) mp_die(&e);
    }
    hspmv_dist_timing now;
    hspmv_dist_get_timing(v->D, &now);
    v->tm = keep;
    v->tm.calls += now.calls;
    v->tm.total_s += now.total_s;
    v->tm.post_s += now.post_s;
    v->tm.owned_s += now.owned_s;
    v->tm.wait_s += now.wait_s;
    v->tm.ghost_s += now.ghost_s;
    v->tm.sync_s += now.sync_s;
    for (int k = 0; k < 2; k++) {
        v->tm.share_s[k] += now.share_s[k];
        v->tm.share_nnz[k] += now.share_nnz[k];
    }
    long n = reps < 4096 ? reps : 4096;
    double mn, mx;
    memcpy(tmp, t, sizeof(double) * (size_t)n);
    if (pass < 64) bu_stats(tmp, (int)n, &v->pass_med[pass], &mn, &mx);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *part_names[] = {"nnz", "rows", "metis"}, *envs[32];
    long reps = 50, warmup = 5, triad_mib = 0, passes = 1;
    int json = 0, verbose = 0, caller_x = 0, nenv = 0, halos[2] = {HSPMV_HALO_AUTO, 0}, nhalo = 1;
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
        } else if (!strcmp(a, "--read")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "parallel")) o.read = HSPMV_READ_PARALLEL;
            else if (!strcmp(v, "root")) o.read = HSPMV_READ_ROOT;
            else bu_fail("--read takes root or parallel, not '%.40s'", v);
        } else if (!strcmp(a, "--halo")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "node")) halos[0] = HSPMV_HALO_NODE, nhalo = 1;
            else if (!strcmp(v, "p2p")) halos[0] = HSPMV_HALO_P2P, nhalo = 1;
            else if (!strcmp(v, "node,p2p")) halos[0] = HSPMV_HALO_NODE, halos[1] = HSPMV_HALO_P2P, nhalo = 2;
            else if (!strcmp(v, "p2p,node")) halos[0] = HSPMV_HALO_P2P, halos[1] = HSPMV_HALO_NODE, nhalo = 2;
            else bu_fail("--halo takes node, p2p or both (node,p2p), not '%.40s'", v);
        } else if (!strcmp(a, "--env")) {
            v = bu_value(argc, argv, &i);
            if (nenv == 32 || strlen(v) >= 256) bu_fail("--env: at most 32, of under 256 characters each");
            check_env_spec(v);
            envs[nenv++] = v;
        } else if (!strcmp(a, "--passes")) passes = bu_parse_int(a, bu_value(argc, argv, &i), 1, 64);
        else if (!strcmp(a, "--caller-x")) caller_x = 1;
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--verbose")) verbose = 1;
        else mp_other_arg(a, &path);
    }
    mp_need_path(path);
    mp_check_threads(o.threads);
    if (nenv == 0) envs[nenv++] = "";

    /* A PETSc binary file: every rank reads its rows with MPI-IO inside
       hspmv_dist_read (METIS: rank 0 reads it there); --read parallel: every
       rank a byte range there; else rank 0 reads here, and the status is
       everyone's before anyone waits. */
    rss0 = bu_peak_rss();
    int petsc = me == 0 ? hspmv_petsc_is_matrix_file(path) : 0;
    MPI_Bcast(&petsc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int lib_reads = petsc || o.read == HSPMV_READ_PARALLEL;
    double t0 = MPI_Wtime(), t_read = 0, peak_read = 0, read_bytes = 0;
    int rc = HSPMV_OK;
    if (!lib_reads && me == 0) {
        hspmv_read_opts ro = bu_progress_opts(path);
        hspmv_read_info ri;
        ro.threads = o.threads;
        rc = hspmv_csr_read(path, &A, &ro, &ri, &e);
        t_read = MPI_Wtime() - t0;
        read_bytes = rc ? 0 : (double)ri.bytes;
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

    /* every variant made (all alive at once), then timed pass by pass,
       interleaved: the machine's drift hits them alike */
    int nv = nhalo * nenv;
    variant *V = calloc((size_t)nv, sizeof(variant));
    if (!V) mp_die_msg("out of memory");
    for (int h = 0; h < nhalo; h++)
        for (int k = 0; k < nenv; k++) {
            variant *v = &V[h * nenv + k];
            v->halo = halos[h];
            snprintf(v->env, sizeof(v->env), "%s", envs[k]);
            make_variant(v, &A, lib_reads ? path : NULL, t_read, read_bytes, o, caller_x, (int)(reps * passes));
        }
    double peak = bu_peak_rss(), peak_others = 0, zero = 0;
    MPI_Reduce(me == 0 ? &zero : &peak, &peak_others, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* the check, untimed and after the peaks: a PETSc file is read again on
       rank 0; after a parallel read every rank reads its rows again */
    const hspmv_dist_info *in0 = &V[0].in;
    mc_rows R = {0};
    int rows_check = 0;
    if (petsc) {
        peak_read = peak;
        rc = me == 0 ? hspmv_petsc_read(path, &A, &e) : HSPMV_OK;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc) mp_die_msg("rank 0 could not read the matrix again for the check");
    } else if (lib_reads) {
        peak_read = peak;
        rows_check = 1;
        if (mc_rows_read(path, o.threads, &R, &e)) mp_die(&e);
    }

    /* x in the file ordering on rank 0, scattered; y gathered back */
    hspmv_real *xg = NULL, *yg = NULL;
    int nomem = 0;
    if (me == 0) {
        xg = hspmv_malloc(((size_t)in0->ncols + 1) * sizeof(hspmv_real));
        yg = hspmv_malloc(((size_t)in0->nrows + 1) * sizeof(hspmv_real));
        nomem |= !xg || !yg;
        if (xg) bu_fill_x(xg, in0->ncols);
    }
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the vectors");
    for (int i = 0; i < nv; i++)
        if (hspmv_dist_scatter(V[i].D, HSPMV_VEC_COLS, xg, V[i].x, &e)) mp_die(&e);
    for (long pass = 0; pass < passes; pass++)
        for (int i = 0; i < nv; i++) time_variant(&V[i], (int)pass, reps, pass == 0 ? warmup : 1);

    /* optional bandwidth yardstick: a triad on every rank at once */
    double triad = 0;
    if (triad_mib > 0) {
        bs_triad_result tr = {0};
        MPI_Barrier(MPI_COMM_WORLD);
        int thr = V[0].in.owned.threads > 0 ? V[0].in.owned.threads : 1;
        double g = bs_triad(thr, (size_t)triad_mib << 20, 10, &tr) ? 0 : tr.median_gbs;
        MPI_Reduce(&g, &triad, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }

    int bad = 0;
    for (int vi = 0; vi < nv; vi++) {
        variant *va = &V[vi];
        hspmv_dist_info in = va->in;
        long nt = reps * passes;
        hspmv_check chk;
        if (rows_check) {
            if (mc_check(&R, va->D, va->y, yg, bu_x_at, &chk, &e)) mp_die(&e);
        } else {
            if (hspmv_dist_gather(va->D, HSPMV_VEC_ROWS, va->y, yg, &e)) mp_die(&e);
            if (me == 0) hspmv_ref_check(&A, xg, yg, 2.0, &chk);
        }
        /* per call, this rank; then max and average over ranks */
        hspmv_dist_timing tm = va->tm;
        double mine[6] = {tm.post_s / nt, tm.owned_s / nt, tm.wait_s / nt, tm.ghost_s / nt, tm.total_s / nt,
                          tm.sync_s / nt};
        double tmax[6], tsum[6];
        MPI_Reduce(mine, tmax, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(mine, tsum, 6, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        /* rows shared within the node, per call: thread-seconds and entries in own chunks, then in
           chunks taken from others; summed over ranks, the rates are entries per thread-nanosecond */
        double sh[4] = {tm.share_s[0] / nt, tm.share_s[1] / nt, (double)tm.share_nnz[0] / nt,
                        (double)tm.share_nnz[1] / nt}, shsum[4];
        MPI_Reduce(sh, shsum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        double own_rate = shsum[0] > 0 ? shsum[2] / shsum[0] / 1e9 : 0, taken_rate = shsum[1] > 0 ? shsum[3] / shsum[1] / 1e9 : 0;
        double taken_frac = shsum[2] + shsum[3] > 0 ? shsum[3] / (shsum[2] + shsum[3]) : 0;
        int node_ranks_max = 0;
        MPI_Allreduce(&in.node_ranks, &node_ranks_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

        /* per-rank details for --verbose */
        struct { int64_t rows, nnz, nghost, nsend, nnode, noff; int nrecv, nsendr; char fo[8], fg[8]; double seg, t[6], mb[2], sh[4]; }
            mi, *all = NULL;
        memset(&mi, 0, sizeof(mi));
        mi.rows = in.nrows_local;
        mi.nnz = in.nnz_local;
        mi.nghost = in.nghost;
        mi.nsend = in.nsend;
        mi.nnode = in.nnz_node;
        mi.noff = in.nnz_offnode;
        mi.nrecv = in.nrecv_ranks;
        mi.nsendr = in.nsend_ranks;
        mi.seg = in.owned.seg_ratio;
        memcpy(mi.t, mine, sizeof(mi.t));
        memcpy(mi.mb, va->mine_mb, sizeof(mi.mb));
        memcpy(mi.sh, sh, sizeof(mi.sh));
        snprintf(mi.fo, sizeof(mi.fo), "%s", in.owned.format_name);
        snprintf(mi.fg, sizeof(mi.fg), "%s", in.ghost.format_name);
        if (me == 0) all = malloc(sizeof(mi) * (size_t)P);
        MPI_Gather(&mi, (int)sizeof(mi), MPI_BYTE, all, (int)sizeof(mi), MPI_BYTE, 0, MPI_COMM_WORLD);

        if (me == 0) {
            double med, mn, mx;
            bu_stats(va->t, (int)nt, &med, &mn, &mx);
            int vbad = chk.violations != 0 || chk.overflows != 0;
            bad |= vbad;
            double ysum, ychk;
            bu_ysums(yg, in.nrows, &ysum, &ychk);
            hspmv_csr sizes = {in.nrows, in.ncols, in.nnz, NULL, NULL, NULL};
            double bytes = bu_csr_bytes(&sizes), flops = 2.0 * in.nnz, rs = (double)sizeof(hspmv_real);
            double imb = in.nnz > 0 ? (double)in.nnz_max / ((double)in.nnz / P) : 1;
            double halo_b = (double)in.halo_total * rs, halo_mx = (double)in.halo_max * rs;
            double wait_share = tmax[4] > 0 ? tmax[2] / tmax[4] : 0;
            const char *prec = sizeof(hspmv_real) == 8 ? "double" : "single";
            double read_gbs = va->su_max[0] > 0 ? va->read_bytes / va->su_max[0] / 1e9 : 0;
            const char *read_how = petsc ? (va->read_mode == HSPMV_READ_PARALLEL ? "mpiio" : "petsc-root")
                                         : va->read_mode == HSPMV_READ_PARALLEL ? "parallel" : "root";
            int thr = in.owned.threads > 0 ? in.owned.threads : in.ghost.threads;
            const char *halo_name = in.halo == HSPMV_HALO_NODE ? "node" : "p2p";
            char gather_name[32];
            snprintf(gather_name, sizeof(gather_name), "%s%s",
                     in.halo != HSPMV_HALO_NODE       ? "-"
                     : in.gather == HSPMV_GATHER_COPY  ? "copy"
                     : in.gather == HSPMV_GATHER_SHARE ? "share"
                                                       : "direct",
                     in.gather_replica ? "+replica" : "");
            const char *env = va->env[0] ? va->env : "-";
            char pm[64 * 12] = "";
            for (long p = 0; p < passes && p < 64; p++)
                snprintf(pm + strlen(pm), sizeof(pm) - strlen(pm), "%s%.4f", p ? "/" : "", va->pass_med[p] * 1e3);
            if (!json) {
                printf("matrix=%s rows=%lld cols=%lld nnz=%lld precision=%s read=%s\n", path, (long long)in.nrows,
                       (long long)in.ncols, (long long)in.nnz, prec, read_how);
                printf("  setup, max over ranks: read %.3f s (%.3f GB/s)%s%s%s, partition %.3f s, distribute %.3f s, "
                       "prepare %.3f s\n", va->su_max[0], read_gbs, *va->read_note ? " (" : "", va->read_note,
                       *va->read_note ? ")" : "", va->su_max[1], va->su_max[2], va->su_max[3]);
                if (nv > 1 || va->env[0]) printf("  variant %d of %d: halo %s, environment %s\n", vi + 1, nv,
                                                 halo_name, env);
                printf("  ranks %d x threads %d, partition %s%s, nnz imbalance (max/avg) %.3f, kernels %s%s\n", P,
                       thr, part_names[in.partition], in.permuted ? " (rows renumbered)" : "", imb,
                       in.owned.nnz > 0 ? in.owned.isa : in.ghost.isa,
                       in.owned_in_node ? ", owned columns within the node block" : "");
                int nfmt = 0;
                for (int f = 1; f < HSPMV_NFORMATS; f++) nfmt += in.format_counts[f];
                printf("  formats (owned blocks): csr %d, csrl %d, bcoo %d, csr16 %d, csrvi %d, csrp %d, csrdu %d, "
                       "panels %d, none %d (CSRL when nzseg/nnz < %.2f); rank 0's ghost block: %s\n",
                       in.format_counts[HSPMV_FORMAT_CSR], in.format_counts[HSPMV_FORMAT_CSRL],
                       in.format_counts[HSPMV_FORMAT_BCOO], in.format_counts[HSPMV_FORMAT_CSR16],
                       in.format_counts[HSPMV_FORMAT_CSRVI], in.format_counts[HSPMV_FORMAT_CSRP],
                       in.format_counts[HSPMV_FORMAT_CSRDU], in.format_counts[HSPMV_FORMAT_PANELS], P - nfmt,
                       o.csrl_threshold, in.ghost.nnz > 0 ? in.ghost.format_name : "none");
                if (verbose)
                    for (int p = 0; p < P; p++)
                        printf("    rank %d: rows %lld nnz %lld owned %s (nzseg/nnz %.3f) ghost %s, %lld ghost x "
                               "entries (node block %lld nnz, off-node %lld nnz); receives from %d ranks, sends %lld "
                               "to %d; ms per call: post %.3f owned %.3f wait %.3f ghost %.3f sync %.3f all %.3f; memory added "
                               "%.1f MB, %.1f MB of it on huge pages\n",
                               p, (long long)all[p].rows, (long long)all[p].nnz, all[p].fo, all[p].seg, all[p].fg,
                               (long long)all[p].nghost, (long long)all[p].nnode, (long long)all[p].noff,
                               all[p].nrecv, (long long)all[p].nsend, all[p].nsendr, all[p].t[0] * 1e3,
                               all[p].t[1] * 1e3, all[p].t[2] * 1e3, all[p].t[3] * 1e3, all[p].t[5] * 1e3,
                               all[p].t[4] * 1e3, all[p].mb[0], all[p].mb[1]);
                if (verbose && shsum[0] + shsum[1] > 0)
                    for (int p = 0; p < P; p++)
                        printf("    rank %d, rows shared in the node, per call: own chunks %.2f M entries in %.3f "
                               "thread-ms; others ran %.2f M entries of its; it ran others' for %.3f thread-ms\n", p,
                               all[p].sh[2] / 1e6, all[p].sh[0] * 1e3, all[p].sh[3] / 1e6, all[p].sh[1] * 1e3);
                printf("  halo per SpMV: %.0f bytes in all (%lld entries), max %.0f bytes received by one rank\n",
                       halo_b, (long long)in.halo_total, halo_mx);
                printf("  halo %s, %d node%s of %d%s ranks%s; between nodes per SpMV: node-aware %.0f bytes in "
                       "%lld messages, p2p %.0f bytes in %lld messages\n",
                       halo_name, in.nnodes, in.nnodes == 1 ? "" : "s", node_ranks_max,
                       in.node_ranks_env ? " (HSPMV_NODE_RANKS)" : "", in.nnodes > 1 ? "" : " (nothing crosses)",
                       (double)in.internode_entries_node * rs, (long long)in.internode_msgs_node,
                       (double)in.internode_entries_p2p * rs, (long long)in.internode_msgs_p2p);
                if (in.halo == HSPMV_HALO_NODE)
                    printf("  node gathers: %s%s (plan timed direct %.4f ms, copy %.4f ms, shared rows %.4f ms per "
                           "product; with a replica of x %.4f ms), owned rows shared: the last %d of 64 chunks, boundary "
                           "rows folded (multiplied whole, first): %lld, x %s, window slots %d\n",
                           gather_name, in.gather_direct_ms > 0 ? "" : " (not timed)", in.gather_direct_ms,
                           in.gather_copy_ms, in.gather_share_ms, in.gather_replica_ms, in.owned_share,
                           (long long)in.fold_rows_total, va->caller_x ? "the caller's (its part copied into the window each product)"
                                    : "a window vector (zero copy)",
                           in.window_slots);
                printf("  memory made for it, all ranks: %.1f MB resident (Pss: a shared page once), %.1f MB of it on "
                       "transparent huge pages (AnonHugePages), %.1f MB shared (windows), mapped 2 MiB at a time: %.1f "
                       "MB (ShmemPmdMapped, every rank's mappings)\n",
                       va->rss_mb, va->huge_mb, va->shm_mb, va->shm_huge_mb);
                printf("  spmv (incl. halo exchange): median %.6f ms, min %.6f ms, max %.6f ms over %ld calls after "
                       "%ld warm-up (max over ranks, barrier-separated)%s%s\n", med * 1e3, mn * 1e3, mx * 1e3, nt,
                       warmup, passes > 1 ? "; pass medians " : "", passes > 1 ? pm : "");
                printf("  per call, max (avg) over ranks: post+pack %.4f (%.4f) ms, owned block %.4f (%.4f) ms, "
                       "wait %.4f (%.4f) ms, ghost block%s %.4f (%.4f) ms, node sync %.4f (%.4f) ms\n",
                       tmax[0] * 1e3, tsum[0] / P * 1e3, tmax[1] * 1e3, tsum[1] / P * 1e3, tmax[2] * 1e3,
                       tsum[2] / P * 1e3, in.halo == HSPMV_HALO_NODE ? "s (node + off-node)" : "", tmax[3] * 1e3,
                       tsum[3] / P * 1e3, tmax[5] * 1e3, tsum[5] / P * 1e3);
                if (shsum[0] + shsum[1] > 0)
                    printf("  rows shared in the node, all ranks per call: own chunks %.2f M entries, %.3f per "
                           "thread-ns; taken from others %.2f M entries (%.1f%%), %.3f per thread-ns\n",
                           shsum[2] / 1e6, own_rate, shsum[3] / 1e6, 100 * taken_frac, taken_rate);
                printf("  %.3f GFLOP/s (2*nnz/t), %.2f GB/s (bytes = nnz*(%zu+4) + (rows+1)*8 + cols*%zu + "
                       "rows*%zu)%s",
                       flops / med / 1e9, bytes / med / 1e9, sizeof(hspmv_real), sizeof(hspmv_real),
                       sizeof(hspmv_real), triad > 0 ? "" : "\n");
                if (triad > 0)
                    printf(", %.1f%% of a %.1f GB/s triad on all ranks\n", 100 * bytes / med / 1e9 / triad, triad);
                if (lib_reads)
                    printf("  peak memory after setup: rank 0 %.1f MB, other ranks max %.1f MB\n", peak / 1e6,
                           peak_others / 1e6);
                else
                    printf("  peak memory: rank 0 %.1f MB after reading, %.1f MB after scattering; other ranks max "
                           "%.1f MB\n", peak_read / 1e6, peak / 1e6, peak_others / 1e6);
                printf("  peak memory once the rows were in place (above each rank's start): max %.1f MB, rank 0 "
                       "%.1f MB; max over ranks of that / its own CSR rows %.2fx\n", va->mem_max[0] / 1e6,
                       va->rp_root / 1e6, va->mem_max[1]);
                printf("  check vs long-double reference: max_rel=%.3e avg_rel=%.3e rows_off_bound=%lld %s\n",
                       chk.max_rel, chk.avg_rel, (long long)chk.violations, bu_check_word(&chk));
            }
            printf(json ? "{\"bench\":\"mpi\",\"matrix\":\"%s\",\"precision\":\"%s\",\"ranks\":%d,\"threads\":%d,"
                          "\"partition\":\"%s\",\"read\":\"%s\",\"read_s\":%.4f,\"partition_s\":%.4f,"
                          "\"distribute_s\":%.4f,\"prepare_s\":%.4f,\"read_peak_mb_max\":%.1f,"
                          "\"read_peak_mb_root\":%.1f,\"read_peak_share_max\":%.3f,\"read_gbs\":%.3f,\"rows\":%lld,\"cols\":%lld,\"nnz\":%lld,\"imbalance\":%.4f,"
                          "\"formats\":{\"csr\":%d,\"csrl\":%d,\"bcoo\":%d,\"csr16\":%d,\"csrvi\":%d,\"csrp\":%d,"
                          "\"csrdu\":%d,\"panels\":%d},\"ghost_format\":\"%s\","
                          "\"halo_bytes\":%.0f,\"halo_max_bytes\":%.0f,\"reps\":%ld,\"median_ms\":%.6f,"
                          "\"min_ms\":%.6f,\"max_ms\":%.6f,\"pass_medians_ms\":\"%s\",\"gflops\":%.4f,\"gbs\":%.3f,"
                          "\"post_ms\":%.5f,\"owned_ms\":%.5f,\"wait_ms\":%.5f,\"ghost_ms\":%.5f,\"sync_ms\":%.5f,"
                          "\"wait_share\":%.4f,\"halo\":\"%s\",\"env\":\"%s\",\"nodes\":%d,\"node_ranks\":%d,"
                          "\"gather\":\"%s\",\"gather_direct_ms\":%.5f,\"gather_copy_ms\":%.5f,\"gather_share_ms\":%.5f,\"gather_replica_ms\":%.5f,\"owned_share\":%d,\"fold_rows\":%lld,"
                          "\"internode_bytes\":%.0f,\"internode_msgs\":%lld,\"internode_bytes_p2p\":%.0f,"
                          "\"internode_msgs_p2p\":%lld,\"xalloc\":\"%s\",\"thp_mb\":%.1f,\"rss_mb\":%.1f,"
                          "\"shm_mb\":%.1f,\"shm_huge_mb\":%.1f,\"triad_gbs\":%.2f,\"peak_mb_root_read\":%.1f,\"peak_mb_root\":%.1f,"
                          "\"peak_mb_others\":%.1f,\"max_rel\":%.3e,\"avg_rel\":%.3e,\"violations\":%lld,"
                          "\"ysum\":%.10g,\"ychk\":%.10g,\"share_own_rate\":%.4f,\"share_taken_rate\":%.4f,"
                          "\"share_taken_frac\":%.4f,\"isa\":\"%s\",\"owned_in_node\":%d,\"overflows\":%lld"
                        : "bench=mpi matrix=%s precision=%s ranks=%d threads=%d partition=%s read=%s read_s=%.4f "
                          "partition_s=%.4f distribute_s=%.4f prepare_s=%.4f read_peak_mb_max=%.1f "
                          "read_peak_mb_root=%.1f read_peak_share_max=%.3f read_gbs=%.3f rows=%lld cols=%lld "
                          "nnz=%lld imbalance=%.4f csr=%d csrl=%d bcoo=%d csr16=%d csrvi=%d csrp=%d csrdu=%d panels=%d "
                          "ghost_format=%s halo_bytes=%.0f "
                          "halo_max_bytes=%.0f reps=%ld median_ms=%.6f min_ms=%.6f max_ms=%.6f pass_medians_ms=%s "
                          "gflops=%.4f gbs=%.3f post_ms=%.5f owned_ms=%.5f wait_ms=%.5f ghost_ms=%.5f sync_ms=%.5f "
                          "wait_share=%.4f halo=%s env=%s nodes=%d node_ranks=%d gather=%s gather_direct_ms=%.5f "
                          "gather_copy_ms=%.5f gather_share_ms=%.5f gather_replica_ms=%.5f owned_share=%d fold_rows=%lld internode_bytes=%.0f internode_msgs=%lld internode_bytes_p2p=%.0f "
                          "internode_msgs_p2p=%lld xalloc=%s thp_mb=%.1f rss_mb=%.1f shm_mb=%.1f shm_huge_mb=%.1f triad_gbs=%.2f "
                          "peak_mb_root_read=%.1f peak_mb_root=%.1f peak_mb_others=%.1f max_rel=%.3e avg_rel=%.3e "
                          "violations=%lld ysum=%.10g ychk=%.10g share_own_rate=%.4f share_taken_rate=%.4f "
                          "share_taken_frac=%.4f isa=%s owned_in_node=%d overflows=%lld",
                   path, prec, P, thr, part_names[in.partition], read_how, va->su_max[0], va->su_max[1],
                   va->su_max[2], va->su_max[3], va->mem_max[0] / 1e6, va->rp_root / 1e6, va->mem_max[1], read_gbs,
                   (long long)in.nrows, (long long)in.ncols, (long long)in.nnz, imb, in.format_counts[1], in.format_counts[2], in.format_counts[3],
                   in.format_counts[4], in.format_counts[5], in.format_counts[HSPMV_FORMAT_CSRP],
                   in.format_counts[HSPMV_FORMAT_CSRDU], in.format_counts[HSPMV_FORMAT_PANELS],
                   in.ghost.nnz > 0 ? in.ghost.format_name : "none", halo_b, halo_mx, nt, med * 1e3, mn * 1e3, mx * 1e3,
                   passes > 1 ? pm : "-", flops / med / 1e9, bytes / med / 1e9, tmax[0] * 1e3, tmax[1] * 1e3,
                   tmax[2] * 1e3, tmax[3] * 1e3, tmax[5] * 1e3, wait_share, halo_name, env, in.nnodes,
                   node_ranks_max, gather_name, in.gather_direct_ms, in.gather_copy_ms, in.gather_share_ms, in.gather_replica_ms, in.owned_share,
                   (long long)in.fold_rows_total,
                   (double)in.internode_entries_node * rs, (long long)in.internode_msgs_node,
                   (double)in.internode_entries_p2p * rs, (long long)in.internode_msgs_p2p,
                   va->caller_x ? "caller" : "window", va->huge_mb, va->rss_mb, va->shm_mb, va->shm_huge_mb, triad, peak_read / 1e6,
                   peak / 1e6, peak_others / 1e6, chk.max_rel, chk.avg_rel, (long long)chk.violations, ysum, ychk,
                   own_rate, taken_rate, taken_frac, in.owned.nnz > 0 ? in.owned.isa : in.ghost.isa,
                   in.owned_in_node, (long long)chk.overflows);
            if (json && verbose) {
                printf(",\"per_rank\":[");
                for (int p = 0; p < P; p++)
                    printf("%s{\"rows\":%lld,\"nnz\":%lld,\"format\":\"%s\",\"ghost_format\":\"%s\",\"nghost\":%lld,"
                           "\"nnz_node\":%lld,\"nnz_offnode\":%lld}",
                           p ? "," : "", (long long)all[p].rows, (long long)all[p].nnz, all[p].fo, all[p].fg,
                           (long long)all[p].nghost, (long long)all[p].nnode, (long long)all[p].noff);
                printf("]");
            }
            printf(json ? "}\n" : "\n");
            fflush(stdout);
            if (vbad && nv > 1) fprintf(stderr, "%s: %s: variant %d:\n", prog, path, vi + 1);
            bu_check_report(path, &chk); /* a wrong kernel, or a product that overflows */
        }
        free(all);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < nv; i++) {
        free(V[i].t);
        hspmv_free(V[i].x);
        hspmv_free(V[i].y);
        hspmv_dist_destroy(&V[i].D);
    }
    free(V);
    hspmv_free(xg);
    hspmv_free(yg);
    hspmv_csr_free(&A);
    if (rows_check) mc_rows_free(&R);
    if (me == 0) bu_check_stdout(); /* results lost on a full disk are a failure */
    MPI_Finalize();
    return bad ? 1 : 0;
}
