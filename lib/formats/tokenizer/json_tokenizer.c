/* json_tokenizer.c — a tokenizer.json (Hugging Face tokenizers'
 * serialisation) into a tf_tokenizer: the tokenizer model (json_model.c),
 * normalizer, pre-tokenizer and decoder (json_stages.c), added tokens,
 * post-processor (json_post_processor.c), truncation, padding. Every field is checked: a wrong type
 * or an absurd size is TF_ERR_FORMAT naming it, a component this library
 * does not have is TF_ERR_UNSUPPORTED naming it and its "type". */
#include <cjson/cJSON.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "json.h"
#include "json_fields.h"
#include "tokenizer_files.h"

#define TF_MAX_ADDED (1 << 20) /* added tokens */
#define TF_JSON_MAX_DEPTH 64   /* nesting of the file's arrays and objects */

/* ---- Added tokens ---------------------------------------------------------------- */

static tf_status load_added_token(const tf__json_loader *l, const cJSON *o, int k)
{
    char f[64], g[96];
    tf__field_name(f, sizeof f, "added_tokens[%d]", k);
    if (!cJSON_IsObject(o))
        return tf__field_bad(l, f, "an object");
    tf__added_token *t = &l->tok->added.v[l->tok->added.n];
    memset(t, 0, sizeof *t);
    const char *content;
    tf__field_name(g, sizeof g, "%s.content", f);
    tf_status s = tf__field_string(l, o, "content", g, 0, &content);
    if (s == TF_OK && !content[0])
        s = tf__field_bad(l, g, "a non-empty string");
    tf__field_name(g, sizeof g, "%s.id", f);
    if (s == TF_OK)
        s = tf__field_int(l, tf__field_item(o, "id"), g, 0, INT32_MAX - 1, -1, &t->id);
    if (s == TF_OK && t->id < 0)
        s = tf__field_bad(l, g, "an integer id");
    static const char *flags[] = {"special", "single_word", "lstrip", "rstrip", "normalized"};
    int32_t *dst[] = {&t->special, &t->single_word, &t->lstrip, &t->rstrip, &t->normalized};
    for (int i = 0; i < 5 && s == TF_OK; i++) {
        tf__field_name(g, sizeof g, "%s.%s", f, flags[i]);
        s = tf__field_bool(l, o, flags[i], g, i == 4 ? !t->special : 0, dst[i]);
    }
    if (s)
        return s;
    const int32_t in_vocab = tf__vocab_find(&l->tok->vocab, content, strlen(content));
    t->id = in_vocab >= 0 ? in_vocab : t->id; /* the vocabulary's id, as tokenizers gives it */
    l->tok->added.n++;
    t->content = tf__malloc(strlen(content) + 1);
    if (!t->content)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", l->path);
    strcpy(t->content, content);
    s = tf__chars_decode(&t->chars, content, strlen(content), 0, f);
    if (s == TF_OK && t->normalized)
        s = tf__tokenizer_normalize_chars(l->tok, &t->chars, f);
    l->tok->has_normalized_added |= t->normalized;
    return s;
}

static tf_status load_added_tokens(const tf__json_loader *l, const cJSON *list)
{
    const int n = tf__field_absent(list) ? 0 : cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 0 || n > TF_MAX_ADDED)
        return tf__field_bad(l, "added_tokens", "an array of at most 1048576 tokens");
    l->tok->added.v = tf__calloc((size_t)n + 1, sizeof *l->tok->added.v); /* [n], never 0 */
    if (!l->tok->added.v)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", l->path);
    int k = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, list)
    {
        const tf_status s = load_added_token(l, t, k++);
        if (s)
            return s;
    }
    return tf__added_index(&l->tok->added)
        ? TF_OK
        : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", l->path);
}

/* ---- Truncation and padding ------------------------------------------------------- */

static tf_status load_truncation(const tf__json_loader *l, const cJSON *o, int32_t max_length)
{
    tf__truncation *t = &l->tok->truncation;
    *t = (tf__truncation){max_length, TF_TRUNCATE_LONGEST_FIRST, 0, 0};
    if (tf__field_absent(o))
        return TF_OK;
    if (!cJSON_IsObject(o))
        return tf__field_bad(l, "truncation", "an object or null");
    const char *strategy, *direction;
    int32_t file_max;
    tf_status s = tf__field_int(l, tf__field_item(o, "max_length"), "truncation.max_length", 0,
                                INT32_MAX, 0, &file_max);
    if (s == TF_OK)
        s = tf__field_int(l, tf__field_item(o, "stride"), "truncation.stride", 0, INT32_MAX, 0,
                          &t->stride);
    if (s == TF_OK)
        s = tf__field_string(l, o, "strategy", "truncation.strategy", 1, &strategy);
    if (s == TF_OK)
        s = tf__field_string(l, o, "direction", "truncation.direction", 1, &direction);
    if (s)
        return s;
    t->max_length = max_length ? max_length : file_max;
    if (strcmp(strategy, "OnlyFirst") == 0)
        t->strategy = TF_TRUNCATE_ONLY_FIRST;
    else if (strcmp(strategy, "OnlySecond") == 0)
        t->strategy = TF_TRUNCATE_ONLY_SECOND;
    else if (strategy[0] && strcmp(strategy, "LongestFirst") != 0)
        return tf__field_bad(l, "truncation.strategy", "LongestFirst, OnlyFirst or OnlySecond");
    if (direction[0] && strcmp(direction, "Left") != 0 && strcmp(direction, "Right") != 0)
        return tf__field_bad(l, "truncation.direction", "Left or Right");
    t->left = strcmp(direction, "Left") == 0;
    return TF_OK;
}

static tf_status load_padding(const tf__json_loader *l, const cJSON *o)
{
    tf_tokenizer *tok = l->tok;
    const tf__added_token *pad = tf__added_find(&tok->added, "[PAD]", 5);
    pad = pad ? pad : tf__added_find(&tok->added, "<pad>", 5);
    tok->pad_id = pad ? pad->id : 0; /* rows of a batch are padded even without "padding" */
    if (tf__field_absent(o))
        return TF_OK;
    if (!cJSON_IsObject(o))
        return tf__field_bad(l, "padding", "an object or null");
    const char *direction = "";
    const cJSON *strategy = tf__field_item(o, "strategy");
    tf_status s = tf__field_int(l, tf__field_item(o, "pad_id"), "padding.pad_id", 0, INT32_MAX,
                                tok->pad_id, &tok->pad_id);
    if (s == TF_OK)
        s = tf__field_int(l, tf__field_item(o, "pad_type_id"), "padding.pad_type_id", 0, INT32_MAX,
                          0, &tok->pad_type_id);
    if (s == TF_OK)
        s = tf__field_int(l, tf__field_item(o, "pad_to_multiple_of"), "padding.pad_to_multiple_of",
                          1, 1 << 20, 0, &tok->pad_multiple);
    if (s == TF_OK)
        s = tf__field_string(l, o, "direction", "padding.direction", 1, &direction);
    if (s == TF_OK && direction[0] && strcmp(direction, "Left") != 0 &&
        strcmp(direction, "Right") != 0)
        s = tf__field_bad(l, "padding.direction", "Left or Right");
    tok->pad_left = strcmp(direction, "Left") == 0;
    if (s == TF_OK && cJSON_IsObject(strategy))
        s = tf__field_int(l, tf__field_item(strategy, "Fixed"), "padding.strategy.Fixed", 1,
                          1 << 20, 0, &tok->pad_fixed);
    else if (s == TF_OK &&
             !(cJSON_IsString(strategy) && strcmp(strategy->valuestring, "BatchLongest") == 0))
        s = tf__field_bad(l, "padding.strategy", "\"BatchLongest\" or {\"Fixed\": n}");
    return s;
}

/* ---- The file ---------------------------------------------------------------------- */

/* Every id the post-processor and padding add names a token: the model's
 * vocabulary or an added token. */
static tf_status check_added_ids(const tf__json_loader *l)
{
    const tf_tokenizer *tok = l->tok;
    const int32_t n = tf_tokenizer_vocab_size(tok);
    const tf__template *t[2] = {&tok->single, &tok->pair};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < t[k]->n; i++)
            for (size_t j = 0; j < t[k]->items[i].n_ids; j++)
                if (t[k]->items[i].ids[j] >= n)
                    return tf__fail(TF_ERR_FORMAT,
                                    "%s: post_processor: id %d is not a token "
                                    "(the vocabulary and added tokens have %d)",
                                    l->path, (int)t[k]->items[i].ids[j], (int)n);
    if (tok->pad_id >= n)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: padding.pad_id: id %d is not a token (the "
                        "vocabulary and added tokens have %d)",
                        l->path, (int)tok->pad_id, (int)n);
    return TF_OK;
}

static tf_status load_root(const tf__json_loader *l, const cJSON *root,
                           const tf_tokenizer_options *o)
{
    if (!cJSON_IsObject(root))
        return tf__field_bad(l, "the file", "a JSON object");
    tf_status s = tf__json_model_load(l, tf__field_item(root, "model"));
    if (s == TF_OK)
        s = tf__json_stages_load(l, root);
    if (s == TF_OK)
        s = load_added_tokens(l, tf__field_item(root, "added_tokens"));
    if (s == TF_OK)
        s = tf__json_post_processor_load(l, tf__field_item(root, "post_processor"));
    if (s == TF_OK)
        s = load_truncation(l, tf__field_item(root, "truncation"), o->max_length);
    l->tok->model_max_length = l->tok->truncation.max_length;
    if (s == TF_OK)
        s = load_padding(l, tf__field_item(root, "padding"));
    if (s == TF_OK)
        s = check_added_ids(l);
    return s;
}

tf_status tf__tokenizer_json_load_root(tf_tokenizer *tok, const cJSON *root, const char *what,
                                       const tf_tokenizer_options *o)
{
    const tf__json_loader l = {what, tok};
    return load_root(&l, root, o);
}

tf_status tf__tokenizer_json_load(tf_tokenizer *tok, const char *path,
                                  const tf_tokenizer_options *o)
{
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_VOCAB_MAX_BYTES, &text, &len);
    if (s)
        return s;
    cJSON *root = NULL;
    s = tf__json_parse(text, len, TF_JSON_MAX_DEPTH, path, &root);
    if (s == TF_OK)
        s = tf__tokenizer_json_load_root(tok, root, path, o);
    cJSON_Delete(root);
    tf__free(text);
    return s;
}
