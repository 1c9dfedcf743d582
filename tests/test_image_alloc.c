/* test_image_alloc.c — a hostile image (tests/data/images/hostile: a header
 * of 65535 x 65535, a 9 KB decompression bomb of 3000 x 3000, truncated
 * data) is refused before any allocation in proportion to what it claims:
 * this program replaces malloc and its relatives for the whole process, so
 * that the library's allocations and libjpeg's, libpng's and libwebp's all
 * count, and every refusal's largest single request stays under 1 MiB
 * (the bombs claim 27 MB of RGB and more). */
#define _GNU_SOURCE
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fixture.h"
#include "common/suite.h"
#include "image.h"

/* ---- Counting allocator ---------------------------------------------------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_size_t largest; /* the largest single request since the last reset */

static void note(size_t n)
{
    size_t seen = atomic_load(&largest);
    while (n > seen && !atomic_compare_exchange_weak(&largest, &seen, n))
        ;
}

void *malloc(size_t n)
{
    note(n);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    note(size && n > SIZE_MAX / size ? SIZE_MAX : n * size);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    note(n);
    return __libc_realloc(p, n);
}

void *aligned_alloc(size_t alignment, size_t n)
{
    note(n);
    return __libc_memalign(alignment, n);
}

int posix_memalign(void **out, size_t alignment, size_t n)
{
    note(n);
    *out = __libc_memalign(alignment, n);
    return *out ? 0 : 12; /* ENOMEM */
}

/* ---- The test ---------------------------------------------------------------- */

#define SMALL (1u << 20)

static char images_dir[1024];

static uint8_t *read_bytes(const char *name, size_t *n)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/hostile/%s", images_dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    *n = fread(data, 1, (size_t)size, f);
    fclose(f);
    return data;
}

START_TEST(hostile_refused_small)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/expected.json", images_dir);
    cJSON *root = read_json(path);
    const cJSON *entry;
    int count = 0;
    cJSON_ArrayForEach(entry, json_at(root, "hostile"))
    {
        const char *name = json_at(entry, "name")->valuestring;
        const int max_pixels = (int)json_at(entry, "max_pixels")->valuedouble;
        size_t n;
        uint8_t *data = read_bytes(name, &n);
        atomic_store(&largest, 0);
        tf__image img;
        const tf_status st = tf__image_decode(
            data, n, max_pixels ? max_pixels : TF_IMAGE_MAX_PIXELS, name, &img);
        const size_t seen = atomic_load(&largest);
        ck_assert_int_ne(st, TF_OK);
        ck_assert_msg(seen < SMALL, "%s: an allocation of %zu bytes before it was refused", name,
                      seen);
        free(data);
        count++;
    }
    ck_assert_int_ge(count, 15);
    cJSON_Delete(root);
}
END_TEST

/* The counter sees the decoder's allocations: the bomb decoded under the
 * default limit allocates its 27 MB. */
START_TEST(counter_sees_decoding)
{
    size_t n;
    uint8_t *data = read_bytes("bomb_3000.png", &n);
    atomic_store(&largest, 0);
    tf__image img;
    ck_assert_int_eq(tf__image_decode(data, n, TF_IMAGE_MAX_PIXELS, "bomb", &img), TF_OK);
    ck_assert_uint_ge(atomic_load(&largest), (size_t)3000 * 3000 * 3);
    tf__image_free(&img);
    free(data);
}
END_TEST

int main(void)
{
    const char *data = getenv("TFENC_DATA_DIR");
    if (!data)
        return 77;
    snprintf(images_dir, sizeof images_dir, "%s/images", data);
    Suite *s = suite_create("image_alloc");
    TCase *tc = tcase_create("image_alloc");
    tcase_add_test(tc, hostile_refused_small);
    tcase_add_test(tc, counter_sees_decoding);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
