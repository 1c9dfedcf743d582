/* text_file.h — a file read whole for a test. Test-only. */
#ifndef TEST_TEXT_FILE_H
#define TEST_TEXT_FILE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of path and a NUL (free them); their count into *len unless
 * len is NULL. */
static inline char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: missing", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    text[n] = '\0';
    if (len)
        *len = (size_t)n;
    return text;
}

#endif
