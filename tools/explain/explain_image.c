/* explain_image.c — `tfenc explain --model VISION_DIR --image FILE`: the
 * image through the folder's image pipeline with a trace callback, the
 * recording read into an image_view (the grid, the attention over the
 * patches, the rollout), then printed step by step or drawn as a page. */
#define _POSIX_C_SOURCE 200809L
#include "explain_image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_cli.h"
#include "options.h"
#include "pipeline_cli.h"

enum { SHOWN_VALUES = 6 };

/* ---- The view: the recording read ------------------------------------------------ */

const recorded *image_view_weights(const image_view *v, int layer)
{
    char name[64];
    snprintf(name, sizeof name, "layers.%d.attn.weights", layer);
    return recording_find(v->rec, name);
}

/* The patch side p of an H x W image cut into P square patches, or 0. */
static int patch_side(int H, int W, int P)
{
    const int p = (int)lround(sqrt((double)H * W / P));
    return p > 0 && H % p == 0 && W % p == 0 && (H / p) * (W / p) == P ? p : 0;
}

/* Where row y of a crop to `out` rows reads an image of `in` rows:
 * image_transforms.center_crop's offset, negative where it zero-pads. */
static int crop_offset(int in, int out)
{
    return in >= out ? (in - out) / 2 : -((out - in + 1) / 2);
}

/* v->shown [H, W, 3] = the resized (or decoded) image center-cropped to the
 * pixel_values' size, zero where the crop pads. */
static void crop_shown(image_view *v)
{
    const recorded *from = v->resized ? v->resized : v->decoded; /* [H1, W1, 3] */
    const int h1 = (int)from->dims[0], w1 = (int)from->dims[1];
    const int top = v->crop_top = crop_offset(h1, v->H);
    const int left = v->crop_left = crop_offset(w1, v->W);
    for (int y = 0; y < v->H; y++)
        for (int x = 0; x < v->W; x++)
            for (int c = 0; c < 3; c++) {
                const int sy = y + top, sx = x + left;
                const int inside = sy >= 0 && sy < h1 && sx >= 0 && sx < w1;
                v->shown[((size_t)y * v->W + x) * 3 + c] = inside
                    ? (uint8_t)from->data[((size_t)sy * w1 + sx) * 3 + c]
                    : 0;
            }
}

/* v->attention [L, NH, P]: each layer's and head's class-token row over the
 * patches, or (no class token) the mean over the queries of each patch's
 * column. */
static void patch_attention(image_view *v)
{
    const size_t T = (size_t)v->T, P = (size_t)v->P, cls = (size_t)v->cls;
    for (int l = 0; l < v->layers; l++) {
        const float *w = image_view_weights(v, l)->data; /* [1, NH, T, T] */
        for (int h = 0; h < v->heads; h++) {
            const float *m = w + (size_t)h * T * T; /* (T, T) */
            float *out = v->attention + ((size_t)l * v->heads + h) * P;
            for (size_t j = 0; j < P; j++) {
                double sum = 0;
                for (size_t i = 0; i < (cls ? 1 : T); i++)
                    sum += m[i * T + cls + j];
                out[j] = (float)(cls ? sum : sum / (double)T);
            }
        }
    }
}

/* v->rollout [P], as Abnar & Zuidema (2020), "Quantifying Attention Flow in
 * Transformers": each layer's heads averaged, the identity added (the
 * residual), rows renormalised to 1, the layers multiplied R = A_L ... A_1;
 * then the class token's row of R, or (SigLIP) the probe's attention, heads
 * averaged, times R. In double. */
static int attention_rollout(image_view *v)
{
    const size_t T = (size_t)v->T;
    double *r = calloc(T * T, sizeof *r), *a = calloc(T * T, sizeof *a); /* (T, T) each */
    double *next = calloc(T * T, sizeof *next);
    int ok = r && a && next;
    for (size_t i = 0; ok && i < T; i++)
        r[i * T + i] = 1.0;
    for (int l = 0; ok && l < v->layers; l++) {
        const float *w = image_view_weights(v, l)->data; /* [1, NH, T, T] */
        for (size_t i = 0; i < T; i++) {
            double row = 0;
            for (size_t j = 0; j < T; j++) {
                double mean = 0;
                for (int h = 0; h < v->heads; h++)
                    mean += w[((size_t)h * T + i) * T + j];
                a[i * T + j] = mean / v->heads + (i == j);
                row += a[i * T + j];
            }
            for (size_t j = 0; j < T; j++)
                a[i * T + j] /= row;
        }
        for (size_t i = 0; i < T; i++) /* next = a . r */
            for (size_t j = 0; j < T; j++) {
                double sum = 0;
                for (size_t k = 0; k < T; k++)
                    sum += a[i * T + k] * r[k * T + j];
                next[i * T + j] = sum;
            }
        memcpy(r, next, T * T * sizeof *r);
    }
    for (size_t j = 0; ok && j < (size_t)v->P; j++) {
        double sum = 0;
        if (v->cls) {
            sum = r[j + 1]; /* row 0, patch column j + 1 */
        } else {
            for (size_t i = 0; i < T; i++) {
                double probe = 0; /* the probe's attention to token i, heads averaged */
                for (int h = 0; h < v->heads; h++)
                    probe += v->probe->data[(size_t)h * T + i] / v->heads;
                sum += probe * r[i * T + j];
            }
        }
        v->rollout[j] = (float)sum;
    }
    free(r);
    free(a);
    free(next);
    return ok ? 0 : -1;
}

/* The view of a recording: 0, or -1 with a message in err. */
static int view_build(image_view *v, char *err, size_t err_size)
{
    const recording *rec = v->rec;
    v->decoded = recording_find(rec, "image.decoded");
    v->resized = recording_find(rec, "image.resized");
    v->pixel_values = recording_find(rec, "pixel_values");
    v->patches = recording_find(rec, "embed.patches");
    v->class_token = recording_find(rec, "embed.class_token");
    v->position = recording_find(rec, "embed.position");
    v->probe = recording_find(rec, "head.attn.weights");
    const recorded *first = recording_find(rec, "layers.0.attn.weights");
    if (!v->decoded || !v->pixel_values || !v->patches || !v->position || !first) {
        snprintf(err, err_size, "the trace lacks the image's %s",
                 !v->decoded        ? "image.decoded"
                     : !v->patches  ? "embed.patches"
                     : !v->position ? "embed.position"
                     : !first       ? "layers.0.attn.weights"
                                    : "pixel_values");
        return -1;
    }
    v->H = (int)v->pixel_values->dims[2], v->W = (int)v->pixel_values->dims[3];
    v->P = (int)v->patches->dims[1], v->D = (int)v->patches->dims[2];
    v->cls = v->class_token != NULL;
    v->T = v->P + v->cls;
    v->heads = (int)first->dims[1];
    while (image_view_weights(v, v->layers))
        v->layers++;
    v->p = patch_side(v->H, v->W, v->P);
    if (!v->p || first->dims[2] != v->T || (!v->cls && !v->probe)) {
        snprintf(err, err_size,
                 "the trace's %d patches of a %d x %d image and %d tokens do not make a grid%s",
                 v->P, v->W, v->H, (int)first->dims[2],
                 !v->cls && !v->probe ? " (no class token, no pooling head)" : "");
        return -1;
    }
    v->rows = v->H / v->p, v->cols = v->W / v->p;
    v->shown = malloc((size_t)v->H * v->W * 3);
    v->attention = malloc((size_t)v->layers * v->heads * v->P * sizeof *v->attention);
    v->rollout = malloc((size_t)v->P * sizeof *v->rollout);
    if (!v->shown || !v->attention || !v->rollout || attention_rollout(v) != 0) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    patch_attention(v);
    crop_shown(v);
    return 0;
}

static void view_free(image_view *v)
{
    free(v->shown);
    free(v->attention);
    free(v->rollout);
    free(v->output);
}

/* ---- The run ----------------------------------------------------------------------- */

static void record(const tf_trace_event *event, void *user)
{
    recording_add(user, event);
}

/* The image through the pipeline, traced into rec; v->output its vector.
 * 0, or CLI_FAILED after a message. */
static int run(const explain_image_options *o, const tf_pipeline *p, image_view *v, recording *rec)
{
    uint8_t *data;
    size_t size;
    if (image_cli_read("explain", o->image, &data, &size) != 0)
        return CLI_FAILED;
    v->dim = tf_pipeline_dim(p);
    v->output = malloc((size_t)v->dim * sizeof *v->output);
    const uint8_t *const images[1] = {data};
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 1, a.data = images, a.sizes = &size, a.out = v->output, a.out_len = (size_t)v->dim;
    a.trace = record, a.trace_user_data = rec;
    tf_status s = !v->output                      ? TF_ERR_OUT_OF_MEMORY
        : v->kind == TF_PIPELINE_IMAGE_CLASSIFIER ? tf_pipeline_classify_images(p, &a)
                                                  : tf_pipeline_embed_images(p, &a);
    free(data);
    if (s == TF_OK && rec->out_of_memory)
        s = TF_ERR_OUT_OF_MEMORY;
    if (s) {
        const char *message = s == TF_ERR_OUT_OF_MEMORY && !v->output ? "out of memory"
                                                                      : tf_last_error();
        static const char prefix[] = "image 0: ";
        const int numbered = !strncmp(message, prefix, sizeof prefix - 1);
        cli_error("explain", "%s: %s", o->image, numbered ? message + sizeof prefix - 1 : message);
        return CLI_FAILED;
    }
    return 0;
}

/* ---- Printing ------------------------------------------------------------------------ */

typedef struct printer {
    int step, color;
} printer;

static void heading(printer *pr, const char *title)
{
    pr->step++;
    if (pr->color)
        printf("\n\033[1;36mStep %d. %s\033[0m\n", pr->step, title);
    else
        printf("\nStep %d. %s\n", pr->step, title);
}

static void tensor_line(const recorded *ev, const char *meaning)
{
    printf("  %s  [", ev->name);
    for (int i = 0; i < ev->rank; i++)
        printf(i ? ", %lld" : "%lld", (long long)ev->dims[i]);
    printf("]  (%s)%s%s\n", ev->dim_names, meaning[0] ? "  " : "", meaning);
}

/* One row of n values: the first few and the last. */
static void value_row(const char *label, const float *x, int n)
{
    printf("    %-10s [", label);
    for (int i = 0; i < n && i < SHOWN_VALUES; i++)
        printf(" %7.3f", (double)x[i]);
    if (n > SHOWN_VALUES)
        printf("  ... %7.3f", (double)x[n - 1]);
    printf(" ]  (%d values)\n", n);
}

/* A rows x cols grid of the P values of patches (row by row). */
static void patch_grid(const image_view *v, const float *values)
{
    for (int r = 0; r < v->rows; r++) {
        printf("    ");
        for (int c = 0; c < v->cols; c++)
            printf(" %6.3f", (double)values[r * v->cols + c]);
        printf("\n");
    }
}

static void print_input(printer *pr, const image_view *v)
{
    const recorded *d = v->decoded, *r = v->resized;
    heading(pr, "Decoding: the file as RGB pixels");
    tensor_line(d, "values 0..255");
    printf("  %lld x %lld pixels (width x height)\n", (long long)d->dims[1], (long long)d->dims[0]);
    heading(pr, "Preprocessing: resize, center crop, rescale, normalise");
    printf("  %lld x %lld", (long long)d->dims[1], (long long)d->dims[0]);
    if (r)
        printf(" -> resize %lld x %lld", (long long)r->dims[1], (long long)r->dims[0]);
    const recorded *before = r ? r : d;
    if (before->dims[0] != v->H || before->dims[1] != v->W)
        printf(" -> center crop %d x %d", v->W, v->H);
    printf(" -> rescale, normalise -> [3, %d, %d]\n", v->H, v->W);
    if (r)
        tensor_line(r, "after the resize, before the crop");
    tensor_line(v->pixel_values, "what the tower reads; per channel:");
    const size_t plane = (size_t)v->H * v->W;
    for (int c = 0; c < 3; c++) {
        const float *x = v->pixel_values->data + c * plane;
        double lo = x[0], hi = x[0], mean = 0;
        for (size_t i = 0; i < plane; i++) {
            lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
            mean += x[i] / (double)plane;
        }
        printf("    %c  min %+.4f  mean %+.4f  max %+.4f\n", "RGB"[c], lo, mean, hi);
    }
}

static void print_embedding(printer *pr, const image_view *v)
{
    const int K = 3 * v->p * v->p;
    heading(pr, "Patches: the image cut into a grid");
    printf("  %d / %d = %d rows x %d / %d = %d columns of %d x %d pixels: N_patches = %d,\n"
           "  each 3 x %d x %d = %d values, row by row from the top left\n",
           v->H, v->p, v->rows, v->W, v->p, v->cols, v->p, v->p, v->P, v->p, v->p, K);
    heading(pr, "Patch embedding: one product for every patch");
    printf("  a Conv2d of kernel = stride = %d: (%d, %d) . W^T (%d, %d) + b -> (%d, %d)\n", v->p,
           v->P, K, K, v->D, v->P, v->D);
    tensor_line(v->patches, "(N_patches, D) for the one image");
    value_row("patch 0", v->patches->data, v->D);
    value_row("last", v->patches->data + (size_t)(v->P - 1) * v->D, v->D);
    heading(pr, "Class token");
    if (v->cls) {
        tensor_line(v->class_token, "one learned vector, put before the patches:");
        printf("  T = %d patches + 1 = %d tokens; its output row is the image's\n", v->P, v->T);
        value_row("class", v->class_token->data, v->D);
    } else {
        printf("  none: this tower has no class token, T = N_patches = %d; at the end the\n"
               "  attention-pooling head's probe reads every token (head.attn.weights)\n",
               v->P);
    }
    heading(pr, "Positions: one learned row per token, added");
    tensor_line(v->position,
                v->cls ? "row 0 the class token's, then one per patch" : "one per patch");
    value_row(v->cls ? "class" : "patch 0", v->position->data, v->D);
}

/* One layer's events, the chosen head's attention over the patches. */
static void print_layer(printer *pr, const image_view *v, int l, int head)
{
    char title[96];
    snprintf(title, sizeof title, "Layer %d of %d", l, v->layers);
    heading(pr, title);
    for (size_t i = 0; i < v->rec->n; i++) {
        const recorded *e = &v->rec->events[i];
        if (e->layer != l)
            continue;
        tensor_line(e, "");
        static const char weights[] = ".attn.weights";
        const size_t n = strlen(e->name);
        if (n < sizeof weights || strcmp(e->name + n - (sizeof weights - 1), weights) != 0)
            continue;
        printf("  head %d: %s over the %d x %d patches:\n", head,
               v->cls ? "the class token's attention" : "the mean attention over the queries",
               v->rows, v->cols);
        patch_grid(v, v->attention + ((size_t)l * v->heads + head) * v->P);
    }
}

static void print_end(printer *pr, const image_view *v, int head)
{
    heading(pr, "After the layers");
    int traced = 0;
    for (size_t i = 0; i < v->rec->n; i++) {
        const recorded *e = &v->rec->events[i];
        if (e->layer < 0 && e > image_view_weights(v, v->layers - 1)) {
            tensor_line(e, "");
            traced++;
        }
    }
    if (!traced)
        printf("  none traced: the head reads the class token's row of the last layer's "
               "output\n");
    if (v->probe) {
        printf("  head %d: the probe's attention over the %d x %d patches:\n", head, v->rows,
               v->cols);
        patch_grid(v, v->probe->data + (size_t)head * v->T);
    }
    heading(pr, "Attention rollout (Abnar & Zuidema 2020)");
    printf("  each layer: heads averaged, + identity (the residual), rows renormalised;\n"
           "  layers multiplied; %s over the patches:\n",
           v->cls ? "the class token's row" : "the probe's attention (heads averaged) times it");
    patch_grid(v, v->rollout);
    heading(pr,
            v->kind == TF_PIPELINE_IMAGE_CLASSIFIER ? "Output: the label probabilities"
                                                    : "Output: the image's vector");
    value_row("output", v->output, v->dim);
}

static void print_walkthrough(const image_view *v, int head)
{
    printer pr = {.color = isatty(STDOUT_FILENO)};
    printf("libtfenc %s: a vision Transformer, step by step\n", tf_version_string());
    printf("model: %s (%s, %d values an image)\nimage: %s\n", v->model,
           tf_pipeline_kind_name(v->kind), (int)v->dim, v->image);
    printf("       %d layers, %d heads, D %d, patches of %d x %d pixels\n", v->layers, v->heads,
           v->D, v->p, v->p);
    print_input(&pr, v);
    print_embedding(&pr, v);
    heading(&pr, "Encoder input");
    for (size_t i = 0; i < v->rec->n; i++) {
        const recorded *e = &v->rec->events[i];
        if (e->layer < 0 && !strncmp(e->name, "embed.", 6) && e > v->position)
            tensor_line(e, "");
    }
    for (int l = 0; l < v->layers; l++)
        print_layer(&pr, v, l, head);
    print_end(&pr, v, head);
}

int explain_image(const explain_image_options *o)
{
    int32_t is_image = 0;
    if (tf_model_is_image(o->model, &is_image) != TF_OK) {
        cli_error("explain", "%s", tf_last_error());
        return CLI_FAILED;
    }
    if (!is_image) {
        cli_error("explain",
                  "--image: --model %s is not an image model (a ViT, CLIP or SigLIP folder); "
                  "explain a text with --text",
                  o->model);
        return CLI_USAGE;
    }
    const unsigned kinds = PIPELINE_CLI_KIND(TF_PIPELINE_IMAGE_EMBEDDING) |
        PIPELINE_CLI_KIND(TF_PIPELINE_IMAGE_CLASSIFIER);
    tf_pipeline *p = pipeline_cli_load("explain", o->model, 0, kinds);
    if (!p)
        return CLI_FAILED;
    recording rec = {0};
    image_view v = {
        .model = o->model, .image = o->image, .kind = tf_pipeline_kind_of(p), .rec = &rec};
    char err[512];
    int rc = run(o, p, &v, &rec);
    if (rc == 0 && view_build(&v, err, sizeof err) != 0) {
        cli_error("explain", "%s", err);
        rc = CLI_FAILED;
    }
    if (rc == 0 && o->head >= v.heads) {
        char expected[64], got[16];
        snprintf(expected, sizeof expected, "an integer 0..%d (the model's heads)", v.heads - 1);
        snprintf(got, sizeof got, "%d", (int)o->head);
        cli_refuse("explain", "--head", expected, got);
        rc = CLI_USAGE;
    }
    if (rc == 0 && o->html) {
        if (explain_image_html_write(o->html, &v, err, sizeof err) != 0) {
            cli_error("explain", "--html: %s", err);
            rc = CLI_FAILED;
        } else {
            printf("wrote %s: %d x %d patches, %d layers x %d heads of attention, %zu traced "
                   "tensors\n",
                   o->html, v.rows, v.cols, v.layers, v.heads, rec.n);
        }
    } else if (rc == 0) {
        print_walkthrough(&v, o->head);
    }
    view_free(&v);
    recording_free(&rec);
    tf_pipeline_destroy(p);
    return rc;
}
