/* dist_view.c — hspmv_dist_view: the node-aware plan's diagnostics, one
   block a rank, printed by rank 0 (what the plan timed, the window, the
   shared rows, how much of each block lies where). */
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

enum { VIEW_LINE = 640 };

static const char *gather_name(int g)
{
    return g == HSPMV_GATHER_DIRECT ? "direct" : g == HSPMV_GATHER_COPY ? "copy" : g == HSPMV_GATHER_SHARE ? "share" : "-";
}

/* This rank's block (no trailing newline). */
static void rank_block(const hspmv_dist *D, char *s, size_t n)
{
    const hspmv_node *N = D->node;
    const hspmv_dist_timing *t = &D->timing;
    int w = snprintf(s, n, "rank %d: node %d (node rank %d of %d, %d sharing its memory), threads %d\n", D->rank,
                     N->node, N->rank, N->size, N->shared_ranks, D->threads);
    if (D->halo == HSPMV_HALO_P2P) {
        snprintf(s + w, n - (size_t)w, "  p2p: %lld ghosts from %d ranks, %lld entries to %d ranks, %d owned-block parts",
                 (long long)D->nghost, D->nrecv, (long long)(D->send_ptr ? D->send_ptr[D->nsend] : 0), D->nsend,
                 D->npieces);
        return;
    }
    int64_t nnz_node = N->fold_nnz_node, nnz_off = 0;
    if (N->nb.L) {
        hspmv_local_info li;
        hspmv_local_get_info(N->nb.L, &li);
        nnz_node += li.nnz;
    }
    if (N->ob.L) {
        hspmv_local_info li;
        hspmv_local_get_info(N->ob.L, &li);
        nnz_off = li.nnz;
    }
    w += snprintf(s + w, n - (size_t)w,
                  "  entries: owned %lld, node %lld, off-node %lld; folded rows %lld; owned-block parts %d\n"
                  "  window: %d vector slots; %d ranks read its x part; %lld products copied the caller's x\n",
                  (long long)D->nnz_owned, (long long)nnz_node, (long long)nnz_off, (long long)N->fold_rows,
                  D->npieces, N->nslots, N->nreaders, (long long)N->copies);
    w += snprintf(s + w, n - (size_t)w, "  between nodes: receives for %d node pairs, sends for %d\n", N->nrecv,
                  N->nsend);
    if (N->share || N->oshare)
        w += snprintf(s + w, n - (size_t)w,
                      "  shared rows: %.3f s in its own chunks, %.3f s in others'; of its chunks' entries %lld ran "
                      "here, %lld elsewhere; tail copies on huge pages %zu + %zu bytes (node, owned block)\n",
                      N->share_s[0], N->share_s[1], (long long)N->share_nnz[0], (long long)N->share_nnz[1],
                      hspmv_node_share_huge_bytes(N->share), hspmv_node_share_huge_bytes(N->oshare));
    snprintf(s + w, n - (size_t)w, "  products %lld: sync %.3f s (waiting on the node's flags)", (long long)t->calls,
             t->sync_s);
}

static void root_lines(const hspmv_dist *D, const char *all, FILE *f);

void hspmv_dist_view(const hspmv_dist *D, FILE *f)
{
    char mine[VIEW_LINE] = "", *all = NULL;
    if (!D) return; /* no communicator: not collective */
    rank_block(D, mine, sizeof(mine));
    if (D->rank == 0) all = hspmv_alloc_array((size_t)D->size, VIEW_LINE);
    int ok = D->rank != 0 || all;
    MPI_Bcast(&ok, 1, MPI_INT, 0, D->comm);
    if (!ok) return; /* rank 0 out of memory: nothing to print */
    MPI_Gather(mine, VIEW_LINE, MPI_CHAR, all, VIEW_LINE, MPI_CHAR, 0, D->comm);
    if (D->rank == 0 && f) root_lines(D, all, f); /* f NULL: the collective steps, nothing printed */
    hspmv_free(all);
    if (D->tr) { /* every rank has it or none (made by a collective call) */
        if (D->rank == 0 && f) fprintf(f, "the transposed matrix (made by the first transposed product):\n");
        hspmv_dist_view(D->tr, f);
    }
}

/* Rank 0: the header and every rank's block. */
static void root_lines(const hspmv_dist *D, const char *all, FILE *f)
{
    const hspmv_node *N = D->node;
    fprintf(f, "hspmv_dist_view: %d ranks, halo %s, %d nodes (%s)\n", D->size,
            D->halo == HSPMV_HALO_NODE ? "node" : "p2p", N->nnodes,
            N->env_ranks ? "pseudo-nodes of opts.node_ranks ranks" : "as MPI groups them");
    if (D->halo == HSPMV_HALO_NODE)
        fprintf(f, "  plan: gather %s%s%s; timed (slowest rank, ms a product): direct %.3f, copy %.3f, shared rows "
                   "%.3f, with a replica %.3f (0: not timed); owned share tail %d/64\n",
                gather_name(N->gather), N->replica ? " + replica" : "", N->merged ? ", owned columns merged" : "",
                N->t_direct * 1e3, N->t_copy * 1e3, N->t_share * 1e3, N->t_replica * 1e3, N->otail);
    for (int r = 0; r < D->size; r++) fprintf(f, "%.*s\n", VIEW_LINE, all + (size_t)r * VIEW_LINE);
}
