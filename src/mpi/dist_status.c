/* dist_status.c — agree on a status before ranks wait on each other. */
#include <stdio.h>
#include <string.h>
#include "dist.h"
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
