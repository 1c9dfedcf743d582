/* pipeline_images.c — an image pipeline: a vision folder (formats/
 * vision_folder.h) with its preprocessor_config.json (formats/image/
 * image_config.h) as one handle, and tf_pipeline_embed_images /
 * tf_pipeline_classify_images: images (encoded bytes, RGB pixels or
 * pixel_values) decoded (image/image.h), preprocessed
 * (image/image_preprocess.h) and run through the tower (model/vision/
 * vision.h) a batch at a time.
 *
 * Dimension letters: n images in the call, B in one batch, S the tower's
 * square side, D its width, T its tokens, W the call's output width (dim). */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "classifier_head.h"
#include "error.h"
#include "image_folder.h"
#include "pipeline.h"
#include "pipeline_images.h"
#include "sentence_pool.h"
#include "vision.h"
#include "vision_folder.h"

/* Images per forward call when the caller does not say. */
#define DEFAULT_BATCH 32

struct tf__pipeline_images {
    tf__vision_model *model;
    tf__image_processor processor;
    tf__image_preprocess pre;
    tf__head_activation activation; /* the classifier's: ImageClassificationPipeline's */
};

static const tf_image_args image_args_defaults = {.struct_size = sizeof(tf_image_args)};

void tf_image_args_init_sized(tf_image_args *args, size_t struct_size)
{
    tf__abi_init(args, struct_size, &image_args_defaults, sizeof image_args_defaults);
}

/* ---- Loading ---------------------------------------------------------------------------- */

/* The pixel_values' side the processor gives every image, when it does not
 * depend on the image (a crop, or a resize to height x width): 1. */
static int fixed_output(const tf__image_preprocess *pre, int32_t *h, int32_t *w)
{
    if (pre->do_center_crop) {
        *h = pre->crop_height, *w = pre->crop_width;
        return 1;
    }
    if (pre->do_resize && pre->shortest_edge == 0) {
        *h = pre->resize_height, *w = pre->resize_width;
        return 1;
    }
    return 0;
}

/* The folder's processor agrees with its tower: RGB in, and a fixed output
 * (where the config gives one) of the trained size. */
static tf_status check_processor(const tf__pipeline_images *im)
{
    const tf__vision_config *c = tf__vision_model_config(im->model);
    if (c->channels != 3)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: num_channels %d: images are RGB, 3 channels",
                        (int)c->channels);
    if (!c->n_labels && !c->projection_dim && c->family == TF_VISION_SIGLIP && !c->attention_pool)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: vision_use_head false: a SigLIP tower without its head "
                        "has no pooled output to embed with");
    int32_t h, w;
    if (fixed_output(&im->pre, &h, &w) && (h != c->image_size || w != c->image_size))
        return tf__fail(TF_ERR_FORMAT,
                        "preprocessor_config.json: %s gives %d x %d pixel_values, config.json's "
                        "image_size is %d",
                        tf__image_processor_name(im->processor), (int)h, (int)w,
                        (int)c->image_size);
    return TF_OK;
}

/* The labels of a classifier (p->arch, as a text classifier's) and what
 * turns its logits into scores. */
static tf_status load_labels(tf_pipeline *p, const char *model_dir)
{
    const tf__vision_config *c = tf__vision_model_config(p->images->model);
    tf_status s = tf__image_folder_labels(model_dir, &p->arch);
    if (s == TF_OK && p->arch.n_labels != c->n_labels)
        s = tf__fail(TF_ERR_FORMAT, "config.json: id2label has %d labels, the classifier %d",
                     (int)p->arch.n_labels, (int)c->n_labels);
    const int sigmoid = p->arch.problem == TF_PROBLEM_MULTI_LABEL || c->n_labels == 1;
    p->images->activation = sigmoid ? TF_HEAD_SIGMOID : TF_HEAD_SOFTMAX;
    p->kind = TF_PIPELINE_IMAGE_CLASSIFIER;
    p->dim = c->n_labels;
    return s;
}

tf_status tf__pipeline_images_load(tf_pipeline *p, const char *dir, const char *model_dir,
                                   const tf_pipeline_options *o)
{
    if (o->max_seq_length != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_seq_length %d: an image pipeline has no tokens (expected 0)",
                        (int)o->max_seq_length);
    if (!(p->images = tf__calloc(1, sizeof *p->images)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the image pipeline");
    tf__pipeline_images *im = p->images;
    tf_status s = tf__vision_folder_load(dir, &im->model);
    if (s == TF_OK)
        s = tf__image_folder_processor(model_dir, &im->processor, &im->pre);
    if (s == TF_OK)
        s = check_processor(im);
    if (s)
        return s;
    const tf__vision_config *c = tf__vision_model_config(im->model);
    if (c->n_labels)
        return load_labels(p, model_dir);
    p->kind = TF_PIPELINE_IMAGE_EMBEDDING;
    p->dim = c->projection_dim ? c->projection_dim : c->d_model;
    return TF_OK;
}

void tf__pipeline_images_free(tf__pipeline_images *im)
{
    if (!im)
        return;
    tf__vision_model_free(im->model);
    tf__free(im);
}

/* ---- A call's arguments ----------------------------------------------------------------- */

/* The caller's args into *a, checked for what both calls need; call names
 * the call in messages, want its pipeline kind. */
static tf_status read_args(tf_image_args *a, const tf_pipeline *p, const tf_image_args *in,
                           const char *call, tf_pipeline_kind want)
{
    *a = image_args_defaults;
    if (!p)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: p is NULL", call);
    if (!in)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: args is NULL", call);
    tf_status s = tf__abi_read(a, sizeof *a, in, TF_IMAGE_ARGS_SIZE_0_5, "args");
    if (s)
        return s;
    if (p->kind != want)
        return tf__pipeline_wrong_kind(p, call);
    const int forms = !!a->data + !!a->pixels + !!a->pixel_values;
    if (a->n == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.n: expected at least 1 image, got 0");
    if (forms != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args: give the images as one of data, pixels or pixel_values, got %d",
                        forms);
    if (a->data && !a->sizes)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.sizes is NULL beside args.data");
    for (size_t i = 0; a->data && i < a->n; i++)
        if (!a->data[i])
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.data[%zu] is NULL", i);
    if (!a->data &&
        (a->height < 1 || a->height > TF_IMAGE_MAX_SIDE || a->width < 1 ||
         a->width > TF_IMAGE_MAX_SIDE))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.height x width: expected 1..%d each, got %d x %d", TF_IMAGE_MAX_SIDE,
                        (int)a->height, (int)a->width);
    if (a->normalize < 0 || a->normalize > (want == TF_PIPELINE_IMAGE_EMBEDDING))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.normalize: expected %s, got %d",
                        want == TF_PIPELINE_IMAGE_EMBEDDING ? "0 or 1" : "0", (int)a->normalize);
    if (a->batch_size < 0 || a->max_pixels < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.batch_size %d, max_pixels %lld: expected 0 (default) or more",
                        (int)a->batch_size, (long long)a->max_pixels);
    if (!a->out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.out is NULL");
    const size_t width = (size_t)p->dim;
    if (a->out_len / width < a->n)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.out_len %zu: %zu images of %zu values need %zu floats", a->out_len,
                        a->n, width, a->n * width);
    if (!a->batch_size)
        a->batch_size = DEFAULT_BATCH;
    if (!a->max_pixels)
        a->max_pixels = TF_IMAGE_MAX_PIXELS;
    return TF_OK;
}

/* ---- One batch ----------------------------------------------------------------------------- */

/* Image i of the call's caller-decoded pixels as an image (not copied). */
static tf__image pixels_image(const tf_image_args *a, size_t i)
{
    const size_t bytes = (size_t)a->height * (size_t)a->width * 3;
    return (tf__image){a->height, a->width, (uint8_t *)(uintptr_t)(a->pixels + i * bytes)};
}

/* Image i (of the call) preprocessed into px [3, S, S]. */
static tf_status preprocess_one(const tf__pipeline_images *im, const tf_image_args *a, size_t i,
                                float *px)
{
    const tf__vision_config *c = tf__vision_model_config(im->model);
    const size_t index = a->first_index + i, plane = (size_t)c->image_size * c->image_size;
    if (a->pixel_values) {
        if (a->height != c->image_size || a->width != c->image_size)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "args.pixel_values: %d x %d images, the model's are %d x %d "
                            "(config.json's image_size)",
                            (int)a->height, (int)a->width, (int)c->image_size, (int)c->image_size);
        memcpy(px, a->pixel_values + i * 3 * plane, 3 * plane * sizeof *px);
        return TF_OK;
    }
    char label[40];
    snprintf(label, sizeof label, "image %zu", index);
    tf__image decoded = {0};
    tf_status s = TF_OK;
    if (a->data)
        s = tf__image_decode(a->data[i], a->sizes[i], a->max_pixels, label, &decoded);
    const tf__image img = a->data ? decoded : pixels_image(a, i);
    int32_t h = 0, w = 0;
    if (s == TF_OK)
        tf__image_output_size(&im->pre, img.height, img.width, &h, &w);
    if (s == TF_OK && (h != c->image_size || w != c->image_size))
        s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                     "%s: Input image size (%d*%d) doesn't match model (%d*%d): %s gives the %d x "
                     "%d image pixel_values of %d x %d",
                     label, (int)h, (int)w, (int)c->image_size, (int)c->image_size,
                     tf__image_processor_name(im->processor), (int)img.height, (int)img.width,
                     (int)h, (int)w);
    if (s == TF_OK && (s = tf__image_preprocess_run(&im->pre, &img, a->max_pixels, px, 3 * plane)))
        s = tf__fail(s, "%s: %s", label, tf_last_error());
    tf__image_free(&decoded);
    return s;
}

/* What one batch's forward call writes. */
typedef struct batch_buffers {
    float *pixel_values; /* [B, 3, S, S] */
    float *result;       /* [B, width of what the call reads] */
} batch_buffers;

/* The output of the tower a call reads, its width in *width: the
 * classifier's logits, CLIP's image_embeds, the pooled output, or the
 * last hidden state (T D, of which the class token's row is read). */
static float **output_of(const tf__vision_config *c, tf__vision_args *v, size_t *width)
{
    if (c->n_labels)
        return *width = (size_t)c->n_labels, &v->logits;
    if (c->projection_dim)
        return *width = (size_t)c->projection_dim, &v->image_embeds;
    if (c->family != TF_VISION_VIT || c->pooler)
        return *width = (size_t)c->d_model, &v->pooled_output;
    *width = (size_t)tf__vision_tokens(c, c->image_size, c->image_size) * (size_t)c->d_model;
    return &v->last_hidden_state;
}

/* Images first..first+B of the call through the tower into out [B, W]. */
static tf_status run_batch(const tf_pipeline *p, const tf_image_args *a, size_t first, size_t B,
                           batch_buffers *bb, float *out)
{
    const tf__pipeline_images *im = p->images;
    const tf__vision_config *c = tf__vision_model_config(im->model);
    const size_t image = 3 * (size_t)c->image_size * c->image_size, W = (size_t)p->dim;
    tf_status s = TF_OK;
    for (size_t j = 0; s == TF_OK && j < B; j++)
        s = preprocess_one(im, a, first + j, bb->pixel_values + j * image);
    tf__vision_args v = {.batch = (int32_t)B,
                         .channels = 3,
                         .height = c->image_size,
                         .width = c->image_size,
                         .pixel_values = bb->pixel_values,
                         .n_threads = a->n_threads};
    size_t width;
    *output_of(c, &v, &width) = bb->result;
    if (s == TF_OK)
        s = tf__vision_forward(im->model, &v);
    if (s)
        return s;
    for (size_t j = 0; j < B; j++) /* the first W of each row: the class token's for h */
        memcpy(out + j * W, bb->result + j * width, W * sizeof *out);
    return TF_OK;
}

/* Every batch of the call into results [n, W], then what the call makes of
 * them (unit vectors, probabilities) into args.out. */
static tf_status run_images(const tf_pipeline *p, const tf_image_args *args, const char *call,
                            tf_pipeline_kind want)
{
    tf_image_args a;
    tf_status s = read_args(&a, p, args, call, want);
    if (s)
        return s;
    const tf__vision_config *c = tf__vision_model_config(p->images->model);
    const size_t B = a.n < (size_t)a.batch_size ? a.n : (size_t)a.batch_size;
    const size_t W = (size_t)p->dim;
    size_t width;
    tf__vision_args unused = {0};
    output_of(c, &unused, &width);
    batch_buffers bb = {
        .pixel_values = tf__calloc(B * 3 * (size_t)c->image_size * c->image_size, sizeof(float)),
        .result = tf__calloc(B * width, sizeof(float)),
    };
    float *results = tf__calloc(a.n * W, sizeof *results); /* [n, W] */
    if (!bb.pixel_values || !bb.result || !results)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate a batch of %zu images", call, B);
    for (size_t i = 0; s == TF_OK && i < a.n; i += B)
        s = run_batch(p, &a, i, a.n - i < B ? a.n - i : B, &bb, results + i * W);
    if (s == TF_OK && want == TF_PIPELINE_IMAGE_CLASSIFIER)
        tf__head_activate(results, a.n, W, p->images->activation);
    if (s == TF_OK && a.normalize)
        tf__l2_normalize_rows(results, a.n, W);
    if (s == TF_OK)
        memcpy(a.out, results, a.n * W * sizeof *results);
    tf__free(bb.pixel_values);
    tf__free(bb.result);
    tf__free(results);
    return s;
}

tf_status tf_pipeline_embed_images(const tf_pipeline *p, const tf_image_args *args)
{
    return run_images(p, args, "tf_pipeline_embed_images", TF_PIPELINE_IMAGE_EMBEDDING);
}

tf_status tf_pipeline_classify_images(const tf_pipeline *p, const tf_image_args *args)
{
    return run_images(p, args, "tf_pipeline_classify_images", TF_PIPELINE_IMAGE_CLASSIFIER);
}
