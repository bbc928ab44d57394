/* order_rcm.h — private to src/order: the work of one reverse Cuthill-McKee
   ordering, shared by the thread that drives it (order_rcm.c: components;
   order_rcm_search.c, order_rcm_sweep.c) and the team that takes its wide
   levels (order_rcm_team.c). */
#ifndef HSPMV_ORDER_RCM_H
#define HSPMV_ORDER_RCM_H

#include <stdint.h>
#include "order_graph.h"

/* key[] of a node no sweep has reached yet. */
#define HSPMV_RCM_UNSEEN INT32_MAX

/* One thread's growable list of nodes (what it found in a level) and its
   scratch for sorting a long group; padded to its own cache lines. */
typedef struct hspmv_rcm_buf {
    int32_t *v;
    int64_t n, cap;
    void *sort;
    int64_t sort_cap;
    char pad[24];
} hspmv_rcm_buf;

/* The tasks the driving thread hands the team (hspmv_rcm_post). */
enum { HSPMV_RCM_STOP, HSPMV_RCM_SEARCH, HSPMV_RCM_MINDEG, HSPMV_RCM_SWEEP };

typedef struct hspmv_rcm_ws {
    const hspmv_graph *G;
    int32_t *deg;    /* degree of each node, its own diagonal left out */
    int64_t *mark;   /* the searches' visit stamp of each node */
    int64_t stamp;
    int32_t *q;      /* the searches' levels, one after the other */
    int32_t *key;    /* HSPMV_RCM_UNSEEN until a sweep reaches the node, then below the
                        position of every node of its level (its parent's, or -1) */
    int64_t *order;  /* the Cuthill-McKee order being made */
    int64_t serial_below; /* levels narrower than this are taken by the driving thread alone */
    int T;           /* threads in the team (1: no team) */
    hspmv_rcm_buf *buf; /* one per thread */
    int64_t *part;   /* one partial per thread (counts, minima) */
    int task;        /* the task posted, on the level [a, b) */
    int64_t a, b;
    int64_t found;   /* what the task found: the next level's size, the least-degree node */
    int failed;      /* a thread's list could not grow */
} hspmv_rcm_ws;

/* Runs task on [a, b) with the whole team (the driving thread calls it
   inside the team's parallel region; the others wait in hspmv_rcm_serve). */
void hspmv_rcm_post(hspmv_rcm_ws *W, int task, int64_t a, int64_t b);

/* The other threads' loop: each posted task in turn until HSPMV_RCM_STOP. */
void hspmv_rcm_serve(hspmv_rcm_ws *W, int tid);

/* Makes room for m more nodes in B (0, or -1 out of memory). */
int hspmv_rcm_reserve(hspmv_rcm_buf *B, int64_t m);

/* Sorts the m nodes o[] by (degree, node): Cuthill-McKee's order of one
   parent's children. -1 when B's scratch could not grow. */
int hspmv_rcm_sort_group(const int32_t *deg, int32_t *o, int64_t m, hspmv_rcm_buf *B);

/* The team's shares of the three tasks: a search's next level, the least
   (degree, node) of a level (order_rcm_search.c), a sweep's next level
   (order_rcm_sweep.c). */
void hspmv_rcm_search_part(hspmv_rcm_ws *W, int tid);
void hspmv_rcm_mindeg_part(hspmv_rcm_ws *W, int tid);
void hspmv_rcm_sweep_part(hspmv_rcm_ws *W, int tid);

/* George and Liu's pseudo-peripheral node of r's component. *width_limit
   > 0: *hopeless = 1 when the first search's levels are wider on average
   (then zeroed: asked of the first component only). */
int64_t hspmv_rcm_start(hspmv_rcm_ws *W, int64_t r, double *width_limit, int *hopeless);

/* Cuthill-McKee of the component of s, appended to W->order from *pos
   (moved past it). 0, or -1 out of memory. */
int hspmv_rcm_sweep(hspmv_rcm_ws *W, int64_t s, int64_t *pos);

/* Thread tid's share [*lo, *hi) of [a, b). */
static inline void hspmv_rcm_share(const hspmv_rcm_ws *W, int tid, int64_t a, int64_t b, int64_t *lo, int64_t *hi)
{
    *lo = a + (b - a) * tid / W->T;
    *hi = a + (b - a) * (tid + 1) / W->T;
}

#endif
