/* route_table.c — the routes' table, a request's route, and errors in the
 * shape of each route's API. */
#define _POSIX_C_SOURCE 200809L
#include "route_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

const serve_route routes_table[] = {
    [SERVE_ROUTE_OPENAI_EMBEDDINGS] = {"/v1/embeddings", "POST", 1, 1,
                                       SERVE_BODY_OPENAI_EMBEDDINGS},
    [SERVE_ROUTE_EMBED] = {"/embed", "POST", 0, 1, SERVE_BODY_EMBED},
    [SERVE_ROUTE_RERANK] = {"/rerank", "POST", 0, 1, SERVE_BODY_RERANK},
    [SERVE_ROUTE_PREDICT] = {"/predict", "POST", 0, 1, SERVE_BODY_PREDICT},
    [SERVE_ROUTE_TOKENIZE] = {"/tokenize", "POST", 0, 1, SERVE_BODY_TOKENIZE},
    [SERVE_ROUTE_INFO] = {"/info", "GET", 0, 0, 0},
    [SERVE_ROUTE_HEALTH] = {"/health", "GET", 0, 0, 0},
    [SERVE_ROUTE_METRICS] = {"/metrics", "GET", 0, 0, 0},
};
_Static_assert(sizeof routes_table / sizeof routes_table[0] == SERVE_ROUTE_COUNT,
               "a row for each serve_route_id");

int routes_find(const char *path)
{
    for (size_t i = 0; i < SERVE_ROUTE_COUNT; i++)
        if (strcmp(path, routes_table[i].path) == 0)
            return (int)i;
    return -1;
}

/* Whether r is a GET route: one that a HEAD request runs too. */
static int takes_head(const serve_route *r)
{
    return strcmp(r->method, "GET") == 0;
}

const char *routes_run_as(int route, const char *method)
{
    return route >= 0 && takes_head(&routes_table[route]) && strcmp(method, "HEAD") == 0
               ? "GET"
               : method;
}

const char *routes_allow(int route)
{
    return takes_head(&routes_table[route]) ? "GET, HEAD" : routes_table[route].method;
}

int routes_check_method(int route, const char *method, const char *path, serve_error *e)
{
    if (route < 0) {
        char paths[256] = ""; /* "/v1/embeddings, /embed, ..., /metrics" */
        for (size_t i = 0; i < SERVE_ROUTE_COUNT; i++) {
            const size_t used = strlen(paths);
            snprintf(paths + used, sizeof paths - used, "%s%s", i ? ", " : "",
                     routes_table[i].path);
        }
        return serve_error_set(e, 404, "", "no route %.*s; the routes are %s",
                               tf_utf8_prefix(path, SERVE_QUOTE_BYTES), path, paths);
    }
    const serve_route *r = &routes_table[route];
    if (strcmp(method, r->method) != 0)
        return serve_error_set(e, 405, "", "%s takes %s%s, not %.*s", r->path, r->method,
                               takes_head(r) ? " (or HEAD)" : "",
                               tf_utf8_prefix(method, SERVE_QUOTE_BYTES), method);
    return 0;
}

void routes_respond_json(serve_response *out, int status, json_out *o)
{
    out->status = status, out->content_type = "application/json";
    out->body = json_out_take(o, &out->len);
    if (!out->body) { /* out of memory: a body that needs none */
        static const char oom[] = "{\"error\":\"out of memory\",\"error_type\":\"Backend\"}";
        out->status = 500;
        out->body = strdup(oom);
        out->len = out->body ? sizeof oom - 1 : 0;
    }
}

/* TEI's error_type of a status. TEI's ErrorType (router/src/lib.rs) has
 * Unhealthy, Backend, Overloaded, Validation, Tokenizer and Empty; a
 * request the server cannot take as sent (no API key, no such route,
 * another method, a transfer coding it does not decode) is Validation, the
 * closest. */
static const char *tei_error_type(int status)
{
    switch (status) {
    case 400: case 401: case 404: case 405: case 413: case 501: return "Validation";
    case 429: return "Overloaded";
    case 503: return "Unhealthy";
    default: return "Backend";
    }
}

/* OpenAI's error type of a status. */
static const char *openai_error_type(int status)
{
    switch (status) {
    case 401: return "authentication_error";
    case 404: case 405: return "not_found_error";
    case 429: return "rate_limit_error";
    case 500: case 503: return "server_error";
    default: return "invalid_request_error";
    }
}

void routes_error(int r, const serve_error *e, serve_response *out)
{
    json_out o = {0};
    *out = (serve_response){0};
    if (r >= 0 && routes_table[r].openai) {
        json_out_str(&o, "{\"error\":{\"message\":");
        json_out_string(&o, e->message);
        json_out_str(&o, ",\"type\":");
        json_out_string(&o, openai_error_type(e->status));
        json_out_str(&o, ",\"param\":");
        if (e->param[0])
            json_out_string(&o, e->param);
        else
            json_out_str(&o, "null");
        json_out_printf(&o, ",\"code\":%d}}", e->status);
    } else {
        json_out_str(&o, "{\"error\":");
        json_out_string(&o, e->message);
        json_out_str(&o, ",\"error_type\":");
        json_out_string(&o, tei_error_type(e->status));
        json_out_str(&o, "}");
    }
    routes_respond_json(out, e->status, &o);
    out->queue_s = out->compute_s = -1;
}
