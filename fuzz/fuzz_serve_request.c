/* fuzz_serve_request.c — tfenc serve's requests up to the model, on
 * arbitrary bytes: the input's first line is the request line, "METHOD
 * PATH" (the method up to the first space), the rest the body. The path
 * and method find the route (tools/serve/route_table.c: 404, 405), the
 * body is read by the route's parser for a route that takes one
 * (tools/serve/request.c and the route's file in tools/serve/routes/), and
 * every refusal is rendered as the route's API shapes it. Never a crash;
 * and:
 *   - a refusal has a status the server answers with and a message, and its
 *     body is JSON that lib/base/json_checked.c reads back (valid UTF-8,
 *     whatever bytes the path, method or body held), in the API's shape;
 *   - a message made from a path and a method that are UTF-8 is UTF-8 (a
 *     quote cut to its first bytes ends between two characters), as is one
 *     about a body whose JSON parses;
 *   - a body that is read holds 1..SERVE_FUZZ_MAX_INPUTS inputs, each a
 *     string (and a pair where the route has them) or, for /v1/embeddings,
 *     a non-empty list of token ids; each string, raw control bytes and all,
 *     written as a JSON string (json_out_string) reads back the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "json_checked.h"
#include "route_table.h"
#include "utf8.h"

#define SERVE_FUZZ_MAX_INPUTS 16
#define SERVE_FUZZ_MAX_LINE 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_utf8(const char *s)
{
    const size_t n = strlen(s);
    return tf__utf8_invalid_at(s, n) == n;
}

/* route's error body for e: JSON in its API's shape, the message in it, and
 * the status of that API (TEI's 422 for a request it will not run). */
static void check_refusal(const serve_route *route, const serve_error *e, int message_is_utf8)
{
    static const int statuses[] = {400, 404, 405, 413, 424, 500};
    size_t i = 0;
    while (i < sizeof statuses / sizeof statuses[0] && statuses[i] != e->status)
        i++;
    if (i == sizeof statuses / sizeof statuses[0] || !e->message[0] ||
        (message_is_utf8 && !is_utf8(e->message)))
        abort();
    serve_response out;
    serve_respond_error(routes_errors_of(route), e, &out);
    cJSON *root;
    char why[512];
    const int openai = route && route->errors == SERVE_ERRORS_OPENAI;
    const int want = !openai && e->status == 400 && e->refusal == SERVE_INVALID ? 422 : e->status;
    if (out.status != want || !out.body ||
        tf__json_checked_parse(out.body, out.len, 4, "the response", &root, why, sizeof why) != 0)
        abort();
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    const cJSON *message = openai ? cJSON_GetObjectItemCaseSensitive(error, "message") : error;
    if (!cJSON_IsString(message) || !message->valuestring[0])
        abort();
    cJSON_Delete(root);
    free(out.body);
}

/* s written as a JSON string reads back as s. */
static void check_round_trip(const char *s)
{
    json_out o = {0};
    json_out_str(&o, "[");
    json_out_string(&o, s);
    json_out_str(&o, "]");
    size_t len;
    char *text = json_out_take(&o, &len);
    cJSON *root;
    char why[512];
    if (!text || tf__json_checked_parse(text, len, 2, "the string", &root, why, sizeof why) != 0)
        abort();
    if (!cJSON_IsString(root->child) || strcmp(root->child->valuestring, s) != 0)
        abort();
    cJSON_Delete(root);
    free(text);
}

static void check_request(const serve_request *r)
{
    if (r->n < 1 || r->n > SERVE_FUZZ_MAX_INPUTS || (r->single && r->n != 1))
        abort();
    for (size_t i = 0; i < r->n; i++) {
        if (r->ids) { /* token ids: each list non-empty, each id >= 0 */
            if (r->texts || r->id_counts[i] < 1)
                abort();
            for (size_t k = 0; k < r->id_counts[i]; k++)
                if (r->ids[i][k] < 0)
                    abort();
            continue;
        }
        if (!r->texts[i] || (r->pairs && !r->pairs[i]))
            abort();
        check_round_trip(r->texts[i]);
        if (r->pairs)
            check_round_trip(r->pairs[i]);
    }
    if (r->query && !r->pairs)
        abort(); /* rerank's query always has its pairs */
}

/* Whether body[0..len) is JSON that parses (a refusal about it then says
 * what a field holds, in UTF-8). */
static int parses(const char *body, size_t len)
{
    cJSON *root;
    char why[512];
    if (tf__json_checked_parse(body, len, SERVE_MAX_JSON_DEPTH, "the body", &root, why,
                               sizeof why) != 0)
        return 0;
    cJSON_Delete(root);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *newline = memchr(data, '\n', size);
    const size_t line_len = newline ? (size_t)(newline - data) : size;
    if (line_len >= SERVE_FUZZ_MAX_LINE)
        return 0;
    char line[SERVE_FUZZ_MAX_LINE]; /* "METHOD PATH", NUL-terminated as libmicrohttpd gives */
    memcpy(line, data, line_len);
    line[line_len] = '\0';
    char *space = strchr(line, ' ');
    const char *method = space ? line : "GET", *path = space ? space + 1 : line;
    if (space)
        *space = '\0';
    const char *body = newline ? (const char *)newline + 1 : "";
    const size_t body_len = newline ? size - line_len - 1 : 0;

    const serve_route *route = routes_find(path);
    serve_error e = {0};
    if (routes_check_method(route, method, path, &e)) {
        if (route && strcmp(method, route->method) == 0)
            abort(); /* the route's own method refused */
        check_refusal(route, &e, is_utf8(path) && is_utf8(method));
        return 0;
    }
    if (!route || strcmp(method, route->method) != 0)
        abort(); /* no route, or another method, let through */
    if (!route->parse)
        return 0;
    serve_request r;
    const int rc = serve_request_parse(&r, route->parse, body, body_len, SERVE_FUZZ_MAX_INPUTS, &e);
    if (rc != 0) {
        check_refusal(route, &e, parses(body, body_len));
        return 0;
    }
    check_request(&r);
    serve_request_free(&r);
    return 0;
}
