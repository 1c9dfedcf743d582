/* json_fixture.h — a generator's expected.json read whole, and small files
 * written for a test. Test-only. */
#ifndef TEST_JSON_FIXTURE_H
#define TEST_JSON_FIXTURE_H

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>

/* The JSON at path (at most 1 MiB); cJSON_Delete it. */
static inline cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char text[1 << 20];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "%s is not JSON", path);
    return root;
}

/* obj's key, which must be there. */
static inline const cJSON *json_at(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    ck_assert_msg(item != NULL, "expected.json lacks %s", key);
    return item;
}

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

#endif
