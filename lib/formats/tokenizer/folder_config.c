/* folder_config.c — a model folder's tokenizer_config.json and
 * special_tokens_map.json (see folder_config.h). */
#include "folder_config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "json_file.h"
#include "utf8.h"

#define TF_FOLDER_MAX_ADDED (1 << 20) /* added_tokens_decoder entries and extra specials */

static const char *const role_keys[TF_ROLE_COUNT] = {
    "bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"};

/* A file being read: its path for messages. */
typedef struct reader {
    const char *path;
} reader;

static tf_status wrong(const reader *r, const char *field, const char *expected, const cJSON *v)
{
    char got[96];
    tf__json_describe(v, got, sizeof got);
    return tf__fail(TF_ERR_FORMAT, "%s: %s: expected %s, got %s", r->path, field, expected, got);
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* An AddedToken: "text", or {"content": "text", "lstrip": ..., ...} whose
 * flags default as AddedToken's (normalized: not special). special_default
 * is what the token is when the object does not say. */
static tf_status read_token(const reader *r, const cJSON *v, const char *field,
                            int32_t special_default, tf__folder_token *t)
{
    const cJSON *content = cJSON_IsObject(v) ? item(v, "content") : v;
    if (!cJSON_IsString(content) || !content->valuestring[0])
        return wrong(r, field, "a non-empty string or an object with a non-empty \"content\"", v);
    *t = (tf__folder_token){.special = special_default};
    static const char *const flags[] = {"special", "single_word", "lstrip", "rstrip"};
    int32_t *dst[] = {&t->special, &t->single_word, &t->lstrip, &t->rstrip};
    char *label = NULL; /* "<file>: <field>" */
    tf_status s = cJSON_IsObject(v) ? tf__format_alloc(&label, "%s: %s", r->path, field) : TF_OK;
    /* null: AddedToken's None, its default (normalized's: not special) */
    for (int i = 0; i < 4 && s == TF_OK && cJSON_IsObject(v); i++)
        s = tf__json_get_bool(v, flags[i], label, dst[i]);
    t->normalized = !t->special;
    if (s == TF_OK && cJSON_IsObject(v))
        s = tf__json_get_bool(v, "normalized", label, &t->normalized);
    tf__free(label);
    if (s)
        return s;
    t->content = tf__malloc(strlen(content->valuestring) + 1);
    if (!t->content)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %s", r->path, field);
    strcpy(t->content, content->valuestring);
    return TF_OK;
}

static void token_clear(tf__folder_token *t)
{
    tf__free(t->content);
    t->content = NULL;
}

static tf_status reserve_added(const reader *r, tf__folder_config *c, size_t more)
{
    if (more > TF_FOLDER_MAX_ADDED - c->n_added)
        return tf__fail(TF_ERR_FORMAT, "%s: more than %d added and special tokens", r->path,
                        TF_FOLDER_MAX_ADDED);
    tf__folder_token *v = tf__realloc(c->added, (c->n_added + more + 1) * sizeof *v);
    if (!v)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", r->path);
    c->added = v;
    return TF_OK;
}

/* additional_special_tokens: a list of tokens, each special, appended
 * (a token listed twice is added once, at its first place: see
 * folder_tokens.c's folder_adds). */
static tf_status read_extra_specials(const reader *r, const cJSON *list, tf__folder_config *c)
{
    if (!list || cJSON_IsNull(list))
        return TF_OK;
    if (!cJSON_IsArray(list))
        return wrong(r, "additional_special_tokens", "an array of tokens", list);
    tf_status s = reserve_added(r, c, (size_t)cJSON_GetArraySize(list));
    int k = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        char f[64];
        snprintf(f, sizeof f, "additional_special_tokens[%d]", k++);
        tf__folder_token t;
        if (s == TF_OK)
            s = read_token(r, v, f, 1, &t);
        if (s)
            return s;
        t.special = 1; /* transformers: every special token attribute is special */
        c->added[c->n_added++] = t;
    }
    return s; /* reserve_added's failure too, where the list is empty */
}

/* An added_tokens_decoder entry: its id, its place in the file, itself. */
typedef struct decoder_entry {
    int64_t id;
    int place;
    const cJSON *entry;
} decoder_entry;

static int compare_id(const void *a, const void *b)
{
    const decoder_entry *x = a, *y = b;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    return (x->place > y->place) - (x->place < y->place);
}

/* added_tokens_decoder: {"<id>": AddedToken, ...}, taken in order of id. */
static tf_status read_added_decoder(const reader *r, const cJSON *o, tf__folder_config *c)
{
    if (!cJSON_IsObject(o))
        return wrong(r, "added_tokens_decoder", "an object of ids to tokens", o);
    const int n = cJSON_GetArraySize(o);
    tf_status s = reserve_added(r, c, (size_t)n);
    decoder_entry *order = s ? NULL : tf__malloc(((size_t)n + 1) * sizeof *order); /* [n] */
    if (s == TF_OK && !order)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", r->path);
    int k = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        char *end = NULL;
        const long long id = s ? 0 : strtoll(v->string, &end, 10);
        if (s == TF_OK && (!v->string[0] || *end || id < 0 || id > INT32_MAX - 1))
            s = tf__fail(TF_ERR_FORMAT,
                         "%s: added_tokens_decoder: key \"%s\": expected an id "
                         "0..%d",
                         r->path, v->string, INT32_MAX - 1);
        if (s)
            break;
        order[k] = (decoder_entry){id, k, v};
        k++;
    }
    if (s == TF_OK)
        qsort(order, (size_t)n, sizeof *order, compare_id);
    for (int i = 0; s == TF_OK && i < n; i++) {
        char f[96];
        snprintf(f, sizeof f, "added_tokens_decoder[\"%.*s\"]",
                 tf__utf8_prefix(order[i].entry->string, 40), order[i].entry->string);
        tf__folder_token t;
        s = read_token(r, order[i].entry, f, 0, &t);
        if (s == TF_OK)
            c->added[c->n_added++] = t;
    }
    tf__free(order);
    c->n_decoder = c->n_added;
    return s;
}

/* The file at dir/name into *root (NULL when nothing is there; a link to
 * nothing is named), its path into *path (tf__free it). */
static tf_status read_json(const char *dir, const char *name, char **path, cJSON **root)
{
    *root = NULL;
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, name, path);
    if (s == TF_OK)
        s = tf__file_probe(*path, &mode);
    return s == TF_OK && mode ? tf__json_read_file(*path, *path, 0, root) : s;
}

/* The special token attributes of one file; a role it names replaces what
 * an earlier file said. */
static tf_status read_roles(const reader *r, const cJSON *root, tf__folder_config *c)
{
    tf_status s = TF_OK;
    for (int k = 0; k < TF_ROLE_COUNT && s == TF_OK; k++) {
        const cJSON *v = item(root, role_keys[k]);
        if (!v || cJSON_IsNull(v))
            continue;
        tf__folder_token t;
        s = read_token(r, v, role_keys[k], 1, &t);
        if (s)
            break;
        t.special = 1;
        token_clear(&c->role[k]);
        c->role[k] = t;
    }
    return s;
}

/* model_max_length: an integer >= 1. transformers (PreTrainedTokenizerBase)
 * takes null (None) as its VERY_LARGE_INTEGER, int(1e30), for "no limit",
 * which it writes back as 1000000000000000019884624838656: null and every
 * integer from 2^31 on (no int32 length reaches them) are no limit, 0. */
static tf_status read_max_length(const reader *r, const cJSON *root, tf__folder_config *c)
{
    const cJSON *v = item(root, "model_max_length");
    if (!v || cJSON_IsNull(v))
        return TF_OK;
    const double d = cJSON_IsNumber(v) ? v->valuedouble : 0.0;
    if (!(d >= 1.0) || floor(d) != d) {
        char got[96];
        tf__json_describe(v, got, sizeof got);
        return tf__fail(TF_ERR_FORMAT,
                        "%s: model_max_length must be an integer >= 1 (from "
                        "2^31 on, as transformers' 1e30, no limit), got %s",
                        r->path, got);
    }
    c->model_max_length = d > INT32_MAX ? 0 : (int32_t)d;
    return TF_OK;
}

/* tokenizer_config.json's casing (do_lower_case and
 * tokenize_chinese_chars booleans, as BertTokenizerFast's normalizer takes
 * them; strip_accents also null, its None: as do_lower_case),
 * model_max_length and tokenizer_class. */
static tf_status read_init_args(const reader *r, const cJSON *root, tf__folder_config *c)
{
    tf_status s = read_max_length(r, root, c);
    if (s == TF_OK)
        s = tf__json_read_bool(root, "do_lower_case", TF_JSON_NOT_NULL, r->path, &c->lowercase);
    if (s == TF_OK)
        s = tf__json_read_bool(root, "strip_accents", TF_JSON_OPTIONAL, r->path, &c->strip_accents);
    if (s == TF_OK)
        s = tf__json_read_bool(root, "tokenize_chinese_chars", TF_JSON_NOT_NULL, r->path,
                               &c->split_cjk);
    const cJSON *tokenizer_class = item(root, "tokenizer_class");
    if (s == TF_OK && tokenizer_class && !cJSON_IsNull(tokenizer_class) &&
        !cJSON_IsString(tokenizer_class))
        s = wrong(r, "tokenizer_class", "a string", tokenizer_class);
    else if (s == TF_OK && cJSON_IsString(tokenizer_class))
        s = tf__format_alloc(&c->tokenizer_class, "%s", tokenizer_class->valuestring);
    return s;
}

tf_status tf__folder_config_read(const char *dir, tf__folder_config *c)
{
    *c = (tf__folder_config){.lowercase = -1, .strip_accents = -1, .split_cjk = -1};
    char *path = NULL;
    cJSON *root = NULL;
    tf_status s = read_json(dir, "tokenizer_config.json", &path, &root);
    const reader config = {path};
    const cJSON *decoder = root ? item(root, "added_tokens_decoder") : NULL;
    if (s == TF_OK && root)
        s = read_init_args(&config, root, c);
    if (s == TF_OK && root)
        s = read_roles(&config, root, c);
    if (s == TF_OK && decoder)
        s = read_added_decoder(&config, decoder, c);
    if (s == TF_OK && root)
        s = read_extra_specials(&config, item(root, "additional_special_tokens"), c);
    const int legacy = !decoder; /* transformers reads the map only then */
    cJSON_Delete(root);
    root = NULL;
    tf__free(path);
    path = NULL;
    if (s == TF_OK && legacy)
        s = read_json(dir, "special_tokens_map.json", &path, &root);
    const reader map = {path};
    if (s == TF_OK && root)
        s = read_roles(&map, root, c);
    if (s == TF_OK && root)
        s = read_extra_specials(&map, item(root, "additional_special_tokens"), c);
    cJSON_Delete(root);
    tf__free(path);
    return s;
}

void tf__folder_config_clear(tf__folder_config *c)
{
    for (int k = 0; k < TF_ROLE_COUNT; k++)
        token_clear(&c->role[k]);
    for (size_t k = 0; c->added && k < c->n_added; k++)
        token_clear(&c->added[k]);
    tf__free(c->added);
    c->added = NULL;
    tf__free(c->tokenizer_class);
    c->tokenizer_class = NULL;
    c->n_added = c->n_decoder = 0;
}
