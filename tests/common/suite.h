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

/* The fixture cases listed in <dir>/cases.txt, dir the directory the
 * environment variable `env` names, into dir_out (size bytes) and names
 * (at most max of 64 bytes each). Returns their count, or -1 when the
 * variable is unset or the list is missing (said on stderr, `generator`
 * naming what writes it): the test then skips. */
static inline int read_cases(const char *env, const char *generator, char *dir_out, size_t size,
                             char (*names)[64], int max)
{
    const char *dir = getenv(env);
    if (!dir) {
        fprintf(stderr, "%s is not set\n", env);
        return -1;
    }
    char path[1024];
    if (snprintf(dir_out, size, "%s", dir) >= (int)size ||
        snprintf(path, sizeof path, "%s/cases.txt", dir) >= (int)sizeof path)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: missing (run %s)\n", path, generator);
        return -1;
    }
    int n = 0;
    while (n < max && fscanf(f, "%63s", names[n]) == 1)
        n++;
    fclose(f);
    return n;
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
