/* tokenizer_load.c — tf_tokenizer_load: which file a path names (a
 * tokenizer.json, a vocab.txt, CLIP's vocab.json with merges.txt, SigLIP's
 * spiece.model, a model folder's), its reader, then what the folder's other
 * files add. */
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

/* Whether dir/name is there (a link to nothing is TF_ERR_IO naming it),
 * its path allocated into *path when it is (else NULL). */
static tf_status folder_has(const char *dir, const char *name, char **path)
{
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, name, path);
    if (s == TF_OK)
        s = tf__file_probe(*path, &mode);
    if (s || !mode) {
        tf__free(*path);
        *path = NULL;
    }
    return s;
}

/* Whether the folder's tokenizer_config.json names one of the classes
 * (a NULL-ended list); TF_ERR_FORMAT naming what the files are read as when
 * it does not. */
static tf_status check_class(const char *dir, const char *files, const char *const *classes)
{
    tf__folder_config fc = {0};
    tf_status s = tf__folder_config_read(dir, &fc);
    int named = 0;
    for (size_t k = 0; s == TF_OK && classes[k]; k++)
        named |= fc.tokenizer_class && strcmp(fc.tokenizer_class, classes[k]) == 0;
    if (s == TF_OK && !named)
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: no tokenizer.json, and %s is read only as %s's: "
                     "tokenizer_config.json's tokenizer_class is \"%s\"",
                     dir, files, classes[0], fc.tokenizer_class ? fc.tokenizer_class : "(none)");
    tf__folder_config_clear(&fc);
    return s;
}

/* CLIP's vocab.json beside merges.txt in dir, its path into *path (NULL
 * when either is missing); the folder must name CLIPTokenizer(Fast). */
static tf_status clip_files(const char *dir, char **path)
{
    static const char *const clip_classes[] = {"CLIPTokenizer", "CLIPTokenizerFast", NULL};
    char *merges = NULL;
    tf_status s = folder_has(dir, "merges.txt", &merges);
    if (s == TF_OK && merges)
        s = folder_has(dir, "vocab.json", path);
    if (s == TF_OK && *path)
        s = check_class(dir, "vocab.json with merges.txt", clip_classes);
    tf__free(merges);
    return s;
}

tf_status tf__tokenizer_folder_file(const char *dir, char **path, int *json)
{
    static const char *const siglip_classes[] = {"SiglipTokenizer", NULL};
    *json = 1;
    tf_status s = folder_has(dir, "tokenizer.json", path);
    if (s == TF_OK && !*path && (s = folder_has(dir, "vocab.txt", path)) == TF_OK && *path)
        *json = 0;
    if (s == TF_OK && !*path)
        s = clip_files(dir, path);
    if (s == TF_OK && !*path && (s = folder_has(dir, "spiece.model", path)) == TF_OK && *path)
        s = check_class(dir, "spiece.model", siglip_classes);
    if (s == TF_OK && !*path)
        s = tf__fail(TF_ERR_IO,
                     "%s: not a regular file: it is a directory, with neither "
                     "tokenizer.json nor vocab.txt (nor CLIP's vocab.json and merges.txt, "
                     "nor SigLIP's spiece.model)",
                     dir);
    if (s) {
        tf__free(*path);
        *path = NULL;
    }
    return s;
}

/* The files a tokenizer is read from. */
typedef enum file_kind { KIND_JSON, KIND_VOCAB_TXT, KIND_CLIP, KIND_SIGLIP } file_kind;

/* Whether the last component of path is name. */
static int named(const char *path, const char *name)
{
    const size_t n = strlen(path), m = strlen(name);
    return ends_with(path, name) && (n == m || path[n - m - 1] == '/');
}

/* name beside the file at path, allocated into *out. */
static tf_status sibling(const char *path, const char *name, char **out)
{
    const char *slash = strrchr(path, '/');
    return tf__format_alloc(out, "%.*s%s", slash ? (int)(slash + 1 - path) : 0, path, name);
}

/* What the file at path is, by its name: SigLIP's spiece.model, CLIP's
 * vocab.json when merges.txt is beside it (*merges its path), a
 * tokenizer.json (any other name ending ".json"), else a vocab.txt. */
static tf_status kind_of(const char *path, file_kind *kind, char **merges)
{
    *merges = NULL;
    *kind = named(path, "spiece.model") ? KIND_SIGLIP
        : ends_with(path, ".json")      ? KIND_JSON
                                        : KIND_VOCAB_TXT;
    mode_t mode = 0;
    tf_status s = named(path, "vocab.json") ? sibling(path, "merges.txt", merges) : TF_OK;
    if (s == TF_OK && *merges && (s = tf__file_probe(*merges, &mode)) == TF_OK && mode)
        *kind = KIND_CLIP;
    return s;
}

/* The file path names, allocated into *file: a folder's tokenizer file
 * (tf__tokenizer_folder_file), else path itself; what it is (kind_of). */
static tf_status resolve(const char *path, char **file, file_kind *kind, char **merges)
{
    mode_t mode = 0;
    int json = 0;
    *merges = NULL;
    tf_status s = tf__file_probe(path, &mode);
    if (s == TF_OK)
        s = S_ISDIR(mode) ? tf__tokenizer_folder_file(path, file, &json)
                          : tf__format_alloc(file, "%s", path);
    return s ? s : kind_of(*file, kind, merges);
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
    char *file = NULL, *merges = NULL;
    file_kind kind = KIND_JSON;
    tf_status s = resolve(path, &file, &kind, &merges);
    tf_tokenizer *tok = s ? NULL : tf__calloc(1, sizeof *tok);
    if (s == TF_OK && !tok)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "tokenizer: cannot allocate the handle");
    if (s) {
        tf__free(file), tf__free(merges);
        return s;
    }
    const tf_tokenizer_options specials = named_specials(o, fc);
    tf__folder_token roles[TF_ROLE_COUNT];
    role_flags(roles, fc);
    switch (kind) {
    case KIND_JSON:
        s = tf__tokenizer_json_load(tok, file, o);
        break;
    case KIND_VOCAB_TXT:
        s = tf__vocab_txt_load(tok, file, &specials, roles);
        break;
    case KIND_CLIP:
        s = tf__clip_files_load(tok, file, merges, o, fc);
        break;
    case KIND_SIGLIP:
        s = tf__siglip_files_load(tok, file, o, fc);
        break;
    }
    tf__free(file), tf__free(merges);
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
