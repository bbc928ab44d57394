/* local_part.c — y = A*x of one row part of every thread chunk (see local_part.h). */
#include "local.h"
#include "local_part.h"

/* Rows [r0, r1) of y = A*x (add: y += A*x). */
static void run_rows(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y, int add)
{
    switch (L->format) {
    case HSPMV_FORMAT_CSR: L->ks->csr(r0, r1, L->csr.rowptr, L->csr.colind, L->csr.val, x, y, add); break;
    case HSPMV_FORMAT_CSRL:
        L->ks->csrl(r0, r1, L->csrl.segptr, L->csrl.valptr, L->csrl.jas, L->csrl.jan, L->csrl.val, x, y, add);
        break;
    case HSPMV_FORMAT_CSR16:
        L->ks->csr16(r0, r1, L->csr16.rowptr32, L->csr16.rowptr, L->csr16.off, L->csr16.val, x, y, add);
        break;
    case HSPMV_FORMAT_CSRVI:
        L->ks->csrvi(r0, r1, L->csrvi.rowptr32, L->csrvi.rowptr, L->csrvi.colind, L->csrvi.code, L->csrvi.tab,
                     L->csrvi.ntab, x, y, add);
        break;
    case HSPMV_FORMAT_CSRP: L->ks->csrp(r0, r1, &L->csrp, x, y, add); break;
    case HSPMV_FORMAT_CSRDU: L->ks->csrdu(r0, r1, &L->csrdu, x, y, add); break;
    case HSPMV_FORMAT_PANELS: L->ks->panels(r0, r1, &L->panels, x, y, add); break;
    default: L->ks->bcoo(r0, r1, &L->bcoo, x, y, add); break;
    }
}

static void chunk_part(const hspmv_local *L, int c, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                       int add)
{
    int64_t r0 = L->rows[c], len = L->rows[c + 1] - r0;
    int64_t a = r0 + len * part / nparts, b = r0 + len * (part + 1) / nparts;
    if (b > a) run_rows(L, a, b, x, y, add);
}

void hspmv_local_spmv_part(const hspmv_local *L, int part, int nparts, const hspmv_real *x, hspmv_real *y,
                           int add)
{
    int T = L->threads;
    if (nparts <= 1 || L->nrows == 0) {
        if (part == 0) hspmv_local_spmv(L, x, y, add);
        return;
    }
    if (T == 1) {
        chunk_part(L, 0, part, nparts, x, y, add);
        return;
    }
    if (L->pieces > 1) {
        hspmv_local_run_pieces(L, part, nparts, x, y, add);
        return;
    }
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) chunk_part(L, c, part, nparts, x, y, add);
}

void hspmv_local_spmv_rows(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                           int add)
{
    if (r1 > r0) run_rows(L, r0, r1, x, y, add);
}
