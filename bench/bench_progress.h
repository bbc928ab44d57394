/* bench_progress.h — progress lines on stderr for the programs' long steps
   (reads, partitioning and distribution, preparing formats, conversions);
   the programs' --progress auto|on|off (docs/programs.md). */
#ifndef HSPMV_BENCH_PROGRESS_H
#define HSPMV_BENCH_PROGRESS_H

#include <stdio.h>
#include "hspmv.h"

/* off: nothing. auto (default): on a terminal one line updated in place
   (\r) once a step has run 2 s, ended when the step ends; elsewhere (a file,
   a pipe, mpirun) a plain line every 5 s once a step has run 5 s, and a
   closing line for a step that printed any. on: plain lines, one every 2 s
   while a step runs and a closing line for every step, however short. Every
   line printed ends with a newline by the end of its step. */
enum { BU_PROGRESS_OFF, BU_PROGRESS_AUTO, BU_PROGRESS_ON };

/* The mode for "auto", "on" or "off"; refuses anything else (exit 2). */
int bu_parse_progress(const char *opt, const char *s);
void bu_progress_set(int mode);
int bu_progress_mode(void);
const char *bu_progress_name(int mode);

/* Under MPI: only rank 0 prints (call with this rank's number). */
void bu_progress_rank(int rank);

/* Starts the step "reading PATH" and returns read options whose callback
   feeds it (bytes read, of the file's size when known). End the step with
   bu_step_end once the read returns. */
hspmv_read_opts bu_progress_opts(const char *path);

/* Starts a step without a callback: WHAT ("partitioning and distributing
   to 4 ranks"), BYTES its size (0: unknown); GROW: a file whose size is the
   bytes done so far (the output of a conversion), or NULL. A step still
   running is ended first. */
void bu_step_begin(const char *what, double bytes, const char *grow);

/* Ends the current step (its closing line as the mode says); nothing when
   none runs. Safe to call on an error path. */
void bu_step_end(void);

/* The error paths' end of a step: no closing line ("done" would be
   wrong), only a line in place ended, so that the message starts a line. */
void bu_step_abort(void);

#endif
