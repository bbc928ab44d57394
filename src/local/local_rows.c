/* local_rows.c — y = A*x on a row range of a prepared matrix, in the
   calling thread: the one place that picks the format's kernel. Every
   product (local_spmv.c, local_pieces.c, the MPI layer's shared rows)
   comes down to these calls. */
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

void hspmv_local_spmv_rows(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y,
                           int add)
{
    if (r1 > r0) run_rows(L, r0, r1, x, y, add);
}

void hspmv_local_spmv_rows_cached(const hspmv_local *L, int64_t r0, int64_t r1, const hspmv_real *x, hspmv_real *y)
{
    if (r1 <= r0) return;
    if (L->format == HSPMV_FORMAT_CSRP && L->csrp.stream_y) { /* the caller reads y next: no streaming stores */
        hspmv_csrp P = L->csrp;
        P.stream_y = 0;
        L->ks->csrp(r0, r1, &P, x, y, 0);
        return;
    }
    run_rows(L, r0, r1, x, y, 0);
}
