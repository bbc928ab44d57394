/* dist_status.c — agree on a status before ranks wait on each other. */
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "settings.h"
#include "util.h"

/* Lowest failing rank wins: one MPI_Allreduce, and an MPI_Bcast of its
   code and message only when someone failed. */
int hspmv_dist_agree(MPI_Comm comm, int code, hspmv_error *err)
{
    int rank, size, who;
    struct { int code; char msg[512]; } m;

    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "MPI_Comm_rank/size failed");
    int mine = code != HSPMV_OK ? rank : size;
    if (MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce failed while agreeing on a status", rank);
    if (who == size) return code; /* code is HSPMV_OK here */
    memset(&m, 0, sizeof(m));
    if (rank == who) {
        m.code = code;
        if (err && err->code == code) snprintf(m.msg, sizeof(m.msg), "%s", err->msg);
        else snprintf(m.msg, sizeof(m.msg), "rank %d: %s", rank, hspmv_strerror(code));
    }
    if (MPI_Bcast(&m, (int)sizeof(m), MPI_BYTE, who, comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast failed while agreeing on a status", rank);
    m.msg[sizeof(m.msg) - 1] = 0;
    return hspmv_err(err, m.code, "%s", m.msg);
}

int hspmv_dist_agree_test(MPI_Comm comm, char *spec, hspmv_error *err)
{
    int me, len = 0;
    MPI_Comm_rank(comm, &me);
    if (me == 0) {
        size_t n = strlen(hspmv_test_spec());
        len = n < HSPMV_TEST_MAX ? (int)n : -1;
        if (len >= 0) memcpy(spec, hspmv_test_spec(), n + 1);
    }
    if (MPI_Bcast(&len, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
        return hspmv_dist_agree(comm, hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of HSPMV_TEST failed", me), err);
    if (len < 0) {
        spec[0] = 0;
        return hspmv_err(err, HSPMV_ERR_ARG, "HSPMV_TEST (a test-only setting) on rank 0: longer than %d characters",
                         HSPMV_TEST_MAX - 1);
    }
    if (MPI_Bcast(spec, len + 1, MPI_CHAR, 0, comm) != MPI_SUCCESS)
        return hspmv_dist_agree(comm, hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of HSPMV_TEST failed", me), err);
    int rc = hspmv_test_check(spec, err); /* the same string: the same answer on every rank */
    if (rc) spec[0] = 0;
    return rc;
}
