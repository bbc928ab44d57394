/* test_dist_petsc.c — PETSc binary files with MPI-IO at any rank count:
   each rank's rows are the serial read's bit for bit (4- and 8-byte
   integers, pieces of a few bytes, collective reads), the
   nnz splits are the root path's (also for 3e9 entries), y = A*x is the
   root path's bit for bit and within the bound, the parallel write gives
   the serial writer's bytes, and every spoiled file gives every rank the
   serial reader's message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dist_petsc.h"
#include "mpitest.h"
#include "testlib.h"
#include "petsc_files.h"
#include "read_parallel.h"
#include "util.h"

static int me, P;
static char tmpdir[256];

static const char *tpath(const char *name)
{
    static char p[8][400];
    static int i;
    i = (i + 1) % 8;
    snprintf(p[i], sizeof(p[i]), "%s/%s", tmpdir, name);
    return p[i];
}

/* 1 on every rank when ok holds on every rank. */
static int everyone(int ok)
{
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Rank 0's status to everyone. */
static int bcast_int(int v)
{
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v;
}

/* ---- the matrices: shared, bundled and generated, alike on every rank ---- */

enum { NGEN = 6 };

static int generated(int g, hspmv_csr *A, char *name, size_t nlen)
{
    int64_t len[1000];
    switch (g) {
    case 0: /* fewer rows than ranks */
        snprintf(name, nlen, "gen 2x2");
        return tl_csr_random(A, 2, 2, NULL, 2, 0, 1);
    case 1:
        snprintf(name, nlen, "gen 0x0");
        return tl_csr_random(A, 0, 0, NULL, 0, 0, 2);
    case 2:
        snprintf(name, nlen, "gen 10x10 without entries");
        return tl_csr_random(A, 10, 10, NULL, 0, 0, 3);
    case 3: /* rectangular, empty rows at both ends, a dense row */
        for (int i = 0; i < 50; i++) len[i] = i < 5 || i >= 45 ? 0 : i == 20 ? 30 : 1 + i % 4;
        snprintf(name, nlen, "gen 50x30 empty edges");
        return tl_csr_random(A, 50, 30, len, 0, 0, 4);
    case 4:
        for (int i = 0; i < 1000; i++) len[i] = (i * 7919) % 21;
        snprintf(name, nlen, "gen 1000x1000 rows of 0-20");
        return tl_csr_random(A, 1000, 1000, len, 0, 2, 5);
    default: /* one long row, the others empty */
        for (int i = 0; i < 7; i++) len[i] = i == 3 ? 7 : 0;
        snprintf(name, nlen, "gen 7x7 one full row");
        return tl_csr_random(A, 7, 7, len, 0, 0, 6);
    }
}

typedef int (*mat_fn)(const hspmv_csr *A, const char *name);

/* Calls fn on every matrix (each rank reads or makes its own copy); returns
   how many fn accepted on every rank, *n how many were tried. */
/* How many matrices each_matrix must have found: the bundled and generated
   ones (14), and more than 20 when the shared folder is there. */
static int enough;

static int each_matrix(mat_fn fn, int *n)
{
    const char *dirs[2] = {tl_shared_dir(), "matrices"};
    int good = 0;
    *n = 0;
    enough = 10;
    for (int d = 0; d < 2; d++) {
        char **paths;
        int np = tl_list_mtx(dirs[d], &paths);
        if (d == 0 && np > 0) enough = 20;
        for (int i = 0; i < np; i++) {
            if (tl_is_unsupported_shared(paths[i]) || strstr(paths[i], "_rhs")) continue;
            hspmv_csr A = {0};
            hspmv_error e;
            if (hspmv_csr_read(paths[i], &A, NULL, NULL, &e)) continue; /* the reader's tests cover refusals */
            ++*n;
            good += everyone(fn(&A, strrchr(paths[i], '/') + 1));
            hspmv_csr_free(&A);
        }
        if (np >= 0) tl_free_list(paths, np);
    }
    for (int g = 0; g < NGEN; g++) {
        hspmv_csr A = {0};
        char name[64];
        if (generated(g, &A, name, sizeof(name))) continue;
        ++*n;
        good += everyone(fn(&A, name));
        hspmv_csr_free(&A);
    }
    return good;
}

/* Rank 0 writes A to path; everyone learns whether it worked. */
static int write_on_root(const hspmv_csr *A, const char *path, int isz)
{
    hspmv_error e;
    int rc = me == 0 ? hspmv_petsc_write(path, A, isz, &e) : 0;
    if (rc) fprintf(stderr, "    %s\n", e.msg);
    return bcast_int(rc) == 0;
}

/* ---- the partition walk ---------------------------------------------------- */

/* Chains the walk over blocks cut at cut[0..nb] (cut[0] = 0, cut[nb] = n) and
   compares with hspmv_partition_nnz. */
static int walk_matches(const int64_t *rp, int64_t n, int Pp, const int64_t *cut, int nb)
{
    int64_t ref[40], start[40], snz[40];
    part_walk w = {0, 0, 0};
    hspmv_partition_nnz(rp, n, Pp, ref);
    memset(start, 0, sizeof(start));
    memset(snz, 0, sizeof(snz));
    int done = 0;
    for (int b = 0; b < nb && !done; b++) {
        int64_t lo = cut[b], hi = cut[b + 1], first = lo > 0 ? lo - 1 : lo;
        done = hspmv_partition_nnz_walk(&w, rp + first, first, lo, hi, n, Pp, (double)rp[n] / Pp, start, snz);
    }
    int ok = done || Pp == 1;
    for (int p = 1; p < Pp; p++) ok &= start[p] == ref[p] && snz[p] == rp[start[p]];
    return ok;
}

static void the_walk_along_the_ranks_gives_the_alternating_shrink(void)
{
    static int64_t rp[2001];
    int64_t cut[40];
    uint64_t s = 99;
    int bad = 0, cases = 0;
    static const int64_t sizes[] = {1, 2, 3, 5, 17, 100, 2000};
    for (int t = 0; t < 7; t++) {
        int64_t n = sizes[t];
        for (int pattern = 0; pattern < 4; pattern++) {
            rp[0] = 0;
            for (int64_t i = 0; i < n; i++) {
                int64_t l = pattern == 0 ? (int64_t)(tl_next(&s) % 11)          /* uniform */
                            : pattern == 1 ? (tl_next(&s) % 5 == 0 ? 3 : 0)    /* mostly empty */
                            : pattern == 2 ? (i == n / 2 ? 1000 : 1)           /* one huge row */
                                           : 3000000 + (int64_t)(tl_next(&s) % 1000); /* > 2^31 in all */
                rp[i + 1] = rp[i] + l;
            }
            if (rp[n] == 0) continue; /* the reader splits by rows then */
            for (int Pp = 1; Pp <= 20; Pp++) {
                /* blocks as the reader cuts them (even rows, one per rank) */
                for (int b = 0; b <= Pp; b++) cut[b] = n * b / Pp;
                bad += !walk_matches(rp, n, Pp, cut, Pp);
                /* and any other cut: random block counts and ends, empty blocks too */
                int nb = 1 + (int)(tl_next(&s) % 30);
                cut[0] = 0;
                for (int b = 1; b < nb; b++) cut[b] = (int64_t)(tl_next(&s) % (uint64_t)(n + 1));
                cut[nb] = n;
                for (int b = 1; b < nb; b++) /* sort */
                    for (int c = b; c > 1 && cut[c] < cut[c - 1]; c--) {
                        int64_t x = cut[c]; cut[c] = cut[c - 1]; cut[c - 1] = x;
                    }
                bad += !walk_matches(rp, n, Pp, cut, nb);
                cases += 2;
            }
        }
    }
    CHECK(bad == 0, "%d of %d walks differ from hspmv_partition_nnz", bad, cases);
    CHECK(rp[2000] > ((int64_t)1 << 32), "the large case stays below 2^32 entries");
}

/* ---- every rank's rows ---------------------------------------------------- */

static const struct { int isz; const char *piece; } configs[] = {{4, NULL}, {8, "24"}};

static int rows_are_the_serial_rows(const hspmv_csr *A, const char *name)
{
    int ok = 1;
    int64_t *rs = malloc(sizeof(int64_t) * (size_t)(P + 1)), *ref = malloc(sizeof(int64_t) * (size_t)(P + 1));
    for (int c = 0; c < 2; c++) {
        if (!write_on_root(A, tpath("rows.petsc"), configs[c].isz)) {
            ok = 0;
            break;
        }
        /* pieces of a few bytes on small matrices, of a few entries on the others */
        char pc[32];
        snprintf(pc, sizeof(pc), "io_piece=%s", configs[c].piece && A->nnz <= 5000 ? configs[c].piece : "8000");
        if (configs[c].piece) setenv("HSPMV_TEST", pc, 1);
        for (int part = HSPMV_PART_NNZ; part <= HSPMV_PART_ROWS; part++) {
            hspmv_csr S;
            hspmv_error e;
            int64_t total = -1;
            petsc_read_stats st;
            int rc = hspmv_petsc_read_rows(tpath("rows.petsc"), MPI_COMM_WORLD, part, READ_ROWS, &S, rs, &total, &st, &e);
            if (rc) {
                fprintf(stderr, "    rank %d: %s: %s\n", me, name, e.msg);
                ok = 0;
                continue;
            }
            if (part == HSPMV_PART_NNZ) hspmv_partition_nnz(A->rowptr, A->nrows, P, ref);
            else hspmv_partition_rows(A->nrows, P, ref);
            int same = total == A->nnz && !memcmp(rs, ref, sizeof(int64_t) * (size_t)(P + 1));
            int64_t r0 = ref[me], n = ref[me + 1] - r0, k0 = A->rowptr[r0], z = A->rowptr[r0 + n] - k0;
            same &= S.nrows == n && S.ncols == A->ncols && S.nnz == z && st.bytes >= (me == 0 ? 16 : 0);
            for (int64_t i = 0; same && i <= n; i++) same &= S.rowptr[i] == A->rowptr[r0 + i] - k0;
            same &= z == 0 || (!memcmp(S.colind, A->colind + k0, sizeof(int32_t) * (size_t)z) &&
                               !memcmp(S.val, A->val + k0, sizeof(hspmv_real) * (size_t)z));
            if (!same)
                fprintf(stderr, "    rank %d: %s (%d-byte integers, %s): rows differ from the serial read\n", me,
                        name, configs[c].isz, part == HSPMV_PART_NNZ ? "nnz" : "rows");
            ok &= same;
            hspmv_csr_free(&S);
        }
        unsetenv("HSPMV_TEST");
    }
    free(rs);
    free(ref);
    return ok;
}

static void each_rank_reads_the_rows_of_the_serial_read_bit_for_bit(void)
{
    int n, good = each_matrix(rows_are_the_serial_rows, &n);
    if (me == 0) printf("  %d matrices, %d read alike at %d ranks\n", n, good, P);
    CHECK(n > enough && good == n, "%d of %d matrices (at least %d expected)", good, n, enough + 1);
}

/* ---- the distributed product ------------------------------------------------ */

/* y = A*x through D, gathered on rank 0 into y (ncols/nrows of A). */
static int product(hspmv_dist *D, const hspmv_csr *A, const hspmv_real *xg, hspmv_real *yg)
{
    hspmv_error e;
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    int ok = x && y;
    ok = ok && hspmv_dist_scatter(D, HSPMV_VEC_COLS, xg, x, &e) == HSPMV_OK;
    ok = ok && hspmv_dist_spmv(D, x, y, &e) == HSPMV_OK;
    ok = ok && hspmv_dist_gather(D, HSPMV_VEC_ROWS, y, yg, &e) == HSPMV_OK;
    (void)A;
    hspmv_free(x);
    hspmv_free(y);
    return ok;
}

static int product_is_the_root_paths(const hspmv_csr *A, const char *name)
{
    int ok = write_on_root(A, tpath("prod.petsc"), 4);
    hspmv_real *xg = malloc(sizeof(hspmv_real) * (size_t)(A->ncols + 1));
    hspmv_real *y1 = malloc(sizeof(hspmv_real) * (size_t)(A->nrows + 1));
    hspmv_real *y2 = malloc(sizeof(hspmv_real) * (size_t)(A->nrows + 1));
    int64_t *r1 = malloc(sizeof(int64_t) * (size_t)(P + 1)), *r2 = malloc(sizeof(int64_t) * (size_t)(P + 1));
    tl_fill(xg, A->ncols, 3);
    for (int part = 0; ok && part < 4; part++) {
        hspmv_opts o;
        hspmv_error e;
        hspmv_dist *D1 = NULL, *D2 = NULL;
        mt_opts(&o);
        o.kernel = "scalar"; /* the same kernels on the same blocks give the same bits */
        o.partition = part == 3 ? HSPMV_PART_NNZ : part;
        if (o.partition == HSPMV_PART_METIS && A->nrows != A->ncols) continue;
        /* part 3: hspmv_dist_read takes the PETSc file by its class id */
        int rc = part == 3 ? hspmv_dist_read(tpath("prod.petsc"), MPI_COMM_WORLD, &o, &D1, &e)
                           : hspmv_dist_read_petsc(tpath("prod.petsc"), MPI_COMM_WORLD, &o, &D1, &e);
        if (rc) fprintf(stderr, "    rank %d: %s: %s\n", me, name, e.msg);
        ok &= rc == HSPMV_OK;
        ok &= hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D2, &e) == HSPMV_OK;
        if (!ok) break;
        hspmv_dist_get_ranges(D1, r1, NULL);
        hspmv_dist_get_ranges(D2, r2, NULL);
        ok &= !memcmp(r1, r2, sizeof(int64_t) * (size_t)(P + 1));
        hspmv_dist_info in;
        hspmv_dist_get_info(D1, &in);
        long long bytes = in.read_bytes, sum = 0;
        MPI_Allreduce(&bytes, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        struct stat st;
        ok &= stat(tpath("prod.petsc"), &st) == 0 && sum >= (long long)st.st_size && in.read_s >= 0;
        ok &= product(D1, A, xg, y1) && product(D2, A, xg, y2);
        if (ok && me == 0) {
            ok &= tl_matches_ref(A, xg, y1, name);
            ok &= tl_same_bits(y1, y2, A->nrows);
            if (!tl_same_bits(y1, y2, A->nrows)) fprintf(stderr, "    %s: y differs from the root path's\n", name);
        }
        hspmv_dist_destroy(&D1);
        hspmv_dist_destroy(&D2);
    }
    free(xg);
    free(y1);
    free(y2);
    free(r1);
    free(r2);
    return ok;
}

static void product_of_the_mpiio_read_is_the_root_paths_bit_for_bit(void)
{
    int n, good = each_matrix(product_is_the_root_paths, &n);
    CHECK(n > enough && good == n, "%d of %d matrices (at least %d expected)", good, n, enough + 1);
}

/* ---- the parallel write --------------------------------------------------- */

static int slices_write_the_serial_bytes(const hspmv_csr *A, const char *name)
{
    int ok = 1;
    int64_t *rs = malloc(sizeof(int64_t) * (size_t)(P + 1));
    for (int t = 0; t < 2; t++) {
        int isz = t ? 8 : 4;
        hspmv_error e;
        if (t == 0) hspmv_partition_nnz(A->rowptr, A->nrows, P, rs);
        else for (int p = 0; p <= P; p++) rs[p] = p == P ? A->nrows : 0; /* all rows on the last rank */
        int64_t r0 = rs[me], n = rs[me + 1] - r0, k0 = A->rowptr[r0];
        int64_t *rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
        for (int64_t i = 0; i <= n; i++) rp[i] = A->rowptr[r0 + i] - k0;
        hspmv_csr S = {n, A->ncols, rp[n], rp, A->colind + k0, A->val + k0};
        ok &= write_on_root(A, tpath("serial.petsc"), isz);
        if (me == 0) { /* a longer file there before: it must be cut */
            FILE *f = fopen(tpath("par.petsc"), "wb");
            for (int i = 0; f && i < 1000; i++) fputs("0123456789", f);
            if (f) fclose(f);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int rc = hspmv_dist_write_petsc(tpath("par.petsc"), MPI_COMM_WORLD, &S, isz, &e);
        if (rc) fprintf(stderr, "    rank %d: %s: %s\n", me, name, e.msg);
        ok &= rc == HSPMV_OK;
        if (ok && me == 0) {
            FILE *a = fopen(tpath("serial.petsc"), "rb"), *b = fopen(tpath("par.petsc"), "rb");
            int ca = 0, cb = 0;
            while (a && b && (ca = getc(a)) == (cb = getc(b)) && ca != EOF) {}
            ok &= a && b && ca == EOF && cb == EOF;
            if (!ok) fprintf(stderr, "    %s: the parallel write (%d-byte integers) differs\n", name, isz);
            if (a) fclose(a);
            if (b) fclose(b);
        }
        free(rp);
    }
    free(rs);
    return ok;
}

static void the_parallel_write_gives_the_serial_writers_bytes(void)
{
    int n, good = each_matrix(slices_write_the_serial_bytes, &n);
    CHECK(n > enough && good == n, "%d of %d matrices (at least %d expected)", good, n, enough + 1);
}

/* ---- spoiled files --------------------------------------------------------- */

/* Every rank's message for path, by hspmv_dist_read_petsc with each
   partition (and hspmv_dist_read), is rank 0's serial reader's. */
static int same_message_everywhere(const char *path, const char *what)
{
    struct { int code; char msg[512]; } ref = {0, ""};
    hspmv_csr A;
    hspmv_error e;
    if (me == 0) {
        ref.code = hspmv_petsc_read(path, &A, &e);
        snprintf(ref.msg, sizeof(ref.msg), "%s", ref.code ? e.msg : "");
        hspmv_csr_free(&A);
    }
    MPI_Bcast(&ref, (int)sizeof(ref), MPI_BYTE, 0, MPI_COMM_WORLD);
    int ok = 1;
    for (int part = 0; part < 4; part++) {
        hspmv_opts o;
        hspmv_dist *D = (hspmv_dist *)&o; /* must come back NULL on failure */
        mt_opts(&o);
        o.partition = part == 3 ? HSPMV_PART_NNZ : part;
        hspmv_error f = {0, ""};
        int rc;
        if (part < 3) rc = hspmv_dist_read_petsc(path, MPI_COMM_WORLD, &o, &D, &f);
        else if (hspmv_dist_is_petsc_file(path, MPI_COMM_WORLD)) rc = hspmv_dist_read(path, MPI_COMM_WORLD, &o, &D, &f);
        else { /* not PETSc's class id: the Matrix Market reader's business */
            D = NULL;
            continue;
        }
        int same = rc == ref.code && (rc ? D == NULL && !strcmp(f.msg, ref.msg) : D != NULL);
        if (!same)
            fprintf(stderr, "    rank %d, %s, partition %d: status %d '%s', the serial reader %d '%s'\n", me, what,
                    part, rc, f.msg, ref.code, ref.msg);
        ok &= same;
        hspmv_dist_destroy(&D);
    }
    return everyone(ok);
}

static void every_spoiled_file_gives_every_rank_the_serial_message(void)
{
    pf_bad bad[64];
    int n = pf_bad_files(bad), good = 0;
    for (int t = 0; t < n; t++) {
        pf_buf B = pf_build(&bad[t].s);
        int rc = me == 0 ? pf_write(tpath("bad.petsc"), &B, bad[t].cut ? bad[t].cut : B.n) : 0;
        if (bcast_int(rc)) continue;
        good += same_message_everywhere(tpath("bad.petsc"), bad[t].what);
        hspmv_csr A;
        hspmv_error e;
        rc = me == 0 ? hspmv_petsc_read(tpath("bad.petsc"), &A, &e) : bad[t].code;
        CHECK(bcast_int(rc) == bad[t].code, "%s: the serial reader gives %d", bad[t].what, rc);
    }
    CHECK(good == n, "%d of %d spoiled files", good, n);
    CHECK(same_message_everywhere(tpath("no-such.petsc"), "missing"), "a missing file");
    CHECK(same_message_everywhere(tmpdir, "directory"), "a directory");
}

/* Flips bytes of a good larger file: the offence lies in some later rank's rows. */
static void offences_in_any_ranks_rows_give_the_serial_message(void)
{
    hspmv_csr A;
    int64_t len[400];
    for (int i = 0; i < 400; i++) len[i] = 1 + i % 9;
    CHECK(tl_csr_random(&A, 400, 400, len, 0, 0, 17) == HSPMV_OK, "generator");
    petsc_file f = {"x", 4, 0, A.nrows, A.ncols, A.nnz, A.nnz, -1};
    struct { const char *what; int64_t at; unsigned char b[8]; int n; long cut; } spoil[] = {
        {"column past the end near the last row", hspmv_petsc_off_col(&f, A.nnz - 3), {0, 0, 1, 144}, 4, 0},
        {"nan in the middle", hspmv_petsc_off_val(&f, A.nnz / 2), {0x7f, 0xf8, 0, 0, 0, 0, 0, 0}, 8, 0},
        {"row lengths shifted between rows", hspmv_petsc_off_len(&f, 0), {0, 0, 0, 0}, 4, 0},
        {"a column of the last row repeated", hspmv_petsc_off_col(&f, A.nnz - 1), {0, 0, 0, 0}, 0, 0},
        {"cut in the values", 0, {0}, 0, (long)hspmv_petsc_off_val(&f, A.nnz - 5)},
        {"cut in the columns", 0, {0}, 0, (long)hspmv_petsc_off_col(&f, 10)},
    };
    int good = 0, n = (int)(sizeof(spoil) / sizeof(spoil[0]));
    for (int t = 0; t < n; t++) {
        int rc = 0;
        if (me == 0) {
            hspmv_error e;
            rc = hspmv_petsc_write(tpath("spoil.petsc"), &A, 4, &e);
            FILE *fp = rc ? NULL : fopen(tpath("spoil.petsc"), "r+b");
            if (fp && spoil[t].n) {
                fseek(fp, spoil[t].at, SEEK_SET);
                fwrite(spoil[t].b, 1, (size_t)spoil[t].n, fp);
                if (t == 2) { /* row 0 one shorter, the last row one longer: the sum holds */
                    unsigned char l[4] = {0, 0, 0, (unsigned char)(len[399] + 1)};
                    fseek(fp, hspmv_petsc_off_len(&f, 399), SEEK_SET);
                    fwrite(l, 1, 4, fp);
                }
            }
            if (fp && t == 3) { /* the last entry's column becomes the one before it */
                int32_t c = A.colind[A.nnz - 2];
                unsigned char b4[4] = {(unsigned char)(c >> 24), (unsigned char)(c >> 16), (unsigned char)(c >> 8),
                                       (unsigned char)c};
                fseek(fp, spoil[t].at, SEEK_SET);
                fwrite(b4, 1, 4, fp);
            }
            if (fp) fclose(fp);
            if (!rc && spoil[t].cut) rc = truncate(tpath("spoil.petsc"), spoil[t].cut);
        }
        if (bcast_int(rc)) continue;
        good += same_message_everywhere(tpath("spoil.petsc"), spoil[t].what);
        /* all but the shifted lengths must be refused (that one may sort into a valid matrix) */
        hspmv_csr B;
        hspmv_error e;
        rc = me == 0 ? hspmv_petsc_read(tpath("spoil.petsc"), &B, &e) : 1;
        if (me == 0) hspmv_csr_free(&B);
        CHECK(t == 2 || bcast_int(rc) != HSPMV_OK, "%s was accepted", spoil[t].what);
    }
    CHECK(good == n, "%d of %d", good, n);
    hspmv_csr_free(&A);
}

/* ---- refused writes --------------------------------------------------------- */

static void refused_writes_give_every_rank_the_same_message_and_no_file(void)
{
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 60, 60, NULL, 3, 0, 21) == HSPMV_OK, "generator");
    int64_t rs[64];
    hspmv_partition_rows(A.nrows, P, rs);
    int64_t r0 = rs[me], n = rs[me + 1] - r0, k0 = A.rowptr[r0];
    int64_t *rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t i = 0; i <= n; i++) rp[i] = A.rowptr[r0 + i] - k0;
    hspmv_csr S = {n, A.ncols, rp[n], rp, A.colind + k0, A.val + k0};
    char last[32];
    snprintf(last, sizeof(last), "row %lld", (long long)(A.nrows - 1));
    for (int t = 0; t < 3; t++) {
        hspmv_error e = {0, ""};
        int isz = t == 0 ? 3 : 4;
        if (t == 1 && P == 1) continue; /* one rank cannot disagree with itself */
        hspmv_real keep = 0;
        if (t == 1 && me == P - 1) S.ncols = A.ncols + 1;
        if (t == 2 && me == P - 1) {
            keep = S.val[S.nnz - 1];
            S.val[S.nnz - 1] = (hspmv_real)strtod("nan", NULL);
        }
        int rc = hspmv_dist_write_petsc(tpath("refused.petsc"), MPI_COMM_WORLD, &S, isz, &e);
        struct { char msg[512]; } m0;
        snprintf(m0.msg, sizeof(m0.msg), "%s", e.msg);
        MPI_Bcast(&m0, (int)sizeof(m0), MPI_BYTE, 0, MPI_COMM_WORLD);
        int ok = rc == HSPMV_ERR_ARG && !strcmp(m0.msg, e.msg);
        if (t == 1) ok &= P == 1 || strstr(e.msg, "disagree on ncols") != NULL;
        if (t == 2) ok &= strstr(e.msg, "non-finite") && strstr(e.msg, last);
        struct stat st;
        ok &= stat(tpath("refused.petsc"), &st) != 0;
        CHECK(everyone(ok), "case %d: rank %d: status %d: %s", t, me, rc, e.msg);
        S.ncols = A.ncols;
        if (t == 2 && me == P - 1) S.val[S.nnz - 1] = keep;
    }
    free(rp);
    hspmv_csr_free(&A);
}

/* The tests' files go in a fresh folder of $TMPDIR (default /tmp), made by
   rank 0 before the tests and removed after them. */
static int make_tmpdir(void)
{
    if (me == 0) {
        const char *t = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(tmpdir, sizeof(tmpdir), "%s/hspmv_dpetsc_XXXXXX", t);
        if (!mkdtemp(tmpdir)) tmpdir[0] = 0;
    }
    MPI_Bcast(tmpdir, (int)sizeof(tmpdir), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!tmpdir[0]) printf("no temp folder\n");
    return tmpdir[0] ? 0 : 1;
}

static void drop_tmpdir(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    }
}

static const mt_hooks hooks = {make_tmpdir, drop_tmpdir};

MT_MAIN(&hooks, the_walk_along_the_ranks_gives_the_alternating_shrink,
        each_rank_reads_the_rows_of_the_serial_read_bit_for_bit,
        product_of_the_mpiio_read_is_the_root_paths_bit_for_bit, the_parallel_write_gives_the_serial_writers_bytes,
        every_spoiled_file_gives_every_rank_the_serial_message, offences_in_any_ranks_rows_give_the_serial_message,
        refused_writes_give_every_rank_the_same_message_and_no_file)
