/* json_model.c — tokenizer.json's "model" object: its "type" finds the
 * row of the tokenizer model (tokenizer/models/tokenizer_models.c), whose
 * build reads the fields it has through tf_model_fields, implemented here
 * over the parsed file. Each read checks its field's type and range as
 * tokenizers' serde does, and names it "model.<key>" in messages. */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "json_fields.h"
#include "utf8.h"

/* The loader for messages about the fields f reads. */
static tf_json_loader loader_of(const tf_model_fields *f)
{
    return (tf_json_loader){f->file, NULL};
}

/* The field key of the model object. */
static const cJSON *field_of(const tf_model_fields *f, const char *key)
{
    return tf_field_item(f->object, key);
}

/* "model.<key>" into field[160]. */
static const char *field_name(char *field, const char *key)
{
    tf_field_name(field, 160, "model.%s", key);
    return field;
}

static tf_status expected(const tf_model_fields *f, const char *key, const char *what)
{
    const tf_json_loader l = loader_of(f);
    char field[160];
    return tf_field_bad(&l, field_name(field, key), what);
}

static int number(const tf_model_fields *f, const char *key, double *out)
{
    const cJSON *v = field_of(f, key);
    if (tf_field_absent(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 1;
}

static tf_status string(const tf_model_fields *f, const char *key, int optional,
                        const char **out)
{
    *out = NULL;
    if (optional && tf_field_absent(field_of(f, key)))
        return TF_OK;
    const tf_json_loader l = loader_of(f);
    char field[160];
    return tf_field_string(&l, f->object, key, field_name(field, key), 0, out);
}

static tf_status token(const tf_model_fields *f, const char *key, const tf_vocab *v, int32_t *id)
{
    const char *name;
    *id = -1;
    tf_status s = string(f, key, 1, &name);
    if (s || !name || !name[0])
        return s;
    *id = tf_vocab_find(v, name, strlen(name));
    return *id >= 0 ? TF_OK
                    : tf_fail(TF_ERR_FORMAT, "%s: model.%s: \"%s\" is not in the vocabulary",
                              f->file, key, name);
}

static tf_status boolean(const tf_model_fields *f, const char *key, int32_t dflt, int32_t *out)
{
    const tf_json_loader l = loader_of(f);
    char field[160];
    return tf_field_bool(&l, f->object, key, field_name(field, key), dflt, out);
}

static tf_status integer(const tf_model_fields *f, const char *key, int32_t lo, int32_t hi,
                         int32_t dflt, int32_t *out)
{
    const tf_json_loader l = loader_of(f);
    char field[160];
    return tf_field_int(&l, field_of(f, key), field_name(field, key), lo, hi, dflt, out);
}

/* An object of token -> id, the ids 0..n-1 each once. */
static tf_status token_ids(const tf_model_fields *f, const char *key, tf_vocab *v)
{
    const tf_json_loader l = loader_of(f);
    const cJSON *vocab = field_of(f, key);
    const int n = cJSON_IsObject(vocab) ? cJSON_GetArraySize(vocab) : 0;
    if (n < 1 || n > TF_VOCAB_MAX_TOKENS)
        return expected(f, key, "an object of 1..16777216 tokens");
    const char **by_id = tf_calloc((size_t)n, sizeof *by_id); /* [n] */
    if (!by_id)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d tokens", f->file, n);
    size_t bytes = 0;
    const cJSON *t;
    tf_status s = TF_OK;
    cJSON_ArrayForEach(t, vocab) {
        int32_t id = tf_field_int_in(t, 0, n - 1) ? (int32_t)t->valuedouble : -1;
        if (id < 0) { /* named only for a message: for every token, seconds of a big file */
            char field[96];
            tf_field_name(field, sizeof field, "model.%s[\"%.*s\"]", key,
                          tf_utf8_prefix(t->string, 48), t->string);
            if ((s = tf_field_int(&l, t, field, 0, n - 1, -1, &id)) != TF_OK)
                break;
        }
        if (id < 0 || by_id[id]) {
            s = tf_fail(TF_ERR_FORMAT, "%s: model.%s: id %d is given twice (ids must be "
                        "0..%d, each once)", f->file, key, (int)id, n - 1);
            break;
        }
        by_id[id] = t->string;
        bytes += strlen(t->string) + 1;
    }
    char *text = s == TF_OK ? tf_malloc(bytes) : NULL; /* the tokens by id, NUL after each */
    if (s == TF_OK && !text)
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of tokens", f->file,
                    bytes);
    if (s == TF_OK) {
        for (int id = 0, at = 0; id < n; id++) {
            strcpy(text + at, by_id[id]);
            at += (int)strlen(by_id[id]) + 1;
        }
        s = tf_vocab_from_tokens(v, text, (size_t)n, f->file);
    }
    tf_free(by_id);
    return s;
}

/* An array of [piece, score], ids in order. */
static tf_status scored_pieces(const tf_model_fields *f, const char *key, tf_vocab *v,
                               double **scores)
{
    const cJSON *vocab = field_of(f, key);
    const int n = cJSON_IsArray(vocab) ? cJSON_GetArraySize(vocab) : 0;
    if (n < 1 || n > TF_VOCAB_MAX_TOKENS)
        return expected(f, key, "an array of 1..16777216 [piece, score]");
    double *score = *scores = tf_malloc((size_t)n * sizeof *score); /* [n] */
    if (!score)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d pieces", f->file, n);
    size_t bytes = 0;
    int id = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, vocab) {
        const cJSON *piece = cJSON_GetArrayItem(t, 0), *value = cJSON_GetArrayItem(t, 1);
        if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 2 || !cJSON_IsString(piece) ||
            !cJSON_IsNumber(value)) {
            char element[48];
            tf_field_name(element, sizeof element, "%s[%d]", key, id);
            return expected(f, element, "[piece, score]");
        }
        score[id++] = value->valuedouble;
        bytes += strlen(piece->valuestring) + 1;
    }
    char *text = tf_malloc(bytes); /* the pieces by id, NUL after each */
    if (!text)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of pieces", f->file,
                       bytes);
    size_t at = 0;
    cJSON_ArrayForEach(t, vocab) {
        strcpy(text + at, cJSON_GetArrayItem(t, 0)->valuestring);
        at += strlen(text + at) + 1;
    }
    return tf_vocab_from_tokens(v, text, (size_t)n, f->file);
}

static int array_size(const tf_model_fields *f, const char *key)
{
    const cJSON *v = field_of(f, key);
    return cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
}

/* Merge k of key: "a b" or ["a", "b"], handed to each. */
static tf_status merge(const tf_model_fields *f, const char *key, const cJSON *m, int k,
                       tf_merge_fn each, void *arg)
{
    const char *left = NULL, *right = NULL;
    size_t left_len = 0;
    if (cJSON_IsString(m) && strchr(m->valuestring, ' ')) {
        left = m->valuestring;
        right = strchr(left, ' ') + 1;
        left_len = (size_t)(right - 1 - left);
    } else if (cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2 &&
               cJSON_IsString(cJSON_GetArrayItem(m, 0)) &&
               cJSON_IsString(cJSON_GetArrayItem(m, 1))) {
        left = cJSON_GetArrayItem(m, 0)->valuestring;
        right = cJSON_GetArrayItem(m, 1)->valuestring;
        left_len = strlen(left);
    } else {
        char element[48]; /* named only for a message, not for each of a big file's merges */
        tf_field_name(element, sizeof element, "%s[%d]", key, k);
        return expected(f, element, "\"a b\" or [\"a\", \"b\"]");
    }
    return each(arg, k, left, left_len, right);
}

static tf_status merges(const tf_model_fields *f, const char *key, tf_merge_fn each, void *arg)
{
    int k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, field_of(f, key)) {
        const tf_status s = merge(f, key, m, k++, each, arg);
        if (s)
            return s;
    }
    return TF_OK;
}

tf_status tf_json_model_load(const tf_json_loader *l, const cJSON *model)
{
    const char *type;
    tf_status s = tf_field_type(l, model, "model", &type);
    const tf_tokenizer_model *row = s ? NULL : tf_tokenizer_model_find(type);
    if (s == TF_OK && !row)
        s = tf_field_unsupported(l, "model", type);
    if (s)
        return s;
    tf_tokenizer *tok = l->tok;
    if ((s = tf_tokenizer_set_model(tok, row, l->path)) != TF_OK)
        return s;
    const tf_model_fields fields = {
        .file = l->path,
        .object = model,
        .expected = expected,
        .number = number,
        .string = string,
        .token = token,
        .boolean = boolean,
        .integer = integer,
        .token_ids = token_ids,
        .scored_pieces = scored_pieces,
        .array_size = array_size,
        .merges = merges,
    };
    return row->build(tok->model_state, &tok->vocab, &fields);
}
