/* test_settings.c — the test-only switch HSPMV_TEST (src/util/settings.c):
   good strings parse to their values, every bad pair (unknown key, empty,
   negative, out of range, not a whole decimal number, no '=', an unknown
   name) is refused with a message that names it, and the calls that read
   the switch (hspmv_local_create, hspmv_csr_read) refuse a bad one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "local.h"
#include "local_part.h"
#include "settings.h"
#include "testlib.h"

static void good_strings_parse_to_their_values(void)
{
    static const char *good[] = {"",
                                 "panels=3",
                                 "gather=copy,merge=1",
                                 "pieces=4096,stream_y=0",
                                 "read_chunk=1099511627776",
                                 "share_delay=1:500",
                                 "io_piece=8,dist_chunk=1073741824",
                                 "panels=3,"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        hspmv_error e = {0, ""};
        CHECK(hspmv_test_check(good[i], &e) == HSPMV_OK, "'%s' refused: %s", good[i], e.msg);
    }
    const char *s = "gather=copy,merge=1,panels=7,read_chunk=1099511627776";
    CHECK(hspmv_test_int(s, "gather", 0) == 2, "gather=copy: %ld, expected 2 (its place)", hspmv_test_int(s, "gather", 0));
    CHECK(hspmv_test_int("gather=direct", "gather", 0) == 1, "gather=direct");
    CHECK(hspmv_test_int("gather=share", "gather", 0) == 3, "gather=share");
    CHECK(hspmv_test_int(s, "merge", -1) == 1, "merge=1");
    CHECK(hspmv_test_int(s, "panels", 0) == 7, "panels=7");
    CHECK(hspmv_test_int(s, "read_chunk", 0) == (long)1 << 40, "read_chunk=2^40");
    CHECK(hspmv_test_int(s, "pieces", -5) == -5, "an absent key gives the default");
    CHECK(hspmv_test_int("", "pieces", -5) == -5, "an empty string gives the default");
    CHECK(hspmv_test_int("panels=2,panels=5", "panels", 0) == 5, "the last of a repeated key counts");
    CHECK(hspmv_test_int("panels=0", "panels", 9) == 9, "a bad value gives the default");
    char buf[32];
    const char *d = hspmv_test_str("fold=0,share_delay=2:300", "share_delay", buf, sizeof(buf));
    CHECK(d && !strcmp(d, "2:300"), "share_delay: '%s'", d ? d : "(null)");
    CHECK(!hspmv_test_str("fold=0", "share_delay", buf, sizeof(buf)), "an absent string key");
}

/* Each bad string is refused with HSPMV_ERR_ARG and a message holding the
   offending pair. */
static void bad_pairs_are_refused_by_name(void)
{
    static const struct {
        const char *spec, *named;
    } bad[] = {
        {"nope=1", "nope=1"},                      /* unknown key */
        {"panels=3,Panels=3", "Panels=3"},         /* keys are case-sensitive */
        {"panels=", "panels="},                    /* empty */
        {"pieces=-1", "pieces=-1"},                /* negative */
        {"panels=0", "panels=0"},                  /* below the range */
        {"panels=257", "panels=257"},              /* above it */
        {"io_piece=2147483648", "io_piece=2147483648"}, /* 2^31 */
        {"dist_chunk=2147483648", "dist_chunk=2147483648"},
        {"read_chunk=99999999999999999999999", "read_chunk=99999999999999999999999"}, /* past a long */
        {"panels=abc", "panels=abc"},
        {"panels=1abc", "panels=1abc"},
        {"panels=0x10", "panels=0x10"},
        {"panels= 3", "panels= 3"},                /* no blanks */
        {"panels=+3", "panels=+3"},                /* no sign */
        {"panels=3.0", "panels=3.0"},
        {"panels", "panels"},                      /* missing '=' */
        {"merge=1,fold", "fold"},
        {"gather=sideways", "gather=sideways"},    /* names for gather */
        {"gather=2", "gather=2"},
        {"gather=Copy", "gather=Copy"},
        {"gather=", "gather="},
        {"gather=copyx", "gather=copyx"},
        {"share_delay=", "share_delay"},           /* a free string needs a value */
        {",panels=3", "''"},                       /* an empty pair */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        hspmv_error e = {0, ""};
        int rc = hspmv_test_check(bad[i].spec, &e);
        CHECK(rc == HSPMV_ERR_ARG, "'%s' gave %d, expected HSPMV_ERR_ARG", bad[i].spec, rc);
        CHECK(strstr(e.msg, bad[i].named) && strstr(e.msg, "HSPMV_TEST"), "'%s': the message does not name '%s': %s",
              bad[i].spec, bad[i].named, e.msg);
    }
}

/* hspmv_local_create reads HSPMV_TEST and refuses a bad one (nothing
   made); a good one is taken; hspmv_local_create_test uses the string it
   is given, not the environment's. */
static void local_create_refuses_a_bad_switch(void)
{
    hspmv_csr A;
    hspmv_local *L = NULL;
    hspmv_error e = {0, ""};
    hspmv_opts o;
    hspmv_opts_default(&o);
    o.threads = 2;
    CHECK(tl_read_csr("matrices/lap2d_64.mtx", &A) == HSPMV_OK, "read");
    static const char *bad[] = {"pieces=0", "pieces=x", "panels=3,nope=1", "stream_y=2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("HSPMV_TEST", bad[i], 1);
        L = (hspmv_local *)&e; /* must come back NULL */
        int rc = hspmv_local_create(&A, &o, &L, &e);
        CHECK(rc == HSPMV_ERR_ARG && L == NULL, "HSPMV_TEST=%s: create gave %d", bad[i], rc);
        CHECK(strstr(e.msg, "HSPMV_TEST") != NULL, "HSPMV_TEST=%s: message '%s'", bad[i], e.msg);
        hspmv_local_destroy(&L);
    }
    setenv("HSPMV_TEST", "pieces=3", 1);
    int rc = hspmv_local_create(&A, &o, &L, &e);
    CHECK(rc == HSPMV_OK && L && L->pieces == 3, "HSPMV_TEST=pieces=3: rc %d, %d pieces (%s)", rc, L ? L->pieces : -1,
          e.msg);
    hspmv_local_destroy(&L);
    setenv("HSPMV_TEST", "pieces=0", 1); /* bad in the environment, but the string given is used */
    rc = hspmv_local_create_test(&A, &o, "pieces=5", &L, &e);
    CHECK(rc == HSPMV_OK && L && L->pieces == 5, "create_test with pieces=5: rc %d, %d pieces (%s)", rc,
          L ? L->pieces : -1, e.msg);
    hspmv_local_destroy(&L);
    rc = hspmv_local_create_test(&A, &o, "pieces=99999", &L, &e);
    CHECK(rc == HSPMV_ERR_ARG && !L && strstr(e.msg, "pieces=99999"), "create_test with pieces=99999: %d %s", rc,
          e.msg);
    unsetenv("HSPMV_TEST");
    hspmv_csr_free(&A);
}

/* The readers that take a test key (read_chunk, io_piece) refuse a bad switch too. */
static void csr_read_refuses_a_bad_switch(void)
{
    hspmv_csr A;
    hspmv_error e = {0, ""};
    setenv("HSPMV_TEST", "read_chunk=0", 1);
    int rc = hspmv_csr_read("matrices/lap2d_64.mtx", &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "read_chunk=0"), "read with read_chunk=0: %d %s", rc, e.msg);
    CHECK(A.nrows == 0 && !A.rowptr, "a refused read left a matrix");
    setenv("HSPMV_TEST", "read_chunk=100", 1);
    rc = hspmv_csr_read("matrices/lap2d_64.mtx", &A, NULL, NULL, &e);
    CHECK(rc == HSPMV_OK && A.nrows == 64 * 64, "read with read_chunk=100: %d %s", rc, e.msg);
    hspmv_csr_free(&A);
    unsetenv("HSPMV_TEST");
}

int main(void)
{
    unsetenv("HSPMV_TEST");
    RUN(good_strings_parse_to_their_values);
    RUN(bad_pairs_are_refused_by_name);
    RUN(local_create_refuses_a_bad_switch);
    RUN(csr_read_refuses_a_bad_switch);
    CHECK_DONE();
}
