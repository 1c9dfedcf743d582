/* st_modules.c — reading a sentence-transformers folder: modules.json
 * (SentenceTransformer._load_sbert_model), sentence_bert_config.json
 * (models/Transformer.py), 1_Pooling/config.json (models/Pooling.py),
 * 2_Dense/config.json and its weights (models/Dense.py), Normalize, and
 * config_sentence_transformers.json. */
#define _POSIX_C_SOURCE 200809L
#include "st_modules.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "extra_tensors.h"
#include "file.h"
#include "json_file.h"
#include "model_folder.h"
#include "names.h"
#include "safetensors.h"

/* Pooling.py's config keys, in the order its forward concatenates them,
 * the pooling_mode string that turns each on alone, and its default. */
static const struct {
    const char *key, *name;
    tf_pooling mode;
    int32_t on;
} pooling_keys[] = {
    {"pooling_mode_cls_token", "cls", TF_POOLING_CLS, 0},
    {"pooling_mode_max_tokens", "max", TF_POOLING_MAX, 0},
    {"pooling_mode_mean_tokens", "mean", TF_POOLING_MEAN, 1},
    {"pooling_mode_mean_sqrt_len_tokens", "mean_sqrt_len_tokens", TF_POOLING_MEAN_SQRT_LEN, 0},
    {"pooling_mode_weightedmean_tokens", "weightedmean", TF_POOLING_WEIGHTED_MEAN, 0},
    {"pooling_mode_lasttoken", "lasttoken", TF_POOLING_LAST_TOKEN, 0},
};
enum { N_POOLING_KEYS = sizeof pooling_keys / sizeof pooling_keys[0] };

/* Dense.py's activation_function, by its full torch name. */
static const struct {
    const char *name;
    tf__dense_activation act;
} dense_activations[] = {
    {"torch.nn.modules.linear.Identity", TF_DENSE_IDENTITY},
    {"torch.nn.modules.activation.Tanh", TF_DENSE_TANH},
    {"torch.nn.modules.activation.ReLU", TF_DENSE_RELU},
    {"torch.nn.modules.activation.Sigmoid", TF_DENSE_SIGMOID},
    {"torch.nn.modules.activation.GELU", TF_DENSE_GELU},
};
enum { N_DENSE_ACTIVATIONS = sizeof dense_activations / sizeof dense_activations[0] };

/* The features key Dense reads and writes (module_input_name,
 * module_output_name): the sentence's vector. */
static const char dense_features[] = "sentence_embedding";

static const char *const similarities[] = {"cosine", "dot", "euclidean", "manhattan"};

static char *copy_string(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *c = tf__malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

tf_status tf__st_is_pipeline(const char *dir, int *found)
{
    char *path;
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, "modules.json", &path);
    if (s == TF_OK)
        s = tf__file_probe(path, &mode);
    tf__free(path);
    *found = mode != 0;
    return s;
}

/* The JSON object in dir/rel (rel also names it in messages); absent and
 * optional: *root NULL. */
static tf_status read_json(const char *dir, const char *rel, int optional, cJSON **root)
{
    *root = NULL;
    char *path;
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, rel, &path);
    if (s == TF_OK && optional)
        s = tf__file_probe(path, &mode);
    if (s == TF_OK && (!optional || mode))
        s = tf__json_read_file(path, rel, 0, root);
    tf__free(path);
    return s;
}

/* The file `name` of the module at path, relative to the folder (name
 * alone for the folder's own module, path ""), allocated into *rel. */
static tf_status module_file(const char *path, const char *name, char **rel)
{
    return tf__format_alloc(rel, "%s%s%s", path, path[0] ? "/" : "", name);
}

/* ---- Transformer: sentence_bert_config.json -------------------------------- */

static tf_status read_transformer(tf__st_pipeline *p, const char *dir, int32_t max_positions)
{
    cJSON *root;
    tf_status s = read_json(dir, "sentence_bert_config.json", 1, &root);
    const char *label = "sentence_bert_config.json";
    if (s == TF_OK && root) /* null: Transformer's None, the tokenizer's limit */
        s = tf__json_read_int(root, "max_seq_length", TF_JSON_OPTIONAL, 1, 2147483647, label,
                              &p->max_seq_length);
    if (s == TF_OK && root)
        s = tf__json_read_bool(root, "do_lower_case", TF_JSON_NOT_NULL, label, &p->do_lower_case);
    if (s == TF_OK && max_positions > 0 && p->max_seq_length > max_positions)
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: max_seq_length %d exceeds the %d positions of the "
                     "model's table (config.json's max_position_embeddings less its position "
                     "offset)",
                     label, (int)p->max_seq_length, (int)max_positions);
    cJSON_Delete(root);
    return s;
}

/* ---- Pooling ------------------------------------------------------------------- */

/* Every pooling_mode_* key must be one Pooling.py has. */
static tf_status check_pooling_keys(const cJSON *root, const char *label)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        if (strncmp(item->string, "pooling_mode_", 13) != 0)
            continue;
        int known = 0;
        for (int i = 0; i < N_POOLING_KEYS; i++)
            known |= strcmp(item->string, pooling_keys[i].key) == 0;
        if (!known)
            return tf__fail(TF_ERR_UNSUPPORTED,
                            "%s: unknown pooling mode %s (known: "
                            "pooling_mode_cls_token, _max_tokens, _mean_tokens, "
                            "_mean_sqrt_len_tokens, _weightedmean_tokens, _lasttoken)",
                            label, item->string);
    }
    return TF_OK;
}

/* The modes on: the pooling_mode_* keys (Pooling's defaults where absent),
 * or the one pooling_mode names (any case, as Pooling lowers it), which
 * overrides them. */
static tf_status read_pooling_modes(tf__st_pipeline *p, const cJSON *root, const char *label,
                                    int32_t *modes)
{
    const char *name = NULL;
    tf_status s = tf__json_read_string(root, "pooling_mode", TF_JSON_OPTIONAL, label, &name);
    char names[160] = ""; /* pooling_mode's values, for the message */
    for (int i = 0; s == TF_OK && i < N_POOLING_KEYS; i++) {
        int32_t on = pooling_keys[i].on;
        s = tf__json_read_bool(root, pooling_keys[i].key, TF_JSON_NOT_NULL, label, &on);
        if (name)
            on = strcasecmp(name, pooling_keys[i].name) == 0;
        if (s == TF_OK && on)
            p->pooling_modes |= 1u << pooling_keys[i].mode, ++*modes;
        const size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", pooling_keys[i].name);
    }
    if (s == TF_OK && name && *modes == 0)
        s = tf__fail(TF_ERR_FORMAT, "%s: pooling_mode \"%s\" is not one of %s", label, name, names);
    return s;
}

/* The Pooling module at path; *label its config.json's name (tf__free it). */
static tf_status read_pooling(tf__st_pipeline *p, const char *dir, const char *path,
                              int32_t hidden_size, char **label)
{
    cJSON *root = NULL;
    tf_status s = module_file(path, "config.json", label);
    if (s == TF_OK)
        s = read_json(dir, *label, 0, &root);
    int32_t width = hidden_size, modes = 0;
    if (s == TF_OK)
        s = check_pooling_keys(root, *label);
    if (s == TF_OK)
        s = tf__json_read_int(root, "word_embedding_dimension", TF_JSON_REQUIRED, 1, 2147483647,
                              *label, &width);
    if (s == TF_OK && width != hidden_size)
        s = tf__fail(TF_ERR_SHAPE,
                     "%s: word_embedding_dimension %d disagrees with the model's "
                     "hidden_size %d (config.json)",
                     *label, (int)width, (int)hidden_size);
    p->include_prompt = 1;
    if (s == TF_OK)
        s = tf__json_read_bool(root, "include_prompt", TF_JSON_NOT_NULL, *label,
                               &p->include_prompt);
    if (s == TF_OK)
        s = read_pooling_modes(p, root, *label, &modes);
    if (s == TF_OK && modes == 0)
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: no pooling mode is true (pooling_mode_cls_token, "
                     "_mean_tokens, ...)",
                     *label);
    p->pooled_dim = modes * hidden_size;
    cJSON_Delete(root);
    return s;
}

/* ---- Dense ----------------------------------------------------------------------- */

/* activation_function: Dense.load imports it by name, so it must be there
 * (Dense's own default, Tanh, is its constructor's, which load never
 * leaves to it). */
tf_status tf__st_read_activation(const cJSON *root, const char *label, tf__dense_activation *act)
{
    const char *name = NULL;
    tf_status s = tf__json_read_string(root, "activation_function", TF_JSON_REQUIRED, label, &name);
    for (int i = 0; s == TF_OK && i < N_DENSE_ACTIVATIONS; i++)
        if (strcmp(name, dense_activations[i].name) == 0) {
            *act = dense_activations[i].act;
            return TF_OK;
        }
    return s ? s
             : tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: activation_function \"%s\" is not supported "
                        "(torch.nn.modules.activation.Tanh, ReLU, Sigmoid, GELU and "
                        "torch.nn.modules.linear.Identity are)",
                        label, name);
}

/* module_input_name and module_output_name: the sentence's vector (null:
 * Dense's default, which is it); another key is another computation. */
static tf_status read_features(const cJSON *root, const char *label)
{
    static const char *const keys[] = {"module_input_name", "module_output_name"};
    tf_status s = TF_OK;
    for (int i = 0; s == TF_OK && i < 2; i++) {
        const char *name = dense_features;
        s = tf__json_read_string(root, keys[i], TF_JSON_OPTIONAL, label, &name);
        if (s == TF_OK && strcmp(name, dense_features) != 0)
            s = tf__fail(TF_ERR_UNSUPPORTED, "%s: %s \"%s\" is not supported (\"%s\" is)", label,
                         keys[i], name, dense_features);
    }
    return s;
}

/* The Dense module's weights at path/model.safetensors, as its config.json
 * (config, for messages) says them. */
static tf_status read_dense_weights(tf__st_step *d, const char *dir, const char *path, int bias,
                                    const char *config)
{
    char *rel = NULL, *module = NULL;
    tf_status s = module_file(path, "model.safetensors", &rel);
    if (s == TF_OK)
        s = tf__path_join(dir, path, &module);
    tf__st_file f;
    const int opened = s == TF_OK && (s = tf__model_folder_open(module, &f)) == TF_OK;
    if (s == TF_OK)
        s = tf__dense_linear_read(&f, d->out, d->in, bias, rel, config, &d->w, &d->b);
    if (opened)
        tf__st_close(&f);
    tf__free(rel);
    tf__free(module);
    return s;
}

/* A Dense module at path reading `width` values (width_from says what
 * gives them); *label its config.json's name (tf__free it). */
static tf_status read_dense(tf__st_step *d, const char *dir, const char *path, int32_t width,
                            const char *width_from, char **label)
{
    cJSON *root = NULL;
    tf_status s = module_file(path, "config.json", label);
    if (s == TF_OK)
        s = read_json(dir, *label, 0, &root);
    int32_t bias = 1;
    if (s == TF_OK)
        s = tf__json_read_int(root, "in_features", TF_JSON_REQUIRED, 1, 1048576, *label, &d->in);
    if (s == TF_OK)
        s = tf__json_read_int(root, "out_features", TF_JSON_REQUIRED, 1, 1048576, *label, &d->out);
    if (s == TF_OK && d->in != width)
        s = tf__fail(TF_ERR_SHAPE,
                     "%s: in_features %d disagrees with the %d values the modules "
                     "before it give (%s)",
                     *label, (int)d->in, (int)width, width_from);
    if (s == TF_OK)
        s = tf__json_read_bool(root, "bias", TF_JSON_NOT_NULL, *label, &bias);
    if (s == TF_OK)
        s = tf__st_read_activation(root, *label, &d->act);
    if (s == TF_OK)
        s = read_features(root, *label);
    cJSON_Delete(root);
    return s ? s : read_dense_weights(d, dir, path, bias, *label);
}

/* ---- modules.json ------------------------------------------------------------------ */

typedef enum module_type { TRANSFORMER, POOLING, DENSE, NORMALIZE, OTHER } module_type;

/* The class names of the module types read (sentence_transformers.models.*). */
static const char *const module_names[] = {[TRANSFORMER] = "Transformer",
                                           [POOLING] = "Pooling",
                                           [DENSE] = "Dense",
                                           [NORMALIZE] = "Normalize"};
_Static_assert(sizeof module_names / sizeof *module_names == OTHER,
               "a name for each module type but OTHER");

static module_type type_of(const char *type)
{
    const char *dot = strrchr(type, '.');
    if (strncmp(type, "sentence_transformers.", 22) != 0 || !dot)
        return OTHER;
    for (int i = 0; i < OTHER; i++)
        if (strcmp(dot + 1, module_names[i]) == 0)
            return (module_type)i;
    return OTHER;
}

/* Module i's path: in the folder as written (no ".." and not absolute),
 * and a folder there unless a Normalize (which has no files). */
static tf_status check_module_path(const char *dir, const char *label, const char *type_name,
                                   module_type type, const char *path)
{
    const char *leaves = tf__path_leaves(path);
    if (leaves)
        return tf__fail(TF_ERR_FORMAT, "%s (%s): path \"%s\" leaves the folder (%s)", label,
                        type_name, path, leaves);
    char *full;
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, path, &full);
    if (s == TF_OK)
        s = tf__file_probe(full, &mode);
    tf__free(full);
    if (s == TF_OK && !S_ISDIR(mode) && type != NORMALIZE)
        s = tf__fail(TF_ERR_FORMAT, "%s (%s): path \"%s\" is not a folder of %s", label, type_name,
                     path, dir);
    return s;
}

/* Module i's type and path (both required strings), checked. */
static tf_status module_entry(const cJSON *m, size_t i, const char *dir, module_type *type,
                              const char **path)
{
    const char *type_name = NULL;
    *path = NULL;
    char label[64], module[32];
    snprintf(label, sizeof label, "modules.json: module %zu", i);
    snprintf(module, sizeof module, "module %zu", i);
    tf_status s = cJSON_IsObject(m) ? TF_OK
                                    : tf__json_wrong(m, module, "an object", "modules.json");
    if (s == TF_OK)
        s = tf__json_read_string(m, "type", TF_JSON_REQUIRED, label, &type_name);
    if (s == TF_OK)
        s = tf__json_read_string(m, "path", TF_JSON_REQUIRED, label, path);
    if (s)
        return s;
    *type = type_of(type_name);
    if (*type == OTHER)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: type %s is not supported (sentence_transformers."
                        "models.Transformer, Pooling, Dense and Normalize are)",
                        label, type_name);
    return check_module_path(dir, label, type_name, *type, *path);
}

/* What module i may be: Transformer first, Pooling second, then Dense or
 * Normalize. */
static tf_status check_order(size_t i, module_type type, const char *path)
{
    const module_type want = i == 0 ? TRANSFORMER : i == 1 ? POOLING : DENSE;
    if (type == want || (i > 1 && type == NORMALIZE))
        return i == 0 && path[0] ? tf__fail(TF_ERR_UNSUPPORTED,
                                            "modules.json: module 0 "
                                            "(Transformer) path \"%s\": only the folder itself "
                                            "(\"\") is supported",
                                            path)
                                 : TF_OK;
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "modules.json: module %zu is a %s; supported: "
                    "Transformer, then Pooling, then Dense and Normalize modules",
                    i, module_names[type]);
}

/* Module i (of type, at path) read into p; it takes *width values, and
 * gives *width (*width_from: what gives them, for messages, replaced). */
static tf_status read_module(tf__st_pipeline *p, const char *dir, module_type type,
                             const char *path, int32_t hidden_size, int32_t max_positions,
                             int32_t *width, char **width_from)
{
    if (type == TRANSFORMER)
        return read_transformer(p, dir, max_positions);
    char *label = NULL, *from = NULL;
    tf_status s = TF_OK;
    if (type == POOLING) {
        if ((s = read_pooling(p, dir, path, hidden_size, &label)) == TF_OK)
            s = tf__format_alloc(&from, "%s: %d modes of %d", label,
                                 (int)(p->pooled_dim / hidden_size), (int)hidden_size);
        *width = p->pooled_dim;
    } else {
        tf__st_step *step = &p->steps[p->n_steps++];
        step->normalize = type == NORMALIZE;
        if (type == DENSE &&
            (s = read_dense(step, dir, path, *width, *width_from, &label)) == TF_OK &&
            (s = tf__format_alloc(&from, "%s: out_features", label)) == TF_OK)
            *width = step->out;
    }
    tf__free(label);
    if (from) {
        tf__free(*width_from);
        *width_from = from;
    }
    return s;
}

static tf_status read_steps(tf__st_pipeline *p, const char *dir, const cJSON *modules,
                            int32_t hidden_size, int32_t max_positions)
{
    const size_t n = (size_t)cJSON_GetArraySize(modules);
    if (n < 2)
        return tf__fail(TF_ERR_FORMAT,
                        "modules.json: %zu modules; expected a Transformer and a "
                        "Pooling at least",
                        n);
    if (!(p->steps = tf__calloc(n, sizeof *p->steps)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu modules", n);
    int32_t width = 0;
    char *width_from = NULL; /* what gives the width, for messages */
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < n; i++) {
        module_type type = OTHER;
        const char *path;
        if ((s = module_entry(cJSON_GetArrayItem(modules, (int)i), i, dir, &type, &path)) ||
            (s = check_order(i, type, path)))
            break;
        s = read_module(p, dir, type, path, hidden_size, max_positions, &width, &width_from);
    }
    tf__free(width_from);
    return s;
}

/* ---- config_sentence_transformers.json ----------------------------------------------- */

static tf_status read_prompts(tf__st_pipeline *p, const cJSON *prompts, const char *label)
{
    if (!prompts || cJSON_IsNull(prompts)) /* SentenceTransformer's None: no prompts */
        return TF_OK;
    if (!cJSON_IsObject(prompts))
        return tf__json_wrong(prompts, "prompts", "an object of name -> text", label);
    const size_t n = (size_t)cJSON_GetArraySize(prompts);
    if (n && !(p->prompts = tf__calloc(n, sizeof *p->prompts)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu prompts", n);
    const cJSON *item;
    cJSON_ArrayForEach(item, prompts)
    {
        char value[96];
        tf__json_describe(item, value, sizeof value);
        if (!cJSON_IsString(item))
            return tf__fail(TF_ERR_FORMAT, "%s: prompts.%s must be a string, got %s", label,
                            item->string, value);
        tf__st_prompt *pr = &p->prompts[p->n_prompts];
        pr->name = copy_string(item->string);
        pr->text = copy_string(item->valuestring);
        p->n_prompts++;
        if (!pr->name || !pr->text)
            return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a prompt");
    }
    return TF_OK;
}

tf_status tf__st_config_read(tf__st_pipeline *p, const char *dir, const char *similarity)
{
    const char *label = "config_sentence_transformers.json";
    cJSON *root;
    tf_status s = read_json(dir, label, 1, &root);
    const char *default_name = NULL;
    if (s == TF_OK && root)
        s = read_prompts(p, cJSON_GetObjectItemCaseSensitive(root, "prompts"), label);
    if (s == TF_OK && root)
        s = tf__json_get_string(root, "default_prompt_name", label, &default_name);
    if (s == TF_OK && root)
        s = tf__json_get_string(root, "similarity_fn_name", label, &similarity);
    if (s == TF_OK && default_name && (p->default_prompt = tf__st_prompt_find(p, default_name)) < 0)
        s = tf__fail(TF_ERR_FORMAT, "%s: default_prompt_name \"%s\" is not one of its %zu prompts",
                     label, default_name, p->n_prompts);
    p->similarity = NULL;
    for (int i = 0; s == TF_OK && i < 4; i++)
        if (strcmp(similarity, similarities[i]) == 0)
            p->similarity = similarities[i];
    if (s == TF_OK && !p->similarity)
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: similarity_fn_name \"%s\" is not one of cosine, dot, "
                     "euclidean, manhattan",
                     label, similarity);
    cJSON_Delete(root);
    return s;
}

int32_t tf__st_prompt_find(const tf__st_pipeline *p, const char *name)
{
    for (size_t i = 0; i < p->n_prompts; i++)
        if (strcmp(p->prompts[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

tf_status tf__st_pipeline_read(tf__st_pipeline *p, const char *dir, int32_t hidden_size,
                               int32_t max_positions)
{
    *p = (tf__st_pipeline){.default_prompt = -1, .include_prompt = 1, .similarity = "cosine"};
    cJSON *root = NULL;
    char *path;
    tf_status s = tf__path_join(dir, "modules.json", &path);
    if (s == TF_OK)
        s = tf__json_read_file(path, "modules.json", 1, &root);
    tf__free(path);
    if (s == TF_OK)
        s = read_steps(p, dir, root, hidden_size, max_positions);
    cJSON_Delete(root);
    if (s == TF_OK)
        s = tf__st_config_read(p, dir, "cosine");
    if (s)
        tf__st_pipeline_free(p);
    return s;
}

void tf__st_pipeline_free(tf__st_pipeline *p)
{
    for (size_t i = 0; i < p->n_steps; i++) {
        tf__free(p->steps[i].w);
        tf__free(p->steps[i].b);
    }
    for (size_t i = 0; i < p->n_prompts; i++) {
        tf__free(p->prompts[i].name);
        tf__free(p->prompts[i].text);
    }
    tf__free(p->steps);
    tf__free(p->prompts);
    *p = (tf__st_pipeline){.default_prompt = -1};
}
