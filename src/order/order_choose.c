/* order_choose.c — reorder = none | rcm | nd | auto: computes the order
   asked for, or for auto decides by the locality measure whether RCM is
   worth it, and makes the permuted matrix; a caller's permutation checked
   and applied. */
#include <string.h>
#include <time.h>
#include "order.h"
#include "util.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *hspmv_order_name(int method)
{
    static const char *names[] = {"none", "rcm", "nd", "auto"};
    return method >= HSPMV_REORDER_NONE && method <= HSPMV_REORDER_AUTO ? names[method] : NULL;
}

static void drop(hspmv_order_choice *C, hspmv_csr *B)
{
    hspmv_free(C->rp);
    if (C->cp != C->rp) hspmv_free(C->cp);
    C->rp = C->cp = NULL;
    hspmv_csr_free(B);
}

int hspmv_order_choose(const hspmv_csr *A, int asked, const char *test, int threads, hspmv_order_choice *C,
                       hspmv_csr *B, hspmv_error *err)
{
    double t0 = now_s();
    int rc, method = asked == HSPMV_REORDER_AUTO ? HSPMV_REORDER_RCM : asked;
    memset(C, 0, sizeof(*C));
    memset(B, 0, sizeof(*B));
    C->asked = asked;
    if (!hspmv_order_name(asked))
        return hspmv_err(err, HSPMV_ERR_ARG, "reorder: unknown method %d (none, rcm, nd or auto)", asked);
    if (asked == HSPMV_REORDER_NONE) return hspmv_ok(err);
    hspmv_order_measure(A, hspmv_order_window(test), threads, &C->before);
    C->after = C->before;
    if (asked == HSPMV_REORDER_AUTO && C->before.local_frac >= HSPMV_AUTO_LOCAL) { /* already local */
        C->seconds = now_s() - t0;
        return hspmv_ok(err);
    }
    C->rp = hspmv_alloc_array(A->nrows ? (size_t)A->nrows : 1, sizeof(int64_t));
    C->cp = hspmv_alloc_array(A->ncols ? (size_t)A->ncols : 1, sizeof(int64_t));
    if (!C->rp || !C->cp) {
        drop(C, B);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reorder: out of memory for the permutations of %lld rows",
                         (long long)A->nrows);
    }
    int hopeless = 0;
    hspmv_rcm_opts ro = {asked == HSPMV_REORDER_AUTO ? HSPMV_AUTO_WIDTH * (double)C->before.window : 0, threads, 0};
    rc = method == HSPMV_REORDER_ND ? hspmv_order_nd(A, C->rp, C->cp, err)
                                    : hspmv_order_rcm_within(A, C->rp, C->cp, &ro, &hopeless, err);
    if (!rc && hopeless) { /* auto on an expander graph: the caller's order stays */
        drop(C, B);
        C->seconds = now_s() - t0;
        return hspmv_ok(err);
    }
    C->tried = 1;
    if (!rc) rc = hspmv_order_apply(A, C->rp, C->cp, threads, B, err);
    if (rc) {
        drop(C, B);
        return rc;
    }
    hspmv_order_measure(B, C->before.window, threads, &C->after);
    if (asked == HSPMV_REORDER_AUTO && C->after.local_frac < C->before.local_frac + HSPMV_AUTO_GAIN) {
        drop(C, B); /* RCM did not gain enough: the caller's order stays */
        C->after = C->before;
    } else C->used = method;
    C->seconds = now_s() - t0;
    return hspmv_ok(err);
}

int hspmv_order_permute(const hspmv_csr *A, const int64_t *row_perm, const int64_t *col_perm, hspmv_csr *B,
                        hspmv_error *err)
{
    int rc;
    if (!B) return hspmv_err(err, HSPMV_ERR_ARG, "B is NULL");
    memset(B, 0, sizeof(*B));
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "A is NULL");
    if ((rc = hspmv_csr_validate(A, err))) return rc;
    if ((rc = hspmv_order_check(row_perm, A->nrows, "row_perm", err))) return rc;
    if ((rc = hspmv_order_check(col_perm, A->ncols, "col_perm", err))) return rc;
    return hspmv_order_apply(A, row_perm, col_perm, 0, B, err);
}
