/* tmp_dir.h — a scratch directory for a test, and paths in it. Test-only. */
#ifndef TEST_TMP_DIR_H
#define TEST_TMP_DIR_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct path_buf {
    char s[1024];
} path_buf;

/* dir/name, by value: join(join(a, b).s, c).s is fine within one expression.
 * Usable outside a test too (suites build names with it), so no ck_assert. */
static inline path_buf join(const char *dir, const char *name)
{
    path_buf p;
    if (snprintf(p.s, sizeof p.s, "%s/%s", dir, name) >= (int)sizeof p.s) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(EXIT_FAILURE);
    }
    return p;
}

/* The test's scratch directory: mkdtemp's, 0700. */
static char tmp_dir[256];

static inline void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/tfenc-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

static inline void remove_tmp_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    ck_assert_int_eq(system(cmd), 0);
}

#endif
