/* request.c — request bodies of /v1/embeddings (OpenAI's API) and of
 * text-embeddings-inference's /embed, /rerank, /predict and /tokenize,
 * read into a serve_request. Field names and shapes follow OpenAI's
 * CreateEmbeddingRequest and TEI's EmbedRequest, RerankRequest,
 * PredictRequest and TokenizeRequest. */
#include "request.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_message.h"
#include "json.h"
#include "utf8.h"

/* s[0..len) as snprintf left it when it cut a longer text there: its last
 * character, when the cut split it, taken off. */
static void end_between_characters(char *s, size_t len)
{
    size_t lead = len; /* the last character's first byte is s[lead - 1] */
    while (lead > 0 && tf_utf8_is_continuation((unsigned char)s[lead - 1]))
        lead--;
    if (lead > 0 && (unsigned char)s[lead - 1] >= 0xC0 &&
        tf_utf8_valid_char((const unsigned char *)s + lead - 1, len - (lead - 1)) == 0)
        s[lead - 1] = '\0';
}

int serve_error_set(serve_error *e, int status, const char *param, const char *format, ...)
{
    e->status = status;
    if (snprintf(e->param, sizeof e->param, "%s", param) >= (int)sizeof e->param)
        end_between_characters(e->param, sizeof e->param - 1);
    va_list ap;
    va_start(ap, format);
    const int n = vsnprintf(e->message, sizeof e->message, format, ap);
    va_end(ap);
    if (n >= (int)sizeof e->message)
        end_between_characters(e->message, sizeof e->message - 1);
    return -1;
}

/* What a JSON value is, for messages. */
static const char *type_of(const cJSON *v)
{
    return cJSON_IsString(v) ? "a string" : cJSON_IsNumber(v) ? "a number"
         : cJSON_IsBool(v) ? "a boolean" : cJSON_IsNull(v) ? "null"
         : cJSON_IsArray(v) ? "an array" : "an object";
}

static int wrong_type(serve_error *e, const char *field, const char *expected, const cJSON *got)
{
    return serve_error_set(e, 400, field, "%s: expected %s, got %s", field, expected,
                           type_of(got));
}

static const cJSON *field(const serve_request *r, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(r->root, name);
}

/* An optional boolean (absent or null: *out keeps its default). */
static int get_bool(const serve_request *r, const char *name, int32_t *out, serve_error *e)
{
    const cJSON *v = field(r, name);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsBool(v))
        return wrong_type(e, name, "true or false", v);
    *out = cJSON_IsTrue(v);
    return 0;
}

/* An optional string (absent or null: *out stays NULL). */
static int get_string(const serve_request *r, const char *name, const char **out, serve_error *e)
{
    const cJSON *v = field(r, name);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return wrong_type(e, name, "a string", v);
    *out = v->valuestring;
    return 0;
}

/* An optional integer 1..INT32_MAX (absent or null: *out stays 0). */
static int get_positive(const serve_request *r, const char *name, int32_t *out, serve_error *e)
{
    const cJSON *v = field(r, name);
    uint64_t u;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return wrong_type(e, name, "a positive integer", v);
    if (!tf_json_uint(v, 2147483647.0, &u) || u == 0) {
        char got[48];
        tf_json_describe(v, got, sizeof got);
        return serve_error_set(e, 400, name, "%s: expected a positive integer, got %s", name,
                               got);
    }
    *out = (int32_t)u;
    return 0;
}

static int alloc_inputs(serve_request *r, size_t n, int pairs, serve_error *e)
{
    r->n = n;
    r->texts = calloc(n, sizeof *r->texts);
    r->pairs = pairs ? calloc(n, sizeof *r->pairs) : NULL;
    if (!r->texts || (pairs && !r->pairs))
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", n);
    return 0;
}

/* The number of items of a list of inputs, 1..max. */
static int list_size(const cJSON *list, const char *name, size_t max, size_t *n, serve_error *e)
{
    *n = (size_t)cJSON_GetArraySize(list);
    if (*n == 0)
        return serve_error_set(e, 400, name, "%s: an empty list; expected 1 to %zu inputs",
                               name, max);
    if (*n > max)
        return serve_error_set(e, 413, name, "%s: %zu inputs, more than the server's limit of "
                               "%zu a request (--max-client-batch)", name, *n, max);
    return 0;
}

/* One list of token ids (OpenAI's input as ids) into r->ids[i]. */
static int id_list(serve_request *r, const cJSON *list, size_t i, int32_t *at, serve_error *e)
{
    size_t k = 0;
    r->ids[i] = at;
    for (const cJSON *item = list->child; item; item = item->next, k++) {
        uint64_t id;
        if (!cJSON_IsNumber(item) || !tf_json_uint(item, 2147483647.0, &id)) {
            char got[48];
            tf_json_describe(item, got, sizeof got);
            return serve_error_set(e, 400, "input", "input[%zu][%zu]: expected a token id (an "
                                   "integer 0..2147483647), got %s", r->single ? 0 : i, k, got);
        }
        at[k] = (int32_t)id;
    }
    if (k == 0)
        return serve_error_set(e, 400, "input", "input[%zu]: an empty list of token ids", i);
    r->id_counts[i] = k;
    return 0;
}

/* OpenAI's token-id inputs: input is a list of ids (one input) or a list
 * of lists of ids, into r->ids (one block). */
static int get_ids(serve_request *r, const cJSON *v, size_t max, serve_error *e)
{
    r->single = cJSON_IsNumber(v->child);
    size_t n = 1, total = 0;
    if (!r->single && list_size(v, "input", max, &n, e))
        return -1;
    for (const cJSON *list = r->single ? v : v->child; list; list = r->single ? NULL : list->next)
        if (!cJSON_IsArray(list))
            return serve_error_set(e, 400, "input", "input: a list of token-id lists holds %s",
                                   type_of(list));
        else
            total += (size_t)cJSON_GetArraySize(list);
    r->n = n;
    r->ids = malloc(n * sizeof *r->ids + total * sizeof **r->ids);
    r->id_counts = calloc(n, sizeof *r->id_counts);
    if (!r->ids || !r->id_counts)
        return serve_error_set(e, 500, "", "out of memory for %zu token ids", total);
    int32_t *at = (int32_t *)(r->ids + n); /* [total] the ids, list after list */
    size_t i = 0;
    for (const cJSON *list = r->single ? v : v->child; list;
         list = r->single ? NULL : list->next, i++) {
        if (id_list(r, list, i, at, e))
            return -1;
        at += r->id_counts[i];
    }
    return 0;
}

/* `name`: a string or a list of strings, into r->texts; for
 * /v1/embeddings also token ids (a list of them, or of lists), into r->ids. */
static int get_texts(serve_request *r, const char *name, size_t max, serve_error *e)
{
    const cJSON *v = field(r, name);
    if (r->kind == SERVE_BODY_OPENAI_EMBEDDINGS && cJSON_IsArray(v) && v->child &&
        (cJSON_IsNumber(v->child) || cJSON_IsArray(v->child)))
        return get_ids(r, v, max, e);
    if (!v)
        return serve_error_set(e, 400, name, "%s: missing; expected a string or a list of "
                               "strings", name);
    if (cJSON_IsString(v)) {
        r->single = 1;
        if (alloc_inputs(r, 1, 0, e))
            return -1;
        r->texts[0] = v->valuestring;
        return 0;
    }
    size_t n;
    if (!cJSON_IsArray(v))
        return wrong_type(e, name, "a string or a list of strings", v);
    if (list_size(v, name, max, &n, e) || alloc_inputs(r, n, 0, e))
        return -1;
    size_t i = 0;
    for (const cJSON *item = v->child; item; item = item->next, i++) {
        if (cJSON_IsString(item)) {
            r->texts[i] = item->valuestring;
            continue;
        }
        char where[48];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        return wrong_type(e, where, "a string", item);
    }
    return 0;
}

/* One of predict's inputs: a string, or a pair [text, text]. */
static int predict_input(serve_request *r, const cJSON *v, size_t i, serve_error *e)
{
    char where[48];
    snprintf(where, sizeof where, "inputs[%zu]", i);
    if (cJSON_IsString(v)) {
        r->texts[i] = v->valuestring;
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !cJSON_IsString(v->child) ||
        !cJSON_IsString(v->child->next))
        return serve_error_set(e, 400, "inputs", "%s: expected a string or a pair of strings "
                               "[text, text], got %s", where,
                               cJSON_IsArray(v) ? "another array" : type_of(v));
    r->texts[i] = v->child->valuestring;
    r->pairs[i] = v->child->next->valuestring;
    return 0;
}

/* TEI's PredictInput: a string, a pair [a, b], or a list of those. */
static int get_predict_inputs(serve_request *r, size_t max, serve_error *e)
{
    const cJSON *v = field(r, "inputs");
    if (!v)
        return serve_error_set(e, 400, "inputs", "inputs: missing; expected a string, a pair "
                               "[text, text] or a list of them");
    const int pair = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 &&
                     cJSON_IsString(v->child) && cJSON_IsString(v->child->next);
    size_t n = 1;
    if (cJSON_IsString(v) || pair) {
        r->single = 1;
        if (alloc_inputs(r, 1, 1, e) || predict_input(r, v, 0, e))
            return -1;
    } else {
        if (!cJSON_IsArray(v))
            return wrong_type(e, "inputs", "a string, a pair [text, text] or a list of them", v);
        if (list_size(v, "inputs", max, &n, e) || alloc_inputs(r, n, 1, e))
            return -1;
        size_t i = 0;
        for (const cJSON *item = v->child; item; item = item->next, i++)
            if (predict_input(r, item, i, e))
                return -1;
    }
    size_t i;
    for (i = 0; i < n && !r->pairs[i]; i++)
        ;
    if (i == n) { /* no pair among them */
        free(r->pairs);
        r->pairs = NULL;
    } else {
        for (i = 0; i < n; i++)
            if (!r->pairs[i])
                return serve_error_set(e, 400, "inputs", "inputs[%zu]: a single text among "
                                       "pairs; a batch is all texts or all pairs", i);
    }
    return 0;
}

/* rerank's query and texts: n (query, text) pairs. */
static int get_rerank_inputs(serve_request *r, size_t max, serve_error *e)
{
    const cJSON *query = field(r, "query"), *texts = field(r, "texts");
    if (!query || !cJSON_IsString(query))
        return query ? wrong_type(e, "query", "a string", query)
                     : serve_error_set(e, 400, "query", "query: missing; expected a string");
    if (!texts || !cJSON_IsArray(texts))
        return texts ? wrong_type(e, "texts", "a list of strings", texts)
                     : serve_error_set(e, 400, "texts", "texts: missing; expected a list of "
                                       "strings");
    size_t n, i = 0;
    if (list_size(texts, "texts", max, &n, e) || alloc_inputs(r, n, 1, e))
        return -1;
    for (const cJSON *item = texts->child; item; item = item->next, i++) {
        if (!cJSON_IsString(item)) {
            char where[48];
            snprintf(where, sizeof where, "texts[%zu]", i);
            return wrong_type(e, where, "a string", item);
        }
        r->texts[i] = query->valuestring;
        r->pairs[i] = item->valuestring;
    }
    return 0;
}

/* TEI's truncation_direction: only "Right" (what the library cuts). */
static int check_direction(const serve_request *r, serve_error *e)
{
    const char *direction = NULL;
    if (get_string(r, "truncation_direction", &direction, e))
        return -1;
    if (direction && strcmp(direction, "Right") != 0 && strcmp(direction, "right") != 0)
        return serve_error_set(e, 400, "truncation_direction", "truncation_direction: only "
                               "\"Right\" is supported, got \"%.*s\"",
                               tf_utf8_prefix(direction, SERVE_QUOTE_BYTES), direction);
    return 0;
}

static int parse_openai(serve_request *r, size_t max, serve_error *e)
{
    const char *format = NULL, *user = NULL;
    if (get_texts(r, "input", max, e) || get_string(r, "model", &r->model, e) ||
        get_string(r, "encoding_format", &format, e) || get_string(r, "user", &user, e) ||
        get_positive(r, "dimensions", &r->dimensions, e) ||
        get_bool(r, "dimensions_layer_norm", &r->dimensions_layer_norm, e))
        return -1;
    if (format && strcmp(format, "float") != 0 && strcmp(format, "base64") != 0)
        return serve_error_set(e, 400, "encoding_format", "encoding_format: expected \"float\" "
                               "or \"base64\", got \"%.*s\"",
                               tf_utf8_prefix(format, SERVE_QUOTE_BYTES), format);
    r->base64 = format && strcmp(format, "base64") == 0;
    return 0;
}

static int parse_embed(serve_request *r, size_t max, serve_error *e)
{
    return get_texts(r, "inputs", max, e) || get_bool(r, "normalize", &r->normalize, e) ||
           get_bool(r, "truncate", &r->truncate, e) || check_direction(r, e) ||
           get_string(r, "prompt_name", &r->prompt_name, e) ||
           get_positive(r, "dimensions", &r->dimensions, e) ||
           get_bool(r, "dimensions_layer_norm", &r->dimensions_layer_norm, e) ? -1 : 0;
}

static int parse_rerank(serve_request *r, size_t max, serve_error *e)
{
    return get_rerank_inputs(r, max, e) || get_bool(r, "raw_scores", &r->raw_scores, e) ||
           get_bool(r, "return_text", &r->return_text, e) ||
           get_bool(r, "truncate", &r->truncate, e) || check_direction(r, e) ? -1 : 0;
}

static int parse_predict(serve_request *r, size_t max, serve_error *e)
{
    return get_predict_inputs(r, max, e) || get_bool(r, "raw_scores", &r->raw_scores, e) ||
           get_bool(r, "truncate", &r->truncate, e) || check_direction(r, e) ? -1 : 0;
}

static int parse_tokenize(serve_request *r, size_t max, serve_error *e)
{
    return get_texts(r, "inputs", max, e) ||
           get_bool(r, "add_special_tokens", &r->add_special_tokens, e) ||
           get_string(r, "prompt_name", &r->prompt_name, e) ? -1 : 0;
}

int serve_request_parse(serve_request *r, serve_body_kind kind, const char *body, size_t len,
                        size_t max_inputs, serve_error *e)
{
    static int (*const parsers[SERVE_BODY_KIND_COUNT])(serve_request *, size_t, serve_error *) = {
        [SERVE_BODY_OPENAI_EMBEDDINGS] = parse_openai, [SERVE_BODY_EMBED] = parse_embed,
        [SERVE_BODY_RERANK] = parse_rerank, [SERVE_BODY_PREDICT] = parse_predict,
        [SERVE_BODY_TOKENIZE] = parse_tokenize,
    };
    *r = (serve_request){.kind = kind, .normalize = -1, .truncate = -1,
                         .dimensions_layer_norm = -1, .add_special_tokens = 1};
    if (len == 0)
        return serve_error_set(e, 400, "", "the request body is empty; expected a JSON object");
    if (tf_json_parse(body, len, SERVE_MAX_JSON_DEPTH, "the request body", &r->root) != 0)
        return serve_error_set(e, 400, "", "%s", file_message());
    int rc = cJSON_IsObject(r->root) ? parsers[kind](r, max_inputs, e)
                                     : serve_error_set(e, 400, "", "the request body: expected "
                                                       "a JSON object, got %s", type_of(r->root));
    if (rc)
        serve_request_free(r);
    return rc;
}

void serve_request_free(serve_request *r)
{
    cJSON_Delete(r->root);
    free(r->texts);
    free(r->pairs);
    free(r->ids);
    free(r->id_counts);
    *r = (serve_request){0};
}
