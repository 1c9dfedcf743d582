/* suite.h — runs a Check suite and turns its result into an exit status.
 * Test-only. */
#ifndef TEST_SUITE_H
#define TEST_SUITE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* The directory the environment variable `name` names (meson's test
 * environment sets TFENC_DATA_DIR and TFENC_GOLDEN_DIR); exits when unset. */
static inline const char *test_dir(const char *name)
{
    const char *dir = getenv(name);
    if (!dir) {
        fprintf(stderr, "%s is not set\n", name);
        exit(EXIT_FAILURE);
    }
    return dir;
}

static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
