/* suite.h — runs a Check suite and turns its result into an exit status.
 * Test-only. */
#ifndef TEST_SUITE_H
#define TEST_SUITE_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
