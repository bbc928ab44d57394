/* dist_petsc_write.c — a matrix whose rows the ranks hold written to a
   PETSc binary file with MPI-IO, each rank its own rows (lengths, columns,
   values at offsets from the ranks' row and entry counts), in pieces below
   2^31 bytes through one staging buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "dist_petsc.h"
#include "util.h"

enum { SEC_LEN, SEC_COL, SEC_VAL };

static int io_fail(const char *name, int me, int mrc, const char *what, hspmv_error *err)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mrc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof(s), "error %d", mrc);
    return hspmv_err(err, HSPMV_ERR_IO, "%s: rank %d: %s failed: %s", name, me, what, s);
}

/* Encodes and writes one section of this rank's rows at file offset off;
   collective like the reader's pieces (every rank joins as many
   MPI_File_write_at_all calls as the rank with the most). */
static int write_section(MPI_File fh, MPI_Comm comm, int me, const char *name, const hspmv_csr *A, int sec, int isz,
                         int64_t off, unsigned char *buf, int64_t piece, hspmv_error *err)
{
    int64_t n = sec == SEC_LEN ? A->nrows : A->nnz;
    int esz = sec == SEC_VAL ? PETSC_VAL_BYTES : isz, rc = HSPMV_OK;
    int64_t per = piece / esz, mine = (n + per - 1) / per, most = 0;
    if (MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce failed", me);
    for (int64_t c = 0; c < most; c++) {
        int64_t i = c * per, m = rc || i >= n ? 0 : (n - i < per ? n - i : per);
        if (m > 0) {
            if (sec == SEC_LEN) hspmv_petsc_encode_lengths(A->rowptr + i, m, isz, buf);
            else if (sec == SEC_COL) hspmv_petsc_encode_cols(A->colind + i, m, isz, buf);
            else hspmv_petsc_encode_vals(A->val + i, m, buf);
        }
        MPI_Status st;
        int mrc = MPI_File_write_at_all(fh, (MPI_Offset)(off + i * esz), buf, (int)(m * esz), MPI_BYTE, &st), put = 0;
        if (m == 0) continue;
        if (mrc != MPI_SUCCESS) {
            rc = io_fail(name, me, mrc, "MPI_File_write_at_all", err);
            continue;
        }
        MPI_Get_count(&st, MPI_BYTE, &put);
        if (put != (int)(m * esz))
            rc = hspmv_err(err, HSPMV_ERR_IO, "%s: rank %d: short write at byte %lld (%d of %lld bytes)", name, me,
                           (long long)(off + i * esz), put, (long long)(m * esz));
    }
    return rc;
}

/* The ranks' row and entry counts, checked alike everywhere: off[p] and
   koff[p] are rank p's first row and entry; *ncols the agreed column count. */
static int gather_layout(MPI_Comm comm, int me, int P, const char *name, const hspmv_csr *rows, int64_t *off,
                         int64_t *koff, hspmv_error *err)
{
    int64_t mine[3] = {rows ? rows->nrows : 0, rows ? rows->nnz : 0, rows ? rows->ncols : -1};
    int64_t *all = hspmv_alloc_array((size_t)P * 3, sizeof(int64_t));
    int rc = all ? HSPMV_OK : hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the row counts failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    off[0] = koff[0] = 0;
    for (int p = 0; p < P && !rc; p++) {
        if (all[3 * p + 2] != all[2])
            rc = hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: ranks disagree on ncols (rank 0 %lld, rank %d %lld)",
                           name, (long long)all[2], p, (long long)all[3 * p + 2]);
        off[p + 1] = off[p] + all[3 * p];
        koff[p + 1] = koff[p] + all[3 * p + 1];
    }
    if (!rc && off[P] > INT32_MAX)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "%s: not written: %lld rows exceed 2^31-1", name, (long long)off[P]);
out:
    hspmv_free(all);
    return rc;
}

int hspmv_dist_write_petsc(const char *path, MPI_Comm comm, const hspmv_csr *rows, int index_bytes, hspmv_error *err)
{
    int me, P, rc, isz = index_bytes ? index_bytes : 4;
    char *name = NULL;
    int64_t *off = NULL, *koff = NULL;
    unsigned char *buf = NULL;
    MPI_File fh = MPI_FILE_NULL;
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    if ((rc = hspmv_dist_bcast_path(path, comm, &name, err))) return rc;
    if (!name) return hspmv_err(err, HSPMV_ERR_ARG, "rank 0: no file name given");
    int64_t piece = hspmv_petsc_piece_bytes();
    off = hspmv_alloc_array((size_t)P + 1, sizeof(int64_t));
    koff = hspmv_alloc_array((size_t)P + 1, sizeof(int64_t));
    buf = hspmv_malloc((size_t)piece);
    rc = off && koff && buf ? HSPMV_OK : hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (!rc && isz != 4 && isz != 8)
        rc = hspmv_err(err, HSPMV_ERR_ARG, "%s: index_bytes %d: PETSc integers have 4 or 8 bytes", name, index_bytes);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if ((rc = gather_layout(comm, me, P, name, rows, off, koff, err))) goto out;
    rc = hspmv_petsc_check_writable(name, rows, off[me], err);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;

    petsc_file f = {name, isz, 0, off[P], rows->ncols, koff[P], koff[P], -1};
    int mrc = MPI_File_open(comm, name, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    if (mrc != MPI_SUCCESS) {
        fh = MPI_FILE_NULL;
        rc = io_fail(name, me, mrc, "MPI_File_open", err);
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    /* exactly the matrix's bytes: an older, longer file is cut */
    if ((mrc = MPI_File_set_size(fh, (MPI_Offset)hspmv_petsc_off_val(&f, f.nnz))) != MPI_SUCCESS)
        rc = io_fail(name, me, mrc, "MPI_File_set_size", err);
    if (!rc && me == 0) {
        MPI_Status st;
        hspmv_petsc_encode_header(buf, isz, f.nrows, f.ncols, f.nnz);
        if ((mrc = MPI_File_write_at(fh, 0, buf, 4 * isz, MPI_BYTE, &st)) != MPI_SUCCESS)
            rc = io_fail(name, me, mrc, "MPI_File_write_at (header)", err);
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    rc = write_section(fh, comm, me, name, rows, SEC_LEN, isz, hspmv_petsc_off_len(&f, off[me]), buf, piece, err);
    if (!(rc = hspmv_dist_agree(comm, rc, err)))
        rc = write_section(fh, comm, me, name, rows, SEC_COL, isz, hspmv_petsc_off_col(&f, koff[me]), buf, piece, err);
    if (!(rc = hspmv_dist_agree(comm, rc, err)))
        rc = write_section(fh, comm, me, name, rows, SEC_VAL, isz, hspmv_petsc_off_val(&f, koff[me]), buf, piece, err);
    rc = hspmv_dist_agree(comm, rc, err);
out:
    if (fh != MPI_FILE_NULL) {
        int crc = MPI_File_close(&fh);
        if (!rc && crc != MPI_SUCCESS) rc = io_fail(name, me, crc, "MPI_File_close", err);
        rc = hspmv_dist_agree(comm, rc, err);
        struct stat st; /* never leave half a matrix behind, but never remove a device */
        if (rc && me == 0 && stat(name, &st) == 0 && S_ISREG(st.st_mode)) MPI_File_delete(name, MPI_INFO_NULL);
    }
    hspmv_free(off);
    hspmv_free(koff);
    hspmv_free(buf);
    free(name);
    return rc;
}
