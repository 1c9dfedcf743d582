/* test_image_alloc_failure.c — with the library built with its allocation
 * hook, every allocation the image path makes (lib/image/, formats/image/:
 * decoding each format, the EXIF turn, a CMYK JPEG's row, 16-bit PNG,
 * resizing, preprocessing, preprocessor_config.json) is made to fail in
 * turn: each run returns TF_ERR_OUT_OF_MEMORY or succeeds, and leaks
 * nothing (the decoders' own allocations are theirs, freed on every path
 * by their destroy calls, which valgrind's run of test_image checks). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_hook.h"
#include "common/suite.h"
#include "image.h"
#include "image/image_config.h"
#include "image_preprocess.h"

static char images_dir[1024];

/* One image: its file's bytes, decoded and preprocessed under a config. */
typedef struct scenario {
    const char *file, *config;
    uint8_t *bytes;
    size_t size;
} scenario;

static tf_status decode_and_preprocess(scenario *sc)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/configs/%s.json", images_dir, sc->config);
    tf__image_processor kind;
    tf__image_preprocess p;
    tf_status st = tf__image_config_read(path, &kind, &p);
    if (st != TF_OK)
        return st;
    tf__image img;
    if ((st = tf__image_decode(sc->bytes, sc->size, TF_IMAGE_MAX_PIXELS, sc->file, &img)) != TF_OK)
        return st;
    int32_t h, w;
    tf__image_output_size(&p, img.height, img.width, &h, &w);
    const size_t len = (size_t)3 * h * w;
    float *out = malloc(len * sizeof *out); /* [3, h, w]; the test's, not hooked */
    st = tf__image_preprocess_run(&p, &img, TF_IMAGE_MAX_PIXELS, out, len);
    free(out);
    tf__image_free(&img);
    return st;
}

static const char *const cases[][2] = {
    {"cmyk_13x10.jpg", "clip"},           {"exif6_7x5.jpg", "clip_pad"},
    {"grey16_11x6.png", "siglip"},        {"interlaced_rgba16_9x10.png", "vit"},
    {"palette_trns_12x7.png", "vit_box"}, {"animated_12x8.webp", "vit_lanczos"},
    {"exif8_9x6.webp", "vit_hamming"},
};

START_TEST(every_allocation_fails_in_turn)
{
    scenario sc = {cases[_i][0], cases[_i][1], NULL, 0};
    char path[2048];
    snprintf(path, sizeof path, "%s/files/%s", images_dir, sc.file);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    sc.size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    sc.bytes = malloc(sc.size);
    ck_assert_uint_eq(fread(sc.bytes, 1, sc.size, f), sc.size);
    fclose(f);
    for (long n = 1;; n++) {
        const long before = tf__alloc_hook_live();
        tf__alloc_hook_fail_at(n);
        const tf_status st = decode_and_preprocess(&sc);
        const int failed = tf__alloc_hook_failed();
        tf__alloc_hook_fail_at(0);
        ck_assert_msg(tf__alloc_hook_live() == before, "%s, allocation %ld failing: %ld leaked",
                      sc.file, n, tf__alloc_hook_live() - before);
        if (!failed) {
            ck_assert_msg(st == TF_OK, "%s: %s", sc.file, tf_last_error());
            ck_assert_int_ge(n, 4); /* the config, the image, the resize: each allocates */
            break;
        }
        ck_assert_msg(st == TF_ERR_OUT_OF_MEMORY, "%s, allocation %ld failing: %s (%s)", sc.file, n,
                      tf_status_name(st), tf_last_error());
    }
    free(sc.bytes);
}
END_TEST

int main(void)
{
    const char *data = getenv("TFENC_DATA_DIR");
    if (!data)
        return 77;
    snprintf(images_dir, sizeof images_dir, "%s/images", data);
    Suite *s = suite_create("image_alloc_failure");
    TCase *tc = tcase_create("image_alloc_failure");
    tcase_add_loop_test(tc, every_allocation_fails_in_turn, 0, sizeof cases / sizeof cases[0]);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
