/* json_field_reads.c — tf__fields (tokenizer/component_fields.h), the reads a
 * tokenizer's components (its model, normalizers, pre-tokenizers,
 * decoders, post-processors) make of their objects, over a parsed
 * tokenizer.json. Each read
 * checks its field's type and range as tokenizers' serde does, and names it
 * "<name>.<key>" in messages. */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "json.h"
#include "json_fields.h"
#include "utf8.h"

/* The loader for messages about the fields f reads. */
static tf__json_loader loader_of(const tf__fields *f)
{
    return (tf__json_loader){f->file, NULL};
}

/* The field key of the model object. */
static const cJSON *field_of(const tf__fields *f, const char *key)
{
    return tf__field_item(f->object, key);
}

/* "<name>.<key>" into field[160]. */
static const char *field_name(char *field, const tf__fields *f, const char *key)
{
    tf__field_name(field, 160, "%s.%s", f->name, key);
    return field;
}

static tf_status expected(const tf__fields *f, const char *key, const char *what)
{
    const tf__json_loader l = loader_of(f);
    char field[160];
    return tf__field_bad(&l, field_name(field, f, key), what);
}

static int number(const tf__fields *f, const char *key, double *out)
{
    const cJSON *v = field_of(f, key);
    if (tf__field_absent(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 1;
}

static tf_status string(const tf__fields *f, const char *key, int optional, const char **out)
{
    *out = NULL;
    if (optional && tf__field_absent(field_of(f, key)))
        return TF_OK;
    const tf__json_loader l = loader_of(f);
    char field[160];
    return tf__field_string(&l, f->object, key, field_name(field, f, key), 0, out);
}

static tf_status token(const tf__fields *f, const char *key, const tf__vocab *v, int32_t *id)
{
    const char *name;
    *id = -1;
    tf_status s = string(f, key, 1, &name);
    if (s || !name || !name[0])
        return s;
    *id = tf__vocab_find(v, name, strlen(name));
    return *id >= 0 ? TF_OK
                    : tf__fail(TF_ERR_FORMAT, "%s: %s.%s: \"%s\" is not in the vocabulary", f->file,
                               f->name, key, name);
}

static tf_status boolean(const tf__fields *f, const char *key, int32_t dflt, int32_t *out)
{
    const tf__json_loader l = loader_of(f);
    char field[160];
    return tf__field_bool(&l, f->object, key, field_name(field, f, key), dflt, out);
}

static tf_status integer(const tf__fields *f, const char *key, int32_t lo, int32_t hi, int32_t dflt,
                         int32_t *out)
{
    const tf__json_loader l = loader_of(f);
    char field[160];
    return tf__field_int(&l, field_of(f, key), field_name(field, f, key), lo, hi, dflt, out);
}

static void where(const tf__fields *f, const char *key, char *where)
{
    char field[160];
    if (key)
        field_name(field, f, key);
    else
        tf__field_name(field, sizeof field, "%s", f->name);
    tf__field_name(where, TF_FIELD_WHERE, "%s: %s", f->file, field);
}

static tf_status chars(const tf__fields *f, const char *key, tf__chars *out)
{
    const tf__json_loader l = loader_of(f);
    char field[160];
    const char *text;
    const tf_status s = tf__field_string(&l, f->object, key, field_name(field, f, key), 0, &text);
    return s ? s : tf__chars_decode(out, text, strlen(text), 0, field);
}

static tf_status pattern(const tf__fields *f, const char *key, tf__regex **re)
{
    const cJSON *pattern = field_of(f, key);
    const cJSON *str = tf__field_item(pattern, "String"), *regex = tf__field_item(pattern, "Regex");
    const cJSON *v = cJSON_IsString(str) ? str : regex;
    char field[160], what[TF_FIELD_WHERE];
    field_name(field, f, key);
    if (!cJSON_IsObject(pattern) || !cJSON_IsString(v))
        return expected(f, key, "{\"String\": ...} or {\"Regex\": ...}");
    tf__field_name(what, sizeof what, "%s: %s", f->file, field);
    return tf__regex_compile(re, v->valuestring, strlen(v->valuestring), v == str, what);
}

/* An object of token -> id, the ids 0..n-1 each once. */
static tf_status token_ids(const tf__fields *f, const char *key, tf__vocab *v)
{
    const tf__json_loader l = loader_of(f);
    const cJSON *vocab = field_of(f, key);
    const int n = cJSON_IsObject(vocab) ? cJSON_GetArraySize(vocab) : 0;
    if (n < 1 || n > TF_VOCAB_MAX_TOKENS)
        return expected(f, key, "an object of 1..16777216 tokens");
    const char **by_id = tf__calloc((size_t)n, sizeof *by_id); /* [n] */
    if (!by_id)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d tokens", f->file, n);
    size_t bytes = 0;
    const cJSON *t;
    tf_status s = TF_OK;
    cJSON_ArrayForEach(t, vocab)
    {
        int32_t id = tf__field_int_in(t, 0, n - 1) ? (int32_t)t->valuedouble : -1;
        if (id < 0) { /* named only for a message: for every token, seconds of a big file */
            char field[96];
            tf__field_name(field, sizeof field, "%s.%s[\"%.*s\"]", f->name, key,
                           tf__utf8_prefix(t->string, 48), t->string);
            if ((s = tf__field_int(&l, t, field, 0, n - 1, -1, &id)) != TF_OK)
                break;
        }
        if (id < 0 || by_id[id]) {
            s = tf__fail(TF_ERR_FORMAT,
                         "%s: %s.%s: id %d is given twice (ids must be "
                         "0..%d, each once)",
                         f->file, f->name, key, (int)id, n - 1);
            break;
        }
        by_id[id] = t->string;
        bytes += strlen(t->string) + 1;
    }
    char *text = s == TF_OK ? tf__malloc(bytes) : NULL; /* the tokens by id, NUL after each */
    if (s == TF_OK && !text)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of tokens", f->file,
                     bytes);
    if (s == TF_OK) {
        for (int id = 0, at = 0; id < n; id++) {
            strcpy(text + at, by_id[id]);
            at += (int)strlen(by_id[id]) + 1;
        }
        s = tf__vocab_from_tokens(v, text, (size_t)n, f->file);
    }
    tf__free(by_id);
    return s;
}

/* An array of [piece, score], ids in order. */
static tf_status scored_pieces(const tf__fields *f, const char *key, tf__vocab *v, double **scores)
{
    const cJSON *vocab = field_of(f, key);
    const int n = cJSON_IsArray(vocab) ? cJSON_GetArraySize(vocab) : 0;
    if (n < 1 || n > TF_VOCAB_MAX_TOKENS)
        return expected(f, key, "an array of 1..16777216 [piece, score]");
    double *score = *scores = tf__malloc((size_t)n * sizeof *score); /* [n] */
    if (!score)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d pieces", f->file, n);
    size_t bytes = 0;
    int id = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, vocab)
    {
        const cJSON *piece = cJSON_GetArrayItem(t, 0), *value = cJSON_GetArrayItem(t, 1);
        if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 2 || !cJSON_IsString(piece) ||
            !cJSON_IsNumber(value)) {
            char element[48];
            tf__field_name(element, sizeof element, "%s[%d]", key, id);
            return expected(f, element, "[piece, score]");
        }
        score[id++] = value->valuedouble;
        bytes += strlen(piece->valuestring) + 1;
    }
    char *text = tf__malloc(bytes); /* the pieces by id, NUL after each */
    if (!text)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of pieces", f->file,
                        bytes);
    size_t at = 0;
    cJSON_ArrayForEach(t, vocab)
    {
        strcpy(text + at, cJSON_GetArrayItem(t, 0)->valuestring);
        at += strlen(text + at) + 1;
    }
    return tf__vocab_from_tokens(v, text, (size_t)n, f->file);
}

static int array_size(const tf__fields *f, const char *key)
{
    const cJSON *v = field_of(f, key);
    return cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
}

/* Merge k of key: "a b" or ["a", "b"], handed to each. */
static tf_status merge(const tf__fields *f, const char *key, const cJSON *m, int k,
                       tf__merge_fn each, void *arg)
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
        tf__field_name(element, sizeof element, "%s[%d]", key, k);
        return expected(f, element, "\"a b\" or [\"a\", \"b\"]");
    }
    return each(arg, k, left, left_len, right);
}

static tf_status merges(const tf__fields *f, const char *key, tf__merge_fn each, void *arg)
{
    int k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, field_of(f, key))
    {
        const tf_status s = merge(f, key, m, k++, each, arg);
        if (s)
            return s;
    }
    return TF_OK;
}

/* ---- Nested fields: key NULL is the object itself ------------------------------- */

static const cJSON *value_of(const tf__fields *f, const char *key)
{
    return key ? tf__field_item(f->object, key) : f->object;
}

static void place(const tf__fields *f, const char *key, char *name)
{
    if (key)
        tf__field_name(name, TF_FIELD_NAME, "%s.%s", f->name, key);
    else
        tf__field_name(name, TF_FIELD_NAME, "%s", f->name);
}

static tf__field_kind kind(const tf__fields *f, const char *key)
{
    const cJSON *v = value_of(f, key);
    return !v               ? TF_FIELD_ABSENT
        : cJSON_IsNull(v)   ? TF_FIELD_NULL
        : cJSON_IsBool(v)   ? TF_FIELD_BOOL
        : cJSON_IsNumber(v) ? TF_FIELD_NUMBER
        : cJSON_IsString(v) ? TF_FIELD_STRING
        : cJSON_IsArray(v)  ? TF_FIELD_ARRAY
                            : TF_FIELD_OBJECT;
}

static const char *text(const tf__fields *f, const char *key)
{
    const cJSON *v = value_of(f, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void describe(const tf__fields *f, const char *key, char *got)
{
    const cJSON *v = value_of(f, key);
    if (v)
        tf__json_describe(v, got, TF_FIELD_GOT);
    else
        tf__field_name(got, TF_FIELD_GOT, "nothing");
}

static tf_status got(const tf__fields *f, const char *key, const char *what)
{
    char name[TF_FIELD_NAME], value[TF_FIELD_GOT];
    place(f, key, name);
    describe(f, key, value);
    return tf__fail(TF_ERR_FORMAT, "%s: %s: expected %s, got %s", f->file, name, what, value);
}

static tf_status id(const tf__fields *f, const char *key, int32_t *out)
{
    uint64_t u;
    if (!tf__json_uint(value_of(f, key), INT32_MAX, &u))
        return got(f, key, "an integer in 0..2147483647");
    *out = (int32_t)u;
    return TF_OK;
}

static void field(const tf__fields *f, const char *key, char *name, tf__fields *sub)
{
    place(f, key, name);
    *sub = *f;
    sub->name = name;
    sub->object = value_of(f, key);
}

static void entry_named(const tf__fields *f, const char *key, const cJSON *v, char *name,
                        tf__fields *sub)
{
    tf__field_name(name, TF_FIELD_NAME, "%s[\"%.*s\"]", f->name, tf__utf8_prefix(key, 48), key);
    *sub = *f;
    sub->name = name;
    sub->object = v;
}

static void entry(const tf__fields *f, const char *key, char *name, tf__fields *sub)
{
    entry_named(f, key, tf__field_item(f->object, key), name, sub);
}

static tf_status each(const tf__fields *f, tf__field_fn fn, void *arg)
{
    const cJSON *list = f->object, *v;
    const int is_object = cJSON_IsObject(list);
    if (!is_object && !cJSON_IsArray(list))
        return TF_OK;
    int k = 0;
    cJSON_ArrayForEach(v, list)
    {
        char name[TF_FIELD_NAME];
        tf__fields sub = *f;
        if (is_object) {
            entry_named(f, v->string, v, name, &sub);
        } else {
            tf__field_name(name, sizeof name, "%s[%d]", f->name, k++);
            sub.name = name;
            sub.object = v;
        }
        const tf_status s = fn(arg, is_object ? v->string : NULL, &sub);
        if (s)
            return s;
    }
    return TF_OK;
}

tf__fields tf__json_fields(const tf__json_loader *l, const cJSON *object, const char *name)
{
    return (tf__fields){
        .file = l->path,
        .name = name,
        .object = object,
        .expected = expected,
        .where = where,
        .number = number,
        .string = string,
        .chars = chars,
        .token = token,
        .boolean = boolean,
        .integer = integer,
        .pattern = pattern,
        .token_ids = token_ids,
        .scored_pieces = scored_pieces,
        .array_size = array_size,
        .merges = merges,
        .kind = kind,
        .text = text,
        .id = id,
        .got = got,
        .describe = describe,
        .place = place,
        .field = field,
        .entry = entry,
        .each = each,
    };
}
