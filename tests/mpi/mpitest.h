/* mpitest.h — check.h under MPI: every rank runs each test, failures are
   reduced over MPI_COMM_WORLD, and only rank 0 prints results. */
#ifndef HSPMV_MPITEST_H
#define HSPMV_MPITEST_H

#include <mpi.h>
#include "check.h"

/* RUN, with the ranks' failures and skips agreed before the verdict. */
#define MRUN(fn)                                                               \
    do {                                                                       \
        int f_[2], g_[2];                                                      \
        check_cur_name = #fn;                                                  \
        check_cur_failed = 0;                                                  \
        check_cur_skipped = 0;                                                 \
        fn();                                                                  \
        f_[0] = check_cur_failed; f_[1] = check_cur_skipped;                   \
        MPI_Allreduce(f_, g_, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);            \
        if (g_[0]) { check_failed++; printf("FAIL %s\n", #fn); }               \
        else if (g_[1]) { check_skipped++; printf("skip %s\n", #fn); }         \
        else { check_passed++; printf("ok   %s\n", #fn); }                     \
        fflush(stdout);                                                        \
    } while (0)

#endif
