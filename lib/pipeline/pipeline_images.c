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
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "classifier_head.h"
#include "error.h"
#include "file.h"
#include "image_folder.h"
#include "pipeline.h"
#include "pipeline_images.h"
#include "sentence_pool.h"
#include "text_tower_folder.h"
#include "tokenizer.h"
#include "tokenizer/tokenizer_load.h"
#include "vision.h"
#include "vision_folder.h"

/* Images per forward call when the caller does not say. */
#define DEFAULT_BATCH 32

struct tf__pipeline_images {
    tf__vision_model *model;
    tf__image_processor processor;
    tf__image_preprocess pre;
    tf__head_activation activation; /* the classifier's: ImageClassificationPipeline's */
    tf__text_folder text;           /* a whole CLIPModel's or SiglipModel's text tower, its
                                       tower NULL for a vision folder alone */
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

/* Whether model_dir holds a whole CLIPModel or SiglipModel (text_config and a
 * text tower) with a tokenizer: then its texts are embedded too. Without a
 * tokenizer file (TF_ERR_IO from the look for one) it is the vision half
 * alone, an image pipeline; that answer is no failure, so the thread's
 * message is left as it was. */
static tf_status has_text_tower(const char *model_dir, int *text)
{
    tf_status s = tf__text_folder_probe(model_dir, text);
    if (s || !*text)
        return s;
    char *message = NULL, *path = NULL;
    int json = 0;
    if ((s = tf__format_alloc(&message, "%s", tf_last_error())))
        return s;
    s = tf__tokenizer_folder_file(model_dir, &path, &json);
    if (s == TF_ERR_IO) {
        *text = 0;
        s = tf__fail(TF_OK, "%s", message);
    }
    tf__free(path);
    tf__free(message);
    return s;
}

/* The text tower of model_dir and its tokenizer; its vectors must be as wide
 * as the images' (p->dim). */
static tf_status load_text(tf_pipeline *p, const char *model_dir, const tf_pipeline_options *o)
{
    tf__text_folder *t = &p->images->text;
    tf_status s = tf__text_folder_load(model_dir, t);
    if (s)
        return s;
    const tf__text_config *c = tf__text_tower_config(t->tower);
    if (c->projection_dim != p->dim)
        return tf__fail(TF_ERR_FORMAT,
                        "config.json: the text tower's vectors have %d values, the image "
                        "tower's %d; they cannot be compared",
                        (int)c->projection_dim, (int)p->dim);
    s = tf_encoder_get_config(tf__text_tower_encoder(t->tower), &p->cfg);
    return s ? s : tf__pipeline_load_tokenizers(p, model_dir, o);
}

tf_status tf__pipeline_images_load(tf_pipeline *p, const char *dir, const char *model_dir,
                                   const tf_pipeline_options *o)
{
    int text = 0;
    tf_status s = has_text_tower(model_dir, &text);
    if (s)
        return s;
    if (o->max_seq_length != 0 && !text)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_seq_length %d: an image pipeline has no tokens (expected 0)",
                        (int)o->max_seq_length);
    if (!(p->images = tf__calloc(1, sizeof *p->images)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the image pipeline");
    tf__pipeline_images *im = p->images;
    s = tf__vision_folder_load(dir, &im->model);
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
    return text ? load_text(p, model_dir, o) : TF_OK;
}

void tf__pipeline_images_free(tf__pipeline_images *im)
{
    if (!im)
        return;
    tf__vision_model_free(im->model);
    tf__text_folder_free(&im->text);
    tf__free(im);
}

/* ---- A call's arguments ----------------------------------------------------------------- */

/* The caller's args into *a, checked for what every call needs; call names
 * the call in messages, want its pipeline kind, width the values out holds
 * per image (0: p->dim), may_normalize whether normalize 1 is allowed. */
static tf_status read_args(tf_image_args *a, const tf_pipeline *p, const tf_image_args *in,
                           const char *call, tf_pipeline_kind want, size_t width, int may_normalize)
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
    if (a->normalize < 0 || a->normalize > may_normalize)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.normalize: expected %s, got %d",
                        may_normalize ? "0 or 1" : "0", (int)a->normalize);
    if (a->batch_size < 0 || a->max_pixels < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.batch_size %d, max_pixels %lld: expected 0 (default) or more",
                        (int)a->batch_size, (long long)a->max_pixels);
    if (!a->out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.out is NULL");
    width = width ? width : (size_t)p->dim;
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

/* ---- Tracing (tf_image_args.trace) ------------------------------------------------------ */

/* Emits img as the event name [H, W, 3], its values as floats. */
static tf_status trace_image(const tf_image_args *a, const char *name, const tf__image *img)
{
    const size_t n = (size_t)img->height * (size_t)img->width * 3;
    float *values = tf__malloc(n * sizeof *values); /* [H, W, 3] */
    if (!values)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "trace: cannot allocate %s of %d x %d pixels", name,
                        (int)img->height, (int)img->width);
    for (size_t i = 0; i < n; i++)
        values[i] = (float)img->rgb[i];
    const tf_trace_event ev = {.struct_size = sizeof ev,
                               .name = name,
                               .layer = -1,
                               .rank = 3,
                               .dims = {img->height, img->width, 3},
                               .dim_names = "H,W,C",
                               .data = values};
    a->trace(&ev, a->trace_user_data);
    tf__free(values);
    return TF_OK;
}

/* The decoded image img and, with a resize, the resized one as trace
 * events (the resize done again for the trace). */
static tf_status trace_preprocess(const tf__pipeline_images *im, const tf_image_args *a,
                                  const tf__image *img)
{
    tf_status s = trace_image(a, "image.decoded", img);
    if (s || !im->pre.do_resize)
        return s;
    int32_t h, w;
    tf__image_resized_size(&im->pre, img->height, img->width, &h, &w);
    tf__image resized = {0};
    s = tf__image_resize(img, h, w, im->pre.resample, &resized);
    if (!s)
        s = trace_image(a, "image.resized", &resized);
    tf__image_free(&resized);
    return s;
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
    if (s == TF_OK && a->trace)
        s = trace_preprocess(im, a, &img);
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
                         .trace = a->trace,
                         .trace_user_data = a->trace_user_data,
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

/* Every batch of the call's images (a: read_args') into results [n, W]. */
static tf_status embed_all(const tf_pipeline *p, const tf_image_args *a, const char *call,
                           float *results)
{
    const tf__vision_config *c = tf__vision_model_config(p->images->model);
    const size_t B = a->n < (size_t)a->batch_size ? a->n : (size_t)a->batch_size;
    const size_t W = (size_t)p->dim;
    size_t width;
    tf__vision_args unused = {0};
    output_of(c, &unused, &width);
    batch_buffers bb = {
        .pixel_values = tf__calloc(B * 3 * (size_t)c->image_size * c->image_size, sizeof(float)),
        .result = tf__calloc(B * width, sizeof(float)),
    };
    tf_status s = TF_OK;
    if (!bb.pixel_values || !bb.result)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate a batch of %zu images", call, B);
    for (size_t i = 0; s == TF_OK && i < a->n; i += B)
        s = run_batch(p, a, i, a->n - i < B ? a->n - i : B, &bb, results + i * W);
    tf__free(bb.pixel_values);
    tf__free(bb.result);
    return s;
}

/* Every image of the call into results [n, W], then what the call makes of
 * them (unit vectors, probabilities) into args.out. */
static tf_status run_images(const tf_pipeline *p, const tf_image_args *args, const char *call,
                            tf_pipeline_kind want)
{
    tf_image_args a;
    tf_status s = read_args(&a, p, args, call, want, 0, want == TF_PIPELINE_IMAGE_EMBEDDING);
    if (s)
        return s;
    const size_t W = (size_t)p->dim;
    float *results = tf__calloc(a.n * W, sizeof *results); /* [n, W] */
    s = results ? embed_all(p, &a, call, results)
                : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the results of %zu images",
                           call, a.n);
    if (s == TF_OK && want == TF_PIPELINE_IMAGE_CLASSIFIER)
        tf__head_activate(results, a.n, W, p->images->activation);
    if (s == TF_OK && a.normalize)
        tf__l2_normalize_rows(results, a.n, W);
    if (s == TF_OK)
        memcpy(a.out, results, a.n * W * sizeof *results);
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

tf_status tf_model_is_image(const char *path, int32_t *is_image)
{
    if (!path || !is_image)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", path ? "is_image" : "path");
    *is_image = 0;
    char *model_dir = NULL;
    const tf_status s = tf__vision_folder_probe(path, &model_dir);
    *is_image = s == TF_OK && model_dir != NULL;
    tf__free(model_dir);
    return s;
}

/* ---- Texts: a whole CLIPModel's or SiglipModel's text tower --------------------------- */

int tf__pipeline_images_has_text(const tf_pipeline *p)
{
    return p->images && p->images->text.tower;
}

/* texts[0..n) (the call's first + 0..n) tokenised into b as the tower reads
 * them: CLIP's padded to the longest (CLIPProcessor's padding=True); SigLIP's
 * padded to p->max_len with the pad token, every position attended (the
 * zero-shot pipeline's padding="max_length", max_length=64, and
 * SiglipTokenizer's input_ids without an attention_mask), since its pooled
 * row is the last. */
static tf_status encode_texts(const tf_pipeline *p, const char *const *texts, size_t n,
                              size_t first, tf__pipeline_batch *b)
{
    const tf__text_config *c = tf__text_tower_config(p->images->text.tower);
    tf_encode_options eo;
    tf_encode_options_init(&eo);
    eo.max_length = p->max_len;
    eo.pad_to_max_length = c->family == TF_VISION_SIGLIP;
    eo.pad_left = -1;
    *b = (tf__pipeline_batch){0};
    tf_status s = tf__tokenizer_encode_from(p->tok, n, texts, NULL, NULL, NULL, &eo, first,
                                            &b->enc);
    if (s)
        return s;
    b->B = tf_encoding_batch(b->enc), b->T = tf_encoding_seq_len(b->enc);
    return tf__pipeline_count_cut(p, texts, NULL, first, b);
}

/* results [n, E] = the text tower's vectors of texts[0..n), batch_size at a
 * time; *truncated += the texts cut. */
static tf_status embed_texts(const tf_pipeline *p, const char *const *texts, size_t n, size_t first,
                             size_t batch_size, int32_t n_threads, float *results,
                             size_t *truncated)
{
    const tf__text_tower *tower = p->images->text.tower;
    const int attended = tf__text_tower_config(tower)->family == TF_VISION_SIGLIP;
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < n; i += batch_size) {
        const size_t B = n - i < batch_size ? n - i : batch_size;
        tf__pipeline_batch b;
        s = encode_texts(p, texts + i, B, first + i, &b);
        if (s == TF_OK)
            s = tf__text_tower_forward(tower, tf_encoding_ids(b.enc),
                                       attended ? NULL : tf_encoding_attention_mask(b.enc), b.B,
                                       b.T, first + i, n_threads, results + i * (size_t)p->dim);
        *truncated += b.truncated;
        tf__pipeline_batch_free(&b);
    }
    return s;
}

/* What tf_pipeline_embed's arguments may ask of a text tower. */
static tf_status check_text_args(const tf_pipeline_args *a)
{
    if (a->pairs)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.pairs: a text tower embeds single texts (expected NULL)");
    if (a->prompt_name && a->prompt_name[0])
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.prompt_name \"%s\": the folder has no prompts", a->prompt_name);
    if (a->normalize < -1 || a->normalize > 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.normalize: expected -1 (as upstream: not normalised), 0 or 1, "
                        "got %d",
                        (int)a->normalize);
    if (a->dimensions || a->dimensions_layer_norm)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.dimensions %d, dimensions_layer_norm %d: a text tower's vectors "
                        "are compared whole (expected 0 and 0)",
                        (int)a->dimensions, (int)a->dimensions_layer_norm);
    return TF_OK;
}

tf_status tf__pipeline_images_embed_texts(const tf_pipeline *p, const tf_pipeline_args *args)
{
    tf_pipeline_args a;
    tf_status s = tf__pipeline_read_args(&a, p, args, 0, 1);
    if (s == TF_OK)
        s = check_text_args(&a);
    if (s == TF_OK)
        s = tf__pipeline_check_out_len(args, &a, (size_t)p->dim);
    if (s)
        return s;
    const size_t W = (size_t)p->dim;
    float *results = tf__calloc(a.n * W, sizeof *results); /* [n, W] */
    if (!results)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the vectors of %zu texts", a.n);
    size_t truncated = 0;
    s = embed_texts(p, a.texts, a.n, a.first_index, (size_t)a.batch_size, a.n_threads, results,
                    &truncated);
    if (s == TF_OK && a.normalize == 1)
        tf__l2_normalize_rows(results, a.n, W);
    if (s == TF_OK) {
        memcpy(a.out, results, a.n * W * sizeof *results);
        if (a.truncated)
            *a.truncated = truncated;
    }
    tf__free(results);
    return s;
}

/* ---- Zero-shot classification ------------------------------------------------------------ */

#define ZERO_SHOT "tf_pipeline_zero_shot"

static tf_status check_labels(const tf_pipeline *p, const char *const *labels, size_t n_labels)
{
    if (!p)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, ZERO_SHOT ": p is NULL");
    if (!tf__pipeline_images_has_text(p))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        ZERO_SHOT ": the pipeline has no text tower (a CLIPModel or SiglipModel "
                                  "folder with its tokenizer has one)");
    if (!labels || n_labels == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, ZERO_SHOT ": %s",
                        labels ? "n_labels: expected at least 1, got 0" : "labels is NULL");
    for (size_t j = 0; j < n_labels; j++)
        if (!labels[j])
            return tf__fail(TF_ERR_INVALID_ARGUMENT, ZERO_SHOT ": labels[%zu] is NULL", j);
    return TF_OK;
}

/* probs [n, L] = activation(exp(logit_scale) cos(image i, label j) + logit_bias):
 * CLIPModel.forward's logits_per_image (SiglipModel's with its logit_bias),
 * then ZeroShotImageClassificationPipeline.postprocess's softmax over the
 * labels (sigmoid for SigLIP). images [n, E] and texts [L, E] are
 * normalised in place. */
static void zero_shot_probs(float *probs, const tf__text_folder *t, float *images, size_t n,
                            float *texts, size_t L, size_t E)
{
    tf__l2_normalize_rows(images, n, E);
    tf__l2_normalize_rows(texts, L, E);
    const int siglip = tf__text_tower_config(t->tower)->family == TF_VISION_SIGLIP;
    const double scale = exp((double)t->logit_scale);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < L; j++) {
            double dot = 0.0;
            for (size_t k = 0; k < E; k++)
                dot += (double)images[i * E + k] * (double)texts[j * E + k];
            probs[i * L + j] = (float)(scale * dot + (siglip ? (double)t->logit_bias : 0.0));
        }
    tf__head_activate(probs, n, L, siglip ? TF_HEAD_SIGMOID : TF_HEAD_SOFTMAX);
}

tf_status tf_pipeline_zero_shot(const tf_pipeline *p, const tf_image_args *args,
                                const char *const *labels, size_t n_labels)
{
    tf_status s = check_labels(p, labels, n_labels);
    tf_image_args a;
    if (s == TF_OK)
        s = read_args(&a, p, args, ZERO_SHOT, TF_PIPELINE_IMAGE_EMBEDDING, n_labels, 0);
    if (s)
        return s;
    const size_t E = (size_t)p->dim;
    float *images = tf__calloc(a.n * E, sizeof *images);      /* [n, E] */
    float *texts = tf__calloc(n_labels * E, sizeof *texts);   /* [L, E] */
    float *probs = tf__calloc(a.n * n_labels, sizeof *probs); /* [n, L] */
    if (!images || !texts || !probs)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY,
                     ZERO_SHOT ": cannot allocate %zu images' and %zu "
                               "labels' vectors",
                     a.n, n_labels);
    size_t truncated = 0;
    if (s == TF_OK)
        s = embed_texts(p, labels, n_labels, 0, (size_t)a.batch_size, a.n_threads, texts,
                        &truncated);
    if (s == TF_OK)
        s = embed_all(p, &a, ZERO_SHOT, images);
    if (s == TF_OK) {
        zero_shot_probs(probs, &p->images->text, images, a.n, texts, n_labels, E);
        memcpy(a.out, probs, a.n * n_labels * sizeof *probs);
    }
    tf__free(images);
    tf__free(texts);
    tf__free(probs);
    return s;
}
