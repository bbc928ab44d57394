/* hspmv_petsc.h — an hspmv distributed matrix as a PETSc matrix (MATSHELL)
   whose MatMult is hspmv_dist_spmv, for PETSc's Krylov solvers (KSP); with
   MatMultTranspose and MatMatMult by a dense matrix. */
#ifndef HSPMV_PETSC_H
#define HSPMV_PETSC_H

#include <petscmat.h>
#include "hspmv.h"

/* Collective on D's communicator. Wraps D (kept, not copied; it must outlive
   *S) as a MATSHELL on the same communicator with D's row and column split,
   so PETSc vectors made by MatCreateVecs(*S, ...) have exactly the layout
   hspmv_dist_spmv expects and MatMult passes their arrays straight to it
   (VecGetArrayRead / VecGetArrayWrite, no copies) when PetscScalar is
   hspmv_real; otherwise (a float hspmv under a double PETSc, say) each
   MatMult converts through two scratch arrays. diag (nrows_local entries,
   may be NULL) is this rank's part of the diagonal: with it the shell
   answers MatGetDiagonal, so PCJACOBI works; it is copied. MatMultTranspose
   is hspmv_dist_spmm(D, HSPMV_TRANSPOSE, 1, ...). MatMatMult(*S, B, ...) and
   MatProduct AB with B dense (MATDENSE, column-major) are one
   hspmv_dist_spmm of all of B's columns (HSPMV_COL_MAJOR) on B's and C's own
   arrays, or through packed copies when a leading dimension is not the local
   row count (or the reals differ). */
PetscErrorCode MatCreateHspmv(hspmv_dist *D, const hspmv_real *diag, Mat *S);

#endif
