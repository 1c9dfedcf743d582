/* vision_bench.c — libtfenc's side of bench/vision_compare.py: a long-lived
 * worker that loads a vision tower from a Hugging Face folder and times
 * its forward calls, driven one command a line over stdin, one reply a
 * line on stdout ("ok [value]" or "error <message>"):
 *
 *   load DIR THREADS   the folder's tower, calls on THREADS threads
 *   input PATH         pixel_values [B, C, H, W] from a float32 .npy
 *   run                one forward call; replies its milliseconds
 *   dump PATH          the last call's image_embeds [B, E] (or pooled
 *                      output [B, D]) as raw float32
 *
 * The internal API (model/vision/vision.h, formats/vision_folder.h) until
 * the public calls exist, so it links the static core. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npy.h"
#include "tfenc.h"
#include "vision.h"
#include "vision_folder.h"

typedef struct worker {
    tf__vision_model *model;
    int32_t threads;
    npy_array pixels; /* [B, C, H, W] */
    int has_pixels;
    float *hidden; /* [B, T, D] */
    float *out;    /* [B, E] image_embeds, else [B, D] pooled */
    size_t out_count;
} worker;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void reply_error(const char *what)
{
    printf("error %s\n", what);
}

static void do_load(worker *w, const char *dir, int32_t threads)
{
    tf__vision_model_free(w->model);
    w->model = NULL;
    if (tf__vision_folder_load(dir, &w->model) != TF_OK)
        return reply_error(tf_last_error());
    w->threads = threads;
    printf("ok\n");
}

static void do_input(worker *w, const char *path)
{
    char err[256];
    if (w->has_pixels)
        npy_free(&w->pixels);
    w->has_pixels = 0;
    if (npy_read(path, &w->pixels, err, sizeof err) != 0)
        return reply_error(err);
    if (w->pixels.rank != 4 || w->pixels.dtype != 'f')
        return reply_error("pixel_values must be float32 [B, C, H, W]");
    w->has_pixels = 1;
    const tf__vision_config *c = tf__vision_model_config(w->model);
    const size_t B = (size_t)w->pixels.dims[0];
    const size_t T = (size_t)tf__vision_tokens(c, (int32_t)w->pixels.dims[2],
                                               (int32_t)w->pixels.dims[3]);
    const size_t width = (size_t)(c->projection_dim ? c->projection_dim : c->d_model);
    free(w->hidden), free(w->out);
    w->hidden = malloc(B * (T ? T : 1) * (size_t)c->d_model * sizeof(float));
    w->out = malloc(B * width * sizeof(float));
    w->out_count = B * width;
    if (!w->hidden || !w->out)
        return reply_error("out of memory");
    printf("ok\n");
}

static void do_run(worker *w)
{
    if (!w->model || !w->has_pixels)
        return reply_error("load and input first");
    const tf__vision_config *c = tf__vision_model_config(w->model);
    const tf__vision_args a = {
        .batch = (int32_t)w->pixels.dims[0],
        .channels = (int32_t)w->pixels.dims[1],
        .height = (int32_t)w->pixels.dims[2],
        .width = (int32_t)w->pixels.dims[3],
        .pixel_values = w->pixels.data,
        .last_hidden_state = w->hidden,
        .image_embeds = c->projection_dim ? w->out : NULL,
        .pooled_output = c->projection_dim ? NULL : w->out,
        .n_threads = w->threads,
    };
    const double t0 = now_ms();
    if (tf__vision_forward(w->model, &a) != TF_OK)
        return reply_error(tf_last_error());
    printf("ok %.3f\n", now_ms() - t0);
}

static void do_dump(const worker *w, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return reply_error("cannot open the dump file");
    const size_t n = fwrite(w->out, sizeof(float), w->out_count, f);
    if (fclose(f) != 0 || n != w->out_count)
        return reply_error("cannot write the dump file");
    printf("ok\n");
}

int main(void)
{
    worker w = {0};
    char line[4096], arg[4000];
    int threads;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "load %3999s %d", arg, &threads) == 2)
            do_load(&w, arg, threads);
        else if (sscanf(line, "input %3999s", arg) == 1)
            do_input(&w, arg);
        else if (strncmp(line, "run", 3) == 0)
            do_run(&w);
        else if (sscanf(line, "dump %3999s", arg) == 1)
            do_dump(&w, arg);
        else
            reply_error("unknown command");
        fflush(stdout);
    }
    tf__vision_model_free(w.model);
    if (w.has_pixels)
        npy_free(&w.pixels);
    free(w.hidden), free(w.out);
    return 0;
}
