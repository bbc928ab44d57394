/* settings.c — the environment variables the library reads (settings.h says
   which and why) and the test-only switch HSPMV_TEST, parsed strictly. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"
#include "util.h"

const char *hspmv_test_spec(void)
{
    const char *s = getenv("HSPMV_TEST");
    return s ? s : "";
}

/* The keys of HSPMV_TEST: an integer range, or names ("a|b|c", value =
   place from 1), or a free string checked by its reader (lo > hi). */
typedef struct test_key {
    const char *key;
    long lo, hi;
    const char *names;
} test_key;

static const test_key keys[] = {
    /* sizes cut so that small matrices take the paths of big ones */
    {"dist_chunk", 1, (long)1 << 30, NULL},  /* elements per MPI message piece */
    {"read_xchg", 1, (long)1 << 30, NULL},   /* records per parallel-read exchange round */
    {"read_chunk", 1, (long)1 << 40, NULL},  /* bytes per byte range of a threaded read */
    {"io_piece", 8, (long)1 << 30, NULL},    /* bytes per read or write call on a PETSc file */
    /* local plan choices forced */
    {"panels", 1, 256, NULL},                /* column panels of PANELS */
    {"pieces", 1, 4096, NULL},               /* pieces per thread chunk */
    {"stream_y", 0, 1, NULL},                /* CSRP streaming stores of y */
    {"spmm_stream", 0, 1, NULL},             /* block product: streaming stores of Y */
    {"spmm_blocks", 1, 4096, NULL},          /* block product: row blocks per thread */
    {"reorder_window", 1, (long)1 << 40, NULL}, /* reorder auto: the locality window in columns */
    /* distributed plan choices forced */
    {"dist_pieces", 1, 16, NULL},            /* parts of the owned block between message tests */
    {"sym_cthreads", 1, 1024, NULL},         /* threads summing one triangle's mirrored products (dist_sym) */
    {"node_slots", 0, 64, NULL},             /* vectors in a node's shared window */
    {"no_window", 0, 1, NULL},               /* the last rank reports no shared window */
    {"gather", 0, 0, "direct|copy|share"},   /* how the node block gathers */
    {"replica", 0, 1, NULL},                 /* private replica of the node vector */
    {"merge", 0, 1, NULL},                   /* owned columns in the node block */
    {"fold", 0, 1, NULL},                    /* boundary rows folded */
    {"share_tail", 0, 64, NULL},             /* 64ths of the node block others may take */
    {"owned_share_tail", 0, 64, NULL},       /* 64ths of the owned block others may take */
    {"share_delay", 1, 0, NULL},             /* RANK:MICROSECONDS: that rank starts late */
    /* solvers */
    {"solver_delay", 0, 10000000, NULL},     /* microseconds before every solver reduction completes */
};

static const test_key *find_key(const char *k, size_t n)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strlen(keys[i].key) == n && !strncmp(keys[i].key, k, n)) return &keys[i];
    return NULL;
}

/* The place (from 1) of the n-character name v in "a|b|c", or 0. */
static long name_place(const char *names, const char *v, size_t n)
{
    long place = 1;
    for (const char *p = names; *p; place++) {
        size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, v, n)) return place;
        p += len + (p[len] == '|');
    }
    return 0;
}

/* Parses the value v (n characters) of key K; 1 and *out when good. */
static int parse_value(const test_key *K, const char *v, size_t n, long *out)
{
    if (K->names) return (*out = name_place(K->names, v, n)) > 0;
    if (K->lo > K->hi) return n > 0; /* free string: its reader checks it */
    char buf[32], *end;
    if (n == 0 || n >= sizeof(buf) || !(*v == '-' || (*v >= '0' && *v <= '9'))) return 0; /* no space, no '+' */
    memcpy(buf, v, n);
    buf[n] = 0;
    errno = 0;
    long x = strtol(buf, &end, 10);
    if (errno || *end || x < K->lo || x > K->hi) return 0;
    *out = x;
    return 1;
}

/* Walks spec's pairs: calls f on each; stops when f returns non-zero. */
typedef int pair_fn(const char *k, size_t kn, const char *v, size_t vn, void *ctx);
static int each_pair(const char *spec, pair_fn *f, void *ctx)
{
    for (const char *p = spec; p && *p;) {
        size_t len = strcspn(p, ","), kn = strcspn(p, "=");
        int rc = kn < len ? f(p, kn, p + kn + 1, len - kn - 1, ctx) : f(p, len, NULL, 0, ctx);
        if (rc) return rc;
        p += len + (p[len] == ',');
    }
    return 0;
}

static int check_pair(const char *k, size_t kn, const char *v, size_t vn, void *ctx)
{
    hspmv_error *err = ctx;
    const test_key *K = find_key(k, kn);
    long x;
    int pn = v ? (int)(v + vn - k) : (int)kn; /* the whole pair */
    if (!K)
        return hspmv_err(err, HSPMV_ERR_ARG, "HSPMV_TEST (a test-only setting): '%.*s': unknown key '%.*s'", pn, k,
                         (int)kn, k);
    if (!v) return hspmv_err(err, HSPMV_ERR_ARG, "HSPMV_TEST: '%.*s': expected key=value", pn, k);
    if (!parse_value(K, v, vn, &x)) {
        if (K->names)
            return hspmv_err(err, HSPMV_ERR_ARG, "HSPMV_TEST: '%.*s=%.*s': expected %s", (int)kn, k, (int)vn,
                             v ? v : "", K->names);
        if (K->lo > K->hi)
            return hspmv_err(err, HSPMV_ERR_ARG, "HSPMV_TEST: '%.*s': expected a value", (int)kn, k);
        return hspmv_err(err, HSPMV_ERR_ARG, "HSPMV_TEST: '%.*s=%.*s': expected an integer in [%ld, %ld]", (int)kn, k,
                         (int)vn, v ? v : "", K->lo, K->hi);
    }
    return HSPMV_OK;
}

int hspmv_test_check(const char *spec, hspmv_error *err)
{
    int rc = each_pair(spec, check_pair, err);
    return rc ? rc : hspmv_ok(err);
}

typedef struct lookup {
    const char *key;
    const char *v;
    size_t vn;
    int found;
} lookup;

static int find_pair(const char *k, size_t kn, const char *v, size_t vn, void *ctx)
{
    lookup *l = ctx;
    if (strlen(l->key) == kn && !strncmp(l->key, k, kn) && v) l->v = v, l->vn = vn, l->found = 1;
    return 0; /* the last one counts */
}

long hspmv_test_int(const char *spec, const char *key, long def)
{
    lookup l = {key, NULL, 0, 0};
    const test_key *K = find_key(key, strlen(key));
    long x;
    each_pair(spec, find_pair, &l);
    return l.found && K && parse_value(K, l.v, l.vn, &x) ? x : def;
}

const char *hspmv_test_str(const char *spec, const char *key, char *buf, size_t n)
{
    lookup l = {key, NULL, 0, 0};
    each_pair(spec, find_pair, &l);
    if (!l.found || n == 0) return NULL;
    size_t m = l.vn < n - 1 ? l.vn : n - 1;
    memcpy(buf, l.v, m);
    buf[m] = 0;
    return buf;
}
