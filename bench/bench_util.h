/* bench_util.h — what every benchmark program shares: clocks, medians,
   peak memory, progress lines, the run's facts, and dying with a clear message. */
#ifndef HSPMV_BENCH_UTIL_H
#define HSPMV_BENCH_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include "hspmv.h"
#include "csr.h"

/* Seconds on a monotonic clock. */
double bu_now(void);

/* Median, min and max of t[0..n) (t is reordered). */
void bu_stats(double *t, int n, double *median, double *min, double *max);

/* Peak resident memory of this process so far, in bytes. */
double bu_peak_rss(void);

/* Progress lines (bu_progress_opts for reads, bu_step_begin/end). */
#include "bench_progress.h"

/* Prints "prog: error: message" and exits 1. */
void bu_die(const char *prog, const hspmv_error *e) __attribute__((noreturn));

/* Flushes stdout; a failed write (full disk, /dev/full) is an error
   (bu_fail_status 1): results that did not arrive must not exit 0. */
void bu_check_stdout(void);

/* The check column's word: "FAILED" (a kernel off the reference bound),
   "OVERFLOW" (the product is not representable: the data's fault) or "ok". */
const char *bu_check_word(const hspmv_check *c);

/* "PROG: error: PATH: ..." on stderr for each way the check failed, telling
   a wrong kernel from an overflowing product; returns 1 when it failed. */
int bu_check_report(const char *path, const hspmv_check *c);

/* The peers' input vector: x[j] = 1 + 0.001*(j % 1000); bu_x_at(j) is x[j]. */
void bu_fill_x(hspmv_real *x, int64_t n);
hspmv_real bu_x_at(int64_t j);

/* The peers' cross-check sums: ysum = sum y, ychk = sum y[i]*(1 + i%17). */
void bu_ysums(const hspmv_real *y, int64_t n, double *ysum, double *ychk);

/* Bytes one CSR SpMV moves by the stated model: values + 32-bit column
   indices + 64-bit row pointers + x read once + y written once. */
double bu_csr_bytes(const hspmv_csr *A);

/* The storage formats the programs take by name: one table serves every
   parser, usage text and refusal, so that none lists fewer than it takes. */
typedef struct bu_format {
    const char *name;  /* the word on the command line: "auto", "csr", ... */
    int format;        /* its HSPMV_FORMAT_* value (the table is indexed by it) */
    const char *about; /* one line for the usage text */
} bu_format;
extern const bu_format bu_formats[HSPMV_NFORMATS];

/* Name of an HSPMV_FORMAT_* value ("?" out of range). */
const char *bu_format_name(int format);

/* HSPMV_FORMAT_* for a name of the table, or -1. */
int bu_format_of(const char *name);

/* Every name of the table joined by sep ("auto|csr|...|panels" with "|"),
   or with ", " and a last " or " when sep is NULL; a static string. */
const char *bu_format_list(const char *sep);

/* The table for a usage text: one line per format, "INDENTname  about". */
void bu_format_usage(FILE *f, const char *indent);

/* "--format takes auto, csr, ... or panels, not 'S'" (exit status 2). */
void bu_format_refuse(const char *opt, const char *s) __attribute__((noreturn));

/* HSPMV_PART_* for "nnz", "rows" or "metis", or -1. */
int bu_partition_of(const char *name);

/* ---- arguments: every number checked for range and trailing garbage ---- */

/* Timed calls kept per run: their seconds are stored (80 MB at the limit). */
#define BU_MAX_REPS 10000000L

/* With "--version" among the arguments (before any "--"): prints "NAME
   hspmv 0.2.0 (double) commit C" (the name it was started by, the
   library's version and precision, the build's git commit) and exits 0;
   otherwise returns. Each main calls it first, before MPI starts; it also
   notes the start time and the name for bu_invoked_name. */
void bu_version(int argc, char **argv, const char *name);

/* The name the program was started by (argv[0]'s last part: "hspmv-convert"
   when installed), for usage texts; the built-in name without argv[0]. */
const char *bu_invoked_name(void);

/* ---- the run's facts every result carries (docs/programs.md) ---- */

/* The build's git commit ("git describe --always --dirty" at build time;
   "unknown" from a tree without git). */
const char *bu_commit(void);

/* " version=V commit=C host=H date=D compiler=K progress=M" (M: the
   --progress mode, bu_progress_mode), then " ranks=R" and
   " threads=T" for each count above 0 (0: the line has it already). date:
   the run's start, UTC, ISO 8601 (2026-01-31T12:00:00Z); host: this
   process's (rank 0's under MPI); compiler: gcc-13.2.0, clang-17.0.6, ... */
void bu_meta_kv(FILE *f, int ranks, int threads);

/* The same as JSON members, each after a comma (,"version":"V",...). */
void bu_meta_json(FILE *f, int ranks, int threads);

/* The first five values as CSV fields after commas (",V,C,H,D,K"), in the
   order of the schema's last columns. */
void bu_meta_csv(FILE *f);

/* The one CSV schema of benchmark-omp --csv and run_all-{omp,mpi,light}.sh
   --csv (scripts/csv.sh holds the same line; a test compares them). */
#define BU_CSV_HEADER                                                                                        \
    "bench,matrix,precision,ranks,threads,partition,format,asked,kernel,rows,cols,nnz,seg_ratio,imbalance,"  \
    "halo_bytes,reps,median_ms,min_ms,max_ms,gflops,gbs,triad_gbs,frac_triad,wait_share,vs_cusparse,"        \
    "max_rel,avg_rel,violations,version,commit,host,date,compiler"

/* Opens a CSV file of that schema for appending before anything is
   measured (bench_out: the rows go to a copy under a temporary name, which
   bo_commit renames over the file when the run is complete; input, the
   matrix, may not be the same file): a new or empty file gets the header,
   a file that starts with another line is refused ("give a new file",
   exit status 1); an unwritable one exits 2 (the reason named after OPT).
   Returns o->f. */
struct bo_file;
FILE *bu_csv_open(struct bo_file *o, const char *opt, const char *path, const char *input);

/* ",TEXT", quoted when TEXT holds a comma, a quote or a line break; ","
   alone for NULL (an absent value is empty, never 0). */
void bu_csv_field(FILE *f, const char *text);

/* The program's name in messages ("PROG: error: ..."). */
void bu_set_prog(const char *prog);
const char *bu_prog(void);

/* How a program leaves on an error it found itself. Default: "PROG:
   error: MSG" on stderr and the exit status. The MPI programs install one
   that prints on rank 0 only and calls MPI_Finalize before exiting. */
void bu_set_fail(void (*fail)(int status, const char *msg));
/* A refused argument: exit status 2. */
void bu_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Any other failure (exit status 1 for a failed run). */
void bu_fail_status(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* The value after option argv[*i] (advancing *i), or the refusal
   "OPT needs a value". */
const char *bu_value(int argc, char **argv, int *i);

/* A decimal integer in [lo, hi], the whole of s; else the refusal
   "OPT takes an integer in [LO, HI], not 'S'". */
long long bu_parse_int(const char *opt, const char *s, long long lo, long long hi);

/* A finite real in [lo, hi], the whole of s (strtod's decimal spellings;
   no hexadecimal 0x...). */
double bu_parse_real(const char *opt, const char *s, double lo, double hi);

/* The same in (lo, hi]: "OPT takes a number above LO and at most HI". */
double bu_parse_real_above(const char *opt, const char *s, double lo, double hi);

/* A size in MiB from 1 to a third of physical memory (the STREAM probes
   allocate three arrays of it); returns bytes. */
size_t bu_parse_mib(const char *opt, const char *s);

/* One warning line on stderr when the largest of the n thread counts
   exceeds the processors this process may run on (hspmv_cpus_allowed):
   those runs time threads taking turns, not the machine. */
void bu_warn_threads(const char *prog, const int *threads, int n);

/* A thread count from 1 to hspmv_max_threads(). */
int bu_parse_threads(const char *opt, const char *s);

/* One of the kernel names hspmv_opts.kernel takes (auto, avx512, avx2,
   neon, scalar); whether this CPU runs it is the library's to say. */
const char *bu_parse_kernel(const char *opt, const char *s);

/* --reorder none|rcm|nd|auto: the HSPMV_REORDER_* value; and its name. */
int bu_parse_reorder(const char *opt, const char *s);
const char *bu_reorder_name(int reorder);

/* --symmetric auto|no|yes: the HSPMV_SYMMETRIC_* value; and its name. A
   matrix's kept triangle (info symmetric 1, -1, 0): "yes", "skew", "no". */
int bu_parse_symmetric(const char *opt, const char *s);
const char *bu_symmetric_name(int symmetric);
const char *bu_symmetric_kept(int kept);

/* A positive integer up to LONG_MAX (kept for benchmark-light). */
long bu_parse_long(const char *prog, const char *opt, const char *s);

#endif
