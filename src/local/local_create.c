/* local_create.c — prepares one rank's matrix: checks the input, picks the
   format and the kernel set, splits rows among threads once, and builds the
   format's arrays with first touch by the owning threads. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cache.h"
#include "local.h"
#include "local_part.h"
#include "rowptr.h"
#include "util.h"
#include "csr.h"
#include "local_reorder.h"
#include "local_sym.h"

static int check_input(const hspmv_csr *A, const hspmv_opts *o, hspmv_error *err)
{
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: matrix is NULL");
    if (A->nrows == 0 && A->nnz != 0)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: 0 rows but nnz = %lld",
                         (long long)A->nnz);
    if (o->format < HSPMV_FORMAT_AUTO || o->format >= HSPMV_NFORMATS)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: unknown format %d", o->format);
    if (!(o->csrl_threshold >= 0) || !isfinite(o->csrl_threshold))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: CSRL threshold %g is not a finite number >= 0",
                         o->csrl_threshold);
    if (o->threads < 0)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: %d threads", o->threads);
    if (!hspmv_order_name(o->reorder))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: unknown reorder %d (none, rcm, nd or auto)",
                         o->reorder);
    if (o->threads > hspmv_max_threads() || (o->threads == 0 && hspmv_omp_max() > hspmv_max_threads()))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: %d threads%s, more than the %d allowed "
                         "(8 per processor, at least 256)", o->threads ? o->threads : hspmv_omp_max(),
                         o->threads ? "" : " (omp_get_max_threads(), OMP_NUM_THREADS)", hspmv_max_threads());
    int rc = hspmv_csr_validate(A, err);
    if (rc != HSPMV_OK && err) { /* name the call */
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", err->msg);
        hspmv_err(err, rc, "hspmv_local_create: %.480s", why);
    }
    return rc;
}

/* The kernel set named o->kernel, or UNSUPPORTED naming what this CPU runs. */
static int find_kernels(const char *name, const hspmv_kernel_set **ks, hspmv_error *err)
{
    static const char *known[] = {"auto", "avx512", "avx2", "neon", "scalar"};
    const hspmv_kernel_set *sets[8];
    char have[64] = "";
    int n = hspmv_kernel_sets(sets, 8), is_known = 0;
    *ks = hspmv_kernel_find(name);
    if (*ks) return HSPMV_OK;
    for (int i = 0; i < n; i++) {
        if (i) strcat(have, ", ");
        strncat(have, sets[i]->isa, sizeof(have) - strlen(have) - 3);
    }
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) is_known |= !strcmp(name, known[i]);
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "kernel '%s' %s (this CPU runs: %s)", name,
                     is_known ? "is not supported by this CPU or build" : "is unknown", have);
}

/* The CSRL test of AUTO: segments long enough (nzseg/nnz below the threshold). */
static int wants_csrl(const hspmv_local *L, const hspmv_opts *o)
{
    return L->nnz > 0 && (double)L->nseg / (double)L->nnz < o->csrl_threshold;
}

/* Rows of at most this many entries are short for wants_panels. */
#define PANELS_SHORT_ROW 64

/* 1 when AUTO takes column panels: the columns scatter (most entries far
   from their row), x is larger than twice L2, so that its gathers miss the
   caches near the core and are bound by latency, not by the bytes the
   formats' models count, and at least half the nonzeros lie in short rows
   (PANELS_SHORT_ROW). In long rows the out-of-order window already
   overlaps many gathers of one row, and the x prefetches only add work:
   16-core Xeon, 16 threads, one job, 4M rows with real values: random (8
   per row) panels 10.5 ms against CSR's 12.5; power law (23% of the
   nonzeros in rows of at most 64) panels 52.2 ms against CSR's 44.1. */
static int wants_panels(const hspmv_csr *A)
{
    int64_t l2 = hspmv_caches_here()->bytes[2]; /* cache.c: sysfs, else sysconf, else 1 MiB */
    double x = (double)A->ncols * sizeof(hspmv_real);
    int64_t in_short = 0;
    if (x <= 2.0 * (double)(l2 > 0 ? l2 : 1 << 20) || !hspmv_panels_scattered(A)) return 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len <= PANELS_SHORT_ROW) in_short += len;
    }
    return 2 * in_short >= A->nnz;
}

/* CSRDU's bytes are counted this much heavier when AUTO compares: its
   columns are decoded (prefix sums of the steps), CSR16's and CSR's read. */
#define CSRDU_WEIGHT 1.05

/* AUTO takes CSRP only where rows repeat their patterns: at least this
   many rows per pattern (a 3D stencil has 27 patterns for any number of
   rows; a small matrix whose rows are all different fits the table, but
   gains nothing from it). */
#define CSRP_REUSE 8

/* L's rows fit CSRP's table and repeat their patterns enough for AUTO. */
static int csrp_repeats(const hspmv_local *L)
{
    return L->fitsp && L->pats && L->nrows >= CSRP_REUSE * (int64_t)L->pats->n;
}

/* AUTO: CSRL when segments are long enough (nzseg/nnz below the threshold);
   else column panels when the columns scatter (wants_panels); else the
   format that moves the fewest bytes per product by its stated model
   (hspmv_local_get_info) among those that can hold the matrix: CSRVI (at
   most 256 distinct values: 5 B per nonzero; not where CSRP's rule holds,
   below), CSRP (at most 256 row
   patterns, each used by CSRP_REUSE rows or more: values only, an id byte
   per row at most), CSR16 (columns
   within 32767 of the row: 2 B of index), CSRDU (any matrix: 1 B of index
   and escapes, counted CSRDU_WEIGHT heavier, then timed: keep_faster),
   CSR (4 B of index). CSRP's
   count is taken before its slices are known, with every row's id byte.
   CSRVI moves fewer bytes than CSRP (5 a nonzero against 8 in double), but
   gathers x by 4-byte columns and looks its values up, where CSRP loads x
   in runs: genmat lap3d 200 (values 6 and -1), CSRVI against CSRP, 16
   threads on a 16-core Xeon 6.36 and 6.94 ms against 3.94 and 4.37, 2
   threads on the 2-core Zen 4 VM 17.8 and 15.2 against 13.7 and 13.8.
   Blocked COO is taken only on request: it lost to CSR on every matrix
   measured (Laplacians, banded, random, power law; 1-16 threads, AMD Zen
   and Intel Xeon), 1.2-3x slower; README "Node-level performance". */
static int choose_format(const hspmv_local *L, const hspmv_csr *A, const hspmv_opts *o)
{
    double r = sizeof(hspmv_real), n = (double)L->nrows, nnz = (double)L->nnz;
    double xy = ((double)L->ncols + n) * r, pw = hspmv_rowptr_bits(L->nnz) == 32 ? 4 : 8;
    double best, b;
    int f = HSPMV_FORMAT_CSR;
    if (o->format != HSPMV_FORMAT_AUTO) return o->format;
    if (wants_csrl(L, o)) return HSPMV_FORMAT_CSRL;
    if (L->nnz > 0 && wants_panels(A)) return HSPMV_FORMAT_PANELS;
    best = nnz * (r + 4) + (n + 1) * 8 + xy;
    if (L->fits16 && (b = nnz * (r + 2) + (n + 1) * pw + xy) < best) best = b, f = HSPMV_FORMAT_CSR16;
    if (L->esc) {
        b = nnz * (r + 1) + n + (double)L->esc[L->threads] * 4 +
            (double)((L->nrows + HSPMV_CSRDU_CP - 1) / HSPMV_CSRDU_CP) * sizeof(hspmv_csrdu_cp) + xy;
        if (b * CSRDU_WEIGHT < best) best = b * CSRDU_WEIGHT, f = HSPMV_FORMAT_CSRDU;
    }
    if (csrp_repeats(L)) {
        b = nnz * r + n + (double)((L->nrows + HSPMV_CSRP_G - 1) / HSPMV_CSRP_G) * 10 +
            (double)L->pats->nofs * 4 + (double)(L->pats->n + 1) * 4 + xy;
        if (b < best) best = b, f = HSPMV_FORMAT_CSRP;
    }
    if (L->nnz > 0 && L->fitsvi && !csrp_repeats(L) &&
        (b = nnz * 5 + (n + 1) * pw + (double)L->vals->n * r + xy) < best)
        best = b, f = HSPMV_FORMAT_CSRVI;
    return f;
}

/* AUTO's CSRDU, on a matrix big enough to time, is timed against CSR16
   (where it fits) and then the faster of the two against CSR, each with
   its fastest kernels, and the fastest is kept (*pL replaced). At 16
   threads on the 16-core Xeon, genmat fem3d 80 --values random, two
   passes: CSR 15.4 ms, CSR16 16.9, CSRDU 18.2 (timing CSRDU against
   CSR16 alone had kept CSRDU there). CSRDU moves fewest bytes, but decodes its
   columns: where the cores are busy enough to bound the product, before
   memory does, that costs more than the bytes save. Measured, 2-core
   Zen 4 VM, 2 threads, double, three runs of 30 products: genmat fem3d 70
   --values random CSR16 22.0-23.6 ms, CSRDU 30.8-31.7 (README "CSRDU's
   kernels"). Nothing changes when the other cannot be built. */
static void keep_faster(hspmv_local **pL, const hspmv_csr *A, const hspmv_opts *o, const char *test)
{
    static const int rival[2] = {HSPMV_FORMAT_CSR16, HSPMV_FORMAT_CSR};
    hspmv_opts o2 = *o;
    double t[2];
    if ((*pL)->nnz < HSPMV_TUNE_MIN_NNZ) return;
    for (int i = 0; i < 2; i++) { /* the kept one against CSR16 (where it fits), then against CSR */
        hspmv_local *L2 = NULL;
        if (rival[i] == HSPMV_FORMAT_CSR16 && !(*pL)->fits16) continue;
        o2.format = rival[i];
        if (hspmv_local_create_test(A, &o2, test, &L2, NULL) != HSPMV_OK) continue;
        if (hspmv_local_time_pair(*pL, L2, t) && t[1] < t[0]) {
            hspmv_local_destroy(pL);
            L2->asked_format = o->format; /* AUTO's, for the transposed copy */
            *pL = L2;
        } else {
            hspmv_local_destroy(&L2);
        }
    }
}

/* What the format choice needs counted, when it needs it (the format
   asked for, or AUTO past the CSRL and panel tests): A's distinct values
   (L->vals, L->fitsvi), its row patterns (L->pats, L->fitsp), CSRDU's
   escapes per thread chunk (L->esc). */
static int count_for_choice(hspmv_local *L, const hspmv_csr *A, const hspmv_opts *o, hspmv_error *err)
{
    int f = o->format, autof = f == HSPMV_FORMAT_AUTO && !wants_csrl(L, o) && L->nnz > 0 && !wants_panels(A);
    if (f == HSPMV_FORMAT_CSRVI || autof) {
        L->vals = hspmv_malloc(sizeof(*L->vals));
        if (!L->vals) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
        L->fitsvi = hspmv_local_csrvi_values(A, L->threads, L->rows, L->vals);
    }
    if (f == HSPMV_FORMAT_CSRP || autof) {
        int rc;
        L->pats = hspmv_malloc(sizeof(*L->pats));
        if (!L->pats) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
        rc = hspmv_local_csrp_patterns(A, L->threads, L->rows, L->pats);
        if (rc < 0) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
        L->fitsp = rc;
    }
    if (f == HSPMV_FORMAT_CSRDU || autof) {
        L->esc = hspmv_alloc_array((size_t)L->threads + 1, sizeof(int64_t));
        if (!L->esc) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
        hspmv_local_csrdu_escapes(A, L->threads, L->rows, L->esc);
    }
    return HSPMV_OK;
}

/* Frees what only the build needs. */
static void drop_counts(hspmv_local *L)
{
    hspmv_free(L->vals);
    hspmv_free(L->pats);
    hspmv_free(L->esc);
    L->vals = NULL;
    L->pats = NULL;
    L->esc = NULL;
}

int hspmv_local_create(const hspmv_csr *A, const hspmv_opts *opts, hspmv_local **out, hspmv_error *err)
{
    return hspmv_local_create_test(A, opts, hspmv_test_spec(), out, err);
}

/* The block product's row blocks: HSPMV_TEST's spmm_blocks per thread, else
   about HSPMV_SPMM_BLOCK_NNZ nonzeros each (one per thread when a thread's
   share is smaller), at most 4096 per thread. */
static int split_blocks(hspmv_local *L, const hspmv_csr *A, const char *test, hspmv_error *err)
{
    int64_t T = L->threads, per = hspmv_test_int(test, "spmm_blocks", 0);
    if (per < 1) per = (A->nnz + T * HSPMV_SPMM_BLOCK_NNZ - 1) / (T * HSPMV_SPMM_BLOCK_NNZ);
    per = per < 1 ? 1 : per > 4096 ? 4096 : per;
    L->nblocks = (int)(per * T);
    L->blocks = hspmv_alloc_array((size_t)L->nblocks + 1, sizeof(int64_t));
    if (!L->blocks)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for %d row blocks", L->nblocks);
    hspmv_local_split(A->rowptr, A->nrows, L->nblocks, L->blocks);
    return HSPMV_OK;
}

int hspmv_local_create_test(const hspmv_csr *A, const hspmv_opts *opts, const char *test, hspmv_local **out,
                            hspmv_error *err)
{
    static int64_t no_rows[1] = {0}; /* rowptr of a 0-row matrix given without one */
    hspmv_opts o;
    hspmv_csr A0;
    hspmv_local *L = NULL;
    int rc;

    if (!out) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: out is NULL");
    *out = NULL;
    if (opts) o = *opts;
    else hspmv_opts_default(&o);
    if ((rc = check_input(A, &o, err)) != HSPMV_OK) return rc;
    if ((rc = hspmv_test_check(test, err)) != HSPMV_OK) return rc;
    if (A->nrows == 0 && !A->rowptr) {
        A0 = *A;
        A0.rowptr = no_rows;
        A = &A0;
    }
    if (o.reorder != HSPMV_REORDER_NONE) return hspmv_local_create_reordered(A, &o, test, out, err);
    L = hspmv_calloc(1, sizeof(*L));
    if (!L) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
    if ((rc = find_kernels(o.kernel ? o.kernel : "auto", &L->ks, err)) != HSPMV_OK) goto fail;
    L->threads = o.threads > 0 ? o.threads : hspmv_omp_max();
    L->asked_format = o.format;
    L->csrl_threshold = o.csrl_threshold;
    L->nrows = A->nrows;
    L->ncols = A->ncols;
    L->nnz = A->nnz;
    L->rows = hspmv_alloc_array((size_t)L->threads + 1, sizeof(int64_t));
    if (!L->rows) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for %d threads", L->threads);
        goto fail;
    }
    hspmv_local_split(A->rowptr, A->nrows, L->threads, L->rows);
    if ((rc = split_blocks(L, A, test, err)) != HSPMV_OK) goto fail;
    L->pieces = hspmv_local_piece_count(L, test);
    if ((rc = hspmv_local_sym_prepare(L, A, &o, err)) != HSPMV_OK) goto fail;
    if (L->symmetric) { /* one triangle: none of the full formats' counting or arrays */
        L->nseg = hspmv_local_count_segments(A, L->threads, L->rows);
        if (!o.kernel || !strcmp(o.kernel, "auto")) {
            L->ks_auto = 1;
            hspmv_local_tune_kernels(L);
        }
        *out = L;
        return hspmv_ok(err);
    }
    L->stream_y_forced = (int)hspmv_test_int(test, "stream_y", -1);
    L->spmm_stream_forced = (int)hspmv_test_int(test, "spmm_stream", -1);
    L->nseg = hspmv_local_count_segments(A, L->threads, L->rows);
    L->fits16 = hspmv_local_fits_csr16(A, L->threads, L->rows);
    if ((rc = count_for_choice(L, A, &o, err)) != HSPMV_OK) goto fail;
    L->format = choose_format(L, A, &o);
    if (L->format == HSPMV_FORMAT_CSR16 && !L->fits16) {
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                       "hspmv_local_create: CSR16 asked for, but a column lies more than 32767 from its row");
        goto fail;
    }
    if (L->format == HSPMV_FORMAT_CSRVI && !L->fitsvi) {
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                       "hspmv_local_create: CSRVI asked for, but the matrix has more than %d distinct values",
                       HSPMV_CSRVI_MAXTAB);
        goto fail;
    }
    if (L->format == HSPMV_FORMAT_CSRP && !L->fitsp) {
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                       "hspmv_local_create: CSRP asked for, but the matrix has more than %d row patterns or "
                       "%d offsets in them", HSPMV_CSRP_MAXPAT, HSPMV_CSRP_MAXOFS);
        goto fail;
    }
    switch (L->format) {
    case HSPMV_FORMAT_CSR: rc = hspmv_local_build_csr(L, A, err); break;
    case HSPMV_FORMAT_CSRL: rc = hspmv_local_build_csrl(L, A, err); break;
    case HSPMV_FORMAT_CSR16: rc = hspmv_local_build_csr16(L, A, err); break;
    case HSPMV_FORMAT_CSRVI: rc = hspmv_local_build_csrvi(L, A, err); break;
    case HSPMV_FORMAT_CSRP: rc = hspmv_local_build_csrp(L, A, err); break;
    case HSPMV_FORMAT_CSRDU: rc = hspmv_local_build_csrdu(L, A, err); break;
    case HSPMV_FORMAT_PANELS:
        rc = hspmv_local_build_panels(L, A, hspmv_local_panel_count(A->ncols, L->threads, test), err);
        break;
    default: rc = hspmv_local_build_bcoo(L, A, err); break;
    }
    drop_counts(L); /* only the build needs them */
    if (rc != HSPMV_OK) goto fail;
    if (!o.kernel || !strcmp(o.kernel, "auto")) {
        L->ks_auto = 1;
        hspmv_local_tune_kernels(L);
        if (o.format == HSPMV_FORMAT_AUTO && L->format == HSPMV_FORMAT_CSRDU) keep_faster(&L, A, &o, test);
    }
    *out = L;
    return hspmv_ok(err);
fail:
    hspmv_local_destroy(&L);
    return rc;
}

void hspmv_local_destroy(hspmv_local **pL)
{
    hspmv_local *L = pL ? *pL : NULL;
    if (!L) return;
    hspmv_local_destroy(&L->T);
    hspmv_local_order_free(&L->ord);
    hspmv_csr_free(&L->csr);
    hspmv_csrl_free(&L->csrl);
    hspmv_bcoo_free(&L->bcoo);
    hspmv_csr16_free(&L->csr16);
    hspmv_csrvi_free(&L->csrvi);
    hspmv_csrp_free(&L->csrp);
    hspmv_csrdu_free(&L->csrdu);
    hspmv_panels_free(&L->panels);
    hspmv_local_sym_free(L);
    drop_counts(L);
    hspmv_free(L->rows);
    hspmv_free(L->blocks);
    hspmv_free(L->tiles);
    hspmv_free(L);
    *pL = NULL;
}
