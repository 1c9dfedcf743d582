/* vision_folder.c — config.json and model.safetensors of a vision model
 * folder into a tf__vision_model: the family and heads from model_type and
 * architectures, the sizes from the vision config (with the config class's
 * defaults), each tensor by upstream's name into the tower's or its
 * encoder's. */
#include "vision_folder.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "encoder.h"
#include "error.h"
#include "extra_tensors.h"
#include "file.h"
#include "json_file.h"
#include "safetensors.h"
#include "weights.h"

/* ---- config.json ------------------------------------------------------------ */

/* What model_type says: the family, whether the vision settings are in
 * "vision_config" (a CLIPModel's, SiglipModel's) or at the top. */
static const struct {
    const char *model_type;
    int32_t family, nested;
} model_types[] = {
    {"vit", TF_VISION_VIT, 0},
    {"clip", TF_VISION_CLIP, 1},
    {"clip_vision_model", TF_VISION_CLIP, 0},
    {"siglip", TF_VISION_SIGLIP, 1},
    {"siglip_vision_model", TF_VISION_SIGLIP, 0},
};
#define N_MODEL_TYPES (sizeof model_types / sizeof *model_types)

/* config.json's hidden_act values (transformers' ACT2FN) and ours. */
static const struct {
    const char *name;
    int32_t activation;
} activations[] = {
    {"gelu", TF_ACTIVATION_GELU},          {"gelu_pytorch_tanh", TF_ACTIVATION_GELU_TANH},
    {"gelu_new", TF_ACTIVATION_GELU_TANH}, {"quick_gelu", TF_ACTIVATION_QUICK_GELU},
    {"relu", TF_ACTIVATION_RELU},          {"silu", TF_ACTIVATION_SILU},
    {"swish", TF_ACTIVATION_SILU},
};

tf_status tf__vision_read_activation(const cJSON *obj, const char *label, int32_t *out)
{
    const char *name = NULL;
    tf_status s = tf__json_read_string(obj, "hidden_act", TF_JSON_NOT_NULL, label, &name);
    if (s || !name)
        return s;
    for (size_t i = 0; i < sizeof activations / sizeof *activations; i++)
        if (strcmp(name, activations[i].name) == 0) {
            *out = activations[i].activation;
            return TF_OK;
        }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: hidden_act \"%s\" is not supported (gelu, gelu_pytorch_tanh, gelu_new, "
                    "quick_gelu, relu, silu, swish are)",
                    label, name);
}

tf_status tf__vision_read_eps(const cJSON *obj, const char *label, float *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "layer_norm_eps");
    if (!v || cJSON_IsNull(v))
        return TF_OK;
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0.0) || v->valuedouble > 1.0 ||
        (float)v->valuedouble == 0.0f)
        return tf__json_wrong(v, "layer_norm_eps", "a number in (0, 1] that float32 keeps", label);
    *out = (float)v->valuedouble;
    return TF_OK;
}

/* The sizes of the vision config object v into c (keeping the defaults of
 * what v does not say). */
static tf_status read_sizes(const cJSON *v, const char *label, tf__vision_config *c)
{
    const struct {
        const char *key;
        int64_t hi;
        int32_t *out;
    } ints[] = {
        {"hidden_size", TF_MAX_D_MODEL, &c->d_model},
        {"intermediate_size", TF_MAX_D_FF, &c->d_ff},
        {"num_hidden_layers", TF_MAX_LAYERS, &c->n_layers},
        {"num_attention_heads", TF_MAX_D_MODEL, &c->n_heads},
        {"num_channels", 16, &c->channels},
        {"image_size", 1 << 16, &c->image_size},
        {"patch_size", 1 << 16, &c->patch_size},
    };
    tf_status s = TF_OK;
    for (size_t i = 0; !s && i < sizeof ints / sizeof *ints; i++)
        s = tf__json_read_int(v, ints[i].key, TF_JSON_NOT_NULL, 1, ints[i].hi, label, ints[i].out);
    if (!s && c->family == TF_VISION_VIT)
        s = tf__json_read_bool(v, "qkv_bias", TF_JSON_NOT_NULL, label, &c->qkv_bias);
    if (!s)
        s = tf__vision_read_activation(v, label, &c->activation);
    return s ? s : tf__vision_read_eps(v, label, &c->layer_norm_eps);
}

/* The number of labels of a ViTForImageClassification: id2label's entries
 * (PretrainedConfig's num_labels), 2 without one. */
static tf_status read_labels(const cJSON *root, const char *label, int32_t *n_labels)
{
    const cJSON *id2label = cJSON_GetObjectItemCaseSensitive(root, "id2label");
    if (!id2label || cJSON_IsNull(id2label)) {
        *n_labels = 2;
        return tf__json_get_int(root, "num_labels", 1, TF_MAX_D_FF, label, n_labels);
    }
    if (!cJSON_IsObject(id2label) || cJSON_GetArraySize(id2label) < 1)
        return tf__json_wrong(id2label, "id2label", "an object of at least one label", label);
    *n_labels = cJSON_GetArraySize(id2label);
    return TF_OK;
}

/* What a folder holds, from its config.json. */
typedef struct folder_kind {
    tf__vision_config cfg;
    const char *architecture;  /* architectures[0], or "" */
    int32_t pooler_if_present; /* ViTModel: the pooler when the file has it */
} folder_kind;

static tf_status read_config(const cJSON *root, const char *label, folder_kind *k)
{
    const char *model_type = NULL;
    tf_status s = tf__json_read_string(root, "model_type", TF_JSON_REQUIRED, label, &model_type);
    if (s)
        return s;
    size_t t = 0;
    while (t < N_MODEL_TYPES && strcmp(model_types[t].model_type, model_type) != 0)
        t++;
    if (t == N_MODEL_TYPES)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: model_type \"%s\" is not a vision model this library computes (vit, "
                        "clip, clip_vision_model, siglip, siglip_vision_model are)",
                        label, model_type);
    tf__vision_config_defaults(&k->cfg, model_types[t].family);
    const cJSON *archs = cJSON_GetObjectItemCaseSensitive(root, "architectures");
    const cJSON *first = cJSON_IsArray(archs) ? cJSON_GetArrayItem(archs, 0) : NULL;
    k->architecture = cJSON_IsString(first) ? first->valuestring : "";
    const cJSON *v = root;
    if (model_types[t].nested) {
        v = cJSON_GetObjectItemCaseSensitive(root, "vision_config");
        if (!v || cJSON_IsNull(v))
            v = NULL; /* CLIPConfig / SiglipConfig: a default vision config */
        else if (!cJSON_IsObject(v))
            return tf__json_wrong(v, "vision_config", "an object", label);
    }
    if (v && (s = read_sizes(v, label, &k->cfg)))
        return s;
    tf__vision_config *c = &k->cfg;
    const char *arch = k->architecture;
    if (c->family == TF_VISION_VIT && strcmp(arch, "ViTForImageClassification") == 0)
        s = read_labels(root, label, &c->n_labels);
    k->pooler_if_present = c->family == TF_VISION_VIT && !c->n_labels;
    if (c->family == TF_VISION_CLIP &&
        (model_types[t].nested || strcmp(arch, "CLIPVisionModelWithProjection") == 0)) {
        c->projection_dim = 512; /* CLIPConfig's and CLIPVisionConfig's default */
        s = tf__json_read_int(root, "projection_dim", TF_JSON_NOT_NULL, 1, TF_MAX_D_MODEL, label,
                              &c->projection_dim);
    }
    if (c->family == TF_VISION_SIGLIP) {
        c->attention_pool = 1; /* SiglipVisionConfig's vision_use_head */
        if (v)
            s = tf__json_read_bool(v, "vision_use_head", TF_JSON_NOT_NULL, label,
                                   &c->attention_pool);
    }
    return s;
}

/* ---- The tensors ------------------------------------------------------------ */

/* A layer's tensors after "<prefix><layers>.{l}.", ours after "layers.{l}.". */
static const tf__name_pair vit_layer[] = {
    {"attention.attention.query", "attn.q"},
    {"attention.attention.key", "attn.k"},
    {"attention.attention.value", "attn.v"},
    {"attention.output.dense", "attn.out"},
    {"layernorm_before", "norm1"},
    {"intermediate.dense", "ffn.up"},
    {"output.dense", "ffn.down"},
    {"layernorm_after", "norm2"},
};
const tf__name_pair tf__clip_layer_names[TF_CLIP_LAYER_NAMES] = {
    {"self_attn.q_proj", "attn.q"}, {"self_attn.k_proj", "attn.k"},
    {"self_attn.v_proj", "attn.v"}, {"self_attn.out_proj", "attn.out"},
    {"layer_norm1", "norm1"},       {"mlp.fc1", "ffn.up"},
    {"mlp.fc2", "ffn.down"},        {"layer_norm2", "norm2"},
};

/* Tensors outside the layers (after the prefix, "/" marking one without
 * it), ours: the tower's (vision.h) or the encoder's (weights.h). */
static const tf__name_pair vit_top[] = {
    {"embeddings.cls_token", TF_VISION_CLASS_TOKEN},
    {"embeddings.position_embeddings", TF_VISION_POSITION},
    {"embeddings.patch_embeddings.projection.weight", TF_VISION_PATCH_WEIGHT},
    {"embeddings.patch_embeddings.projection.bias", TF_VISION_PATCH_BIAS},
    {"layernorm.weight", "final_norm.weight"},
    {"layernorm.bias", "final_norm.bias"},
    {"pooler.dense.weight", "pooler.weight"},
    {"pooler.dense.bias", "pooler.bias"},
    {"/classifier.weight", TF_VISION_CLASSIFIER_WEIGHT},
    {"/classifier.bias", TF_VISION_CLASSIFIER_BIAS},
};
static const tf__name_pair clip_top[] = {
    {"embeddings.class_embedding", TF_VISION_CLASS_TOKEN},
    {"embeddings.patch_embedding.weight", TF_VISION_PATCH_WEIGHT},
    {"embeddings.position_embedding.weight", TF_VISION_POSITION},
    {"pre_layrnorm.weight", "embed.norm.weight"},
    {"pre_layrnorm.bias", "embed.norm.bias"},
    {"post_layernorm.weight", TF_VISION_POST_NORM_WEIGHT},
    {"post_layernorm.bias", TF_VISION_POST_NORM_BIAS},
    {"/visual_projection.weight", TF_VISION_PROJECTION_WEIGHT},
};
static const tf__name_pair siglip_top[] = {
    {"embeddings.patch_embedding.weight", TF_VISION_PATCH_WEIGHT},
    {"embeddings.patch_embedding.bias", TF_VISION_PATCH_BIAS},
    {"embeddings.position_embedding.weight", TF_VISION_POSITION},
    {"post_layernorm.weight", "final_norm.weight"},
    {"post_layernorm.bias", "final_norm.bias"},
    {"head.probe", TF_VISION_HEAD_PROBE},
    {"head.attention.in_proj_weight", TF_VISION_HEAD_IN_WEIGHT},
    {"head.attention.in_proj_bias", TF_VISION_HEAD_IN_BIAS},
    {"head.attention.out_proj.weight", TF_VISION_HEAD_OUT_WEIGHT},
    {"head.attention.out_proj.bias", TF_VISION_HEAD_OUT_BIAS},
    {"head.layernorm.weight", TF_VISION_HEAD_NORM_WEIGHT},
    {"head.layernorm.bias", TF_VISION_HEAD_NORM_BIAS},
    {"head.mlp.fc1.weight", TF_VISION_HEAD_FC1_WEIGHT},
    {"head.mlp.fc1.bias", TF_VISION_HEAD_FC1_BIAS},
    {"head.mlp.fc2.weight", TF_VISION_HEAD_FC2_WEIGHT},
    {"head.mlp.fc2.bias", TF_VISION_HEAD_FC2_BIAS},
};

/* A family's names: its tables, where its layers are. */
typedef struct family_names {
    const tf__name_pair *top;
    size_t n_top;
    const tf__name_pair *layer;
    size_t n_layer;
    const char *layers; /* "encoder.layer" */
} family_names;

#define TABLE(t) (t), sizeof(t) / sizeof *(t)
static const family_names names_of[TF_VISION_FAMILY_COUNT] = {
    [TF_VISION_VIT] = {TABLE(vit_top), TABLE(vit_layer), "encoder.layer"},
    [TF_VISION_CLIP] = {TABLE(clip_top), tf__clip_layer_names, TF_CLIP_LAYER_NAMES,
                        "encoder.layers"},
    [TF_VISION_SIGLIP] = {TABLE(siglip_top), tf__clip_layer_names, TF_CLIP_LAYER_NAMES,
                          "encoder.layers"},
};
#undef TABLE

/* One load: the file, the model, which of the file's tensors were taken. */
typedef struct loading {
    const tf__st_file *file;
    tf__vision_model *m;
    const char *prefix;   /* "vision_model.", "vit." or "" */
    const char *label;    /* the file, for messages */
    unsigned char *taken; /* [file->n_tensors] */
} loading;

static size_t index_of(const tf__st_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return i;
    return f->n_tensors;
}

/* The file's tensor `theirs` (the prefix put before it unless it starts
 * with "/") into ours: the tower's tensor, else the encoder's. A tensor
 * the model does not have is skipped. */
static tf_status take(loading *ld, const char *theirs, const char *ours)
{
    char name[256];
    if (theirs[0] == '/')
        snprintf(name, sizeof name, "%s", theirs + 1);
    else
        snprintf(name, sizeof name, "%s%s", ld->prefix, theirs);
    const tf__vision_tensor *vt = tf__vision_tensor_find(ld->m, ours);
    tf__weights *ew = &tf__vision_model_encoder(ld->m)->weights;
    const tf__tensor *et = vt ? NULL : tf__weights_find(ew, ours);
    if (!vt && !et)
        return TF_OK;
    const int32_t rank = vt ? vt->rank : et->rank;
    const int64_t *dims = vt ? vt->dims : et->dims;
    float *values;
    tf_status s = tf__extra_tensor_read(ld->file, name, rank, dims, ld->label, "from config.json",
                                        &values);
    if (s)
        return s;
    ld->taken[index_of(ld->file, name)] = 1;
    if (vt)
        tf__vision_tensor_put(ld->m, vt, values);
    else
        tf__weights_put(ew, et, 0, values, et->count);
    tf__free(values);
    return TF_OK;
}

/* Layer l's tensors; without ViT's qkv_bias, q, k and v get zero biases. */
static tf_status take_layer(loading *ld, const family_names *fn, int32_t l)
{
    static const char *const parts[2] = {"weight", "bias"};
    tf_status s = TF_OK;
    for (size_t i = 0; !s && i < fn->n_layer; i++)
        for (int p = 0; !s && p < 2; p++) {
            char theirs[160], ours[64];
            snprintf(theirs, sizeof theirs, "%s.%d.%s.%s", fn->layers, (int)l, fn->layer[i].theirs,
                     parts[p]);
            snprintf(ours, sizeof ours, "layers.%d.%s.%s", (int)l, fn->layer[i].ours, parts[p]);
            const char *part = fn->layer[i].ours;
            const int qkv = !strcmp(part, "attn.q") || !strcmp(part, "attn.k") ||
                !strcmp(part, "attn.v");
            if (qkv && p == 1 && !tf__vision_model_config(ld->m)->qkv_bias) {
                tf__weights *ew = &tf__vision_model_encoder(ld->m)->weights;
                const tf__tensor *t = tf__weights_find(ew, ours);
                for (size_t j = 0; j < t->count; j++)
                    tf__weights_put(ew, t, j, &(float){0.0f}, 1);
                continue;
            }
            s = take(ld, theirs, ours);
        }
    return s;
}

/* Whether a file tensor is the tower's business: under its prefix (ViT
 * without one: every tensor), or one of its unprefixed heads. */
static int belongs(const loading *ld, const char *name)
{
    if (ld->prefix[0])
        return strncmp(name, ld->prefix, strlen(ld->prefix)) == 0 ||
            strcmp(name, "visual_projection.weight") == 0;
    return 1;
}

/* A tower's tensor of the file that nothing took (an architecture or a
 * config this one does not compute). position_ids buffers are not weights. */
static tf_status check_all_taken(const loading *ld)
{
    for (size_t i = 0; i < ld->file->n_tensors; i++) {
        const char *name = ld->file->tensors[i].name;
        const size_t len = strlen(name), tail = strlen("position_ids");
        const int buffer = len >= tail && strcmp(name + len - tail, "position_ids") == 0;
        if (!ld->taken[i] && !buffer && belongs(ld, name))
            return tf__fail(
                TF_ERR_FORMAT, "%s: tensor '%s' is not one of a %s tower with this config.json",
                ld->label, name, tf__vision_family_name(tf__vision_model_config(ld->m)->family));
    }
    return TF_OK;
}

static tf_status take_all(loading *ld)
{
    const tf__vision_config *c = tf__vision_model_config(ld->m);
    const family_names *fn = &names_of[c->family];
    tf_status s = TF_OK;
    for (size_t i = 0; !s && i < fn->n_top; i++)
        s = take(ld, fn->top[i].theirs, fn->top[i].ours);
    for (int32_t l = 0; !s && l < c->n_layers; l++)
        s = take_layer(ld, fn, l);
    return s ? s : check_all_taken(ld);
}

/* The tower's prefix in the file: "vision_model." for CLIP and SigLIP;
 * ViT's "vit." when its tensors carry it (a task model's), else "". */
static const char *prefix_of(const tf__st_file *f, int32_t family)
{
    if (family != TF_VISION_VIT)
        return "vision_model.";
    return tf__extra_tensor_exists(f, "vit.embeddings.cls_token") ? "vit." : "";
}

/* ---- The folder ------------------------------------------------------------- */

/* dir, or for a sentence-transformers folder the path of its CLIPModel
 * module, into *model_dir (tf__free it); NULL for a sentence-transformers
 * folder without one. */
static tf_status find_model_dir(const char *dir, char **model_dir)
{
    char *modules_path = NULL;
    tf_status s = tf__path_join(dir, "modules.json", &modules_path);
    mode_t mode = 0;
    if (!s)
        s = tf__file_probe(modules_path, &mode);
    if (s || !mode) {
        tf__free(modules_path);
        return s ? s : tf__format_alloc(model_dir, "%s", dir);
    }
    cJSON *root = NULL;
    s = tf__json_read_file(modules_path, "modules.json", 1, &root);
    tf__free(modules_path);
    if (s)
        return s;
    const char *path = NULL;
    const cJSON *module;
    cJSON_ArrayForEach(module, root)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(module, "type");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(module, "path");
        if (cJSON_IsString(type) &&
            strcmp(type->valuestring, "sentence_transformers.models.CLIPModel") == 0 &&
            cJSON_IsString(p))
            path = p->valuestring;
    }
    const char *leaves = path ? tf__path_leaves(path) : NULL;
    if (!path)
        *model_dir = NULL;
    else if (leaves)
        s = tf__fail(TF_ERR_FORMAT, "modules.json: CLIPModel path \"%s\" has %s", path, leaves);
    else
        s = tf__path_join(dir, path, model_dir);
    cJSON_Delete(root);
    return s;
}

/* The model described by config.json in dir, its weights from
 * model.safetensors. */
static tf_status load_model(const char *dir, tf__vision_model **out)
{
    char *config_path = NULL, *weights_path = NULL;
    cJSON *root = NULL;
    tf__st_file file = {0};
    loading ld = {.file = &file, .label = "model.safetensors"};
    folder_kind kind = {0};
    tf_status s = tf__path_join(dir, "config.json", &config_path);
    if (!s)
        s = tf__json_read_file(config_path, "config.json", 0, &root);
    if (!s)
        s = read_config(root, "config.json", &kind);
    if (!s)
        s = tf__path_join(dir, "model.safetensors", &weights_path);
    if (!s)
        s = tf__st_open(&file, weights_path);
    if (!s) {
        ld.prefix = prefix_of(&file, kind.cfg.family);
        char pooler[64];
        snprintf(pooler, sizeof pooler, "%spooler.dense.weight", ld.prefix);
        kind.cfg.pooler = kind.pooler_if_present && tf__extra_tensor_exists(&file, pooler);
        s = tf__vision_model_new(&kind.cfg, &ld.m);
    }
    if (!s && !(ld.taken = tf__calloc(file.n_tensors ? file.n_tensors : 1, 1)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the tensor table");
    if (!s)
        s = take_all(&ld);
    if (s)
        tf__vision_model_free(ld.m);
    else
        *out = ld.m;
    tf__free(ld.taken);
    tf__st_close(&file);
    cJSON_Delete(root);
    tf__free(config_path);
    tf__free(weights_path);
    return s;
}

tf_status tf__vision_folder_load(const char *dir, tf__vision_model **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!dir)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "path is NULL");
    char *model_dir = NULL;
    tf_status s = find_model_dir(dir, &model_dir);
    if (!s && !model_dir)
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "modules.json: no sentence_transformers.models.CLIPModel module with a "
                     "path: not a sentence-transformers image model");
    if (!s)
        s = load_model(model_dir, out);
    tf__free(model_dir);
    return s;
}

/* 1 when config.json's model_type (in dir's config.json) is a vision one;
 * 0 without config.json or model_type. */
static tf_status is_vision_config(const char *dir, int *vision)
{
    char *config_path = NULL;
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, "config.json", &config_path);
    if (!s)
        s = tf__file_probe(config_path, &mode);
    cJSON *root = NULL;
    if (!s && mode)
        s = tf__json_read_file(config_path, "config.json", 0, &root);
    tf__free(config_path);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    *vision = 0;
    for (size_t t = 0; cJSON_IsString(type) && t < N_MODEL_TYPES; t++)
        *vision |= strcmp(model_types[t].model_type, type->valuestring) == 0;
    cJSON_Delete(root);
    return s;
}

tf_status tf__vision_folder_probe(const char *dir, char **model_dir)
{
    *model_dir = NULL;
    char *found = NULL;
    tf_status s = find_model_dir(dir, &found);
    int vision = found && strcmp(found, dir) != 0; /* a CLIPModel module */
    if (!s && found && !vision)
        s = is_vision_config(found, &vision);
    if (!s && vision)
        *model_dir = found;
    else
        tf__free(found);
    return s;
}
