/* dist_mem.c — what a rank is about to hold, refused before it allocates:
   against this process's limits and, summed over the ranks of its node,
   against the node's memory; the verdict agreed, so every rank gives one
   message and none is left waiting or killed by the OOM killer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "dist_mem.h"
#include "util.h"

double hspmv_share_bytes(const share_need *s, char *parts, size_t len)
{
    const double r = sizeof(hspmv_real);
    double rp = 8.0 * ((double)s->rows + 1), csr = rp + (4.0 + r) * (double)s->entries;
    double read = rp + csr; /* row counters beside the CSR being filled */
    double kept = s->build ? 2 * csr + rp : 0; /* the rows and their owned and ghost blocks */
    double vec = s->build ? r * ((double)s->cols + 2.0 * (double)s->rows) : 0; /* x, y, the matrix's work vector */
    double win = s->build && s->window ? 2 * r * (double)s->cols : 0;
    if (parts) {
        int n = snprintf(parts, len, "%lld rows, %lld entries: CSR %.3g GB", (long long)s->rows,
                         (long long)s->entries, csr / 1e9);
        if (n > 0 && (size_t)n < len && s->build)
            n += snprintf(parts + n, len - (size_t)n, " (twice while split into blocks), x, y and work %.3g GB",
                          vec / 1e9);
        if (n > 0 && (size_t)n < len && win > 0)
            snprintf(parts + n, len - (size_t)n, ", node window %.3g GB", win / 1e9);
    }
    return (read > kept ? read : kept) + vec + win;
}

/* The node's sum against the node's memory (physical, cgroup), when the
   sum over all ranks exceeds what this machine has (a node's sum is at
   most that, so the common case costs two reductions and no split). */
static int check_node(MPI_Comm comm, int me, int P, double need, const char *name, int64_t line,
                      const char *whole, int rc, hspmv_error *err)
{
    double sum = need;
    int over, split = 0, ok, all = 0;
    if (P == 1) return rc; /* hspmv_mem_check compared it with the machine already */
    if (MPI_Allreduce(&need, &sum, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
        return rc ? rc : hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce of the memory needs failed", me);
    over = sum > hspmv_mem_available_of(HSPMV_MEM_MACHINE, NULL);
    if (MPI_Allreduce(&over, &split, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return rc ? rc : hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce of the memory needs failed", me);
    if (!split) return rc;
    MPI_Comm node = MPI_COMM_NULL;
    ok = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node) == MPI_SUCCESS;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) all = 0;
    if (all) {
        struct { double v; int r; } mine = {need, me}, most = {need, me};
        double ns = need;
        int nn = 1;
        MPI_Comm_size(node, &nn);
        if (MPI_Allreduce(&need, &ns, 1, MPI_DOUBLE, MPI_SUM, node) != MPI_SUCCESS ||
            MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE_INT, MPI_MAXLOC, node) != MPI_SUCCESS) {
            if (!rc) rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce over the node failed", me);
        } else if (!rc && nn > 1) {
            char what[400];
            snprintf(what, sizeof(what), "what the %d ranks on one node hold of %s (the most: rank %d, %.3g GB)", nn,
                     whole, most.r, most.v / 1e9);
            rc = hspmv_mem_check_of(HSPMV_MEM_MACHINE, ns, name, line, what, err);
        }
    } else if (!rc) {
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Comm_split_type (the ranks of a node) failed", me);
    }
    if (ok && node != MPI_COMM_NULL) MPI_Comm_free(&node);
    return rc;
}

int hspmv_dist_mem_check(MPI_Comm comm, double need, const char *name, int64_t line, const char *mine,
                         const char *whole, hspmv_error *err)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int rc = hspmv_mem_check(need, name, line, mine, err);
    rc = check_node(comm, me, P, need, name, line, whole, rc, err);
    return hspmv_dist_agree(comm, rc, err);
}

int hspmv_dist_check_share(MPI_Comm comm, const share_need *s, const char *name, int64_t line, const char *whole,
                           hspmv_error *err)
{
    int me;
    char parts[200], mine[400];
    MPI_Comm_rank(comm, &me);
    double need = hspmv_share_bytes(s, parts, sizeof(parts));
    snprintf(mine, sizeof(mine), "rank %d's share of %s (%s)", me, whole, parts);
    return hspmv_dist_mem_check(comm, need, name, line, mine, whole, err);
}

int hspmv_dist_wants_window(const hspmv_opts *o)
{
    return o->halo != HSPMV_HALO_P2P;
}
