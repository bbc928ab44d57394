/* mpi_gen.c — --gen of benchmark-mpi and solve (mpi_gen.h): the options,
   the split by nonzeros from the rows' lengths, each rank's rows made with
   OpenMP threads, the distributed matrix. */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_max_threads(void) { return 1; }
#endif
#include "bench_util.h"
#include "mpi_gen.h"

void mg_init(mg_args *g)
{
    memset(g, 0, sizeof(*g));
    gen_default(&g->s);
}

/* KIND[:K] of --gen into g->s. */
static void parse_kind(const char *v, mg_args *g)
{
    char kind[32];
    const char *colon = strchr(v, ':');
    size_t len = colon ? (size_t)(colon - v) : strlen(v);
    snprintf(kind, sizeof(kind), "%.*s", (int)(len < sizeof(kind) ? len : sizeof(kind) - 1), v);
    if (!strcmp(kind, "pwl")) strcpy(kind, "powerlaw");
    int c = len < sizeof(kind) ? gen_class(kind) : 0;
    if (c != 's' && c != 'r')
        bu_fail("--gen takes lap2d, lap3d, lap3d27, random[:K] or powerlaw[:K] (pwl[:K]), not '%.40s'", v);
    if (colon && c != 'r') bu_fail("--gen %.40s: only random and powerlaw take :K (entries per row)", v);
    if (colon) g->s.k = bu_parse_int("--gen KIND:K", colon + 1, 1, INT32_MAX);
    static const char *names[] = {"lap2d", "lap3d", "lap3d27", "random", "powerlaw"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(kind, names[i])) g->s.kind = names[i];
}

int mg_parse(int argc, char **argv, int *i, mg_args *g)
{
    const char *a = argv[*i], *v;
    if (!strcmp(a, "--gen")) {
        if (g->s.kind) bu_fail("--gen given twice");
        const char *kind = bu_value(argc, argv, i);
        parse_kind(kind, g);
        g->s.n = bu_parse_int("--gen N", bu_value(argc, argv, i), 1, INT32_MAX);
        if (strchr(kind, ':') && g->s.k > g->s.n) /* as genmat --k: no more entries per row than columns */
            bu_fail("--gen %.40s %lld: K %lld is more than the %lld columns; K takes an integer from 1 to %lld", kind,
                    (long long)g->s.n, (long long)g->s.k, (long long)g->s.n, (long long)g->s.n);
        if (gen_rows(&g->s) < 0)
            bu_fail("--gen %s %lld gives more than 2147483647 rows (32-bit indices); N at most %d", g->s.kind,
                    (long long)g->s.n, !strcmp(g->s.kind, "lap2d") ? 46340 : 1290);
    } else if (!strcmp(a, "--values")) {
        v = bu_value(argc, argv, i);
        if (!strcmp(v, "random")) g->s.realv = 1;
        else if (!strcmp(v, "stencil")) g->s.realv = 0;
        else bu_fail("--values takes stencil or random, not '%.40s'", v);
        g->values_given = 1;
    } else if (!strcmp(a, "--seed")) {
        g->s.seed = (uint64_t)bu_parse_int(a, bu_value(argc, argv, i), 0, INT64_MAX);
        g->seed_given = 1;
    } else return 0;
    return 1;
}

const char *mg_finish(mg_args *g, const char *path)
{
    if (!g->s.kind) {
        if (g->values_given || g->seed_given)
            bu_fail("%s is for generated matrices (--gen KIND N) only", g->values_given ? "--values" : "--seed");
        return path;
    }
    if (path) bu_fail("give a matrix file or --gen, not both ('%.60s' and --gen %s)", path, g->s.kind);
    int n = snprintf(g->name, sizeof(g->name), "gen:%s:%lld", g->s.kind, (long long)g->s.n);
    if (gen_class(g->s.kind) == 'r') n += snprintf(g->name + n, sizeof(g->name) - (size_t)n, ":k%lld", (long long)g->s.k);
    if (g->s.realv) n += snprintf(g->name + n, sizeof(g->name) - (size_t)n, ":values=random");
    if (g->seed_given) snprintf(g->name + n, sizeof(g->name) - (size_t)n, ":seed=%llu", (unsigned long long)g->s.seed);
    return g->name;
}

/* len[i - r0] = the entry count of row i for i in [r0, r1); 0, or -1 out of memory. */
static int count_rows(gen_spec *s, int64_t r0, int64_t r1, int threads, int64_t *len)
{
    int bad = 0;
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads()) reduction(| : bad)
    {
        gen_buf b = {0};
#pragma omp for schedule(dynamic, 4096)
        for (int64_t i = r0; i < r1; i++) {
            int64_t m = bad ? 0 : gen_row(s, i, &b, 0);
            if (m < 0) bad = 1;
            len[i - r0] = m < 0 ? 0 : m;
        }
        gen_buf_free(&b);
    }
    return bad ? -1 : 0;
}

/* The first row of every rank: an equal block of rows each, its lengths
   counted, prefix sums over the ranks; rank p starts after the row that
   holds nonzero number p*nnz/P. */
static int split(gen_spec *s, int64_t N, int threads, int me, int P, int64_t *st)
{
    int64_t b0 = N * me / P, b1 = N * (me + 1) / P, mine = 0, off = 0, tot = 0;
    int64_t *len = malloc(sizeof(int64_t) * (size_t)(b1 - b0 + 1));
    int bad = !len || count_rows(s, b0, b1, threads, len);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        free(len);
        return -1;
    }
    for (int64_t i = b0; i < b1; i++) mine += len[i - b0];
    MPI_Exscan(&mine, &off, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) off = 0;
    MPI_Allreduce(&mine, &tot, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    memset(st, 0, sizeof(int64_t) * ((size_t)P + 1));
    if (tot == 0)
        for (int p = 1; p < P; p++) st[p] = N * p / P;
    else {
        int p = 1;
        int64_t acc = off;
        for (int64_t i = b0; i < b1; i++) { /* row i holds nonzeros (acc, acc + len] */
            while (p < P && (double)tot * p / P <= (double)acc) p++;
            while (p < P && (double)tot * p / P <= (double)(acc + len[i - b0])) st[p++] = i + 1;
            acc += len[i - b0];
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, st + 1, P - 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    st[P] = N;
    for (int p = 1; p <= P; p++)
        if (st[p] < st[p - 1]) st[p] = st[p - 1];
    free(len);
    return 0;
}

int mg_rows(const mg_args *g, int threads, mc_rows *R, double *seconds, hspmv_error *e)
{
    gen_spec *s = (gen_spec *)&g->s; /* a seed per row: gen_row only reads it */
    int64_t N = gen_rows(s);
    hspmv_csr *A = &R->rows;
    memset(R, 0, sizeof(*R));
    MPI_Comm_rank(MPI_COMM_WORLD, &R->me);
    MPI_Comm_size(MPI_COMM_WORLD, &R->P);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    R->row_start = calloc((size_t)R->P + 1, sizeof(int64_t));
    int bad = !R->row_start;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!bad && (bad = split(s, N, threads, R->me, R->P, R->row_start)) == 0) {
        int64_t r0 = R->row_start[R->me], nr = R->row_start[R->me + 1] - r0;
        A->nrows = nr;
        A->ncols = N;
        A->rowptr = malloc(sizeof(int64_t) * (size_t)(nr + 1));
        bad = !A->rowptr || count_rows(s, r0, r0 + nr, threads, A->rowptr + 1);
        if (!bad) {
            A->rowptr[0] = 0;
            for (int64_t i = 0; i < nr; i++) A->rowptr[i + 1] += A->rowptr[i];
            A->nnz = A->rowptr[nr];
            A->colind = malloc(sizeof(int32_t) * (size_t)(A->nnz + 1));
            A->val = malloc(sizeof(hspmv_real) * (size_t)(A->nnz + 1));
            bad = !A->colind || !A->val;
        }
        if (!bad) {
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads()) reduction(| : bad)
            {
                gen_buf b = {0};
#pragma omp for schedule(dynamic, 4096)
                for (int64_t i = 0; i < nr; i++) {
                    int64_t m = bad ? -1 : gen_row(s, r0 + i, &b, 1), at = A->rowptr[i];
                    if (m != A->rowptr[i + 1] - at) {
                        bad = 1;
                        continue;
                    }
                    for (int64_t t = 0; t < m; t++) {
                        A->colind[at + t] = (int32_t)b.cols[t];
                        A->val[at + t] = (hspmv_real)gen_as_written(s, b.vals[t]);
                    }
                }
                gen_buf_free(&b);
            }
        }
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        mc_rows_free(R);
        e->code = HSPMV_ERR_NOMEM;
        snprintf(e->msg, sizeof(e->msg), "out of memory generating %s (%lld rows)", g->name, (long long)N);
        return HSPMV_ERR_NOMEM;
    }
    return HSPMV_OK;
}

int mg_create(const mc_rows *R, const hspmv_opts *o, hspmv_dist **D, hspmv_error *e)
{
    const hspmv_csr *A = &R->rows;
    int64_t *col = malloc(sizeof(int64_t) * (size_t)(A->nnz + 1));
    int bad = !col, rc;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        free(col);
        e->code = HSPMV_ERR_NOMEM;
        snprintf(e->msg, sizeof(e->msg), "out of memory for the generated rows' 64-bit columns");
        return HSPMV_ERR_NOMEM;
    }
    for (int64_t k = 0; k < A->nnz; k++) col[k] = A->colind[k];
    rc = hspmv_dist_create(MPI_COMM_WORLD, A->nrows, A->ncols, -1, A->rowptr, col, A->val, o, D, e);
    free(col);
    return rc;
}
