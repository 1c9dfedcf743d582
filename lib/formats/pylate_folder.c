/* pylate_folder.c — reading a PyLate (ColBERT) folder: modules.json as
 * ColBERT._load_config_modules keeps it (the Transformer and the Dense
 * modules; Pooling and Normalize dropped), each Dense module as
 * pylate/models/Dense.py loads it, config_sentence_transformers.json's
 * fields as ColBERT._parse_model_config reads them, with ColBERT.__init__'s
 * defaults, and sentence_bert_config.json's do_lower_case (the Transformer
 * module's; PyLate sets its max_seq_length per call). */
#define _POSIX_C_SOURCE 200809L
#include "pylate_folder.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "extra_tensors.h"
#include "file.h"
#include "json_file.h"
#include "model_folder.h"
#include "safetensors.h"
#include "st_modules.h"

static const char st_config[] = "config_sentence_transformers.json";

/* The features Dense reads and writes: every token's vector. */
static const char token_features[] = "token_embeddings";

/* string.punctuation, PyLate's default skiplist_words. */
static const char punctuation[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/* The module types of modules.json (by class name after its module path). */
typedef enum module_kind { TRANSFORMER, DENSE, DROPPED, OTHER } module_kind;

static const struct {
    const char *type;
    module_kind kind;
} module_types[] = {
    {"sentence_transformers.models.Transformer", TRANSFORMER},
    {"pylate.models.Dense.Dense", DENSE},
    {"sentence_transformers.models.Dense", DENSE},
    {"sentence_transformers.models.Pooling", DROPPED},
    {"sentence_transformers.models.Normalize", DROPPED},
};

static module_kind kind_of(const char *type)
{
    for (size_t i = 0; i < sizeof module_types / sizeof *module_types; i++)
        if (strcmp(type, module_types[i].type) == 0)
            return module_types[i].kind;
    return OTHER;
}

static char *copy_string(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *c = tf__malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* The JSON in dir/rel (rel names it); absent and optional: *root NULL. */
static tf_status read_json(const char *dir, const char *rel, int optional, int array, cJSON **root)
{
    *root = NULL;
    char *path;
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, rel, &path);
    if (s == TF_OK && optional)
        s = tf__file_probe(path, &mode);
    if (s == TF_OK && (!optional || mode))
        s = tf__json_read_file(path, rel, array, root);
    tf__free(path);
    return s;
}

/* ---- Detection ---------------------------------------------------------------------- */

static int has_pylate_module(const cJSON *modules)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, modules)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(m, "type");
        if (cJSON_IsString(type) && strncmp(type->valuestring, "pylate.", 7) == 0)
            return 1;
    }
    return 0;
}

tf_status tf__pylate_is_folder(const char *dir, int *found)
{
    *found = 0;
    cJSON *modules = NULL, *config = NULL;
    tf_status s = read_json(dir, "modules.json", 1, 1, &modules);
    if (s == TF_OK && modules)
        *found = has_pylate_module(modules);
    if (s == TF_OK && !*found)
        s = read_json(dir, st_config, 1, 0, &config);
    const char *model_type = NULL;
    if (s == TF_OK && config)
        s = tf__json_get_string(config, "model_type", st_config, &model_type);
    if (s == TF_OK && model_type && strcmp(model_type, "ColBERT") == 0)
        *found = 1;
    cJSON_Delete(modules);
    cJSON_Delete(config);
    return s;
}

/* ---- Dense ------------------------------------------------------------------------------ */

/* module_input_name and module_output_name: absent or null (Dense's
 * default) or every token's vector; another key is another computation. */
static tf_status read_features(const cJSON *root, const char *label)
{
    static const char *const keys[] = {"module_input_name", "module_output_name"};
    tf_status s = TF_OK;
    for (int i = 0; s == TF_OK && i < 2; i++) {
        const char *name = token_features;
        s = tf__json_get_string(root, keys[i], label, &name);
        if (s == TF_OK && strcmp(name, token_features) != 0)
            s = tf__fail(TF_ERR_UNSUPPORTED, "%s: %s \"%s\" is not supported (\"%s\" is)", label,
                         keys[i], name, token_features);
    }
    return s;
}

/* The Dense module's tensors from module/model.safetensors (rel names it). */
static tf_status read_dense_weights(tf__pylate_dense *d, const char *module, const char *rel,
                                    int32_t bias, const char *config)
{
    char *why = NULL;
    tf__st_file f;
    tf_status s = tf__model_folder_open(module, &f);
    const int opened = s == TF_OK;
    if (s == TF_OK)
        s = tf__dense_linear_read(&f, d->out, d->in, bias, rel, config, &d->w, &d->b);
    const int64_t residual_dims[2] = {d->out, d->in};
    if (s == TF_OK && d->use_residual && d->in != d->out &&
        (s = tf__format_alloc(&why, "use_residual with out_features %d != in_features %d in %s",
                              (int)d->out, (int)d->in, config)) == TF_OK)
        s = tf__extra_tensor_read(&f, "residual.weight", 2, residual_dims, rel, why,
                                  &d->residual_w);
    if (opened)
        tf__st_close(&f);
    tf__free(why);
    return s;
}

/* The Dense module at path, reading `width` values a token. */
static tf_status read_dense(tf__pylate_dense *d, const char *dir, const char *path, int32_t width)
{
    char *label = NULL, *rel = NULL, *module = NULL;
    cJSON *root = NULL;
    tf_status s = tf__format_alloc(&label, "%s/config.json", path);
    if (s == TF_OK)
        s = tf__format_alloc(&rel, "%s/model.safetensors", path);
    if (s == TF_OK)
        s = tf__path_join(dir, path, &module);
    if (s == TF_OK)
        s = read_json(dir, label, 0, 0, &root);
    int32_t bias = 1; /* Dense.__init__'s default */
    if (s == TF_OK)
        s = tf__json_read_int(root, "in_features", TF_JSON_REQUIRED, 1, 1048576, label, &d->in);
    if (s == TF_OK)
        s = tf__json_read_int(root, "out_features", TF_JSON_REQUIRED, 1, 1048576, label, &d->out);
    if (s == TF_OK && d->in != width)
        s = tf__fail(TF_ERR_SHAPE,
                     "%s: in_features %d disagrees with the %d values a token has "
                     "before it",
                     label, (int)d->in, (int)width);
    if (s == TF_OK)
        s = tf__json_read_bool(root, "bias", TF_JSON_NOT_NULL, label, &bias);
    if (s == TF_OK)
        s = tf__json_read_bool(root, "use_residual", TF_JSON_NOT_NULL, label, &d->use_residual);
    d->act = TF_DENSE_IDENTITY; /* Dense.__init__'s default, where the file has none */
    if (s == TF_OK && cJSON_GetObjectItemCaseSensitive(root, "activation_function"))
        s = tf__st_read_activation(root, label, &d->act);
    if (s == TF_OK)
        s = read_features(root, label);
    if (s == TF_OK)
        s = read_dense_weights(d, module, rel, bias, label);
    cJSON_Delete(root);
    tf__free(label);
    tf__free(rel);
    tf__free(module);
    return s;
}

/* ---- modules.json ------------------------------------------------------------------------ */

/* Module i: its type among module_types, its path in the folder (a folder
 * for a Dense), module 0 the Transformer at the folder itself. */
static tf_status module_entry(const cJSON *m, size_t i, const char *dir, module_kind *kind,
                              const char **path)
{
    char label[64];
    snprintf(label, sizeof label, "modules.json: module %zu", i);
    const char *type = NULL;
    tf_status s = cJSON_IsObject(m) ? TF_OK : tf__json_wrong(m, label, "an object", "modules.json");
    if (s == TF_OK)
        s = tf__json_read_string(m, "type", TF_JSON_REQUIRED, label, &type);
    if (s == TF_OK)
        s = tf__json_read_string(m, "path", TF_JSON_REQUIRED, label, path);
    if (s)
        return s;
    *kind = kind_of(type);
    if (*kind == OTHER)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: type %s is not supported in a PyLate folder "
                        "(sentence_transformers.models.Transformer, pylate.models.Dense.Dense "
                        "and sentence_transformers.models.Dense are)",
                        label, type);
    if ((i == 0) != (*kind == TRANSFORMER) || (i == 0 && (*path)[0]))
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: type %s at path \"%s\": a PyLate folder has its "
                        "Transformer first, at the folder itself (\"\"), and only there",
                        label, type, *path);
    const char *leaves = tf__path_leaves(*path);
    if (leaves)
        return tf__fail(TF_ERR_FORMAT, "%s (%s): path \"%s\" leaves the folder (%s)", label, type,
                        *path, leaves);
    char *full;
    mode_t mode = 0;
    if (*kind == DENSE && (s = tf__path_join(dir, *path, &full)) == TF_OK) {
        s = tf__file_probe(full, &mode);
        tf__free(full);
        if (s == TF_OK && !S_ISDIR(mode))
            s = tf__fail(TF_ERR_FORMAT, "%s (%s): path \"%s\" is not a folder of %s", label, type,
                         *path, dir);
    }
    return s;
}

static tf_status read_modules(tf__pylate_folder *f, const char *dir, int32_t hidden_size)
{
    cJSON *modules;
    tf_status s = read_json(dir, "modules.json", 0, 1, &modules);
    if (s)
        return s;
    const size_t n = (size_t)cJSON_GetArraySize(modules);
    if (n > 1 && !(f->dense = tf__calloc(n - 1, sizeof *f->dense)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu modules", n);
    int32_t width = hidden_size;
    for (size_t i = 0; s == TF_OK && i < n; i++) {
        module_kind kind = OTHER;
        const char *path = NULL;
        s = module_entry(cJSON_GetArrayItem(modules, (int)i), i, dir, &kind, &path);
        if (s == TF_OK && kind == DENSE) {
            tf__pylate_dense *d = &f->dense[f->n_dense++];
            if ((s = read_dense(d, dir, path, width)) == TF_OK)
                width = d->out;
        }
    }
    if (s == TF_OK && f->n_dense == 0)
        s = tf__fail(TF_ERR_FORMAT,
                     "modules.json: no Dense module after the Transformer (a PyLate "
                     "folder projects every token; PyLate would add an untrained one)");
    cJSON_Delete(modules);
    return s;
}

/* ---- config_sentence_transformers.json ----------------------------------------------------- */

/* A prefix: the field's string ("" none), else def (absent or null). */
static tf_status read_prefix(const cJSON *root, const char *key, const char *def, char **out)
{
    const char *v = def;
    tf_status s = root ? tf__json_get_string(root, key, st_config, &v) : TF_OK;
    if (s == TF_OK && !(*out = copy_string(v)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %s", key);
    return s;
}

/* skiplist_words: an array of strings, else (absent or null) string.punctuation's characters. */
static tf_status read_skiplist(tf__pylate_folder *f, const cJSON *root)
{
    const cJSON *list = root ? cJSON_GetObjectItemCaseSensitive(root, "skiplist_words") : NULL;
    const int given = list && !cJSON_IsNull(list);
    if (given && !cJSON_IsArray(list))
        return tf__json_wrong(list, "skiplist_words", "an array of strings", st_config);
    const size_t n = given ? (size_t)cJSON_GetArraySize(list) : sizeof punctuation - 1;
    if (n && !(f->skiplist_words = tf__calloc(n, sizeof *f->skiplist_words)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu skiplist words", n);
    for (size_t i = 0; i < n; i++) {
        const cJSON *w = given ? cJSON_GetArrayItem(list, (int)i) : NULL;
        if (given && !cJSON_IsString(w)) {
            char key[48];
            snprintf(key, sizeof key, "skiplist_words[%zu]", i);
            return tf__json_wrong(w, key, "a string", st_config);
        }
        const char one[2] = {punctuation[i], 0};
        f->skiplist_words[i] = copy_string(given ? w->valuestring : one);
        f->n_skiplist++;
        if (!f->skiplist_words[i])
            return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a skiplist word");
    }
    return TF_OK;
}

/* similarity_fn_name (MaxSim), default_prompt_name (PyLate would prepend
 * that prompt to every text: not supported) and model_type. */
static tf_status check_settings(const cJSON *root)
{
    const char *similarity = "MaxSim", *default_prompt = NULL, *model_type = "ColBERT";
    tf_status s = tf__json_get_string(root, "similarity_fn_name", st_config, &similarity);
    if (s == TF_OK && strcmp(similarity, "MaxSim") != 0)
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "%s: similarity_fn_name \"%s\": a PyLate folder's is MaxSim", st_config,
                     similarity);
    if (s == TF_OK)
        s = tf__json_get_string(root, "default_prompt_name", st_config, &default_prompt);
    if (s == TF_OK && default_prompt)
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "%s: default_prompt_name \"%s\": prompts are not supported "
                     "for a multi-vector model",
                     st_config, default_prompt);
    if (s == TF_OK)
        s = tf__json_get_string(root, "model_type", st_config, &model_type);
    if (s == TF_OK && strcmp(model_type, "ColBERT") != 0)
        s = tf__fail(TF_ERR_UNSUPPORTED, "%s: model_type \"%s\" in a PyLate folder (ColBERT is)",
                     st_config, model_type);
    return s;
}

/* A length: an integer >= least (room for the prefix, [CLS], [SEP] and a
 * token) within the model's positions, else def (absent or null). */
static tf_status read_length(const cJSON *root, const char *key, int32_t def, int32_t least,
                             int32_t max_positions, int32_t *out)
{
    *out = def;
    tf_status s = root ? tf__json_get_int(root, key, least, 2147483647, st_config, out) : TF_OK;
    if (s == TF_OK && max_positions > 0 && *out > max_positions)
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: %s %d exceeds the %d positions of the model's table "
                     "(config.json's max_position_embeddings less its position offset)",
                     st_config, key, (int)*out, (int)max_positions);
    return s;
}

static tf_status read_settings(tf__pylate_folder *f, const char *dir, int32_t max_positions)
{
    cJSON *root;
    tf_status s = read_json(dir, st_config, 1, 0, &root);
    if (s == TF_OK && root)
        s = check_settings(root);
    if (s == TF_OK)
        s = read_prefix(root, "query_prefix", TF_PYLATE_QUERY_PREFIX, &f->query_prefix);
    if (s == TF_OK)
        s = read_prefix(root, "document_prefix", TF_PYLATE_DOCUMENT_PREFIX, &f->document_prefix);
    const int32_t q_least = 3 + (f->query_prefix && f->query_prefix[0]);
    const int32_t d_least = 3 + (f->document_prefix && f->document_prefix[0]);
    if (s == TF_OK)
        s = read_length(root, "query_length", TF_PYLATE_QUERY_LENGTH, q_least, max_positions,
                        &f->query_length);
    if (s == TF_OK)
        s = read_length(root, "document_length", TF_PYLATE_DOCUMENT_LENGTH, d_least, max_positions,
                        &f->document_length);
    f->do_query_expansion = 1, f->attend_to_expansion_tokens = 0;
    if (s == TF_OK && root)
        s = tf__json_get_bool(root, "do_query_expansion", st_config, &f->do_query_expansion);
    if (s == TF_OK && root)
        s = tf__json_get_bool(root, "attend_to_expansion_tokens", st_config,
                              &f->attend_to_expansion_tokens);
    if (!f->do_query_expansion) /* ColBERT.__init__: no expansion, nothing to attend to */
        f->attend_to_expansion_tokens = 0;
    if (s == TF_OK)
        s = read_skiplist(f, root);
    cJSON_Delete(root);
    return s;
}

/* sentence_bert_config.json's do_lower_case (its max_seq_length PyLate replaces). */
static tf_status read_transformer(tf__pylate_folder *f, const char *dir)
{
    static const char label[] = "sentence_bert_config.json";
    cJSON *root;
    int32_t max_seq_length = 0;
    tf_status s = read_json(dir, label, 1, 0, &root);
    if (s == TF_OK && root)
        s = tf__json_get_int(root, "max_seq_length", 1, 2147483647, label, &max_seq_length);
    if (s == TF_OK && root)
        s = tf__json_read_bool(root, "do_lower_case", TF_JSON_NOT_NULL, label, &f->do_lower_case);
    cJSON_Delete(root);
    return s;
}

tf_status tf__pylate_folder_read(tf__pylate_folder *f, const char *dir, int32_t hidden_size,
                                 int32_t max_positions)
{
    *f = (tf__pylate_folder){0};
    tf_status s = read_modules(f, dir, hidden_size);
    if (s == TF_OK)
        s = read_transformer(f, dir);
    if (s == TF_OK)
        s = read_settings(f, dir, max_positions);
    if (s)
        tf__pylate_folder_free(f);
    return s;
}

void tf__pylate_folder_free(tf__pylate_folder *f)
{
    for (size_t i = 0; i < f->n_dense; i++) {
        tf__free(f->dense[i].w);
        tf__free(f->dense[i].b);
        tf__free(f->dense[i].residual_w);
    }
    for (size_t i = 0; i < f->n_skiplist; i++)
        tf__free(f->skiplist_words[i]);
    tf__free(f->dense);
    tf__free(f->skiplist_words);
    tf__free(f->query_prefix);
    tf__free(f->document_prefix);
    *f = (tf__pylate_folder){0};
}
