/* hub_select.c — the files of a repository a model folder needs: those the
 * loaders of this library (and sentence-transformers') read, in the top
 * folder and in each module folder modules.json names, and the shards a
 * safetensors index names. See hub.h. */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"
#include "json_file.h"
#include "weights_files.h"

/* The files a folder needs, by name, wherever they are wanted: the model
 * (config.json, safetensors), the tokenizer (tokenizer.json and
 * transformers' tokenizer files: WordPiece, BPE, SentencePiece) and
 * sentence-transformers' (SentenceTransformer._load_sbert_model; the
 * Transformer module's sentence_<model>_config.json, models/Transformer.py). */
static const char *const folder_files[] = {
    "config.json",
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

/* 1 when module's type is sentence-transformers' Normalize, which has no files. */
static int is_normalize(const cJSON *module)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(module, "type");
    const char *name = cJSON_IsString(type) ? type->valuestring : "";
    const size_t n = strlen(name), suffix = strlen(".Normalize");
    return n >= suffix && strcmp(name + n - suffix, ".Normalize") == 0;
}

tf_status tf__hub_module_dirs(const char *path, const char *label, tf__hub_names *dirs,
                              tf__hub_names *configured)
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
        char *trimmed = NULL;
        if (s == TF_OK)
            s = tf__format_alloc(&trimmed, "%s", dir);
        for (size_t n = trimmed ? strlen(trimmed) : 0; n > 0 && trimmed[n - 1] == '/'; n--)
            trimmed[n - 1] = '\0';
        if (s == TF_OK && trimmed[0])
            s = tf__hub_check_repo_file(trimmed, where);
        if (s == TF_OK && !tf__hub_names_has(dirs, trimmed))
            s = tf__hub_names_add(dirs, trimmed);
        if (s == TF_OK && configured && trimmed[0] && !is_normalize(module))
            s = tf__hub_names_add(configured, trimmed);
        tf__free(trimmed);
    }
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

tf_status tf__hub_check_weights(const tf__hub_request *req, const char *commit, const char *dir,
                                int required, tf__hub_has_fn has, const void *where)
{
    static const char *const readable[] = {TF_WEIGHTS_FILE, "model.safetensors.index.json"};
    static const char *const pickles[] = {TF_TORCH_WEIGHTS_FILE, TF_TORCH_SHARDS_FILE};
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < sizeof readable / sizeof *readable; i++)
        if (has_in(dir, readable[i], has, where, &s))
            return TF_OK;
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
                     "%s at revision %s (commit %s): no " TF_WEIGHTS_FILE
                     " (nor model.safetensors.index.json): not a model folder libtfenc reads",
                     req->repo_id, req->revision, commit);
    return s;
}
