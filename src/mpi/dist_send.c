/* dist_send.c — MPI_Send / MPI_Recv of arrays longer than an int count, in pieces. */
#include <stdlib.h>
#include "dist.h"
#include "settings.h"

static int64_t chunk_limit(const char *test)
{
    long v = hspmv_test_int(test, "dist_chunk", 0); /* test hook: smaller pieces */
    return v > 0 && v < HSPMV_DIST_CHUNK_MAX ? (int64_t)v : HSPMV_DIST_CHUNK_MAX;
}

int hspmv_dist_send(const void *buf, int64_t n, MPI_Datatype t, int dest, int tag, MPI_Comm comm, const char *test)
{
    int size;
    int64_t c = chunk_limit(test);
    const char *p = buf;
    MPI_Type_size(t, &size);
    for (int64_t k = 0; k < n; k += c) {
        int m = (int)(n - k < c ? n - k : c);
        if (MPI_Send(p + k * size, m, t, dest, tag, comm) != MPI_SUCCESS) return HSPMV_ERR_MPI;
    }
    return HSPMV_OK;
}

int hspmv_dist_recv(void *buf, int64_t n, MPI_Datatype t, int src, int tag, MPI_Comm comm, const char *test)
{
    int size;
    int64_t c = chunk_limit(test);
    char *p = buf;
    MPI_Type_size(t, &size);
    for (int64_t k = 0; k < n; k += c) {
        int m = (int)(n - k < c ? n - k : c);
        if (MPI_Recv(p + k * size, m, t, src, tag, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HSPMV_ERR_MPI;
    }
    return HSPMV_OK;
}
