/* local_create.c — prepares one rank's matrix: checks the input, picks the
   format and the kernel set, splits rows among threads once, and builds the
   format's arrays with first touch by the owning threads. */
#include <math.h>
#include <string.h>
#include "local.h"
#include "util.h"

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
    if (o->threads > hspmv_max_threads() || (o->threads == 0 && hspmv_omp_max() > hspmv_max_threads()))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_create: %d threads%s, more than the %d allowed "
                         "(8 per processor, at least 256)", o->threads ? o->threads : hspmv_omp_max(),
                         o->threads ? "" : " (omp_get_max_threads(), OMP_NUM_THREADS)", hspmv_max_threads());
    return hspmv_csr_validate(A, err);
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

/* AUTO: CSRL when segments are long enough (nzseg/nnz below the threshold),
   else CSRVI when the matrix has at most 256 distinct values (5 bytes per
   nonzero instead of 10 or 12: stencils, graph and pattern matrices,
   integer-valued matrices), else CSR16 when every column lies within 32767
   of its row (it moves 2 fewer bytes per nonzero and 4 fewer per row than
   CSR: stencils, banded and most FEM matrices), else CSR. Blocked COO is
   taken only on request: it lost to CSR on every matrix measured
   (Laplacians, banded, random, power law; 1-16 threads, AMD Zen and Intel
   Xeon), 1.2-3x slower; README "Node-level performance". */
static int choose_format(const hspmv_local *L, const hspmv_opts *o)
{
    if (o->format != HSPMV_FORMAT_AUTO) return o->format;
    if (wants_csrl(L, o)) return HSPMV_FORMAT_CSRL;
    if (L->nnz > 0 && L->fitsvi) return HSPMV_FORMAT_CSRVI;
    return L->fits16 ? HSPMV_FORMAT_CSR16 : HSPMV_FORMAT_CSR;
}

/* Counts A's distinct values (into L->vals, L->fitsvi) when the format
   choice needs them: CSRVI asked for, or AUTO past the CSRL test. */
static int count_values(hspmv_local *L, const hspmv_csr *A, const hspmv_opts *o, hspmv_error *err)
{
    if (o->format != HSPMV_FORMAT_CSRVI && (o->format != HSPMV_FORMAT_AUTO || wants_csrl(L, o) || L->nnz == 0))
        return HSPMV_OK;
    L->vals = hspmv_malloc(sizeof(*L->vals));
    if (!L->vals) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
    L->fitsvi = hspmv_local_csrvi_values(A, L->threads, L->rows, L->vals);
    return HSPMV_OK;
}

int hspmv_local_create(const hspmv_csr *A, const hspmv_opts *opts, hspmv_local **out, hspmv_error *err)
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
    if (A->nrows == 0 && !A->rowptr) {
        A0 = *A;
        A0.rowptr = no_rows;
        A = &A0;
    }
    L = hspmv_calloc(1, sizeof(*L));
    if (!L) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory");
    if ((rc = find_kernels(o.kernel ? o.kernel : "auto", &L->ks, err)) != HSPMV_OK) goto fail;
    L->threads = o.threads > 0 ? o.threads : hspmv_omp_max();
    L->nrows = A->nrows;
    L->ncols = A->ncols;
    L->nnz = A->nnz;
    L->rows = hspmv_alloc_array((size_t)L->threads + 1, sizeof(int64_t));
    if (!L->rows) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_create: out of memory for %d threads", L->threads);
        goto fail;
    }
    hspmv_local_split(A->rowptr, A->nrows, L->threads, L->rows);
    L->nseg = hspmv_local_count_segments(A, L->threads, L->rows);
    L->fits16 = hspmv_local_fits_csr16(A, L->threads, L->rows);
    if ((rc = count_values(L, A, &o, err)) != HSPMV_OK) goto fail;
    L->format = choose_format(L, &o);
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
    switch (L->format) {
    case HSPMV_FORMAT_CSR: rc = hspmv_local_build_csr(L, A, err); break;
    case HSPMV_FORMAT_CSRL: rc = hspmv_local_build_csrl(L, A, err); break;
    case HSPMV_FORMAT_CSR16: rc = hspmv_local_build_csr16(L, A, err); break;
    case HSPMV_FORMAT_CSRVI: rc = hspmv_local_build_csrvi(L, A, err); break;
    default: rc = hspmv_local_build_bcoo(L, A, err); break;
    }
    hspmv_free(L->vals); /* only the build needs it */
    L->vals = NULL;
    if (rc != HSPMV_OK) goto fail;
    if (!o.kernel || !strcmp(o.kernel, "auto")) hspmv_local_tune_kernels(L);
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
    hspmv_csr_free(&L->csr);
    hspmv_csrl_free(&L->csrl);
    hspmv_bcoo_free(&L->bcoo);
    hspmv_csr16_free(&L->csr16);
    hspmv_csrvi_free(&L->csrvi);
    hspmv_free(L->vals);
    hspmv_free(L->rows);
    hspmv_free(L->tiles);
    hspmv_free(L);
    *pL = NULL;
}
