/* st_sparse.c — reading a sentence-transformers 5 SparseEncoder folder:
 * modules.json (SentenceTransformer._load_sbert_model), the MLMTransformer's
 * sentence_bert_config.json (sparse_encoder/models/MLMTransformer.py
 * load_config), SpladePooling's config.json (SpladePooling.py config_keys),
 * a Router's router_config.json (models/Router.py Router.load: types,
 * structure, parameters) and a SparseStaticEmbedding's folder
 * (SparseStaticEmbedding.py load: config.json, model.safetensors "weight"). */
#define _POSIX_C_SOURCE 200809L
#include "st_sparse.h"

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

/* The module classes a SparseEncoder folder names, as modules.json and
 * router_config.json write them (class.__module__ + "." + name). */
static const char mlm_type[] = "sentence_transformers.sparse_encoder.models.MLMTransformer";
static const char splade_type[] = "sentence_transformers.sparse_encoder.models.SpladePooling";
static const char static_type[] =
    "sentence_transformers.sparse_encoder.models.SparseStaticEmbedding";
static const char router_type[] = "sentence_transformers.models.Router";

/* MLMTransformer.load_config's file names, tried in this order. */
static const char *const mlm_configs[] = {
    "sentence_bert_config.json",       "sentence_roberta_config.json",
    "sentence_distilbert_config.json", "sentence_camembert_config.json",
    "sentence_albert_config.json",     "sentence_xlm-roberta_config.json",
    "sentence_xlnet_config.json",
};

/* SpladePooling.py's SPLADE_POOLING_MODES and SPLADE_ACTIVATION. */
static const char *const strategies[] = {[TF_SPLADE_MAX] = "max", [TF_SPLADE_SUM] = "sum"};
static const char *const activations[] = {
    [TF_SPLADE_RELU] = "relu", [TF_SPLADE_LOG1P_RELU] = "log1p_relu"};

/* Router.load's config files: the current name, then the legacy one. */
static const char *const router_configs[] = {"router_config.json", "config.json"};

/* ---- Files ----------------------------------------------------------------- */

/* dir/rel: *mode its stat() mode, 0 when absent. */
static tf_status probe(const char *dir, const char *rel, mode_t *mode)
{
    char *path;
    *mode = 0;
    tf_status s = tf__path_join(dir, rel, &path);
    if (s == TF_OK)
        s = tf__file_probe(path, mode);
    tf__free(path);
    return s;
}

/* The JSON in dir/rel (rel also names it in messages). */
static tf_status read_json(const char *dir, const char *rel, int array, cJSON **root)
{
    char *path;
    *root = NULL;
    tf_status s = tf__path_join(dir, rel, &path);
    if (s == TF_OK)
        s = tf__json_read_file(path, rel, array, root);
    tf__free(path);
    return s;
}

/* "<folder>/<name>" relative to dir ("name" alone for the folder ""). */
static tf_status module_file(const char *folder, const char *name, char **rel)
{
    return tf__format_alloc(rel, "%s%s%s", folder, folder[0] ? "/" : "", name);
}

/* A module's folder, rel as a file of dir gives it (label names that
 * file): inside dir as written, and a folder. */
static tf_status check_folder(const char *dir, const char *rel, const char *label)
{
    const char *leaves = tf__path_leaves(rel);
    if (leaves)
        return tf__fail(TF_ERR_FORMAT, "%s: path \"%s\" leaves the folder (%s)", label, rel,
                        leaves);
    mode_t mode;
    tf_status s = probe(dir, rel, &mode);
    if (s == TF_OK && !S_ISDIR(mode))
        s = tf__fail(TF_ERR_FORMAT, "%s: path \"%s\" is not a folder of %s", label, rel, dir);
    return s;
}

/* Index of value in names[n], or -1. */
static int find_name(const char *const *names, int n, const char *value)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], value) == 0)
            return i;
    return -1;
}

/* ---- The modules ------------------------------------------------------------- */

/* The MLMTransformer in folder rel: its sentence_*_config.json, if any. */
static tf_status read_mlm(tf__st_sparse *sp, const char *dir, const char *rel)
{
    tf_status s = tf__path_join(dir, rel, &sp->mlm_dir);
    for (size_t i = 0; s == TF_OK && i < sizeof mlm_configs / sizeof *mlm_configs; i++) {
        char *label = NULL;
        mode_t mode = 0;
        cJSON *root = NULL;
        if ((s = module_file(rel, mlm_configs[i], &label)) == TF_OK &&
            (s = probe(dir, label, &mode)) == TF_OK && mode)
            s = read_json(dir, label, 0, &root);
        if (s == TF_OK && root) /* null: MLMTransformer's None, the tokenizer's limit */
            s = tf__json_get_int(root, "max_seq_length", 1, 2147483647, label, &sp->max_seq_length);
        if (s == TF_OK && root)
            s = tf__json_read_bool(root, "do_lower_case", TF_JSON_NOT_NULL, label,
                                   &sp->do_lower_case);
        cJSON_Delete(root);
        tf__free(label);
        if (mode)
            break;
    }
    return s;
}

/* A string field of root that must be one of names[n] (default: names[0]). */
static tf_status read_choice(const cJSON *root, const char *key, const char *const *names, int n,
                             const char *label, int *out)
{
    const char *value = names[0];
    tf_status s = tf__json_get_string(root, key, label, &value);
    if (s == TF_OK && (*out = find_name(names, n, value)) < 0)
        s = tf__fail(TF_ERR_UNSUPPORTED, "%s: %s \"%s\" is not one of \"%s\", \"%s\"", label, key,
                     value, names[0], names[1]);
    return s;
}

/* The SpladePooling in folder rel: its config.json. */
static tf_status read_pooling(tf__st_sparse *sp, const char *dir, const char *rel)
{
    cJSON *root = NULL;
    int strategy = 0, activation = 0;
    tf_status s = module_file(rel, "config.json", &sp->pooling_label);
    if (s == TF_OK)
        s = read_json(dir, sp->pooling_label, 0, &root);
    if (s == TF_OK)
        s = read_choice(root, "pooling_strategy", strategies, 2, sp->pooling_label, &strategy);
    if (s == TF_OK)
        s = read_choice(root, "activation_function", activations, 2, sp->pooling_label,
                        &activation);
    if (s == TF_OK)
        s = tf__json_get_int(root, "word_embedding_dimension", 1, 2147483647, sp->pooling_label,
                             &sp->pooling_dim);
    sp->strategy = (tf__splade_strategy)strategy;
    sp->activation = (tf__splade_activation)activation;
    cJSON_Delete(root);
    return s;
}

/* The SparseStaticEmbedding in folder rel: its config.json (frozen; a
 * "path" to an idf JSON, which load reads instead of its weights, is
 * refused: the weights are what the folder holds). */
static tf_status read_static(tf__st_sparse *sp, const char *dir, const char *rel)
{
    char *label = NULL;
    cJSON *root = NULL;
    mode_t mode = 0;
    int32_t frozen = 0;
    tf_status s = module_file(rel, "config.json", &label);
    if (s == TF_OK && (s = probe(dir, label, &mode)) == TF_OK && mode)
        s = read_json(dir, label, 0, &root);
    if (s == TF_OK && root)
        s = tf__json_get_bool(root, "frozen", label, &frozen);
    if (s == TF_OK && root && cJSON_GetObjectItemCaseSensitive(root, "path"))
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "%s: path: a SparseStaticEmbedding read from an idf JSON file is not "
                     "supported (its weights in %s/model.safetensors are)",
                     label, rel[0] ? rel : ".");
    if (s == TF_OK)
        s = tf__path_join(dir, rel, &sp->static_dir);
    if (s == TF_OK)
        s = module_file(rel, "model.safetensors", &sp->static_label);
    cJSON_Delete(root);
    tf__free(label);
    return s;
}

/* ---- A Router ---------------------------------------------------------------- */

/* Route `name` of structure as its module ids [n] (strings, each a key of
 * types), *types_of[i] the class of each. */
static tf_status route_ids(const cJSON *structure, const cJSON *types, const char *name,
                           const char *label, const cJSON **list, const char *type_of[2], int *n)
{
    char key[32];
    snprintf(key, sizeof key, "structure.%s", name);
    *list = cJSON_GetObjectItemCaseSensitive(structure, name);
    if (!cJSON_IsArray(*list))
        return tf__json_wrong(*list, key, "a list of module ids", label);
    *n = cJSON_GetArraySize(*list);
    for (int i = 0; i < *n; i++) {
        const cJSON *id = cJSON_GetArrayItem(*list, i);
        if (!cJSON_IsString(id))
            return tf__json_wrong(id, key, "a list of module ids (strings)", label);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(types, id->valuestring);
        if (!cJSON_IsString(type))
            return tf__fail(TF_ERR_FORMAT, "%s: %s names \"%s\", which types %s", label, key,
                            id->valuestring, type ? "gives no class string" : "does not have");
        if (i < 2)
            type_of[i] = type->valuestring;
    }
    return TF_OK;
}

/* The document route: [MLMTransformer, SpladePooling], each id a folder
 * under the Router's (rpath). */
static tf_status read_document_route(tf__st_sparse *sp, const char *dir, const char *rpath,
                                     const cJSON *structure, const cJSON *types, const char *label)
{
    const cJSON *list;
    const char *type_of[2] = {"", ""};
    int n = 0;
    tf_status s = route_ids(structure, types, "document", label, &list, type_of, &n);
    if (s == TF_OK &&
        (n != 2 || strcmp(type_of[0], mlm_type) != 0 || strcmp(type_of[1], splade_type) != 0))
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "%s: structure.document: %d modules starting with %s; supported: an "
                     "MLMTransformer then a SpladePooling (sentence_transformers.sparse_encoder."
                     "models)",
                     label, n, n ? type_of[0] : "none");
    char *rel[2] = {NULL, NULL};
    for (int i = 0; s == TF_OK && i < 2; i++)
        if ((s = module_file(rpath, cJSON_GetArrayItem(list, i)->valuestring, &rel[i])) == TF_OK)
            s = check_folder(dir, rel[i], label);
    if (s == TF_OK)
        s = read_mlm(sp, dir, rel[0]);
    if (s == TF_OK)
        s = read_pooling(sp, dir, rel[1]);
    tf__free(rel[0]);
    tf__free(rel[1]);
    return s;
}

/* The query route: none, the document route's modules again, or one
 * SparseStaticEmbedding. */
static tf_status read_query_route(tf__st_sparse *sp, const char *dir, const char *rpath,
                                  const cJSON *structure, const cJSON *types, const char *label)
{
    if (!cJSON_GetObjectItemCaseSensitive(structure, "query")) {
        sp->query = TF_SPARSE_QUERY_NONE;
        return TF_OK;
    }
    const cJSON *list;
    const char *type_of[2] = {"", ""};
    int n = 0;
    tf_status s = route_ids(structure, types, "query", label, &list, type_of, &n);
    if (s)
        return s;
    const cJSON *document = cJSON_GetObjectItemCaseSensitive(structure, "document");
    char *printed_q = cJSON_PrintUnformatted(list), *printed_d = cJSON_PrintUnformatted(document);
    const int same = printed_q && printed_d && strcmp(printed_q, printed_d) == 0;
    cJSON_free(printed_q);
    cJSON_free(printed_d);
    if (same) {
        sp->query = TF_SPARSE_QUERY_DOCUMENT;
        return TF_OK;
    }
    if (n != 1 || strcmp(type_of[0], static_type) != 0)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: structure.query: %d modules starting with %s; supported: one "
                        "%s, or the document route's modules",
                        label, n, n ? type_of[0] : "none", static_type);
    char *rel = NULL;
    sp->query = TF_SPARSE_QUERY_STATIC;
    s = module_file(rpath, cJSON_GetArrayItem(list, 0)->valuestring, &rel);
    if (s == TF_OK)
        s = check_folder(dir, rel, label);
    if (s == TF_OK)
        s = read_static(sp, dir, rel);
    tf__free(rel);
    return s;
}

/* Every route of structure is "query" or "document"; default_route, when
 * said, one of them. */
static tf_status check_routes(const cJSON *root, const cJSON *structure, const char *label)
{
    const cJSON *route;
    cJSON_ArrayForEach(route, structure)
    {
        if (strcmp(route->string, "query") != 0 && strcmp(route->string, "document") != 0)
            return tf__fail(TF_ERR_UNSUPPORTED,
                            "%s: structure: route \"%s\" is not supported (\"query\" and "
                            "\"document\", encode_query's and encode_document's, are)",
                            label, route->string);
    }
    if (!cJSON_GetObjectItemCaseSensitive(structure, "document"))
        return tf__fail(TF_ERR_FORMAT, "%s: structure has no \"document\" route", label);
    const cJSON *parameters = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    if (parameters && !cJSON_IsNull(parameters) && !cJSON_IsObject(parameters))
        return tf__json_wrong(parameters, "parameters", "an object", label);
    const char *fallback = NULL;
    tf_status s = parameters ? tf__json_get_string(parameters, "default_route", label, &fallback)
                             : TF_OK;
    if (s == TF_OK && fallback && !cJSON_GetObjectItemCaseSensitive(structure, fallback))
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: parameters.default_route \"%s\" is not a route of "
                     "structure",
                     label, fallback);
    return s;
}

/* The Router at rpath: its config file, then each route. */
static tf_status read_router(tf__st_sparse *sp, const char *dir, const char *rpath)
{
    char *label = NULL;
    mode_t mode = 0;
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && !mode && i < 2; i++) {
        tf__free(label);
        if ((s = module_file(rpath, router_configs[i], &label)) == TF_OK)
            s = probe(dir, label, &mode);
        sp->router = router_configs[i];
    }
    cJSON *root = NULL;
    if (s == TF_OK)
        s = mode ? read_json(dir, label, 0, &root)
                 : tf__fail(TF_ERR_FORMAT, "%s: a Router module without router_config.json",
                            rpath[0] ? rpath : "modules.json");
    const cJSON *types = root ? cJSON_GetObjectItemCaseSensitive(root, "types") : NULL;
    const cJSON *structure = root ? cJSON_GetObjectItemCaseSensitive(root, "structure") : NULL;
    if (s == TF_OK && !cJSON_IsObject(types))
        s = tf__json_wrong(types, "types", "an object of module id -> class", label);
    if (s == TF_OK && !cJSON_IsObject(structure))
        s = tf__json_wrong(structure, "structure", "an object of route -> module ids", label);
    if (s == TF_OK)
        s = check_routes(root, structure, label);
    if (s == TF_OK)
        s = read_document_route(sp, dir, rpath, structure, types, label);
    if (s == TF_OK)
        s = read_query_route(sp, dir, rpath, structure, types, label);
    cJSON_Delete(root);
    tf__free(label);
    return s;
}

/* ---- modules.json ---------------------------------------------------------------- */

/* Module i's type and path (both required strings). */
static tf_status module_entry(const cJSON *modules, int i, const char **type, const char **path)
{
    char label[48];
    snprintf(label, sizeof label, "modules.json: module %d", i);
    const cJSON *m = cJSON_GetArrayItem(modules, i);
    if (!cJSON_IsObject(m))
        return tf__json_wrong(m, label + 14, "an object", "modules.json");
    tf_status s = tf__json_read_string(m, "type", TF_JSON_REQUIRED, label, type);
    if (s == TF_OK)
        s = tf__json_read_string(m, "path", TF_JSON_REQUIRED, label, path);
    return s;
}

tf_status tf__st_sparse_probe(const char *dir, int *found)
{
    *found = 0;
    mode_t mode;
    tf_status s = probe(dir, "modules.json", &mode);
    if (s || !mode)
        return s;
    cJSON *root;
    if ((s = read_json(dir, "modules.json", 1, &root)))
        return s;
    const char *type = NULL, *path;
    if (cJSON_GetArraySize(root) > 0 && module_entry(root, 0, &type, &path) == TF_OK)
        *found = strcmp(type, mlm_type) == 0 || strcmp(type, router_type) == 0;
    cJSON_Delete(root); /* a malformed entry is st_modules.c's to name */
    return TF_OK;
}

/* modules.json's [MLMTransformer, SpladePooling] or [Router]. */
static tf_status read_modules(tf__st_sparse *sp, const char *dir, const cJSON *modules)
{
    const int n = cJSON_GetArraySize(modules);
    const char *type[2] = {"", ""}, *path[2] = {"", ""};
    tf_status s = TF_OK;
    for (int i = 0; s == TF_OK && i < n && i < 2; i++)
        if ((s = module_entry(modules, i, &type[i], &path[i])) == TF_OK) {
            char label[48];
            snprintf(label, sizeof label, "modules.json: module %d", i);
            s = check_folder(dir, path[i], label);
        }
    if (s)
        return s;
    if (n == 1 && strcmp(type[0], router_type) == 0)
        return read_router(sp, dir, path[0]);
    if (n == 2 && strcmp(type[0], mlm_type) == 0 && strcmp(type[1], splade_type) == 0) {
        s = read_mlm(sp, dir, path[0]);
        return s ? s : read_pooling(sp, dir, path[1]);
    }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "modules.json: %d modules (%s%s%s); a SparseEncoder is supported as an "
                    "MLMTransformer then a SpladePooling, or one Router",
                    n, type[0], n > 1 ? ", " : "", n > 1 ? type[1] : "");
}

tf_status tf__st_sparse_read(tf__st_sparse *sp, const char *dir)
{
    *sp = (tf__st_sparse){0};
    cJSON *root;
    tf_status s = read_json(dir, "modules.json", 1, &root);
    if (s == TF_OK)
        s = read_modules(sp, dir, root);
    cJSON_Delete(root);
    if (s)
        tf__st_sparse_free(sp);
    return s;
}

tf_status tf__st_sparse_check(tf__st_sparse *sp, int32_t vocab)
{
    if (sp->pooling_dim && sp->pooling_dim != vocab)
        return tf__fail(TF_ERR_SHAPE,
                        "%s: word_embedding_dimension %d disagrees with the masked-LM head's "
                        "%d vocabulary rows (config.json vocab_size)",
                        sp->pooling_label, (int)sp->pooling_dim, (int)vocab);
    if (sp->query != TF_SPARSE_QUERY_STATIC)
        return TF_OK;
    tf__st_file f;
    tf_status s = tf__model_folder_open(sp->static_dir, &f);
    const int opened = s == TF_OK;
    const int64_t dims[1] = {vocab};
    if (s == TF_OK)
        s = tf__extra_tensor_read(&f, "weight", 1, dims, sp->static_label,
                                  "the masked-LM head's vocabulary rows, config.json vocab_size",
                                  &sp->static_weight);
    if (opened)
        tf__st_close(&f);
    return s;
}

void tf__st_sparse_free(tf__st_sparse *sp)
{
    tf__free(sp->mlm_dir);
    tf__free(sp->pooling_label);
    tf__free(sp->static_dir);
    tf__free(sp->static_label);
    tf__free(sp->static_weight);
    *sp = (tf__st_sparse){0};
}
