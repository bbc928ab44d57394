/* dist_petsc_read.c — a PETSc binary matrix read with MPI-IO, every rank
   its own rows: rank 0 reads the header, each rank the row lengths of an
   even block, the ranks agree the partition, then each rank reads its
   column indices and values in pieces below 2^31 bytes and builds its
   blocks. Memory per rank: its share plus one staging buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dist_mem.h"
#include "dist_petsc.h"
#include "read_parallel.h"
#include "util.h"

enum { SEC_LEN, SEC_COL, SEC_VAL };
enum { TAG_WALK = 41 };

_Static_assert(sizeof(MPI_Offset) >= 8, "MPI_Offset must hold 64-bit file offsets");

typedef struct preader {
    MPI_Comm comm;
    int me, P;
    MPI_File fh;
    petsc_file f;
    unsigned char *buf; /* staging, piece bytes */
    int64_t piece;
    int64_t bytes;      /* read by this rank */
    int keep;           /* READ_ROWS, READ_MATRIX or READ_MATRIX_WINDOW: for the memory checks */
    char whole[160];    /* "a R x C matrix of K entries", for their messages */
} preader;

int hspmv_dist_bcast_path(const char *path, MPI_Comm comm, char **out, hspmv_error *err)
{
    int me;
    long long n = -1;
    *out = NULL;
    MPI_Comm_rank(comm, &me);
    if (me == 0 && path) n = (long long)strlen(path);
    if (MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the file name failed", me);
    if (n < 0) return hspmv_ok(err);
    char *s = malloc((size_t)n + 1);
    int bad = !s;
    if (me == 0 && s) memcpy(s, path, (size_t)n + 1);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad) {
        free(s);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "out of memory for a file name");
    }
    if (n > INT32_MAX - 1 || MPI_Bcast(s, (int)n + 1, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
        free(s);
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the file name failed", me);
    }
    *out = s;
    return hspmv_ok(err);
}

int hspmv_dist_is_petsc_file(const char *path, MPI_Comm comm)
{
    int me, yes = 0;
    if (MPI_Comm_rank(comm, &me) != MPI_SUCCESS) return 0;
    if (me == 0) yes = hspmv_petsc_is_matrix_file(path);
    if (MPI_Bcast(&yes, 1, MPI_INT, 0, comm) != MPI_SUCCESS) return 0;
    return yes;
}

static int mpi_fail(const preader *r, int mrc, const char *what, hspmv_error *err)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mrc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof(s), "error %d", mrc);
    return hspmv_err(err, HSPMV_ERR_IO, "%s: rank %d: %s failed: %s", r->f.name, r->me, what, s);
}

/* Reads n items of one section starting at item `first` (a row for
   lengths, an entry for columns and values) at file offset off, and decodes
   them into dst. Collective: every rank calls MPI_File_read_at_all as often
   as the rank with the most pieces, with nothing to read once done or
   after a failure, so that a bad piece on one rank never leaves another
   waiting. */
static int read_section(preader *r, int sec, int64_t off, int64_t first, int64_t n, void *dst,
                        const petsc_rows *R, hspmv_error *err)
{
    const petsc_file *f = &r->f;
    int esz = sec == SEC_VAL ? PETSC_VAL_BYTES : f->isz, rc = HSPMV_OK;
    int64_t per = r->piece / esz, mine = (n + per - 1) / per, most = 0;
    if (MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, r->comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce failed", r->me);
    for (int64_t c = 0; c < most; c++) {
        int64_t i = c * per, m = rc || i >= n ? 0 : (n - i < per ? n - i : per);
        MPI_Status st;
        int mrc = MPI_SUCCESS, got = 0;
        MPI_Offset at = (MPI_Offset)(off + i * esz);
        mrc = MPI_File_read_at_all(r->fh, at, r->buf, (int)(m * esz), MPI_BYTE, &st);
        if (m == 0) continue;
        if (mrc != MPI_SUCCESS) {
            rc = mpi_fail(r, mrc, "MPI_File_read_at_all", err);
            continue;
        }
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != (int)(m * esz)) {
            rc = hspmv_err(err, HSPMV_ERR_IO, "%s: rank %d: short read at byte %lld (%d of %lld bytes): did the "
                           "file change?", f->name, r->me, (long long)at, got, (long long)(m * esz));
            continue;
        }
        r->bytes += m * esz;
        if (sec == SEC_LEN) rc = hspmv_petsc_decode_lengths(f, r->buf, first + i, m, (int64_t *)dst + i, err);
        else if (sec == SEC_COL) rc = hspmv_petsc_decode_cols(f, r->buf, first + i, m, (int32_t *)dst + i, R, err);
        else rc = hspmv_petsc_decode_vals(f, r->buf, first + i, m, (hspmv_real *)dst + i, R, err);
    }
    return rc;
}

/* Row lengths of rows [a, b) into len (every one ncols when dense). */
static int read_lengths(preader *r, int64_t a, int64_t b, int64_t *len, hspmv_error *err)
{
    if (r->f.dense) {
        for (int64_t i = a; i < b; i++) len[i - a] = r->f.ncols;
        /* the ranks that read lengths must all join the collective calls */
        return hspmv_ok(err);
    }
    return read_section(r, SEC_LEN, hspmv_petsc_off_len(&r->f, a), a, b - a, len, NULL, err);
}

/* Rank 0 parses the header (with the serial reader's checks and messages)
   and everyone gets it; then the file is opened for MPI-IO. */
static int open_file(preader *r, const char *path, hspmv_error *err)
{
    int64_t h[7] = {0, 0, 0, 0, 0, 0, 0};
    int rc = HSPMV_OK, fd = -1;
    if (r->me == 0) {
        rc = hspmv_petsc_open(path, &r->f, &fd, err);
        if (fd >= 0) close(fd);
        h[0] = r->f.isz;
        h[1] = r->f.dense;
        h[2] = r->f.nrows;
        h[3] = r->f.ncols;
        h[4] = r->f.nnz_header;
        h[5] = r->f.nnz;
        h[6] = r->f.size;
    }
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) return rc;
    if (MPI_Bcast(h, 7, MPI_INT64_T, 0, r->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the header failed", r->me);
    r->f.name = path;
    r->f.isz = (int)h[0];
    r->f.dense = (int)h[1];
    r->f.nrows = h[2];
    r->f.ncols = h[3];
    r->f.nnz_header = h[4];
    r->f.nnz = h[5];
    r->f.size = h[6];
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) return rc;
    int mrc = MPI_File_open(r->comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &r->fh);
    if (mrc != MPI_SUCCESS) {
        r->fh = MPI_FILE_NULL;
        rc = mpi_fail(r, mrc, "MPI_File_open", err);
    }
    return hspmv_dist_agree(r->comm, rc, err);
}

/* The splits by the alternating shrink: every rank continues the walk over
   its block (rpb: rp(i) for i in [first, hi]) and hands it on. */
static int walk_partition(preader *r, const int64_t *rpb, int64_t first, int64_t lo, int64_t hi, int64_t total,
                          int64_t *start, int64_t *start_nnz, hspmv_error *err)
{
    int P = r->P, me = r->me, ok = 1;
    part_walk w = {0, 0, 0};
    memset(start, 0, sizeof(int64_t) * (size_t)(P + 1));
    memset(start_nnz, 0, sizeof(int64_t) * (size_t)(P + 1));
    if (me > 0) ok &= MPI_Recv(&w, 3, MPI_INT64_T, me - 1, TAG_WALK, r->comm, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    hspmv_partition_nnz_walk(&w, rpb, first, lo, hi, r->f.nrows, P, (double)total / P, start, start_nnz);
    if (me < P - 1) ok &= MPI_Send(&w, 3, MPI_INT64_T, me + 1, TAG_WALK, r->comm) == MPI_SUCCESS;
    /* each split was found by one rank; the others hold 0 */
    ok &= MPI_Allreduce(MPI_IN_PLACE, start, P + 1, MPI_INT64_T, MPI_MAX, r->comm) == MPI_SUCCESS;
    ok &= MPI_Allreduce(MPI_IN_PLACE, start_nnz, P + 1, MPI_INT64_T, MPI_MAX, r->comm) == MPI_SUCCESS;
    start[P] = r->f.nrows;
    start_nnz[P] = total;
    return ok ? hspmv_ok(err) : hspmv_err(err, HSPMV_ERR_MPI, "rank %d: passing the partition walk failed", me);
}

/* The partition: row lengths of an even block per rank, their sums and
   last lengths gathered (the entry offset of every block, and rp of the row
   before it), then the splits. Every byte is read by one rank only: Open
   MPI 4.1's OMPIO returned wrong bytes for overlapping collective reads. */
static int agree_partition(preader *r, int partition, int64_t *start, int64_t *start_nnz, hspmv_error *err)
{
    int P = r->P, me = r->me, rc = HSPMV_OK;
    int64_t lo = (int64_t)((__int128)r->f.nrows * me / P), hi = (int64_t)((__int128)r->f.nrows * (me + 1) / P);
    int64_t first = lo > 0 ? lo - 1 : lo, nb = hi - first;
    /* the lengths of an even block, refused before they are allocated when
       this rank or its node cannot hold them */
    char what[400];
    double need = 8.0 * ((double)nb + 1);
    snprintf(what, sizeof(what), "reading the row lengths of %s on rank %d (%lld rows)", r->whole, me, (long long)nb);
    if ((rc = hspmv_dist_mem_check(r->comm, need, r->f.name, 0, what, r->whole, err))) return rc;
    int64_t *rpb = hspmv_alloc_array((size_t)nb + 1, sizeof(int64_t));
    int64_t *sums = hspmv_alloc_array((size_t)P * 2 + 1, sizeof(int64_t)), *last = sums + P + 1;
    if (!rpb || !sums)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld row lengths", me, (long long)nb);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) goto out;
    /* lengths of [lo, hi) into rpb[1 + lo - first ...]; rpb[1] is row first = lo - 1 when lo > 0 */
    rc = read_lengths(r, lo, hi, rpb + 1 + (lo - first), err);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) goto out;
    int64_t mine[2] = {0, hi > lo ? rpb[nb] : -1}; /* the block's sum, its last row's length */
    for (int64_t i = lo; i < hi; i++) mine[0] += rpb[1 + i - first];
    /* agreed before the gather: a rank without the buffer must not skip it */
    int64_t *both = hspmv_alloc_array((size_t)P * 2, sizeof(int64_t));
    if (!both) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the block sums", me);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) goto out;
    if (MPI_Allgather(mine, 2, MPI_INT64_T, both, 2, MPI_INT64_T, r->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the block sums failed", me);
    for (int p = 0; both && p < P; p++) {
        sums[p + 1] = both[2 * p];
        last[p] = both[2 * p + 1];
    }
    hspmv_free(both);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) goto out;
    sums[0] = 0;
    for (int p = 0; p < P; p++) sums[p + 1] += sums[p];
    /* the same data on every rank: the same verdict and message */
    if (!r->f.dense) rc = hspmv_petsc_check_total(&r->f, sums[P], err);
    if (!rc) rc = hspmv_petsc_check_size(&r->f, err);
    if (rc) goto out;
    /* the length of row lo - 1: the last row of the nearest rank before with rows */
    if (lo > 0) {
        int q = me - 1;
        while (q > 0 && last[q] < 0) q--;
        rpb[1] = last[q];
    }
    /* rp(i) for i in [first, hi] */
    rpb[0] = lo > 0 ? sums[me] - rpb[1] : sums[me]; /* rp(first) */
    for (int64_t i = 0; i < nb; i++) rpb[i + 1] = rpb[i] + rpb[i + 1];
    if (partition == HSPMV_PART_ROWS || sums[P] == 0) {
        hspmv_partition_rows(r->f.nrows, P, start);
        if (partition == HSPMV_PART_ROWS) memcpy(start_nnz, sums, sizeof(int64_t) * (size_t)(P + 1));
        else memset(start_nnz, 0, sizeof(int64_t) * (size_t)(P + 1));
    } else {
        rc = walk_partition(r, rpb, first, lo, hi, sums[P], start, start_nnz, err);
        rc = hspmv_dist_agree(r->comm, rc, err);
    }
out:
    hspmv_free(rpb);
    hspmv_free(sums);
    return rc;
}

/* This rank's rows [start[me], start[me+1]): lengths, columns, values, each
   section agreed before the next, so a bad file gives the message of its
   first offence, as the serial reader. */
static int read_my_rows(preader *r, const int64_t *start, const int64_t *start_nnz, hspmv_csr *S, hspmv_error *err)
{
    const petsc_file *f = &r->f;
    int me = r->me, rc = HSPMV_OK;
    int64_t r0 = start[me], n = start[me + 1] - r0, k0 = start_nnz[me], z = start_nnz[me + 1] - k0;
    int64_t cols = f->nrows == f->ncols ? n
                                        : (int64_t)((__int128)f->ncols * (me + 1) / r->P) -
                                              (int64_t)((__int128)f->ncols * me / r->P);
    share_need sn = {n, z, cols, r->keep != READ_ROWS, r->keep == READ_MATRIX_WINDOW};
    if ((rc = hspmv_dist_check_share(r->comm, &sn, f->name, 0, r->whole, err))) return rc;
    S->nrows = n;
    S->ncols = f->ncols;
    S->nnz = z;
    S->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for its %lld rows and %lld entries", me,
                       (long long)n, (long long)z);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) return rc;
    if (!rc) rc = read_lengths(r, r0, r0 + n, S->rowptr + 1, err);
    if (!rc) {
        S->rowptr[0] = 0;
        for (int64_t i = 1; i <= n; i++) S->rowptr[i] += S->rowptr[i - 1];
        if (S->rowptr[n] != z) /* the file changed between the two reads of the lengths */
            rc = hspmv_err(err, HSPMV_ERR_IO, "%s: rank %d: rows %lld..%lld hold %lld entries now, %lld before",
                           f->name, me, (long long)r0, (long long)(r0 + n), (long long)S->rowptr[n], (long long)z);
    }
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) return rc;
    petsc_rows R = {S->rowptr, n, r0, k0};
    if (f->dense) hspmv_petsc_dense_rows(f, n, S->rowptr, S->colind);
    else rc = read_section(r, SEC_COL, hspmv_petsc_off_col(f, k0), k0, z, S->colind, &R, err);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) return rc;
    rc = read_section(r, SEC_VAL, hspmv_petsc_off_val(f, k0), k0, z, S->val, &R, err);
    if ((rc = hspmv_dist_agree(r->comm, rc, err))) return rc;
    if (!f->dense) rc = hspmv_petsc_sort_rows(f, &R, S->colind, S->val, err);
    return hspmv_dist_agree(r->comm, rc, err);
}

int hspmv_petsc_read_rows(const char *path, MPI_Comm comm, int partition, int keep, hspmv_csr *S,
                          int64_t *row_start, int64_t *total, petsc_read_stats *st, hspmv_error *err)
{
    preader r;
    int rc = HSPMV_OK;
    int64_t *start_nnz = NULL;
    double t0 = MPI_Wtime();
    memset(&r, 0, sizeof(r));
    memset(S, 0, sizeof(*S));
    r.comm = comm;
    r.keep = keep;
    r.fh = MPI_FILE_NULL;
    MPI_Comm_rank(comm, &r.me);
    MPI_Comm_size(comm, &r.P);
    r.piece = hspmv_petsc_piece_bytes();
    r.buf = hspmv_malloc((size_t)r.piece);
    start_nnz = hspmv_alloc_array((size_t)r.P + 1, sizeof(int64_t));
    if (!r.buf || !start_nnz) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for a read buffer", r.me);
    if (!rc && partition != HSPMV_PART_NNZ && partition != HSPMV_PART_ROWS)
        rc = hspmv_err(err, HSPMV_ERR_ARG, "hspmv_petsc_read_rows: partition %d is neither nnz nor rows", partition);
    if (!(rc = hspmv_dist_agree(comm, rc, err))) rc = open_file(&r, path, err);
    snprintf(r.whole, sizeof(r.whole), "a %lld x %lld matrix of %lld entries", (long long)r.f.nrows,
             (long long)r.f.ncols, (long long)hspmv_petsc_nnz_most(&r.f));
    if (!rc) rc = agree_partition(&r, partition, row_start, start_nnz, err);
    if (!rc) rc = read_my_rows(&r, row_start, start_nnz, S, err);
    if (r.fh != MPI_FILE_NULL) MPI_File_close(&r.fh);
    if (!rc && total) *total = r.f.nnz;
    if (st) {
        st->read_s = MPI_Wtime() - t0;
        st->bytes = r.bytes + (r.me == 0 ? hspmv_petsc_header_bytes(&r.f) : 0);
    }
    hspmv_free(r.buf);
    hspmv_free(start_nnz);
    if (rc) hspmv_csr_free(S);
    return rc;
}

/* METIS needs the whole graph: rank 0 reads the file and the matrix takes
   the root path, as for a Matrix Market file. */
static int read_for_metis(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **Dout, hspmv_error *err)
{
    hspmv_csr A = {0};
    hspmv_read_info info = {0};
    int me, rc = HSPMV_OK;
    MPI_Comm_rank(comm, &me);
    double t0 = MPI_Wtime();
    if (me == 0) rc = hspmv_petsc_read_opts(path, &A, NULL, &info, err);
    double t = MPI_Wtime() - t0;
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    rc = hspmv_dist_create_root(comm, me == 0 ? &A : NULL, o, Dout, err);
    hspmv_csr_free(&A);
    if (!rc) {
        (*Dout)->info.read = HSPMV_READ_ROOT;
        (*Dout)->info.read_note = "PETSc binary, METIS: rank 0 reads it";
        (*Dout)->info.read_s = me == 0 ? t : 0;
        (*Dout)->info.read_bytes = me == 0 ? info.bytes : 0;
    }
    return rc;
}

int hspmv_dist_read_petsc(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **Dout, hspmv_error *err)
{
    hspmv_opts od;
    hspmv_dist *D = NULL;
    hspmv_csr S = {0};
    petsc_read_stats st = {0, 0};
    char *name = NULL;
    int64_t total = 0;
    int rc;
    if (!Dout) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_read_petsc: D is NULL");
    *Dout = NULL;
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    if (!o) {
        hspmv_opts_default(&od);
        o = &od;
    }
    if ((rc = hspmv_dist_bcast_path(path, comm, &name, err))) return rc;
    if (!name) return hspmv_err(err, HSPMV_ERR_ARG, "rank 0: no file name given");
    if (o->partition == HSPMV_PART_METIS) {
        rc = read_for_metis(name, comm, o, Dout, err);
        free(name);
        return rc;
    }
    if (o->partition != HSPMV_PART_NNZ && o->partition != HSPMV_PART_ROWS) {
        free(name);
        return hspmv_err(err, HSPMV_ERR_ARG, "unknown partition method %d", o->partition);
    }
    if ((rc = hspmv_dist_alloc(comm, &D, err))) {
        free(name);
        return rc;
    }
    rc = hspmv_petsc_read_rows(name, D->comm, o->partition,
                               hspmv_dist_wants_window(o) ? READ_MATRIX_WINDOW : READ_MATRIX, &S, D->row_start, &total,
                               &st, err);
    free(name);
    if (rc) goto out;
    D->nrows = D->row_start[D->size];
    D->ncols = S.ncols;
    D->nnz = total;
    D->partition = o->partition;
    if (D->nrows == D->ncols) memcpy(D->col_start, D->row_start, sizeof(int64_t) * (size_t)(D->size + 1));
    else hspmv_partition_rows(D->ncols, D->size, D->col_start);
    double t0 = MPI_Wtime();
    D->info.peak_read_bytes = hspmv_peak_rss();
    rc = hspmv_dist_build(D, &S, o, err);
    if (!rc) { /* the partition is agreed inside the read (a walk along the ranks) */
        D->info.read = HSPMV_READ_PARALLEL;
        D->info.read_note = "PETSc binary, MPI-IO";
        D->info.read_s = st.read_s;
        D->info.read_bytes = st.bytes;
        D->info.prepare_s = MPI_Wtime() - t0;
    }
out:
    hspmv_csr_free(&S);
    if (rc) hspmv_dist_destroy(&D);
    *Dout = D;
    return rc;
}
