/* hub_select.c — the files of a repository a model folder needs: those the
 * loaders of this library (and sentence-transformers') read, in the top
 * folder, in each module folder modules.json names and in each route folder
 * a Router's router_config.json names, and the shards a safetensors index
 * names. See hub.h. */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"
#include "json_file.h"
#include "weights_files.h"

/* The files a folder needs, by name, wherever they are wanted: the model
 * (config.json, safetensors), an image model's processor
 * (preprocessor_config.json: image_folder.c), the tokenizer (tokenizer.json
 * and transformers' tokenizer files: WordPiece, BPE, SentencePiece) and
 * sentence-transformers' (SentenceTransformer._load_sbert_model; the
 * Transformer module's sentence_<model>_config.json, models/Transformer.py). */
static const char *const folder_files[] = {
    "config.json",
    "preprocessor_config.json",
    "model.safetensors",
    "model.safetensors.index.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
    "modules.json",
    "config_sentence_transformers.json",
    "sentence_bert_config.json",
    "sentence_roberta_config.json",
    "sentence_distilbert_config.json",
    "sentence_camembert_config.json",
    "sentence_albert_config.json",
    "sentence_xlm-roberta_config.json",
    "sentence_xlnet_config.json",
};

/* ---- Lists of names ---------------------------------------------------------- */

tf_status tf__hub_names_add(tf__hub_names *list, const char *name)
{
    if (list->count == list->capacity) {
        const size_t capacity = list->capacity ? 2 * list->capacity : 16;
        char **items = tf__realloc(list->items, capacity * sizeof *items);
        if (!items)
            return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a list of %zu names", capacity);
        list->items = items;
        list->capacity = capacity;
    }
    tf_status s = tf__format_alloc(&list->items[list->count], "%s", name);
    if (s == TF_OK)
        list->count++;
    return s;
}

int tf__hub_names_has(const tf__hub_names *list, const char *name)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i], name) == 0)
            return 1;
    return 0;
}

void tf__hub_names_free(tf__hub_names *list)
{
    for (size_t i = 0; i < list->count; i++)
        tf__free(list->items[i]);
    tf__free(list->items);
    *list = (tf__hub_names){0};
}

/* ---- The selection ------------------------------------------------------------- */

int tf__hub_wanted(const char *file, const tf__hub_names *dirs)
{
    const char *slash = strrchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    const size_t dir_len = slash ? (size_t)(slash - file) : 0;
    int in_dir = 0;
    for (size_t i = 0; i < dirs->count && !in_dir; i++)
        in_dir = strlen(dirs->items[i]) == dir_len && strncmp(dirs->items[i], file, dir_len) == 0;
    for (size_t i = 0; in_dir && i < sizeof folder_files / sizeof *folder_files; i++)
        if (strcmp(base, folder_files[i]) == 0)
            return 1;
    return 0;
}

/* A module class of sentence-transformers' (models/): what its folder holds. */
typedef enum module_class { MODULE_WITH_CONFIG, MODULE_NORMALIZE, MODULE_ROUTER } module_class;

/* The class type (a module's class, "<module>.<name>", or not a string)
 * names: Normalize has no files, a Router its router_config.json (Router.py
 * config_file_name), every other module a config.json. */
static module_class class_of(const cJSON *type)
{
    const char *name = cJSON_IsString(type) ? type->valuestring : "";
    const char *dot = strrchr(name, '.');
    const char *last = dot ? dot + 1 : name;
    return strcmp(last, "Normalize") == 0 ? MODULE_NORMALIZE
        : strcmp(last, "Router") == 0     ? MODULE_ROUTER
                                          : MODULE_WITH_CONFIG;
}

/* folder, checked (what names where it came from) and without a trailing
 * '/', added to dirs once, and to configured (when not NULL) when it is
 * not the top folder and its class keeps a config.json there. */
static tf_status add_module_dir(const char *folder, module_class class, const char *what,
                                tf__hub_names *dirs, tf__hub_names *configured)
{
    char *trimmed = NULL;
    tf_status s = tf__format_alloc(&trimmed, "%s", folder);
    for (size_t n = trimmed ? strlen(trimmed) : 0; n > 0 && trimmed[n - 1] == '/'; n--)
        trimmed[n - 1] = '\0';
    if (s == TF_OK && trimmed[0])
        s = tf__hub_check_repo_file(trimmed, what);
    if (s == TF_OK && !tf__hub_names_has(dirs, trimmed))
        s = tf__hub_names_add(dirs, trimmed);
    if (s == TF_OK && configured && trimmed[0] && class == MODULE_WITH_CONFIG &&
        !tf__hub_names_has(configured, trimmed))
        s = tf__hub_names_add(configured, trimmed);
    tf__free(trimmed);
    return s;
}

tf_status tf__hub_module_dirs(const char *path, const char *label, tf__hub_names *dirs,
                              tf__hub_names *configured, tf__hub_names *routers)
{
    cJSON *root;
    tf_status s = tf__json_read_file(path, label, 1, &root);
    int i = 0;
    for (const cJSON *module = root ? root->child : NULL; s == TF_OK && module;
         module = module->next, i++) {
        char where[64];
        snprintf(where, sizeof where, "%s[%d]", label, i);
        const char *dir = NULL;
        if (!cJSON_IsObject(module))
            s = tf__json_wrong(module, "a module", "an object", label);
        else
            s = tf__json_read_string(module, "path", TF_JSON_REQUIRED, where, &dir);
        const module_class class = s == TF_OK
            ? class_of(cJSON_GetObjectItemCaseSensitive(module, "type"))
            : 0;
        if (s == TF_OK)
            s = add_module_dir(dir, class, where, dirs, configured);
        if (s == TF_OK && routers && class == MODULE_ROUTER)
            s = add_module_dir(dir, class, where, routers, NULL);
    }
    cJSON_Delete(root);
    return s;
}

tf_status tf__hub_router_config(const char *dir, tf__hub_has_fn has, const void *where, char **file)
{
    static const char *const names[] = {"router_config.json", "config.json"};
    const size_t n_names = dir[0] ? 2 : 1; /* the top folder's config.json is the model's */
    *file = NULL;
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && !*file && i < n_names; i++) {
        char *candidate;
        s = tf__format_alloc(&candidate, "%s%s%s", dir, dir[0] ? "/" : "", names[i]);
        if (s == TF_OK && has(candidate, where))
            *file = candidate;
        else
            tf__free(candidate);
    }
    return s;
}

/* The module ids of route (an array of strings: structure.<route>) as
 * folders of dir, the Router's, each added as add_module_dir adds it;
 * types (id -> class) says which keep a config.json. */
static tf_status add_route(const cJSON *route, const cJSON *types, const char *dir,
                           const char *label, tf__hub_names *dirs, tf__hub_names *configured)
{
    char key[96];
    snprintf(key, sizeof key, "structure.%.64s", route->string);
    if (!cJSON_IsArray(route))
        return tf__json_wrong(route, key, "a list of module ids", label);
    tf_status s = TF_OK;
    int i = 0;
    for (const cJSON *id = route->child; s == TF_OK && id; id = id->next, i++) {
        if (!cJSON_IsString(id))
            return tf__json_wrong(id, key, "a list of module ids (strings)", label);
        char *where = NULL, *folder = NULL;
        s = tf__format_alloc(&where, "%s: %s[%d]", label, key, i);
        if (s == TF_OK)
            s = tf__format_alloc(&folder, "%s%s%s", dir, dir[0] && id->valuestring[0] ? "/" : "",
                                 id->valuestring);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(types, id->valuestring);
        if (s == TF_OK)
            s = add_module_dir(folder, class_of(type), where, dirs, configured);
        tf__free(folder);
        tf__free(where);
    }
    return s;
}

tf_status tf__hub_route_dirs(const char *path, const char *dir, const char *label,
                             tf__hub_names *dirs, tf__hub_names *configured)
{
    cJSON *root;
    tf_status s = tf__json_read_file(path, label, 0, &root);
    const cJSON *structure = root ? cJSON_GetObjectItemCaseSensitive(root, "structure") : NULL;
    const cJSON *types = root ? cJSON_GetObjectItemCaseSensitive(root, "types") : NULL;
    if (s == TF_OK && !cJSON_IsObject(structure))
        s = structure
            ? tf__json_wrong(structure, "structure", "an object of route -> module ids", label)
            : tf__fail(TF_ERR_FORMAT,
                       "%s: structure is missing (it must be an object of route -> "
                       "module ids)",
                       label);
    for (const cJSON *route = s == TF_OK ? structure->child : NULL; s == TF_OK && route;
         route = route->next)
        s = add_route(route, types, dir, label, dirs, configured);
    cJSON_Delete(root);
    return s;
}

tf_status tf__hub_index_shards(const char *path, const char *dir, const char *label,
                               tf__hub_names *shards)
{
    cJSON *root;
    tf_status s = tf__json_read_file(path, label, 0, &root);
    const cJSON *map = root ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
    if (s == TF_OK && !cJSON_IsObject(map))
        s = map
            ? tf__json_wrong(map, "weight_map", "an object", label)
            : tf__fail(TF_ERR_FORMAT, "%s: weight_map is missing (it must be an object)", label);
    for (const cJSON *entry = s == TF_OK ? map->child : NULL; s == TF_OK && entry;
         entry = entry->next) {
        char *shard = NULL;
        if (!cJSON_IsString(entry))
            s = tf__json_wrong(entry, entry->string, "a file name", label);
        else
            s = tf__format_alloc(&shard, "%s%s%s", dir, dir[0] ? "/" : "", entry->valuestring);
        if (s == TF_OK)
            s = tf__hub_check_repo_file(shard, label);
        if (s == TF_OK && !tf__hub_names_has(shards, shard))
            s = tf__hub_names_add(shards, shard);
        tf__free(shard);
    }
    cJSON_Delete(root);
    return s;
}

/* ---- The weights ----------------------------------------------------------------- */

/* 1 when has() finds dir/name. */
static int has_in(const char *dir, const char *name, tf__hub_has_fn has, const void *where,
                  tf_status *s)
{
    char *file;
    *s = tf__format_alloc(&file, "%s%s%s", dir, dir[0] ? "/" : "", name);
    const int found = *s == TF_OK && has(file, where);
    tf__free(file);
    return found;
}

/* The weights files libtfenc reads, either of them. */
static const char *const readable[] = {TF_WEIGHTS_FILE, "model.safetensors.index.json"};

/* *found := 1 when has() finds dir's model.safetensors or its index. */
static tf_status holds_weights(const char *dir, tf__hub_has_fn has, const void *where, int *found)
{
    tf_status s = TF_OK;
    *found = 0;
    for (size_t i = 0; s == TF_OK && !*found && i < sizeof readable / sizeof *readable; i++)
        *found = has_in(dir, readable[i], has, where, &s);
    return s;
}

tf_status tf__hub_model_dir(const tf__hub_names *named, tf__hub_has_fn has, const void *where,
                            const char **dir)
{
    *dir = "";
    if (!named || !named->count || tf__hub_names_has(named, ""))
        return TF_OK;
    tf_status s = TF_OK;
    int found = 0;
    for (size_t i = 0; s == TF_OK && !found && i < named->count; i++)
        if ((s = holds_weights(named->items[i], has, where, &found)) == TF_OK && found)
            *dir = named->items[i];
    if (!found)
        *dir = named->items[0];
    return s;
}

tf_status tf__hub_check_weights(const tf__hub_request *req, const char *commit, const char *dir,
                                int required, tf__hub_has_fn has, const void *where)
{
    static const char *const pickles[] = {TF_TORCH_WEIGHTS_FILE, TF_TORCH_SHARDS_FILE};
    int found = 0;
    tf_status s = holds_weights(dir, has, where, &found);
    if (s || found)
        return s;
    const char *pickle = NULL;
    for (size_t i = 0; s == TF_OK && !pickle && i < sizeof pickles / sizeof *pickles; i++)
        if (has_in(dir, pickles[i], has, where, &s))
            pickle = pickles[i];
    if (s == TF_OK && pickle)
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "%s%s%s at revision %s (commit %s): %s but no " TF_WEIGHTS_FILE
                     ": " TF_TORCH_WEIGHTS_HINT,
                     req->repo_id, dir[0] ? "/" : "", dir, req->revision, commit, pickle);
    else if (s == TF_OK && required)
        s = tf__fail(TF_ERR_NOT_FOUND,
                     "%s%s%s at revision %s (commit %s): no " TF_WEIGHTS_FILE
                     " (nor model.safetensors.index.json): not a model folder libtfenc reads",
                     req->repo_id, dir[0] ? "/" : "", dir, req->revision, commit);
    return s;
}
