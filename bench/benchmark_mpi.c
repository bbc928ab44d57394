/* benchmark_mpi.c — the distributed program: rank 0 reads the Matrix Market
   file (or, with --read parallel, every rank reads a byte range; a PETSc
   binary file every rank its rows with MPI-IO), the rows are partitioned and
   distributed, every rank builds its halo plan, and y = A*x is timed with the
   halo exchange overlapped; y is checked against the serial reference (on
   rank 0, or row block by row block when no rank holds the matrix). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_max_threads(void) { return 1; }
#endif
#include "bench_stream.h"
#include "bench_util.h"
#include "local_calls.h" /* hspmv_local_csr_transpose, for --transpose's check */
#include "mpi_check.h"
#include "mpi_gen.h"
#include "mpi_gpu.h"
#include "mpi_prog.h"

static const char *prog = "benchmark-mpi";
static int me, P;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P %s matrix.mtx[.gz] [--partition nnz|rows|metis] [--read root|parallel]\n"
            "         [--threshold T]\n"
            "         [--format %s] [--kernel K] [--threads N] [--reps N]\n"
            "         [--warmup N] [--halo node|p2p|node,p2p] [--node-ranks K] [--caller-x] [--passes N]\n"
            "         [--triad MIB]\n"
            "         [--vectors K] [--json] [--verbose] [--progress auto|on|off] [--transpose]\n"
            "         [--reorder none|rcm|nd|auto] [--symmetric auto|no|yes]\n"
            "       mpirun -n P benchmark-mpi --gen KIND N [--values stencil|random] [--seed S] [options]\n"
            "  Rank 0 reads the matrix and sends each rank its rows (a PETSc binary file, told by its class\n"
            "  id: every rank reads its own rows with MPI-IO); y = A*x is timed with the halo\n"
            "  exchange overlapped (median/min/max over N calls, default 50, each barrier-separated and\n"
            "  the max over ranks), and y is checked against the long-double reference on rank 0.\n"
            "  --format: the owned and ghost blocks' format (default auto; see below).\n"
            "  --threshold: CSRL when nzseg/nnz < T (default 0.3); --threads: OpenMP threads per rank\n"
            "  (default OMP_NUM_THREADS); --triad MIB: also run a STREAM triad on every rank at once with\n"
            "  arrays of MIB MiB per rank and report SpMV GB/s as a fraction of the summed triad.\n"
            "  --vectors K: time the block product of K vectors (hspmv_dist_spmm, row-major; default 1:\n"
            "  hspmv_dist_spmv); vector j is x * 2^-j, and the last one is checked.\n"
            "  --halo: node (default where MPI gives shared-memory windows: ranks of a node read each\n"
            "  other's x in the window, only off-node entries travel, once per node pair) or p2p (every\n"
            "  ghost entry by message); --node-ranks K: pseudo-nodes of K consecutive ranks of a node\n"
            "  (one machine run as several nodes: the off-node path without a cluster). --caller-x:\n"
            "  x in the program's own memory (copied into the window each product) instead of a vector\n"
            "  from hspmv_dist_vec_alloc (in the window: no copy). --halo node,p2p times both modes,\n"
            "  made from one read and timed in --passes interleaved passes of --reps products; one\n"
            "  summary and key=value line each.\n"
            "  --read parallel: every rank reads a byte range of the file and the entries move to their\n"
            "  owners (gzip files and pipes cannot be split: rank 0 reads them, and the output says so);\n"
            "  --read root (default): rank 0 reads and sends the slices. Setup times (read, partition,\n"
            "  distribute, prepare; max over ranks) and each rank's peak memory are reported.\n"
            "  --gen KIND N: no file; every rank makes its own rows of genmat's matrix (KIND lap2d,\n"
            "  lap3d, lap3d27, random[:K], powerlaw[:K]; the same as genmat KIND N [--k K]), split by\n"
            "  nonzeros; read=gen and read_s is the generation time.\n"
            "  --progress: rank 0's lines on stderr for the read, the partitioning and distribution and\n"
            "  the check's preparation (auto: on a terminal after 2 s, elsewhere every 5 s; on: every\n"
            "  2 s and when each step ends; off).\n"
            "  --transpose: times y = A^T x instead, with --vectors K the block Y = A^T X\n"
            "  (hspmv_dist_spmm; the first call, which makes the transposed matrix, is among the\n"
            "  warm-up calls and timed alone as first_ms), checked against rank 0's A^T (not with\n"
            "  --gen, nor --read parallel of a Matrix Market file).\n"
            "  --reorder: rank 0 orders the matrix for locality before it is split (a global\n"
            "  order, then the split; with --partition metis each rank's rows by their own\n"
            "  block; docs/reordering.md); the products run in that order, x and y move once.\n"
            "  Square matrices (not PETSc files); with --read parallel and --gen rank 0 gathers\n"
            "  the pattern (columns, no values) to order it and the rows move once.\n"
            "  --symmetric: no (default) keeps both triangles; auto keeps each rank's lower triangle\n"
            "  of a matrix checked symmetric (or skew) across the ranks, the mirrored products sent\n"
            "  back in the halo exchange (halo p2p; with --halo node auto keeps both); yes insists.\n"
            "  --gpu: one rank per GPU (make CUDA=1); see benchmark-mpi --gpu --help.\n"
            "formats:\n", bu_invoked_name(), bu_format_list("|"));
    bu_format_usage(f, "  ");
}

/* --transpose: y = A^T x is timed (x y-like, y x-like) and checked against tA = A^T (rank 0). */
static int transpose;
static hspmv_csr tA;

/* The command line. */
typedef struct args {
    const char *path;  /* the file, or --gen's name (gen:KIND:N...) */
    mg_args gen;       /* --gen */
    long reps, warmup, triad_mib, passes;
    int json, verbose, caller_x, vectors;
    int halos[2], nhalo; /* halo modes to time, in this order */
    hspmv_opts o;
} args;

/* The matrix as the program found it, and the memory it took. */
typedef struct input {
    hspmv_csr A;      /* rank 0, when this program read it (or read it again for the check) */
    mc_rows G;        /* --gen: this rank's rows, until the matrices are made */
    int petsc;        /* a PETSc binary file (every rank reads its rows with MPI-IO) */
    int lib_reads;    /* the library reads the file (PETSc, or --read parallel) */
    double t_read;    /* seconds rank 0 took to read it here */
    double read_bytes;/* bytes rank 0 parsed here */
    double peak_read; /* rank 0's peak once read (or after setup when the library read it) */
    double peak, peak_others; /* rank 0's peak after setup, the other ranks' max (on rank 0) */
} input;

/* One configuration to time: a halo mode, with its own matrix and vectors. */
typedef struct variant {
    int halo;
    hspmv_dist *D;
    hspmv_dist_info in;
    hspmv_real *x, *y;
    int caller_x;      /* x in the program's memory (--caller-x) */
    int k;             /* --vectors: X and Y hold k vectors row by row (k > 1) */
    hspmv_real *X, *Y;
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
    double first_s;    /* the first product (the transposed one makes A^T), max over ranks */
    double first_mb;   /* the memory it added (MB, Pss, summed over ranks) */
    hspmv_dist_timing tm;
} variant;

/* The reference: x in the file ordering on rank 0 and y gathered there, or,
   after a parallel read, every rank's rows read again. */
typedef struct reference {
    hspmv_real *xg, *yg; /* rank 0 */
    mc_rows R;
    int rows_check;      /* R holds the rows: check block by block */
} reference;

/* One rank's line of --verbose, gathered on rank 0. */
typedef struct rank_row {
    int64_t rows, nnz, nghost, nsend;
    int nrecv, nsendr;
    char fo[8], fg[8]; /* owned and ghost formats */
    double seg, t[6], mb[2];
} rank_row;

/* One variant's results as rank 0 prints them. */
typedef struct summary {
    const variant *va;
    int vi, nv;              /* variant vi of nv */
    hspmv_dist_info in;
    hspmv_check chk;
    long nt;                 /* timed products: reps * passes */
    double med, mn, mx;      /* seconds per product, max over ranks */
    double tmax[6], tsum[6]; /* per call: post, owned, wait, ghost, all, sync; max and sum over ranks */
    int node_ranks_max;
    rank_row *all;           /* every rank's row (rank 0) */
    double ysum, ychk, bytes, flops, rs, imb, halo_b, halo_mx, wait_share, read_gbs;
    const char *prec, *read_how, *halo_name;
    char gather_name[32];
    char pm[64 * 12];        /* pass medians, ms, "/"-separated */
    int thr;
    double triad;            /* summed triad GB/s (0: none) */
    double llc;              /* last-level cache bytes of all nodes (llc_all_nodes) */
} summary;

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

/* Reads the command line into *a (every value checked; a refusal leaves
   on every rank with rank 0's message). */
static void parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof(*a));
    a->reps = 50;
    a->warmup = 5;
    a->passes = 1;
    a->halos[0] = HSPMV_HALO_AUTO;
    a->nhalo = 1;
    hspmv_opts_default(&a->o);
    mg_init(&a->gen);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v;
        if (!strcmp(s, "--reps")) a->reps = bu_parse_int(s, bu_value(argc, argv, &i), 1, BU_MAX_REPS);
        else if (!strcmp(s, "--warmup")) a->warmup = bu_parse_int(s, bu_value(argc, argv, &i), 0, BU_MAX_REPS);
        else if (!strcmp(s, "--threads")) a->o.threads = mp_parse_threads(s, bu_value(argc, argv, &i));
        else if (!strcmp(s, "--triad")) a->triad_mib = (long)(bu_parse_mib(s, bu_value(argc, argv, &i)) >> 20);
        else if (!strcmp(s, "--kernel")) a->o.kernel = bu_parse_kernel(s, bu_value(argc, argv, &i));
        else if (!strcmp(s, "--threshold")) a->o.csrl_threshold = bu_parse_real(s, bu_value(argc, argv, &i), 0, 1);
        else if (!strcmp(s, "--partition")) {
            if ((a->o.partition = bu_partition_of(v = bu_value(argc, argv, &i))) < 0)
                bu_fail("--partition takes nnz, rows or metis, not '%.40s'", v);
        } else if (!strcmp(s, "--format")) {
            if ((a->o.format = bu_format_of(v = bu_value(argc, argv, &i))) < 0) bu_format_refuse(s, v);
        } else if (!strcmp(s, "--read")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "parallel")) a->o.read = HSPMV_READ_PARALLEL;
            else if (!strcmp(v, "root")) a->o.read = HSPMV_READ_ROOT;
            else bu_fail("--read takes root or parallel, not '%.40s'", v);
        } else if (!strcmp(s, "--halo")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "node")) a->halos[0] = HSPMV_HALO_NODE, a->nhalo = 1;
            else if (!strcmp(v, "p2p")) a->halos[0] = HSPMV_HALO_P2P, a->nhalo = 1;
            else if (!strcmp(v, "node,p2p")) a->halos[0] = HSPMV_HALO_NODE, a->halos[1] = HSPMV_HALO_P2P, a->nhalo = 2;
            else if (!strcmp(v, "p2p,node")) a->halos[0] = HSPMV_HALO_P2P, a->halos[1] = HSPMV_HALO_NODE, a->nhalo = 2;
            else bu_fail("--halo takes node, p2p or both (node,p2p), not '%.40s'", v);
        } else if (!strcmp(s, "--passes")) a->passes = bu_parse_int(s, bu_value(argc, argv, &i), 1, 64);
        else if (!strcmp(s, "--node-ranks")) a->o.node_ranks = bu_parse_int(s, bu_value(argc, argv, &i), 1, 1 << 30);
        else if (!strcmp(s, "--caller-x")) a->caller_x = 1;
        else if (!strcmp(s, "--vectors")) a->vectors = bu_parse_int(s, bu_value(argc, argv, &i), 1, 256);
        else if (!strcmp(s, "--json")) a->json = 1;
        else if (!strcmp(s, "--verbose")) a->verbose = 1;
        else if (!strcmp(s, "--progress")) bu_progress_set(bu_parse_progress(s, bu_value(argc, argv, &i)));
        else if (!strcmp(s, "--transpose")) transpose = 1;
        else if (!strcmp(s, "--reorder")) a->o.reorder = bu_parse_reorder(s, bu_value(argc, argv, &i));
        else if (!strcmp(s, "--symmetric")) a->o.symmetric = bu_parse_symmetric(s, bu_value(argc, argv, &i));
        else if (!mg_parse(argc, argv, &i, &a->gen)) mp_other_arg(s, &a->path);
    }
    /* --transpose checks A^T x against the whole matrix on rank 0: said now, not after the setup */
    if (transpose && a->gen.s.kind)
        bu_fail("--transpose checks y = A^T x against the whole matrix on rank 0, which --gen does not make: "
                "write it with genmat (genmat %s %lld -o FILE) and give the file", a->gen.s.kind, (long long)a->gen.s.n);
    if (transpose && a->o.read == HSPMV_READ_PARALLEL)
        bu_fail("--transpose checks y = A^T x against the whole matrix on rank 0: use --read root, not --read parallel");
    a->path = mg_finish(&a->gen, a->path);
    mp_need_path(a->path);
    mp_check_threads(a->o.threads);
}

/* Rank 0 reads the file here unless the library reads it (a PETSc binary
   file: every rank its rows with MPI-IO, METIS: rank 0 there; --read
   parallel: every rank a byte range there); the status is everyone's before
   anyone waits. */
static void read_input(const args *a, input *in)
{
    hspmv_error e = {0, ""};
    int rc = HSPMV_OK;
    if (a->gen.s.kind) { /* every rank its own rows: the generation counts as the read */
        if (mg_rows(&a->gen, a->o.threads, &in->G, &in->t_read, &e)) mp_die(&e);
        in->peak_read = bu_peak_rss();
        return;
    }
    in->petsc = me == 0 ? hspmv_petsc_is_matrix_file(a->path) : 0;
    MPI_Bcast(&in->petsc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    in->lib_reads = in->petsc || a->o.read == HSPMV_READ_PARALLEL;
    double t0 = MPI_Wtime();
    if (!in->lib_reads && me == 0) {
        hspmv_read_opts ro = bu_progress_opts(a->path);
        hspmv_read_info ri;
        ro.threads = a->o.threads;
        rc = hspmv_csr_read(a->path, &in->A, &ro, &ri, &e);
        if (rc) bu_step_abort(); /* no "done" for a failed read */
        else bu_step_end();
        in->t_read = MPI_Wtime() - t0;
        in->read_bytes = rc ? 0 : (double)ri.bytes;
        in->peak_read = bu_peak_rss();
    }
    struct { int code; char msg[512]; } st = {rc, ""};
    if (me == 0) memcpy(st.msg, e.msg, sizeof(st.msg));
    MPI_Bcast(&st, (int)sizeof(st), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (st.code) {
        e.code = st.code;
        memcpy(e.msg, st.msg, sizeof(e.msg));
        mp_die(&e);
    }
}

static double rss0; /* peak resident memory at the start */

/* The setup phases of v's matrix, max over ranks (the read as this program
   did it when it read the file itself; dt: making the matrix, a read inside
   the library included), and its peak memory once the rows were in place,
   above each rank's start, against the CSR bytes of its own rows. */
static void record_setup(variant *v, const input *in, double dt)
{
    hspmv_dist_info su; /* its setup facts */
    hspmv_dist_get_info(v->D, &su);
    if (!in->lib_reads) { /* this program read the file itself */
        su.read = HSPMV_READ_ROOT;
        su.read_s = me == 0 ? in->t_read : 0;
        su.read_bytes = me == 0 ? (int64_t)in->read_bytes : 0;
    } else dt -= su.read_s;
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
}

/* v's x (a window vector, or the program's own memory with --caller-x), y
   and the times of its nt products; out of memory anywhere leaves everywhere. */
static void alloc_vectors(variant *v, int caller_x, long nt)
{
    v->caller_x = caller_x;
    int64_t nx = transpose ? v->in.nrows_local : v->in.ncols_local;
    v->x = caller_x ? hspmv_malloc(((size_t)nx + 1) * sizeof(hspmv_real))
                    : hspmv_dist_vec_alloc(v->D, transpose ? HSPMV_VEC_ROWS : HSPMV_VEC_COLS, 1);
    v->y = hspmv_dist_vec_alloc(v->D, transpose ? HSPMV_VEC_COLS : HSPMV_VEC_ROWS, 1);
    v->t = malloc(sizeof(double) * (size_t)nt);
    if (v->k > 1) {
        v->X = hspmv_dist_vec_alloc(v->D, transpose ? HSPMV_VEC_ROWS : HSPMV_VEC_COLS, v->k);
        v->Y = hspmv_dist_vec_alloc(v->D, transpose ? HSPMV_VEC_COLS : HSPMV_VEC_ROWS, v->k);
    }
    int nomem = !v->x || !v->y || !v->t || (v->k > 1 && (!v->X || !v->Y));
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the vectors");
}

/* The memory v added between kb0 and kb1 (kB, mem_now): summed over the
   ranks, and this rank's. */
static void record_memory(variant *v, const double kb0[4], const double kb1[4])
{
    double d[4], sum[4];
    for (int i = 0; i < 4; i++) d[i] = (kb1[i] - kb0[i]) / 1024;
    MPI_Allreduce(d, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    v->rss_mb = sum[0];
    v->mine_mb[0] = d[0];
    v->mine_mb[1] = d[1];
    v->huge_mb = sum[1];
    v->shm_mb = sum[2];
    v->shm_huge_mb = sum[3];
}

/* Makes v's matrix from the CSR rank 0 read, or, when the library reads,
   by hspmv_dist_read of the file (o.read: every rank a byte range; a PETSc
   file with MPI-IO); x is scattered later. */
static void make_variant(variant *v, const args *a, const input *in)
{
    double kb0[4], kb1[4];
    hspmv_error e = {0, ""};
    hspmv_opts o = a->o;
    o.halo = v->halo;
    mem_now(kb0);
    char step[700];
    snprintf(step, sizeof(step), "%s%s, distributing to %d ranks and preparing (halo %s)",
             in->lib_reads ? "reading on every rank, " : "", "partitioning", P, v->halo == HSPMV_HALO_P2P ? "p2p" : "node");
    bu_step_begin(step, me == 0 && !in->lib_reads ? (double)(in->A.nrows + 1) * 8 + (double)in->A.nnz * (4.0 + sizeof(hspmv_real)) : 0, NULL);
    double t0 = MPI_Wtime();
    int rc = a->gen.s.kind ? mg_create(&in->G, &o, &v->D, &e)
             : in->lib_reads ? hspmv_dist_read(a->path, MPI_COMM_WORLD, &o, &v->D, &e)
                             : hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &in->A : NULL, &o, &v->D, &e);
    double dt = MPI_Wtime() - t0;
    if (rc) mp_die(&e); /* (ends the step without a "done") */
    bu_step_end();
    hspmv_dist_get_info(v->D, &v->in);
    record_setup(v, in, dt);
    v->k = a->vectors > 1 ? a->vectors : 1;
    alloc_vectors(v, a->caller_x, a->reps * a->passes);
    mem_now(kb1);
    record_memory(v, kb0, kb1);
}

/* Every variant, all alive at once (timed interleaved later, so that the
   machine's drift hits them alike); then the peaks after setup. */
static variant *make_variants(const args *a, input *in)
{
    variant *V = calloc((size_t)a->nhalo, sizeof(variant));
    if (!V) mp_die_msg("out of memory");
    for (int h = 0; h < a->nhalo; h++) {
        V[h].halo = a->halos[h];
        make_variant(&V[h], a, in);
    }
    mc_rows_free(&in->G); /* --gen: made again for the check, after the peaks */
    double zero = 0;
    in->peak = bu_peak_rss();
    MPI_Reduce(me == 0 ? &zero : &in->peak, &in->peak_others, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return V;
}

/* The reference, untimed and after the peaks: a PETSc file is read again on
   rank 0; after a parallel read every rank reads its rows again. x in the
   file ordering on rank 0, scattered to every variant. */
static void prepare_reference(const args *a, input *in, variant *V, int nv, reference *ref)
{
    hspmv_error e = {0, ""};
    memset(ref, 0, sizeof(*ref));
    if (in->lib_reads) bu_step_begin("reading the matrix again for the check", 0, NULL);
    if (in->petsc) {
        in->peak_read = in->peak;
        int rc = me == 0 ? hspmv_petsc_read(a->path, &in->A, &e) : HSPMV_OK;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc) mp_die_msg("rank 0 could not read the matrix again for the check");
    } else if (in->lib_reads) {
        in->peak_read = in->peak;
        ref->rows_check = 1;
        if (mc_rows_read(a->path, a->o.threads, &ref->R, &e)) mp_die(&e);
    } else if (a->gen.s.kind) {
        double t;
        ref->rows_check = 1;
        if (mg_rows(&a->gen, a->o.threads, &ref->R, &t, &e)) mp_die(&e);
    }
    bu_step_end();
    const hspmv_dist_info *in0 = &V[0].in;
    int nomem = 0;
    int64_t nx = transpose ? in0->nrows : in0->ncols, ny = transpose ? in0->ncols : in0->nrows;
    if (transpose && ref->rows_check) mp_die_msg("--transpose checks against rank 0's matrix: use --read root");
    if (me == 0) {
        ref->xg = hspmv_malloc(((size_t)nx + 1) * sizeof(hspmv_real));
        ref->yg = hspmv_malloc(((size_t)ny + 1) * sizeof(hspmv_real));
        nomem |= !ref->xg || !ref->yg || (transpose && hspmv_local_csr_transpose(&in->A, &tA, 1));
        if (ref->xg) bu_fill_x(ref->xg, nx);
    }
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the vectors");
    for (int i = 0; i < nv; i++) {
        if (hspmv_dist_scatter(V[i].D, transpose ? HSPMV_VEC_ROWS : HSPMV_VEC_COLS, ref->xg, V[i].x, &e)) mp_die(&e);
        int64_t nxl = transpose ? V[i].in.nrows_local : V[i].in.ncols_local;
        for (int64_t r = 0; V[i].k > 1 && r < nxl; r++) /* vector j: x * 2^-j, exactly */
            for (int j = 0; j < V[i].k; j++) V[i].X[r * V[i].k + j] = ldexp(V[i].x[r], -j);
    }
}

/* The timed product: y = A*x (--transpose: A^T x), or Y = A*X (A^T X) for --vectors. */
static int product(variant *v, hspmv_error *e)
{
    if (v->k > 1) return hspmv_dist_spmm(v->D, transpose ? HSPMV_TRANSPOSE : 0, v->k, v->X, v->Y, e);
    return transpose ? hspmv_dist_spmm(v->D, HSPMV_TRANSPOSE, 1, v->x, v->y, e) : hspmv_dist_spmv(v->D, v->x, v->y, e);
}

/* t += now, field by field. */
static void add_timing(hspmv_dist_timing *t, const hspmv_dist_timing *now)
{
    t->calls += now->calls;
    t->total_s += now->total_s;
    t->post_s += now->post_s;
    t->owned_s += now->owned_s;
    t->wait_s += now->wait_s;
    t->ghost_s += now->ghost_s;
    t->sync_s += now->sync_s;
}

/* One pass: warm-up, then reps products, each barrier-separated, max over ranks. */
static void time_variant(variant *v, int pass, long reps, long warmup)
{
    hspmv_error e = {0, ""};
    double *t = v->t + (size_t)pass * (size_t)reps, tmp[4096];
    for (long r = 0; r < warmup; r++) {
        int first = pass == 0 && r == 0;
        double s, d, kb0[4], kb1[4];
        if (first) { /* the first call alone, timed, and what it allocated */
            MPI_Barrier(MPI_COMM_WORLD); /* every rank samples at the same point: */
            mem_now(kb0);                /* Pss shares a page among its mappers */
            MPI_Barrier(MPI_COMM_WORLD);
        }
        s = MPI_Wtime();
        if (product(v, &e)) mp_die(&e);
        d = MPI_Wtime() - s;
        if (first) {
            MPI_Allreduce(&d, &v->first_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            mem_now(kb1); /* after the Allreduce: every rank's call has ended */
            d = (kb1[0] - kb0[0]) / 1024;
            MPI_Allreduce(&d, &v->first_mb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    hspmv_dist_timing keep = v->tm, now;
    hspmv_dist_get_timing(v->D, &now, 1); /* the warm-up left out */
    for (long r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double s = MPI_Wtime();
        int rc = product(v, &e);
        double d = MPI_Wtime() - s;
        MPI_Allreduce(&d, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rc) mp_die(&e);
    }
    hspmv_dist_get_timing(v->D, &now, 0);
    v->tm = keep;
    add_timing(&v->tm, &now);
    long n = reps < 4096 ? reps : 4096;
    double mn, mx;
    memcpy(tmp, t, sizeof(double) * (size_t)n);
    if (pass < 64) bu_stats(tmp, (int)n, &v->pass_med[pass], &mn, &mx);
}

/* Every pass times every variant in turn (warm-up before the first pass,
   one product before the others). */
static void time_all(const args *a, variant *V, int nv)
{
    for (long pass = 0; pass < a->passes; pass++)
        for (int i = 0; i < nv; i++) time_variant(&V[i], (int)pass, a->reps, pass == 0 ? a->warmup : 1);
}

/* Collective: the last-level cache of all nodes together, each node's
   the largest any of its ranks reaches (bs_llc_bytes: a rank bound to one
   socket sees that socket's). A product whose bytes fit is timed from
   cache, and no fraction of a memory triad is given for it. */
static double llc_all_nodes(void)
{
    MPI_Comm node;
    double mine = (double)bs_llc_bytes(NULL), nodemax = 0, total = 0;
    int nr;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Allreduce(&mine, &nodemax, 1, MPI_DOUBLE, MPI_MAX, node);
    MPI_Comm_rank(node, &nr);
    if (nr != 0) nodemax = 0;
    MPI_Allreduce(&nodemax, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return total;
}

/* The optional bandwidth yardstick: a triad on every rank at once, GB/s
   summed over the ranks on rank 0 (0 without --triad). */
static double run_triad(const args *a, const variant *v)
{
    double triad = 0;
    if (a->triad_mib <= 0) return 0;
    bs_triad_result tr = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    int thr = v->in.owned.threads > 0 ? v->in.owned.threads : 1;
    double g = bs_triad(thr, (size_t)a->triad_mib << 20, 10, &tr) ? 0 : tr.median_gbs;
    MPI_Reduce(&g, &triad, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return triad;
}

/* Collective. va's y against the reference (the same hspmv_check on rank 0
   either way; y gathered into ref->yg there). */
static void check_variant(const input *in, reference *ref, const variant *va, hspmv_check *chk)
{
    hspmv_error e = {0, ""};
    memset(chk, 0, sizeof(*chk));
    int64_t nyl = transpose ? va->in.ncols_local : va->in.nrows_local;
    for (int64_t r = 0; va->k > 1 && r < nyl; r++) /* the last vector, times 2^(k-1) */
        va->y[r] = ldexp(va->Y[r * va->k + va->k - 1], va->k - 1);
    if (ref->rows_check) {
        if (mc_check(&ref->R, va->D, va->y, ref->yg, bu_x_at, chk, &e)) mp_die(&e);
    } else {
        if (hspmv_dist_gather(va->D, transpose ? HSPMV_VEC_COLS : HSPMV_VEC_ROWS, va->y, ref->yg, &e)) mp_die(&e);
        if (me == 0) hspmv_ref_check(transpose ? &tA : &in->A, ref->xg, ref->yg, 2.0, chk);
    }
}

/* Collective. The per-call times of va (this rank's, then max and sum over
   ranks on rank 0), the largest node and every rank's row for --verbose
   (s->all, rank 0). */
static void gather_stats(const variant *va, summary *s)
{
    const hspmv_dist_info *in = &va->in;
    const hspmv_dist_timing *tm = &va->tm;
    long nt = s->nt;
    double mine[6] = {tm->post_s / nt, tm->owned_s / nt, tm->wait_s / nt, tm->ghost_s / nt, tm->total_s / nt,
                      tm->sync_s / nt};
    MPI_Reduce(mine, s->tmax, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, s->tsum, 6, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&in->node_ranks, &s->node_ranks_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    rank_row mi;
    memset(&mi, 0, sizeof(mi));
    mi.rows = in->nrows_local;
    mi.nnz = in->nnz_local;
    mi.nghost = in->nghost;
    mi.nsend = in->nsend;
    mi.nrecv = in->nrecv_ranks;
    mi.nsendr = in->nsend_ranks;
    mi.seg = in->owned.seg_ratio;
    memcpy(mi.t, mine, sizeof(mi.t));
    memcpy(mi.mb, va->mine_mb, sizeof(mi.mb));
    snprintf(mi.fo, sizeof(mi.fo), "%s", in->owned.format_name);
    snprintf(mi.fg, sizeof(mi.fg), "%s", in->ghost.format_name);
    s->all = me == 0 ? malloc(sizeof(mi) * (size_t)P) : NULL;
    MPI_Gather(&mi, (int)sizeof(mi), MPI_BYTE, s->all, (int)sizeof(mi), MPI_BYTE, 0, MPI_COMM_WORLD);
}

/* Rank 0: the figures derived from the times, the sizes and the setup. */
static void summarize(const args *a, const input *inp, const reference *ref, summary *s)
{
    const variant *va = s->va;
    const hspmv_dist_info *in = &s->in;
    bu_stats(va->t, (int)s->nt, &s->med, &s->mn, &s->mx);
    bu_ysums(ref->yg, transpose ? in->ncols : in->nrows, &s->ysum, &s->ychk);
    hspmv_csr sizes = {in->nrows, in->ncols, in->nnz, NULL, NULL, NULL};
    s->rs = (double)sizeof(hspmv_real);
    s->bytes = bu_csr_bytes(&sizes) + (va->k - 1) * (double)(in->ncols + in->nrows) * s->rs; /* k x and y */
    s->flops = 2.0 * in->nnz * va->k;
    s->imb = in->nnz > 0 ? (double)in->nnz_max / ((double)in->nnz / P) : 1;
    s->halo_b = (double)in->halo_total * s->rs;
    s->halo_mx = (double)in->halo_max * s->rs;
    s->wait_share = s->tmax[4] > 0 ? s->tmax[2] / s->tmax[4] : 0;
    s->prec = sizeof(hspmv_real) == 8 ? "double" : "single";
    s->read_gbs = va->su_max[0] > 0 ? va->read_bytes / va->su_max[0] / 1e9 : 0;
    s->read_how = a->gen.s.kind ? "gen" : inp->petsc ? (va->read_mode == HSPMV_READ_PARALLEL ? "mpiio" : "petsc-root")
                             : va->read_mode == HSPMV_READ_PARALLEL ? "parallel" : "root";
    s->thr = in->owned.threads > 0 ? in->owned.threads : in->ghost.threads;
    if (s->thr <= 0) s->thr = a->o.threads > 0 ? a->o.threads : omp_get_max_threads(); /* no nonzeros: none prepared */
    s->halo_name = in->halo == HSPMV_HALO_NODE ? "node" : "p2p";
    snprintf(s->gather_name, sizeof(s->gather_name), "%s%s", in->halo != HSPMV_HALO_NODE ? "-" : in->gather,
             in->replica ? "+replica" : "");
    s->pm[0] = 0;
    for (long p = 0; p < a->passes && p < 64; p++)
        snprintf(s->pm + strlen(s->pm), sizeof(s->pm) - strlen(s->pm), "%s%.4f", p ? "/" : "", va->pass_med[p] * 1e3);
}

static const char *const part_names[] = {"nnz", "rows", "metis"}; /* HSPMV_PART_* order */

/* Rank 0, text: the matrix, its setup, the layout and the formats chosen. */
static void print_setup(const args *a, const summary *s)
{
    const variant *va = s->va;
    const hspmv_dist_info *in = &s->in;
    printf("matrix=%s rows=%lld cols=%lld nnz=%lld precision=%s read=%s\n", a->path, (long long)in->nrows,
           (long long)in->ncols, (long long)in->nnz, s->prec, s->read_how);
    printf("  setup, max over ranks: read %.3f s (%.3f GB/s)%s%s%s, partition %.3f s, distribute %.3f s, "
           "prepare %.3f s\n", va->su_max[0], s->read_gbs, *va->read_note ? " (" : "", va->read_note,
           *va->read_note ? ")" : "", va->su_max[1], va->su_max[2], va->su_max[3]);
    if (s->nv > 1) printf("  variant %d of %d: halo %s\n", s->vi + 1, s->nv, s->halo_name);
    printf("  ranks %d x threads %d, partition %s%s, nnz imbalance (max/avg) %.3f, kernels %s%s\n", P,
           s->thr, part_names[in->partition], in->permuted ? " (rows renumbered)" : "", s->imb,
           in->owned.nnz > 0 ? in->owned.isa : in->ghost.isa,
           in->owned_in_node ? ", owned columns within the node block" : "");
    int nfmt = 0;
    for (int f = 1; f < HSPMV_NFORMATS; f++) nfmt += in->format_counts[f];
    printf("  formats (owned blocks): ");
    for (int f = 0; f < HSPMV_NFORMATS; f++)
        if (bu_formats[f].format != HSPMV_FORMAT_AUTO)
            printf("%s %d, ", bu_formats[f].name, in->format_counts[bu_formats[f].format]);
    printf("none %d (CSRL when nzseg/nnz < %.2f); rank 0's ghost block: %s\n", P - nfmt, a->o.csrl_threshold,
           in->ghost.nnz > 0 ? in->ghost.format_name : "none");
    if (in->symmetric)
        printf("  one triangle across ranks (%s): each rank keeps the lower triangle of its rows, owned "
               "block %s; %lld ghost entries above the rows not stored, their products sent back in the "
               "exchange; check %.4f s\n", in->symmetric > 0 ? "symmetric" : "skew-symmetric",
               in->owned.symmetric ? "in one triangle too" : "in both triangles (its format keeps both)",
               (long long)in->sym_dropped, in->sym_check_s);
    else if (a->o.symmetric != HSPMV_SYMMETRIC_NO)
        printf("  both triangles kept (symmetric %s: %s)\n", bu_symmetric_name(a->o.symmetric),
               in->halo == HSPMV_HALO_NODE ? "not symmetric across the ranks, or halo node asked for"
                                           : "not symmetric across the ranks");
}

/* Rank 0, text, --verbose: a line per rank (the node-aware plan's own
   diagnostics follow, from hspmv_dist_view). */
static void print_ranks(const args *a, const summary *s)
{
    if (a->verbose)
        for (int p = 0; p < P; p++)
            printf("    rank %d: rows %lld nnz %lld owned %s (nzseg/nnz %.3f) ghost %s, %lld ghost x "
                   "entries; receives from %d ranks, sends %lld "
                   "to %d; ms per call: post %.3f owned %.3f wait %.3f ghost %.3f sync %.3f all %.3f; memory added "
                   "%.1f MB, %.1f MB of it on huge pages\n",
                   p, (long long)s->all[p].rows, (long long)s->all[p].nnz, s->all[p].fo, s->all[p].seg, s->all[p].fg,
                   (long long)s->all[p].nghost, s->all[p].nrecv, (long long)s->all[p].nsend, s->all[p].nsendr, s->all[p].t[0] * 1e3,
                   s->all[p].t[1] * 1e3, s->all[p].t[2] * 1e3, s->all[p].t[3] * 1e3, s->all[p].t[5] * 1e3,
                   s->all[p].t[4] * 1e3, s->all[p].mb[0], s->all[p].mb[1]);
}

/* Rank 0, text: the halo, between nodes and within them. */
static void print_halo(const args *a, const summary *s)
{
    const variant *va = s->va;
    const hspmv_dist_info *in = &s->in;
    printf("  halo per SpMV: %.0f bytes in all (%lld entries), max %.0f bytes received by one rank\n",
           s->halo_b, (long long)in->halo_total, s->halo_mx);
    printf("  halo %s, %d node%s of %d%s ranks%s; between nodes per SpMV: node-aware %.0f bytes in "
           "%lld messages, p2p %.0f bytes in %lld messages\n",
           s->halo_name, in->nnodes, in->nnodes == 1 ? "" : "s", s->node_ranks_max,
           a->o.node_ranks > 0 ? " (pseudo-nodes)" : "", in->nnodes > 1 ? "" : " (nothing crosses)",
           (double)in->internode_entries_node * s->rs, (long long)in->internode_msgs_node,
           (double)in->internode_entries_p2p * s->rs, (long long)in->internode_msgs_p2p);
    if (in->halo == HSPMV_HALO_NODE)
        printf("  node gathers: %s, owned rows shared: the last %d of 64 chunks, boundary rows folded "
               "(multiplied whole, first): %lld, x %s\n",
               s->gather_name, in->owned_share, (long long)in->fold_rows_total,
               va->caller_x ? "the caller's (its part copied into the window each product)"
                            : "a window vector (zero copy)");
}

/* Rank 0, text: memory, the product's times and rates. */
static void print_times(const args *a, const summary *s)
{
    const variant *va = s->va;
    const hspmv_dist_info *in = &s->in;
    printf("  memory made for it, all ranks: %.1f MB resident (Pss: a shared page once), %.1f MB of it on "
           "transparent huge pages (AnonHugePages), %.1f MB shared (windows), mapped 2 MiB at a time: %.1f "
           "MB (ShmemPmdMapped, every rank's mappings)\n",
           va->rss_mb, va->huge_mb, va->shm_mb, va->shm_huge_mb);
    if (va->k > 1) printf("  block product of %d vectors (hspmv_dist_spmm, row-major), times per product:\n", va->k);
    printf("  spmv (incl. halo exchange): median %.6f ms, min %.6f ms, max %.6f ms over %ld calls after "
           "%ld warm-up (max over ranks, barrier-separated)%s%s\n", s->med * 1e3, s->mn * 1e3, s->mx * 1e3, s->nt,
           a->warmup, a->passes > 1 ? "; pass medians " : "", a->passes > 1 ? s->pm : "");
    if (a->warmup > 0)
        printf("  first call (a warm-up%s): %.3f ms, %.1f MB added (all ranks)\n",
               transpose ? "; it makes the transposed matrix" : "", va->first_s * 1e3, va->first_mb);
    printf("  per call, max (avg) over ranks: post+pack %.4f (%.4f) ms, owned block %.4f (%.4f) ms, "
           "wait %.4f (%.4f) ms, ghost block%s %.4f (%.4f) ms, node sync %.4f (%.4f) ms\n",
           s->tmax[0] * 1e3, s->tsum[0] / P * 1e3, s->tmax[1] * 1e3, s->tsum[1] / P * 1e3, s->tmax[2] * 1e3,
           s->tsum[2] / P * 1e3, in->halo == HSPMV_HALO_NODE ? "s (node + off-node)" : "", s->tmax[3] * 1e3,
           s->tsum[3] / P * 1e3, s->tmax[5] * 1e3, s->tsum[5] / P * 1e3);
    printf("  %.3f GFLOP/s (2*nnz*k/t), %.2f GB/s (bytes = nnz*(%zu+4) + (rows+1)*8 + k*(cols + rows)*%zu, "
           "k = %d)%s",
           s->flops / s->med / 1e9, s->bytes / s->med / 1e9, sizeof(hspmv_real), sizeof(hspmv_real), va->k,
           s->triad > 0 ? "" : "\n");
    if (s->triad > 0 && s->bytes <= s->llc)
        printf(", in cache (%.1f MB fit in the nodes' %.0f MiB of last-level cache: no triad fraction)\n",
               s->bytes / 1e6, s->llc / 1048576.0);
    else if (s->triad > 0)
        printf(", %.1f%% of a %.1f GB/s triad on all ranks\n", 100 * s->bytes / s->med / 1e9 / s->triad, s->triad);
}

/* Rank 0, text: peak memory and the check. */
static void print_memory_check(const input *inp, const summary *s)
{
    const variant *va = s->va;
    if (inp->lib_reads)
        printf("  peak memory after setup: rank 0 %.1f MB, other ranks max %.1f MB\n", inp->peak / 1e6,
               inp->peak_others / 1e6);
    else
        printf("  peak memory: rank 0 %.1f MB after reading, %.1f MB after scattering; other ranks max "
               "%.1f MB\n", inp->peak_read / 1e6, inp->peak / 1e6, inp->peak_others / 1e6);
    printf("  peak memory once the rows were in place (above each rank's start): max %.1f MB, rank 0 "
           "%.1f MB; max over ranks of that / its own CSR rows %.2fx\n", va->mem_max[0] / 1e6,
           va->rp_root / 1e6, va->mem_max[1]);
    printf("  check vs long-double reference: max_rel=%.3e avg_rel=%.3e rows_off_bound=%lld %s\n",
           s->chk.max_rel, s->chk.avg_rel, (long long)s->chk.violations, bu_check_word(&s->chk));
}

/* Rank 0: the key=value line (--json: one JSON object) that scripts read. */
static void print_line(const args *a, const input *inp, const summary *s)
{
    const variant *va = s->va;
    const hspmv_dist_info *in = &s->in;
    printf(a->json ? "{\"bench\":\"mpi\",\"matrix\":\"%s\",\"precision\":\"%s\",\"ranks\":%d,\"threads\":%d,"
                  "\"partition\":\"%s\",\"read\":\"%s\",\"read_s\":%.4f,\"partition_s\":%.4f,"
                  "\"distribute_s\":%.4f,\"prepare_s\":%.4f,\"read_peak_mb_max\":%.1f,"
                  "\"read_peak_mb_root\":%.1f,\"read_peak_share_max\":%.3f,\"read_gbs\":%.3f,\"rows\":%lld,\"cols\":%lld,\"nnz\":%lld,\"imbalance\":%.4f,"
                  "\"formats\":{\"csr\":%d,\"csrl\":%d,\"bcoo\":%d,\"csr16\":%d,\"csrvi\":%d,\"csrp\":%d,"
                  "\"csrdu\":%d,\"panels\":%d},\"ghost_format\":\"%s\","
                  "\"halo_bytes\":%.0f,\"halo_max_bytes\":%.0f,\"reps\":%ld,\"median_ms\":%.6f,"
                  "\"min_ms\":%.6f,\"max_ms\":%.6f,\"pass_medians_ms\":\"%s\",\"gflops\":%.4f,\"gbs\":%.3f,"
                  "\"post_ms\":%.5f,\"owned_ms\":%.5f,\"wait_ms\":%.5f,\"ghost_ms\":%.5f,\"sync_ms\":%.5f,"
                  "\"wait_share\":%.4f,\"halo\":\"%s\",\"nodes\":%d,\"node_ranks\":%d,\"pseudo_node_ranks\":%d,"
                  "\"gather\":\"%s\",\"owned_share\":%d,\"fold_rows\":%lld,"
                  "\"internode_bytes\":%.0f,\"internode_msgs\":%lld,\"internode_bytes_p2p\":%.0f,"
                  "\"internode_msgs_p2p\":%lld,\"xalloc\":\"%s\",\"thp_mb\":%.1f,\"rss_mb\":%.1f,"
                  "\"shm_mb\":%.1f,\"shm_huge_mb\":%.1f,\"triad_gbs\":%.2f,\"in_cache\":%d,\"llc_bytes\":%.0f,\"peak_mb_root_read\":%.1f,\"peak_mb_root\":%.1f,"
                  "\"peak_mb_others\":%.1f,\"max_rel\":%.3e,\"avg_rel\":%.3e,\"violations\":%lld,"
                  "\"ysum\":%.10g,\"ychk\":%.10g,\"isa\":\"%s\",\"owned_in_node\":%d,\"overflows\":%lld,\"transpose\":%d"
                : "bench=mpi matrix=%s precision=%s ranks=%d threads=%d partition=%s read=%s read_s=%.4f "
                  "partition_s=%.4f distribute_s=%.4f prepare_s=%.4f read_peak_mb_max=%.1f "
                  "read_peak_mb_root=%.1f read_peak_share_max=%.3f read_gbs=%.3f rows=%lld cols=%lld "
                  "nnz=%lld imbalance=%.4f csr=%d csrl=%d bcoo=%d csr16=%d csrvi=%d csrp=%d csrdu=%d panels=%d "
                  "ghost_format=%s halo_bytes=%.0f "
                  "halo_max_bytes=%.0f reps=%ld median_ms=%.6f min_ms=%.6f max_ms=%.6f pass_medians_ms=%s "
                  "gflops=%.4f gbs=%.3f post_ms=%.5f owned_ms=%.5f wait_ms=%.5f ghost_ms=%.5f sync_ms=%.5f "
                  "wait_share=%.4f halo=%s nodes=%d node_ranks=%d pseudo_node_ranks=%d gather=%s owned_share=%d fold_rows=%lld internode_bytes=%.0f internode_msgs=%lld internode_bytes_p2p=%.0f "
                  "internode_msgs_p2p=%lld xalloc=%s thp_mb=%.1f rss_mb=%.1f shm_mb=%.1f shm_huge_mb=%.1f triad_gbs=%.2f in_cache=%d llc_bytes=%.0f "
                  "peak_mb_root_read=%.1f peak_mb_root=%.1f peak_mb_others=%.1f max_rel=%.3e avg_rel=%.3e "
                  "violations=%lld ysum=%.10g ychk=%.10g isa=%s owned_in_node=%d overflows=%lld transpose=%d",
           a->path, s->prec, P, s->thr, part_names[in->partition], s->read_how, va->su_max[0], va->su_max[1],
           va->su_max[2], va->su_max[3], va->mem_max[0] / 1e6, va->rp_root / 1e6, va->mem_max[1], s->read_gbs,
           (long long)in->nrows, (long long)in->ncols, (long long)in->nnz, s->imb, in->format_counts[1], in->format_counts[2], in->format_counts[3],
           in->format_counts[4], in->format_counts[5], in->format_counts[HSPMV_FORMAT_CSRP],
           in->format_counts[HSPMV_FORMAT_CSRDU], in->format_counts[HSPMV_FORMAT_PANELS],
           in->ghost.nnz > 0 ? in->ghost.format_name : "none", s->halo_b, s->halo_mx, s->nt, s->med * 1e3, s->mn * 1e3, s->mx * 1e3,
           a->passes > 1 ? s->pm : "-", s->flops / s->med / 1e9, s->bytes / s->med / 1e9, s->tmax[0] * 1e3, s->tmax[1] * 1e3,
           s->tmax[2] * 1e3, s->tmax[3] * 1e3, s->tmax[5] * 1e3, s->wait_share, s->halo_name, in->nnodes,
           s->node_ranks_max, a->o.node_ranks, s->gather_name, in->owned_share,
           (long long)in->fold_rows_total,
           (double)in->internode_entries_node * s->rs, (long long)in->internode_msgs_node,
           (double)in->internode_entries_p2p * s->rs, (long long)in->internode_msgs_p2p,
           va->caller_x ? "caller" : "window", va->huge_mb, va->rss_mb, va->shm_mb, va->shm_huge_mb, s->triad, s->bytes <= s->llc, s->llc, inp->peak_read / 1e6,
           inp->peak / 1e6, inp->peak_others / 1e6, s->chk.max_rel, s->chk.avg_rel, (long long)s->chk.violations, s->ysum, s->ychk,
           in->owned.nnz > 0 ? in->owned.isa : in->ghost.isa,
           in->owned_in_node, (long long)s->chk.overflows, transpose);
    printf(a->json ? ",\"vectors\":%d,\"first_ms\":%.3f,\"first_mb\":%.1f" : " vectors=%d first_ms=%.3f first_mb=%.1f",
           va->k, va->first_s * 1e3, va->first_mb);
    printf(a->json ? ",\"reorder\":\"%s\",\"reorder_asked\":\"%s\",\"bandwidth_before\":%lld,\"bandwidth_after\":%lld,"
                     "\"local_before\":%.4f,\"local_after\":%.4f,\"reorder_s\":%.4f"
                   : " reorder=%s reorder_asked=%s bandwidth_before=%lld bandwidth_after=%lld local_before=%.4f "
                     "local_after=%.4f reorder_s=%.4f",
           bu_reorder_name(in->reorder), bu_reorder_name(a->o.reorder), (long long)in->bandwidth_before,
           (long long)in->bandwidth_after, in->local_before, in->local_after, in->reorder_s);
    printf(a->json ? ",\"symmetric\":\"%s\",\"symmetric_asked\":\"%s\",\"owned_symmetric\":\"%s\","
                     "\"sym_dropped\":%lld,\"sym_check_s\":%.4f"
                   : " symmetric=%s symmetric_asked=%s owned_symmetric=%s sym_dropped=%lld sym_check_s=%.4f",
           bu_symmetric_kept(in->symmetric), bu_symmetric_name(a->o.symmetric),
           bu_symmetric_kept(in->owned.symmetric), (long long)in->sym_dropped, in->sym_check_s);
    if (a->json) bu_meta_json(stdout, 0, 0);
    else bu_meta_kv(stdout, 0, 0);
    if (a->json && a->verbose) {
        printf(",\"per_rank\":[");
        for (int p = 0; p < P; p++)
            printf("%s{\"rows\":%lld,\"nnz\":%lld,\"format\":\"%s\",\"ghost_format\":\"%s\",\"nghost\":%lld}",
                   p ? "," : "", (long long)s->all[p].rows, (long long)s->all[p].nnz, s->all[p].fo, s->all[p].fg,
                   (long long)s->all[p].nghost);
        printf("]");
    }
    printf(a->json ? "}\n" : "\n");
    fflush(stdout);
}

/* Collective. Checks, sums up and prints variant vi of nv (rank 0 prints);
   returns 1 on rank 0 when its product is off the bound or overflows. */
static int report_variant(const args *a, const input *inp, reference *ref, const variant *va, int vi, int nv,
                          double triad, double llc)
{
    summary s;
    memset(&s, 0, sizeof(s));
    s.va = va;
    s.vi = vi;
    s.nv = nv;
    s.in = va->in;
    s.nt = a->reps * a->passes;
    s.triad = triad;
    s.llc = llc;
    check_variant(inp, ref, va, &s.chk);
    gather_stats(va, &s);
    int bad = 0;
    if (me == 0) {
        summarize(a, inp, ref, &s);
        bad = s.chk.violations != 0 || s.chk.overflows != 0;
        if (!a->json) {
            print_setup(a, &s);
            print_ranks(a, &s);
            print_halo(a, &s);
            print_times(a, &s);
            print_memory_check(inp, &s);
        }
        print_line(a, inp, &s);
        fflush(stdout);
        if (bad && nv > 1) fprintf(stderr, "%s: %s: variant %d:\n", prog, a->path, vi + 1);
        bu_check_report(a->path, &s.chk); /* a wrong kernel, or a product that overflows */
    }
    if (a->verbose && !a->json) hspmv_dist_view(va->D, stdout); /* collective: the node plan's diagnostics */
    free(s.all);
    return bad;
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "benchmark-mpi"); /* --version: prints it and exits 0 */
    if (mg_wants_gpu(argc, argv)) return mg_benchmark_main(argc, argv); /* mpi_gpu.c */
    args a;
    input inp;
    reference ref;
    memset(&inp, 0, sizeof(inp));

    mp_start(&argc, &argv, prog, usage, &me, &P);
    bu_progress_rank(me); /* progress from rank 0 only */
    parse_args(argc, argv, &a);
    rss0 = bu_peak_rss();
    read_input(&a, &inp);
    int nv = a.nhalo;
    variant *V = make_variants(&a, &inp);
    prepare_reference(&a, &inp, V, nv, &ref);
    time_all(&a, V, nv);
    double triad = run_triad(&a, &V[0]), llc = llc_all_nodes();

    int bad = 0;
    for (int vi = 0; vi < nv; vi++) bad |= report_variant(&a, &inp, &ref, &V[vi], vi, nv, triad, llc);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < nv; i++) {
        free(V[i].t);
        hspmv_free(V[i].x);
        hspmv_free(V[i].y);
        hspmv_free(V[i].X);
        hspmv_free(V[i].Y);
        hspmv_dist_destroy(&V[i].D);
    }
    free(V);
    hspmv_free(ref.xg);
    hspmv_free(ref.yg);
    hspmv_csr_free(&tA);
    hspmv_csr_free(&inp.A);
    if (ref.rows_check) mc_rows_free(&ref.R);
    if (me == 0) bu_check_stdout(); /* results lost on a full disk are a failure */
    MPI_Finalize();
    return bad ? 1 : 0;
}
