/* read_exchange.c — entries parsed on one rank sent to the ranks that own
   their rows, in bounded MPI_Alltoallv rounds (mirrors of symmetric and
   skew-symmetric files routed like any entry). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "read_parallel.h"
#include "settings.h"

typedef struct entry_rec {
    int32_t r, c;
    hspmv_real v;
} entry_rec;

/* Position in the pieces: piece pi, entry k, mirror 1 when entry k's mirror is next. */
typedef struct cursor {
    mtx_piece *pc;
    int npc, pi, mirror;
    int64_t k;
    int sym;
} cursor;

/* Records per round: a 32nd of what this rank parsed (mirrors counted), at
   least 2^14 and at most HSPMV_XCHG_RECORDS, so that the three round buffers
   (staged, packed, received: 16 B a record in double) stay a small part of
   the rank's share; at 16 ranks a fixed 2^20 made them larger than the
   share of a 1.5 GB file (48 MB against 46 MB) and the peak 2.8x of it. */
static int64_t records_per_round(const char *test, int P, const mtx_piece *pc, int npc, int symmetry)
{
    long v = hspmv_test_int(test, "read_xchg", 0); /* test hook: tiny rounds */
    int64_t n = 0;
    for (int i = 0; i < npc; i++) n += pc[i].nnz;
    if (symmetry != HSPMV_GENERAL) n *= 2;
    int64_t m = n / 32;
    if (m < ((int64_t)1 << 14)) m = (int64_t)1 << 14;
    if (m > HSPMV_XCHG_RECORDS) m = HSPMV_XCHG_RECORDS;
    if (v > 0 && v < HSPMV_XCHG_RECORDS) m = (int64_t)v;
    int64_t most = ((int64_t)INT_MAX - 1) / (P > 0 ? P : 1); /* what P senders give one rank stays an int */
    return m < most ? m : most > 0 ? most : 1;
}

/* Rank owning row (start ascending, P+1 entries); hint: the last answer. */
static inline int owner_of(const int64_t *start, int P, int64_t row, int *hint)
{
    int h = *hint;
    if (start[h] <= row && row < start[h + 1]) return h;
    int lo = 0, hi = P; /* last p with start[p] <= row */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (start[mid] <= row) lo = mid;
        else hi = mid;
    }
    while (lo < P - 1 && start[lo + 1] <= row) lo++; /* ranks with no rows share a start */
    return *hint = lo;
}

/* The next up to max records in file order into rec (keys or entries) with
   their destinations; returns how many; 0 when the pieces are exhausted. */
static int64_t produce(cursor *cu, int mode, const int64_t *start, int P, void *rec, int *dst, int64_t max, int *hint)
{
    int64_t n = 0;
    const hspmv_real sign = cu->sym == HSPMV_SKEW_SYMMETRIC ? -1 : 1;
    while (n < max && cu->pi < cu->npc) {
        mtx_piece *p = &cu->pc[cu->pi];
        if (cu->k >= p->nnz) {
            cu->pi++;
            cu->k = 0;
            cu->mirror = 0;
            continue;
        }
        int32_t r = p->row[cu->k], c = p->col[cu->k];
        hspmv_real v = p->val ? p->val[cu->k] : 0;
        if (cu->mirror) { /* the entry's mirror across the diagonal */
            int32_t t = r;
            r = c;
            c = t;
            v = sign * v;
        }
        dst[n] = owner_of(start, P, r, hint);
        if (mode == XCHG_KEYS) ((int32_t *)rec)[n] = r;
        else ((entry_rec *)rec)[n] = (entry_rec){r, c, v};
        n++;
        if (!cu->mirror && cu->sym != HSPMV_GENERAL && r != c) cu->mirror = 1;
        else {
            cu->mirror = 0;
            cu->k++;
        }
    }
    return n;
}

/* Gives back the memory of what was sent: whole pieces freed, the sent
   prefix of the current one returned to the system page by page. */
static void release_sent(cursor *cu)
{
    for (int i = 0; i < cu->pi && i < cu->npc; i++) hspmv_mtx_piece_free(&cu->pc[i]);
#ifdef MADV_DONTNEED
    if (cu->pi < cu->npc) {
        mtx_piece *p = &cu->pc[cu->pi];
        const uintptr_t pg = 4096;
        void *arr[3] = {p->row, p->col, p->val};
        size_t sz[3] = {sizeof(int32_t), sizeof(int32_t), sizeof(hspmv_real)};
        for (int a = 0; a < 3; a++) {
            if (!arr[a]) continue;
            uintptr_t b = ((uintptr_t)arr[a] + pg - 1) & ~(pg - 1), e = ((uintptr_t)arr[a] + cu->k * sz[a]) & ~(pg - 1);
            if (e > b + ((uintptr_t)1 << 20)) madvise((void *)b, e - b, MADV_DONTNEED);
        }
    }
#endif
}

static void consume(int mode, xchg_sink *s, const void *rec, int64_t n)
{
    if (mode == XCHG_KEYS) {
        const int32_t *k = rec;
        for (int64_t i = 0; i < n; i++) s->cnt[k[i] - s->base]++;
        return;
    }
    const entry_rec *e = rec;
    for (int64_t i = 0; i < n; i++) {
        int64_t q = s->next[e[i].r - s->base]++;
        s->colind[q] = e[i].c;
        s->val[q] = e[i].v;
    }
}

int hspmv_xchg_pieces(MPI_Comm comm, const char *test, int mode, mtx_piece *pc, int npc, int symmetry, const int64_t *owner_start,
                      xchg_sink *sink, int release, int64_t *moved, hspmv_error *err)
{
    int me, P, rc = HSPMV_OK, hint = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const size_t rs = mode == XCHG_KEYS ? sizeof(int32_t) : sizeof(entry_rec);
    const int64_t M = records_per_round(test, P, pc, npc, symmetry);
    cursor cu = {pc, npc, 0, 0, 0, symmetry};
    int *dst = malloc(sizeof(int) * (size_t)M), *pos = malloc(sizeof(int) * (size_t)P * 5);
    char *stage = malloc(rs * (size_t)M), *sendb = malloc(rs * (size_t)M), *recvb = NULL;
    int64_t rcap = M;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *moved = 0;
    recvb = malloc(rs * (size_t)rcap);
    if (!dst || !pos || !stage || !sendb || !recvb)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the exchange buffers (%lld records)", me,
                       (long long)M);
    if (!rc && (MPI_Type_contiguous((int)rs, MPI_BYTE, &t) != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS))
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Type_contiguous failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    int *sc = pos + P, *sd = pos + 2 * P, *rcn = pos + 3 * P, *rd = pos + 4 * P;
    for (;;) {
        int64_t n = produce(&cu, mode, owner_start, P, stage, dst, M, &hint);
        /* pack by destination, keeping file order within each */
        memset(sc, 0, sizeof(int) * (size_t)P);
        for (int64_t i = 0; i < n; i++) sc[dst[i]]++;
        sd[0] = 0;
        for (int q = 1; q < P; q++) sd[q] = sd[q - 1] + sc[q - 1];
        memcpy(pos, sd, sizeof(int) * (size_t)P);
        for (int64_t i = 0; i < n; i++) memcpy(sendb + rs * (size_t)pos[dst[i]]++, stage + rs * (size_t)i, rs);
        *moved += n - sc[me];
        int flags[2] = {0, 0}, all[2];
        if (MPI_Alltoall(sc, 1, MPI_INT, rcn, 1, MPI_INT, comm) != MPI_SUCCESS) flags[0] = 1;
        int64_t rt = 0;
        for (int q = 0; q < P && !flags[0]; q++) {
            rd[q] = (int)rt;
            rt += rcn[q];
        }
        if (!flags[0] && rt > rcap) { /* many ranks sent here at once */
            char *nb = malloc(rs * (size_t)rt);
            if (nb) {
                free(recvb);
                recvb = nb;
                rcap = rt;
            } else {
                flags[0] = 2;
            }
        }
        /* everyone learns whether someone failed or has more to send */
        flags[1] = cu.pi < cu.npc;
        if (MPI_Allreduce(flags, all, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) all[0] = 1;
        if (all[0]) {
            rc = hspmv_err(err, flags[0] == 2 ? HSPMV_ERR_NOMEM : HSPMV_ERR_MPI,
                           "rank %d: the entry exchange failed (%s)", me,
                           flags[0] == 2 ? "out of memory for a receive buffer" : flags[0] ? "MPI error" : "on another rank");
            break;
        }
        if (MPI_Alltoallv(sendb, sc, sd, t, recvb, rcn, rd, t, comm) != MPI_SUCCESS) {
            rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoallv of the entries failed", me);
            break;
        }
        consume(mode, sink, recvb, rt);
        if (release) release_sent(&cu);
        if (!all[1]) break;
    }
    rc = hspmv_dist_agree(comm, rc, err);
out:
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    free(dst);
    free(pos);
    free(stage);
    free(sendb);
    free(recvb);
    return rc;
}
