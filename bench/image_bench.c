/* image_bench.c — decode + preprocess time per image: an image file's bytes
 * (already in memory) decoded to RGB and preprocessed into pixel_values
 * [3, H, W] as a preprocessor_config.json asks (CLIP's defaults, 224 x 224,
 * without one), each step timed apart and together.
 *
 *   image-bench IMAGE [preprocessor_config.json] [--min-time SECONDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "image/image_config.h"
#include "image_preprocess.h"
#include "timing.h"

typedef struct job {
    const uint8_t *bytes;
    size_t size;
    const tf__image_preprocess *p;
    tf__image decoded; /* for the preprocess-only timing */
    float *out;        /* [3, H, W] */
    size_t out_len;
} job;

static int decode_only(void *ctx)
{
    job *j = ctx;
    tf__image img;
    const tf_status st = tf__image_decode(j->bytes, j->size, TF_IMAGE_MAX_PIXELS, "bench", &img);
    tf__image_free(&img);
    return st;
}

static int preprocess_only(void *ctx)
{
    job *j = ctx;
    return tf__image_preprocess_run(j->p, &j->decoded, TF_IMAGE_MAX_PIXELS, j->out, j->out_len);
}

static int both(void *ctx)
{
    const int st = decode_only(ctx);
    return st ? st : preprocess_only(ctx);
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
    *size = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    return data;
}

int main(int argc, char **argv)
{
    const char *image = NULL, *config = NULL;
    double min_time = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc)
            min_time = atof(argv[++i]);
        else if (!image)
            image = argv[i];
        else
            config = argv[i];
    }
    if (!image) {
        fprintf(stderr,
                "usage: image-bench IMAGE [preprocessor_config.json] "
                "[--min-time SECONDS]\n");
        return 2;
    }
    tf__image_processor kind = TF_IMAGE_PROCESSOR_CLIP;
    tf__image_preprocess p;
    tf__image_processor_defaults(kind, &p);
    if (config && tf__image_config_read(config, &kind, &p) != TF_OK) {
        fprintf(stderr, "image-bench: %s\n", tf_last_error());
        return 1;
    }
    job j = {.p = &p};
    uint8_t *bytes = read_all(image, &j.size);
    j.bytes = bytes;
    if (!bytes ||
        tf__image_decode(bytes, j.size, TF_IMAGE_MAX_PIXELS, image, &j.decoded) != TF_OK) {
        fprintf(stderr, "image-bench: %s: %s\n", image, bytes ? tf_last_error() : "cannot read");
        free(bytes);
        return 1;
    }
    int32_t oh, ow;
    tf__image_output_size(&p, j.decoded.height, j.decoded.width, &oh, &ow);
    j.out_len = (size_t)3 * oh * ow;
    j.out = malloc(j.out_len * sizeof *j.out);
    printf("image-bench: %s (%zu bytes, %d x %d) -> %s pixel_values [3, %d, %d], %s\n", image,
           j.size, j.decoded.width, j.decoded.height, tf__image_processor_name(kind), oh, ow,
           tf__resample_name(p.resample));
    static const struct {
        const char *name;
        int (*work)(void *);
    } steps[] = {
        {"decode", decode_only}, {"preprocess", preprocess_only}, {"decode+preprocess", both}};
    int status = 0;
    for (size_t s = 0; s < sizeof steps / sizeof steps[0] && !status; s++) {
        double median, best;
        steps[s].work(&j); /* warm-up */
        status = bench_time_runs(steps[s].work, &j, min_time, &median, &best);
        if (!status)
            printf("  %-18s median %8.3f ms  best %8.3f ms  (%.0f images/s)\n", steps[s].name,
                   median * 1e3, best * 1e3, 1.0 / median);
    }
    if (status)
        fprintf(stderr, "image-bench: %s\n", tf_last_error());
    free(j.out);
    tf__image_free(&j.decoded);
    free(bytes);
    return status ? 1 : 0;
}
