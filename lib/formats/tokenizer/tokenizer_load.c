/* tokenizer_load.c — tf_tokenizer_load: which file a path names (a
 * tokenizer.json, a vocab.txt, a model folder's), its reader, then what
 * the folder's other files add. */
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "tokenizer_files.h"
#include "tokenizer_load.h"

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

tf_status tf__tokenizer_folder_file(const char *dir, char **path, int *json)
{
    static const char *const names[2] = {"tokenizer.json", "vocab.txt"};
    *path = NULL;
    for (int k = 0; k < 2; k++) {
        mode_t mode = 0;
        tf_status s = tf__path_join(dir, names[k], path);
        if (s == TF_OK)
            s = tf__file_probe(*path, &mode);
        if (s || mode) {
            *json = k == 0;
            return s;
        }
        tf__free(*path);
        *path = NULL;
    }
    return tf__fail(TF_ERR_IO,
                    "%s: not a regular file: it is a directory, with neither "
                    "tokenizer.json nor vocab.txt",
                    dir);
}

/* The file path names, allocated into *file: a folder's tokenizer file
 * (tf__tokenizer_folder_file), else path itself, which is a tokenizer.json
 * (*json) when its name ends so. */
static tf_status resolve(const char *path, char **file, int *json)
{
    mode_t mode = 0;
    tf_status s = tf__file_probe(path, &mode);
    if (s == TF_OK && S_ISDIR(mode))
        return tf__tokenizer_folder_file(path, file, json);
    *json = ends_with(path, ".json");
    return s ? s : tf__format_alloc(file, "%s", path);
}

/* A vocab.txt's special tokens: the options', else those the folder names. */
static tf_tokenizer_options named_specials(const tf_tokenizer_options *o,
                                           const tf__folder_config *fc)
{
    tf_tokenizer_options n = *o;
    n.unk_token = o->unk_token ? o->unk_token : fc->role[TF_ROLE_UNK].content;
    n.cls_token = o->cls_token ? o->cls_token : fc->role[TF_ROLE_CLS].content;
    n.sep_token = o->sep_token ? o->sep_token : fc->role[TF_ROLE_SEP].content;
    n.pad_token = o->pad_token ? o->pad_token : fc->role[TF_ROLE_PAD].content;
    return n;
}

/* The folder's special tokens with their flags: added_tokens_decoder's
 * entry of the same content where there is one (transformers adds those
 * first), else the attribute's own. */
static void role_flags(tf__folder_token *roles, const tf__folder_config *fc)
{
    for (int k = 0; k < TF_ROLE_COUNT; k++) {
        roles[k] = fc->role[k];
        for (size_t a = 0; roles[k].content && a < fc->n_decoder; a++)
            if (strcmp(fc->added[a].content, roles[k].content) == 0) {
                roles[k] = fc->added[a];
                break;
            }
    }
}

tf_status tf__tokenizer_load_with_config(const char *path, const tf_tokenizer_options *o,
                                         const tf__folder_config *fc, tf_tokenizer **out)
{
    *out = NULL;
    char *file = NULL;
    int json = 0;
    tf_status s = resolve(path, &file, &json);
    tf_tokenizer *tok = s ? NULL : tf__calloc(1, sizeof *tok);
    if (s == TF_OK && !tok)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "tokenizer: cannot allocate the handle");
    if (s) {
        tf__free(file);
        return s;
    }
    const tf_tokenizer_options named = named_specials(o, fc);
    tf__folder_token roles[TF_ROLE_COUNT];
    role_flags(roles, fc);
    s = json ? tf__tokenizer_json_load(tok, file, o) : tf__vocab_txt_load(tok, file, &named, roles);
    tf__free(file);
    if (s == TF_OK)
        s = tf__folder_tokens_add(tok, fc, path);
    if (s == TF_OK && o->max_length) /* the caller's limit over the folder's */
        tok->model_max_length = o->max_length;
    if (s) {
        tf_tokenizer_destroy(tok);
        return s;
    }
    *out = tok;
    return TF_OK;
}

/* A folder's casing for its vocab.txt where the caller left the options'
 * defaults. */
static void folder_casing(tf_tokenizer_options *o, const tf__folder_config *fc)
{
    if (o->lowercase == tf__tokenizer_defaults.lowercase && fc->lowercase >= 0)
        o->lowercase = fc->lowercase;
    if (o->strip_accents == tf__tokenizer_defaults.strip_accents && fc->strip_accents >= 0)
        o->strip_accents = fc->strip_accents;
    if (o->split_cjk == tf__tokenizer_defaults.split_cjk && fc->split_cjk >= 0)
        o->split_cjk = fc->split_cjk;
}

tf_status tf_tokenizer_load(const char *path, const tf_tokenizer_options *opts, tf_tokenizer **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!path)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "path is NULL");
    tf_tokenizer_options o;
    tf_status s = tf__tokenizer_options_read(&o, opts);
    if (s)
        return s;
    tf__folder_config fc = {0};
    mode_t mode = 0;
    if ((s = tf__file_probe(path, &mode)) == TF_OK && S_ISDIR(mode) &&
        (s = tf__folder_config_read(path, &fc)) == TF_OK)
        folder_casing(&o, &fc);
    if (s == TF_OK)
        s = tf__tokenizer_load_with_config(path, &o, &fc, out);
    tf__folder_config_clear(&fc);
    return s;
}
