/* request.c — a request body parsed and handed to its route's parser, and
 * the readers of the fields routes share. Field names and shapes follow
 * OpenAI's CreateEmbeddingRequest and TEI's requests (router/src/http/types.rs). */
#include "request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_checked.h"
#include "utf8.h"

const char *serve_json_type(const cJSON *v)
{
    return cJSON_IsString(v) ? "a string"
        : cJSON_IsNumber(v)  ? "a number"
        : cJSON_IsBool(v)    ? "a boolean"
        : cJSON_IsNull(v)    ? "null"
        : cJSON_IsArray(v)   ? "an array"
                             : "an object";
}

int serve_wrong_type(serve_error *e, const char *field, const char *expected, const cJSON *got)
{
    return serve_error_set(e, 400, field, "%s: expected %s, got %s", field, expected,
                           serve_json_type(got));
}

const cJSON *serve_field(const serve_request *r, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(r->root, name);
}

int serve_field_bool(const serve_request *r, const char *name, int32_t *out, serve_error *e)
{
    const cJSON *v = serve_field(r, name);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsBool(v))
        return serve_wrong_type(e, name, "true or false", v);
    *out = cJSON_IsTrue(v);
    return 0;
}

int serve_field_string(const serve_request *r, const char *name, const char **out, serve_error *e)
{
    const cJSON *v = serve_field(r, name);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return serve_wrong_type(e, name, "a string", v);
    *out = v->valuestring;
    return 0;
}

int serve_field_positive(const serve_request *r, const char *name, int32_t *out, serve_error *e)
{
    const cJSON *v = serve_field(r, name);
    uint64_t u;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return serve_wrong_type(e, name, "a positive integer", v);
    if (!tf__json_uint(v, 2147483647.0, &u) || u == 0) {
        char got[48];
        tf__json_describe(v, got, sizeof got);
        return serve_error_set(e, 400, name, "%s: expected a positive integer, got %s", name, got);
    }
    *out = (int32_t)u;
    return 0;
}

int serve_field_direction(serve_request *r, const char *object, serve_error *e)
{
    const cJSON *in = object ? serve_field(r, object) : r->root;
    const cJSON *v = cJSON_IsObject(in)
        ? cJSON_GetObjectItemCaseSensitive(in, "truncation_direction")
        : NULL;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return serve_wrong_type(e, "truncation_direction", "\"Left\" or \"Right\"", v);
    const char *d = v->valuestring;
    r->truncate_left = strcmp(d, "Left") == 0 || strcmp(d, "left") == 0;
    if (!r->truncate_left && strcmp(d, "Right") != 0 && strcmp(d, "right") != 0)
        return serve_error_set(e, 400, "truncation_direction",
                               "truncation_direction: expected "
                               "\"Left\" or \"Right\", got \"%.*s\"",
                               tf__utf8_prefix(d, SERVE_QUOTE_BYTES), d);
    return 0;
}

int serve_field_modality(serve_request *r, serve_error *e)
{
    const char *m = NULL;
    if (serve_field_string(r, "modality", &m, e))
        return -1;
    if (!m)
        return 0;
    if (strcmp(m, "text") != 0 && strcmp(m, "image") != 0)
        return serve_error_set(e, 400, "modality",
                               "modality: expected \"text\" or \"image\", got \"%.*s\"",
                               tf__utf8_prefix(m, SERVE_QUOTE_BYTES), m);
    r->modality = strcmp(m, "image") == 0 ? SERVE_MODALITY_IMAGE : SERVE_MODALITY_TEXT;
    return 0;
}

int serve_request_alloc_inputs(serve_request *r, size_t n, int pairs, serve_error *e)
{
    r->n = n;
    r->texts = calloc(n, sizeof *r->texts);
    r->pairs = pairs ? calloc(n, sizeof *r->pairs) : NULL;
    if (!r->texts || (pairs && !r->pairs))
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", n);
    return 0;
}

int serve_list_size(const cJSON *list, const char *name, size_t max, size_t *n, serve_error *e)
{
    *n = (size_t)cJSON_GetArraySize(list);
    if (*n == 0)
        return serve_error_empty(e, name, "%s: an empty list; expected 1 to %zu inputs", name, max);
    if (*n > max)
        return serve_error_set(e, 400, name,
                               "%s: %zu inputs, more than the server's limit of "
                               "%zu a request (%s)",
                               name, *n, max,
                               max == SERVE_OPENAI_MAX_INPUTS ? "OpenAI's" : "--max-client-batch");
    return 0;
}

/* One list of token ids (input `name` as ids) into r->ids[i]. */
static int id_list(serve_request *r, const char *name, const cJSON *list, size_t i, int32_t *at,
                   serve_error *e)
{
    size_t k = 0;
    r->ids[i] = at;
    for (const cJSON *item = list->child; item; item = item->next, k++) {
        uint64_t id;
        if (!cJSON_IsNumber(item) || !tf__json_uint(item, 2147483647.0, &id)) {
            char got[48];
            tf__json_describe(item, got, sizeof got);
            return serve_error_set(e, 400, name,
                                   "%s[%zu][%zu]: expected a token id (an "
                                   "integer 0..2147483647), got %s",
                                   name, r->single ? 0 : i, k, got);
        }
        at[k] = (int32_t)id;
    }
    if (k == 0)
        return serve_error_empty(e, name, "%s[%zu]: an empty list of token ids", name, i);
    r->id_counts[i] = k;
    return 0;
}

/* Token-id inputs: `name` (v) is a list of ids (one input) or a list of
 * lists of ids, into r->ids (one block). */
static int get_ids(serve_request *r, const char *name, const cJSON *v, size_t max, serve_error *e)
{
    r->single = !v->child || cJSON_IsNumber(v->child);
    size_t n = 1, total = 0;
    if (!r->single && serve_list_size(v, name, max, &n, e))
        return -1;
    for (const cJSON *list = r->single ? v : v->child; list; list = r->single ? NULL : list->next)
        if (!cJSON_IsArray(list))
            return serve_error_set(e, 400, name, "%s: a list of token-id lists holds %s", name,
                                   serve_json_type(list));
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
        if (id_list(r, name, list, i, at, e))
            return -1;
        at += r->id_counts[i];
    }
    return 0;
}

int serve_field_texts(serve_request *r, const char *name, size_t max, serve_error *e)
{
    const cJSON *v = serve_field(r, name);
    if (!v)
        return serve_error_set(e, 400, name,
                               "%s: missing; expected a string or a list of "
                               "strings",
                               name);
    if (cJSON_IsString(v)) {
        r->single = 1;
        if (!v->valuestring[0])
            return serve_error_empty(e, name, "%s: an empty string; expected a text", name);
        if (serve_request_alloc_inputs(r, 1, 0, e))
            return -1;
        r->texts[0] = v->valuestring;
        return 0;
    }
    size_t n;
    if (!cJSON_IsArray(v))
        return serve_wrong_type(e, name, "a string or a list of strings", v);
    if (serve_list_size(v, name, max, &n, e) || serve_request_alloc_inputs(r, n, 0, e))
        return -1;
    size_t i = 0;
    for (const cJSON *item = v->child; item; item = item->next, i++) {
        if (cJSON_IsString(item) && !item->valuestring[0])
            return serve_error_empty(e, name, "%s[%zu]: an empty string; expected a text", name, i);
        if (cJSON_IsString(item)) {
            r->texts[i] = item->valuestring;
            continue;
        }
        char where[48];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        return serve_wrong_type(e, where, "a string", item);
    }
    return 0;
}

int serve_field_texts_or_ids(serve_request *r, const char *name, size_t max, serve_error *e)
{
    const cJSON *v = serve_field(r, name);
    if (cJSON_IsArray(v) && v->child && (cJSON_IsNumber(v->child) || cJSON_IsArray(v->child)))
        return get_ids(r, name, v, max, e);
    return serve_field_texts(r, name, max, e);
}

int serve_field_ids(serve_request *r, const char *name, size_t max, serve_error *e)
{
    const cJSON *v = serve_field(r, name);
    if (!v)
        return serve_error_set(e, 400, name,
                               "%s: missing; expected a list of token ids or a "
                               "list of such lists",
                               name);
    if (!cJSON_IsArray(v))
        return serve_wrong_type(e, name, "a list of token ids or a list of such lists", v);
    return get_ids(r, name, v, max, e);
}

int serve_request_parse(serve_request *r, serve_body_parser *parse, const char *body, size_t len,
                        size_t max_inputs, serve_error *e)
{
    *r = (serve_request){.normalize = -1,
                         .truncate = -1,
                         .dimensions_layer_norm = -1,
                         .modality = SERVE_MODALITY_MODEL,
                         .add_special_tokens = 1,
                         .skip_special_tokens = 1};
    if (len == 0)
        return serve_error_empty(e, "", "the request body is empty; expected a JSON object");
    char why[512]; /* tf__json_checked_parse's message */
    if (tf__json_checked_parse(body, len, SERVE_MAX_JSON_DEPTH, "the request body", &r->root, why,
                               sizeof why) != 0)
        return serve_error_malformed(e, "%s", why);
    int rc = cJSON_IsObject(r->root) ? parse(r, max_inputs, e)
                                     : serve_error_set(e, 400, "",
                                                       "the request body: expected "
                                                       "a JSON object, got %s",
                                                       serve_json_type(r->root));
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
