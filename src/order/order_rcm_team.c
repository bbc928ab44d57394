/* order_rcm_team.c — the team that takes RCM's wide levels: one thread
   drives the ordering and posts a task per wide level, the others wait at
   a barrier for it, so that narrow levels (a long thin graph has thousands)
   cost no fork and no barrier; the threads' lists and the group sort. */
#include <stdlib.h>
#include "order_rcm.h"

static void run(hspmv_rcm_ws *W, int tid)
{
    if (W->task == HSPMV_RCM_SEARCH) hspmv_rcm_search_part(W, tid);
    else if (W->task == HSPMV_RCM_MINDEG) hspmv_rcm_mindeg_part(W, tid);
    else hspmv_rcm_sweep_part(W, tid);
}

/* Each part ends at a barrier, so the driving thread sees the whole result. */
void hspmv_rcm_post(hspmv_rcm_ws *W, int task, int64_t a, int64_t b)
{
    W->task = task, W->a = a, W->b = b;
#pragma omp barrier
    if (task != HSPMV_RCM_STOP) run(W, 0);
}

void hspmv_rcm_serve(hspmv_rcm_ws *W, int tid)
{
    for (;;) {
#pragma omp barrier
        if (W->task == HSPMV_RCM_STOP) return;
        run(W, tid);
    }
}

int hspmv_rcm_reserve(hspmv_rcm_buf *B, int64_t m)
{
    if (B->n + m <= B->cap) return 0;
    int64_t cap = B->cap * 2 > B->n + m ? B->cap * 2 : B->n + m + 1024;
    int32_t *v = realloc(B->v, (size_t)cap * sizeof(int32_t));
    if (!v) return -1;
    B->v = v, B->cap = cap;
    return 0;
}

/* (degree, node) pairs: the order of one parent's children. */
typedef struct dn {
    int64_t d, v;
} dn;
static int cmp_dn(const void *a, const void *b)
{
    const dn *x = a, *y = b;
    if (x->d != y->d) return (x->d > y->d) - (x->d < y->d);
    return (x->v > y->v) - (x->v < y->v);
}

int hspmv_rcm_sort_group(const int32_t *deg, int32_t *o, int64_t m, hspmv_rcm_buf *B)
{
    if (m < 2) return 0;
    if (m <= 16) { /* insertion sort: most parents */
        for (int64_t i = 1; i < m; i++) {
            int32_t x = o[i], dx = deg[x];
            int64_t j = i;
            while (j > 0 && (deg[o[j - 1]] > dx || (deg[o[j - 1]] == dx && o[j - 1] > x))) o[j] = o[j - 1], j--;
            o[j] = x;
        }
        return 0;
    }
    if (m > B->sort_cap) {
        dn *s = realloc(B->sort, (size_t)m * sizeof(dn));
        if (!s) return -1;
        B->sort = s, B->sort_cap = m;
    }
    dn *s = B->sort;
    for (int64_t t = 0; t < m; t++) s[t].v = o[t], s[t].d = deg[o[t]];
    qsort(s, (size_t)m, sizeof(dn), cmp_dn);
    for (int64_t t = 0; t < m; t++) o[t] = (int32_t)s[t].v;
    return 0;
}
