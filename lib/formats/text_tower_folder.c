/* text_tower_folder.c — config.json's text_config and model.safetensors'
 * text_model.* into a tf__text_tower (model/vision/text_tower.h), with the
 * CLIPModel's or SiglipModel's logit_scale and logit_bias. */
#include "text_tower_folder.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "encoder.h"
#include "error.h"
#include "extra_tensors.h"
#include "file.h"
#include "json_file.h"
#include "safetensors.h"
#include "vision.h"
#include "vision_folder.h"
#include "weights.h"

#define PREFIX "text_model."

/* ---- config.json ------------------------------------------------------------ */

/* model_type's family when it has a text tower, else -1. */
static int32_t family_of(const char *model_type)
{
    if (strcmp(model_type, "clip") == 0)
        return TF_VISION_CLIP;
    if (strcmp(model_type, "siglip") == 0)
        return TF_VISION_SIGLIP;
    return -1;
}

/* text_config t (NULL: the defaults) into c. */
static tf_status read_text_config(const cJSON *t, const char *label, tf__text_config *c)
{
    const struct {
        const char *key;
        int64_t lo, hi;
        int32_t *out;
    } ints[] = {
        {"vocab_size", 1, INT32_MAX, &c->vocab_size},
        {"max_position_embeddings", 1, INT32_MAX, &c->max_positions},
        {"hidden_size", 1, TF_MAX_D_MODEL, &c->d_model},
        {"intermediate_size", 1, TF_MAX_D_FF, &c->d_ff},
        {"num_hidden_layers", 1, TF_MAX_LAYERS, &c->n_layers},
        {"num_attention_heads", 1, TF_MAX_D_MODEL, &c->n_heads},
        {"eos_token_id", 0, INT32_MAX, &c->eos_token_id},
    };
    tf_status s = TF_OK;
    for (size_t i = 0; t && !s && i < sizeof ints / sizeof *ints; i++)
        s = tf__json_read_int(t, ints[i].key, TF_JSON_NOT_NULL, ints[i].lo, ints[i].hi, label,
                              ints[i].out);
    if (t && !s)
        s = tf__vision_read_activation(t, label, &c->activation);
    if (t && !s)
        s = tf__vision_read_eps(t, label, &c->layer_norm_eps);
    return s;
}

/* The text config of config.json root (family's). */
static tf_status read_config(const cJSON *root, int32_t family, const char *label,
                             tf__text_config *c)
{
    tf__text_config_defaults(c, family);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (t && !cJSON_IsNull(t) && !cJSON_IsObject(t))
        return tf__json_wrong(t, "text_config", "an object", label);
    tf_status s = read_text_config(cJSON_IsObject(t) ? t : NULL, label, c);
    if (s)
        return s;
    if (family == TF_VISION_CLIP) /* CLIPModel's text_projection: (projection_dim, D) */
        return tf__json_read_int(root, "projection_dim", TF_JSON_NOT_NULL, 1, TF_MAX_D_MODEL, label,
                                 &c->projection_dim);
    c->projection_dim = c->d_model; /* SiglipTextTransformer's head: Linear(D, D) */
    return TF_OK;
}

tf_status tf__text_folder_probe(const char *model_dir, int *whole)
{
    *whole = 0;
    char *path = NULL;
    cJSON *root = NULL;
    tf_status s = tf__path_join(model_dir, "config.json", &path);
    if (!s)
        s = tf__json_read_file(path, "config.json", 0, &root);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    *whole = !s && cJSON_IsString(type) && family_of(type->valuestring) >= 0;
    cJSON_Delete(root);
    tf__free(path);
    return s;
}

/* ---- The tensors ------------------------------------------------------------ */

/* One load: the file, the tower, which of the file's tensors were taken. */
typedef struct loading {
    const tf__st_file *file;
    tf__text_folder *out;
    unsigned char *taken; /* [file->n_tensors] */
} loading;

#define LABEL "model.safetensors"

static void mark_taken(loading *ld, const char *name)
{
    for (size_t i = 0; i < ld->file->n_tensors; i++)
        if (strcmp(ld->file->tensors[i].name, name) == 0)
            ld->taken[i] = 1;
}

/* The file's tensor `name` (shape rank, dims) into dst. */
static tf_status take_into(loading *ld, const char *name, int32_t rank, const int64_t *dims,
                           float *dst)
{
    float *values;
    tf_status s = tf__extra_tensor_read(ld->file, name, rank, dims, LABEL, "from config.json",
                                        &values);
    if (s)
        return s;
    size_t count = 1;
    for (int32_t i = 0; i < rank; i++)
        count *= (size_t)dims[i];
    memcpy(dst, values, count * sizeof *dst);
    tf__free(values);
    mark_taken(ld, name);
    return TF_OK;
}

/* The file's tensor PREFIX theirs into the encoder's tensor ours. */
static tf_status take_encoder(loading *ld, const char *theirs, const char *ours)
{
    char name[256];
    snprintf(name, sizeof name, PREFIX "%s", theirs);
    tf__weights *w = &tf__text_tower_encoder(ld->out->tower)->weights;
    const tf__tensor *t = tf__weights_find(w, ours);
    float *values;
    tf_status s = tf__extra_tensor_read(ld->file, name, t->rank, t->dims, LABEL, "from config.json",
                                        &values);
    if (s)
        return s;
    tf__weights_put(w, t, 0, values, t->count);
    tf__free(values);
    mark_taken(ld, name);
    return TF_OK;
}

static const tf__name_pair top[] = {
    {"embeddings.token_embedding.weight", "embed.token.weight"},
    {"embeddings.position_embedding.weight", "embed.position.weight"},
    {"final_layer_norm.weight", "final_norm.weight"},
    {"final_layer_norm.bias", "final_norm.bias"},
};

static tf_status take_layers(loading *ld, int32_t n_layers)
{
    static const char *const parts[2] = {"weight", "bias"};
    tf_status s = TF_OK;
    for (int32_t l = 0; !s && l < n_layers; l++)
        for (size_t i = 0; !s && i < TF_CLIP_LAYER_NAMES; i++)
            for (int p = 0; !s && p < 2; p++) {
                char theirs[160], ours[64];
                snprintf(theirs, sizeof theirs, "encoder.layers.%d.%s.%s", (int)l,
                         tf__clip_layer_names[i].theirs, parts[p]);
                snprintf(ours, sizeof ours, "layers.%d.%s.%s", (int)l, tf__clip_layer_names[i].ours,
                         parts[p]);
                s = take_encoder(ld, theirs, ours);
            }
    return s;
}

/* The one value of scalar `name` (CLIP saves logit_scale as [], SigLIP as
 * [1]) into *out. */
static tf_status take_scalar(loading *ld, const char *name, float *out)
{
    for (size_t i = 0; i < ld->file->n_tensors; i++) {
        const tf__st_tensor *t = &ld->file->tensors[i];
        if (strcmp(t->name, name) == 0 && t->count != 1)
            return tf__fail(TF_ERR_SHAPE, LABEL ": %s: expected one value, got %zu", name,
                            t->count);
        if (strcmp(t->name, name) == 0)
            return take_into(ld, name, t->rank, t->dims, out);
    }
    return tf__fail(TF_ERR_FORMAT, LABEL ": tensor '%s' is missing", name);
}

/* The projection: CLIPModel's text_projection (E, D), SiglipTextTransformer's
 * head (E, D) + (E). */
static tf_status take_projection(loading *ld)
{
    tf__text_tower *m = ld->out->tower;
    const tf__text_config *c = tf__text_tower_config(m);
    const int64_t dims[2] = {c->projection_dim, c->d_model};
    const int clip = c->family == TF_VISION_CLIP;
    tf_status s = take_into(ld, clip ? "text_projection.weight" : PREFIX "head.weight", 2, dims,
                            tf__text_tower_projection_weight(m));
    if (!s && !clip)
        s = take_into(ld, PREFIX "head.bias", 1, dims, tf__text_tower_projection_bias(m));
    return s;
}

/* Whether a file tensor is the text half's (position_ids buffers are not
 * weights). */
static int belongs(const char *name)
{
    const size_t len = strlen(name), tail = strlen("position_ids");
    if (len >= tail && strcmp(name + len - tail, "position_ids") == 0)
        return 0;
    return strncmp(name, PREFIX, strlen(PREFIX)) == 0 ||
        strcmp(name, "text_projection.weight") == 0 || strcmp(name, "logit_scale") == 0 ||
        strcmp(name, "logit_bias") == 0;
}

static tf_status take_all(loading *ld)
{
    const tf__text_config *c = tf__text_tower_config(ld->out->tower);
    tf_status s = TF_OK;
    for (size_t i = 0; !s && i < sizeof top / sizeof *top; i++)
        s = take_encoder(ld, top[i].theirs, top[i].ours);
    if (!s)
        s = take_layers(ld, c->n_layers);
    if (!s)
        s = take_projection(ld);
    if (!s)
        s = take_scalar(ld, "logit_scale", &ld->out->logit_scale);
    if (!s && c->family == TF_VISION_SIGLIP)
        s = take_scalar(ld, "logit_bias", &ld->out->logit_bias);
    for (size_t i = 0; !s && i < ld->file->n_tensors; i++)
        if (!ld->taken[i] && belongs(ld->file->tensors[i].name))
            s = tf__fail(TF_ERR_FORMAT,
                         LABEL ": tensor '%s' is not one of a %s text tower with this "
                               "config.json",
                         ld->file->tensors[i].name, tf__vision_family_name(c->family));
    return s;
}

/* ---- The folder ------------------------------------------------------------- */

/* config.json's family and text config. */
static tf_status read_folder_config(const char *dir, tf__text_config *c)
{
    char *path = NULL;
    cJSON *root = NULL;
    const char *model_type = NULL;
    tf_status s = tf__path_join(dir, "config.json", &path);
    if (!s)
        s = tf__json_read_file(path, "config.json", 0, &root);
    if (!s)
        s = tf__json_read_string(root, "model_type", TF_JSON_REQUIRED, "config.json", &model_type);
    if (!s && family_of(model_type) < 0)
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "config.json: model_type \"%s\" has no text tower here (clip and siglip "
                     "have)",
                     model_type);
    if (!s)
        s = read_config(root, family_of(model_type), "config.json", c);
    cJSON_Delete(root);
    tf__free(path);
    return s;
}

tf_status tf__text_folder_load(const char *model_dir, tf__text_folder *out)
{
    *out = (tf__text_folder){0};
    tf__text_config c;
    char *weights_path = NULL;
    tf__st_file file = {0};
    loading ld = {.file = &file, .out = out};
    tf_status s = read_folder_config(model_dir, &c);
    if (!s)
        s = tf__path_join(model_dir, "model.safetensors", &weights_path);
    if (!s)
        s = tf__st_open(&file, weights_path);
    if (!s)
        s = tf__text_tower_new(&c, &out->tower);
    if (!s && !(ld.taken = tf__calloc(file.n_tensors ? file.n_tensors : 1, 1)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the tensor table");
    if (!s)
        s = take_all(&ld);
    if (s)
        tf__text_folder_free(out);
    tf__free(ld.taken);
    tf__st_close(&file);
    tf__free(weights_path);
    return s;
}

void tf__text_folder_free(tf__text_folder *f)
{
    tf__text_tower_free(f->tower);
    *f = (tf__text_folder){0};
}
