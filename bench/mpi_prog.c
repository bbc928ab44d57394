/* mpi_prog.c — leaving together and the common options of the MPI programs. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "bench_util.h"
#include "mpi_prog.h"
#include "local_calls.h"

static const char *prog_name = "?";
static void (*prog_usage)(FILE *);
static int me;

/* An error every rank reaches together (a refused argument: every rank
   parses the same ones; a status agreed over the ranks); rank 0 alone says
   why, after what stdout holds. */
static void fail_all(int status, const char *msg)
{
    bu_step_abort(); /* rank 0's progress line is ended first */
    fflush(stdout);
    if (me == 0) fprintf(stderr, "%s: error: %s\n", prog_name, msg);
    MPI_Finalize();
    exit(status);
}

void mp_start(int *argc, char ***argv, const char *prog, void (*usage)(FILE *), int *rank, int *nranks)
{
    int prov;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &prov);
    /* whole lines, each in one write: mpirun forwards stdout and stderr
       separately, and a summary line longer than the 1 KiB buffer stdout
       had under mpirun went out in two writes, between which an error
       message landed (a CI run of the overflow test). A buffer of our own:
       glibc ignores the size when given none. */
    static char line_buf[1 << 16];
    setvbuf(stdout, line_buf, _IOLBF, sizeof(line_buf));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    *rank = me;
    prog_name = prog;
    prog_usage = usage;
    bu_set_prog(prog);
    bu_set_fail(fail_all);
}

void mp_die(const hspmv_error *e) { fail_all(1, e->msg[0] ? e->msg : hspmv_strerror(e->code)); }

void mp_die_msg(const char *m)
{
    hspmv_error e = {HSPMV_ERR_ARG, ""};
    snprintf(e.msg, sizeof(e.msg), "%s", m);
    mp_die(&e);
}

void mp_other_arg(const char *a, const char **path)
{
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        if (me == 0) prog_usage(stdout);
        MPI_Finalize();
        exit(0);
    }
    if (a[0] == '-' && a[1]) bu_fail("unknown option '%.60s' (see %s --help)", a, prog_name);
    if (*path) bu_fail("more than one matrix given ('%.60s' after '%.60s')", a, *path);
    *path = a;
}

void mp_need_path(const char *path)
{
    if (!path) bu_fail("no matrix given (usage: mpirun -n P %s matrix.mtx[.gz] [options]; see --help)", prog_name);
}

int mp_parse_threads(const char *opt, const char *s)
{
    /* any positive int here: the bound depends on each rank's processors
       and is agreed by mp_check_threads, so no rank leaves alone */
    return (int)bu_parse_int(opt, s, 1, 1 << 30);
}

/* Collective: rank 0 warns once when on some machine the ranks' threads
   together outnumber the processors of their affinity masks (unbound ranks,
   more than the cores: the library's waits then yield, but OpenMP's idle
   threads still spin for a while after each parallel region, and a product
   measured 0.05 ms at 2 ranks x 2 threads takes 150-250 ms at 3 x 2 on 2
   cores, 0.3 ms with OMP_WAIT_POLICY=passive). */
static void warn_machine(int threads)
{
    uint64_t mask[16], all[16];
    MPI_Comm shared;
    int sum, w[3] = {0, 0, 0};
    hspmv_cpu_mask(mask, 16);
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared) != MPI_SUCCESS) return;
    MPI_Allreduce(mask, all, 16, MPI_UINT64_T, MPI_BOR, shared);
    MPI_Allreduce(&threads, &sum, 1, MPI_INT, MPI_SUM, shared);
    MPI_Comm_free(&shared);
    int cpus = 0;
    for (int k = 0; k < 16; k++) cpus += __builtin_popcountll(all[k]);
    if (cpus == 0) cpus = hspmv_cpus_allowed();
    if (sum > cpus) w[0] = sum - cpus, w[1] = sum, w[2] = cpus; /* the worst excess speaks */
    int best[3];
    struct { int excess, rank; } in = {w[0], me}, out;
    MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    memcpy(best, w, sizeof(best));
    MPI_Bcast(best, 3, MPI_INT, out.rank, MPI_COMM_WORLD);
    if (me == 0 && best[0] > 0)
        fprintf(stderr,
                "%s: warning: the ranks of one machine run %d threads on its %d processors, so they take turns and "
                "products slow down, thousands of times where idle OpenMP threads spin; run at most %d ranks x "
                "threads there (fewer ranks, or --threads 1), or set OMP_WAIT_POLICY=passive\n",
                prog_name, best[1], best[2], best[2]);
}

/* Collective: rank 0 warns once when some rank's threads outnumber the
   cores of its affinity mask (mpirun binds a rank to one core by default,
   and its threads then take turns on it). With OMP_PROC_BIND the OpenMP
   runtime has already pinned this (the initial) thread to its first place,
   so its mask shows one place: the places, made from the process's mask,
   count instead. */
static void warn_binding(int threads)
{
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : threads;
#ifdef _OPENMP
    if (omp_get_proc_bind() != omp_proc_bind_false && omp_get_num_places() > cores) cores = omp_get_num_places();
#endif
    int v[2] = {threads > cores ? threads : 0, threads > cores ? -cores : -threads}; /* max: threads, fewest cores */
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && v[0] > 0)
        fprintf(stderr,
                "%s: warning: a rank runs %d OpenMP threads on %d core%s of its affinity mask, so they share cores; "
                "give each rank %d cores: mpirun --map-by slot:PE=%d --bind-to core (Slurm: srun --cpus-per-task=%d)\n",
                prog_name, v[0], -v[1], -v[1] == 1 ? "" : "s", v[0], v[0], v[0]);
    if (v[0] == 0) warn_machine(threads);
}

void mp_check_threads(int threads)
{
#ifdef _OPENMP
    int ask = threads > 0 ? threads : omp_get_max_threads();
#else
    int ask = threads > 0 ? threads : 1;
#endif
    int lim = hspmv_max_threads(), most = ask;
    MPI_Allreduce(MPI_IN_PLACE, &lim, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (most > lim) {
        if (threads > 0)
            bu_fail("--threads takes an integer from 1 to %d (8 per processor, at least 256), not '%d'", lim, most);
        bu_fail("OMP_NUM_THREADS asks for %d threads, more than the %d allowed (8 per processor, at least 256); "
                "set it lower or give --threads", most, lim);
    }
    warn_binding(ask);
}

int mp_unpin_main_thread(void)
{
#ifdef _OPENMP
    int np = omp_get_num_places(), ids[CPU_SETSIZE];
    cpu_set_t set;
    if (omp_get_proc_bind() == omp_proc_bind_false || np < 2) return 0;
    CPU_ZERO(&set);
    for (int p = 0; p < np; p++) {
        int n = omp_get_place_num_procs(p);
        if (n < 1 || n > CPU_SETSIZE) continue;
        omp_get_place_proc_ids(p, ids);
        for (int k = 0; k < n; k++)
            if (ids[k] >= 0 && ids[k] < CPU_SETSIZE) CPU_SET(ids[k], &set);
    }
    return CPU_COUNT(&set) > 1 && sched_setaffinity(0, sizeof(set), &set) == 0;
#else
    return 0;
#endif
}
