/* spmv_csr_naive.c — y = A*x with the seed's plain serial loop
   (benchmark-naive): the portable CSR kernel over every row. */
#include "kernels.h"
#include "csr.h"

void hspmv_csr_spmv_naive(const hspmv_csr *A, const hspmv_real *x, hspmv_real *y)
{
    hspmv_k_csr_scalar(0, A->nrows, A->rowptr, A->colind, A->val, x, y, 0);
}
