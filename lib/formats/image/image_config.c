/* image_config.c — preprocessor_config.json into tf__image_preprocess
 * (image_config.h). Defaults and size rules from transformers'
 * image_processing_clip.py, image_processing_siglip.py,
 * image_processing_vit.py (__init__, preprocess) and
 * image_processing_utils.py (get_size_dict). */
#include "image_config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "file.h"
#include "json_file.h"

/* image_utils.py's OPENAI_CLIP_MEAN / _STD and IMAGENET_STANDARD_MEAN / _STD */
static const float clip_mean[3] = {0.48145466f, 0.4578275f, 0.40821073f};
static const float clip_std[3] = {0.26862954f, 0.26130258f, 0.27577711f};
static const float standard_mean[3] = {0.5f, 0.5f, 0.5f};
static const float standard_std[3] = {0.5f, 0.5f, 0.5f};

static const char *const processor_names[TF_IMAGE_PROCESSOR_COUNT] = {
    "CLIPImageProcessor", "SiglipImageProcessor", "ViTImageProcessor"};

const char *tf__image_processor_name(tf__image_processor kind)
{
    return (unsigned)kind < TF_IMAGE_PROCESSOR_COUNT ? processor_names[kind] : "unknown";
}

void tf__image_processor_defaults(tf__image_processor kind, tf__image_preprocess *p)
{
    const int clip = kind == TF_IMAGE_PROCESSOR_CLIP;
    *p = (tf__image_preprocess){
        .do_resize = 1,
        .shortest_edge = clip ? 224 : 0,
        .resize_height = clip ? 0 : 224,
        .resize_width = clip ? 0 : 224,
        .resample = kind == TF_IMAGE_PROCESSOR_VIT ? TF_RESAMPLE_BILINEAR : TF_RESAMPLE_BICUBIC,
        .do_center_crop = clip,
        .crop_height = clip ? 224 : 0,
        .crop_width = clip ? 224 : 0,
        .do_rescale = 1,
        .rescale_factor = 1.0 / 255,
        .do_normalize = 1,
    };
    memcpy(p->mean, clip ? clip_mean : standard_mean, sizeof p->mean);
    memcpy(p->std, clip ? clip_std : standard_std, sizeof p->std);
}

/* The class the file names (image_processor_type, else
 * feature_extractor_type as AutoImageProcessor maps it). */
static tf_status processor_of(const cJSON *root, const char *label, tf__image_processor *kind)
{
    const char *name = NULL, *key = "image_processor_type";
    tf_status st = tf__json_get_string(root, key, label, &name);
    if (st == TF_OK && !name) {
        key = "feature_extractor_type";
        st = tf__json_get_string(root, key, label, &name);
    }
    if (st != TF_OK)
        return st;
    if (!name)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: names no image processor (image_processor_type or "
                        "feature_extractor_type)",
                        label);
    static const char *const extractor_names[TF_IMAGE_PROCESSOR_COUNT] = {
        "CLIPFeatureExtractor", NULL, "ViTFeatureExtractor"};
    for (int k = 0; k < TF_IMAGE_PROCESSOR_COUNT; k++)
        if (strcmp(name, processor_names[k]) == 0 ||
            (extractor_names[k] && strcmp(name, extractor_names[k]) == 0)) {
            *kind = (tf__image_processor)k;
            return TF_OK;
        }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: %s \"%s\" is not supported; CLIPImageProcessor, SiglipImageProcessor "
                    "and ViTImageProcessor are",
                    label, key, name);
}

/* A side: an integer in 1..TF_IMAGE_MAX_SIDE. */
static tf_status read_side(const cJSON *v, const char *key, const char *label, int32_t *out)
{
    uint64_t n;
    if (!tf__json_uint(v, TF_IMAGE_MAX_SIDE, &n) || n < 1) {
        char what[48];
        snprintf(what, sizeof what, "an integer in 1..%d", TF_IMAGE_MAX_SIDE);
        return tf__json_wrong(v, key, what, label);
    }
    *out = (int32_t)n;
    return TF_OK;
}

/* Two sides, h and w, into *height and *width. */
static tf_status read_pair(const cJSON *h, const cJSON *w, const char *key, const char *label,
                           int32_t *height, int32_t *width)
{
    const tf_status st = read_side(h, key, label, height);
    return st != TF_OK ? st : read_side(w, key, label, width);
}

/* A size as get_size_dict reads it: an integer (*edge when edge is given,
 * else height = width), {"shortest_edge"} (edge given), {"height",
 * "width"} or [height, width]. key names it in messages. */
static tf_status read_size(const cJSON *v, const char *key, const char *label, int32_t *edge,
                           int32_t *height, int32_t *width)
{
    if (cJSON_IsNumber(v))
        return edge ? read_side(v, key, label, edge) : read_pair(v, v, key, label, height, width);
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
        if (edge)
            *edge = 0;
        return read_pair(cJSON_GetArrayItem(v, 0), cJSON_GetArrayItem(v, 1), key, label, height,
                         width);
    }
    if (!cJSON_IsObject(v))
        return tf__json_wrong(v, key, "an integer, an object or [height, width]", label);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "height");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(v, "width");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(v, "shortest_edge");
    const int n = cJSON_GetArraySize(v);
    if (h && w && n == 2) {
        if (edge)
            *edge = 0;
        return read_pair(h, w, key, label, height, width);
    }
    if (s && n == 1 && edge)
        return read_side(s, key, label, edge);
    char got[96];
    tf__json_describe(v, got, sizeof got);
    return tf__fail(TF_ERR_UNSUPPORTED, "%s: %s %s is not supported; %s", label, key, got,
                    edge ? "{\"shortest_edge\"} or {\"height\", \"width\"} is"
                         : "{\"height\", \"width\"} is");
}

/* A finite number. */
static tf_status read_number(const cJSON *obj, const char *key, const char *label, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return TF_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return tf__json_wrong(v, key, "a finite number", label);
    *out = v->valuedouble;
    return TF_OK;
}

/* image_mean / image_std: a number for every channel, or 3 numbers; as
 * float32 (normalize's np.array(mean, dtype=float32)). */
static tf_status read_channels(const cJSON *obj, const char *key, const char *label, int nonzero,
                               float out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return TF_OK;
    const char *what = nonzero ? "a non-zero finite number or 3 of them"
                               : "a finite number or 3 of them";
    const int list = cJSON_IsArray(v);
    if (list && cJSON_GetArraySize(v) != 3)
        return tf__json_wrong(v, key, what, label);
    float got[3];
    for (int c = 0; c < 3; c++) {
        const cJSON *x = list ? cJSON_GetArrayItem(v, c) : v;
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || (nonzero && x->valuedouble == 0))
            return tf__json_wrong(v, key, what, label);
        got[c] = (float)x->valuedouble;
    }
    memcpy(out, got, sizeof got);
    return TF_OK;
}

static tf_status read_resample(const cJSON *root, const char *label, tf__resample *out)
{
    int32_t r = (int32_t)*out;
    tf_status st = tf__json_get_int(root, "resample", 0, TF_RESAMPLE_COUNT - 1, label, &r);
    if (st == TF_OK && r == TF_RESAMPLE_NEAREST)
        st = tf__fail(TF_ERR_UNSUPPORTED,
                      "%s: resample 0 (NEAREST) is not supported; 1 LANCZOS, 2 BILINEAR, "
                      "3 BICUBIC, 4 BOX and 5 HAMMING are",
                      label);
    *out = (tf__resample)r;
    return st;
}

/* The fields kind's preprocess() takes, over its defaults in *p. */
static tf_status read_fields(const cJSON *root, const char *label, tf__image_processor kind,
                             tf__image_preprocess *p)
{
    const int clip = kind == TF_IMAGE_PROCESSOR_CLIP;
    int32_t rgb = 1;
    tf_status st;
    if ((st = tf__json_get_bool(root, "do_resize", label, &p->do_resize)) ||
        (st = tf__json_get_bool(root, "do_rescale", label, &p->do_rescale)) ||
        (st = tf__json_get_bool(root, "do_normalize", label, &p->do_normalize)) ||
        (st = tf__json_get_bool(root, "do_convert_rgb", label, &rgb)) ||
        (st = read_resample(root, label, &p->resample)) ||
        (st = read_number(root, "rescale_factor", label, &p->rescale_factor)) ||
        (st = read_channels(root, "image_mean", label, 0, p->mean)) ||
        (st = read_channels(root, "image_std", label, 1, p->std)))
        return st;
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(root, "size");
    if (size && !cJSON_IsNull(size)) {
        if (kind == TF_IMAGE_PROCESSOR_SIGLIP && cJSON_IsNumber(size))
            return tf__fail(TF_ERR_UNSUPPORTED,
                            "%s: size %g: SiglipImageProcessor reads size as {\"height\", "
                            "\"width\"}",
                            label, size->valuedouble);
        if ((st = read_size(size, "size", label, clip ? &p->shortest_edge : NULL, &p->resize_height,
                            &p->resize_width)))
            return st;
    }
    if (!clip)
        return TF_OK;
    const cJSON *crop = cJSON_GetObjectItemCaseSensitive(root, "crop_size");
    if ((st = tf__json_get_bool(root, "do_center_crop", label, &p->do_center_crop)) ||
        (crop && !cJSON_IsNull(crop) &&
         (st = read_size(crop, "crop_size", label, NULL, &p->crop_height, &p->crop_width))))
        return st;
    return TF_OK;
}

/* The object root into *kind and *p, or a failure and nothing set. */
static tf_status parse_root(const cJSON *root, const char *label, tf__image_processor *kind,
                            tf__image_preprocess *p)
{
    if (!cJSON_IsObject(root))
        return tf__fail(TF_ERR_FORMAT, "%s: not a JSON object", label);
    tf__image_processor k;
    tf__image_preprocess q;
    tf_status st = processor_of(root, label, &k);
    if (st != TF_OK)
        return st;
    tf__image_processor_defaults(k, &q);
    if ((st = read_fields(root, label, k, &q)) != TF_OK)
        return st;
    *kind = k;
    *p = q;
    return TF_OK;
}

tf_status tf__image_config_parse(const char *text, size_t len, const char *label,
                                 tf__image_processor *kind, tf__image_preprocess *p)
{
    cJSON *root;
    tf_status st = tf__json_parse(text, len, 16, label, &root);
    if (st != TF_OK)
        return st;
    st = parse_root(root, label, kind, p);
    cJSON_Delete(root);
    return st;
}

tf_status tf__image_config_read(const char *path, tf__image_processor *kind,
                                tf__image_preprocess *p)
{
    cJSON *root;
    tf_status st = tf__json_read_file(path, path, 0, &root);
    if (st != TF_OK)
        return st;
    st = parse_root(root, path, kind, p);
    cJSON_Delete(root);
    return st;
}
