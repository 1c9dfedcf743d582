/* route_table.c — the routes' table, a request's route, and running it. */
#define _POSIX_C_SOURCE 200809L
#include "route_table.h"

#include <stdio.h>
#include <string.h>

#include "server.h"
#include "utf8.h"

/* Every route, in the order 404's message and /metrics list them: each a
 * file of routes/ defining `const serve_route route_<name>`. A new route is
 * its file, its line in meson.build and its line here. ROUTES(X) is X of
 * each: declared with DECLARE, listed in serve_routes with ROW. */
#define ROUTES(X)          \
    X(route_v1_embeddings) \
    X(route_v1_models)     \
    X(route_embed)         \
    X(route_embed_all)     \
    X(route_embed_sparse)  \
    X(route_similarity)    \
    X(route_rerank)        \
    X(route_predict)       \
    X(route_root)          \
    X(route_tokenize)      \
    X(route_decode)        \
    X(route_info)          \
    X(route_health)        \
    X(route_metrics)       \
    X(route_openapi)       \
    X(route_docs)          \
    /* the list's end */

#define DECLARE(route) extern const serve_route route;
#define ROW(route) &(route),
ROUTES(DECLARE)
const serve_route *const serve_routes[] = {ROUTES(ROW)};
const size_t serve_routes_count = sizeof serve_routes / sizeof serve_routes[0];
_Static_assert(sizeof serve_routes / sizeof serve_routes[0] <= SERVE_MAX_ROUTES,
               "a row of /metrics for each route");

const serve_route *routes_find(const char *path)
{
    for (size_t i = 0; i < serve_routes_count; i++)
        if (strcmp(path, serve_routes[i]->path) == 0)
            return serve_routes[i];
    return NULL;
}

/* Whether r is a GET route: one that a HEAD request runs too. */
static int takes_head(const serve_route *r)
{
    return strcmp(r->method, "GET") == 0;
}

const char *routes_run_as(const serve_route *route, const char *method)
{
    return route && takes_head(route) && strcmp(method, "HEAD") == 0 ? "GET" : method;
}

const char *routes_allow(const serve_route *route)
{
    return takes_head(route) ? "GET, HEAD" : route->method;
}

serve_error_shape routes_errors_of(const serve_route *route)
{
    return route ? route->errors : SERVE_ERRORS_TEI;
}

int routes_check_method(const serve_route *route, const char *method, const char *path,
                        serve_error *e)
{
    if (!route) {
        char paths[512] = ""; /* "/v1/embeddings, /v1/models, ..., /docs" */
        for (size_t i = 0; i < serve_routes_count; i++) {
            const size_t used = strlen(paths);
            snprintf(paths + used, sizeof paths - used, "%s%s", i ? ", " : "",
                     serve_routes[i]->path);
        }
        return serve_error_set(e, 404, "", "no route %.*s; the routes are %s",
                               tf__utf8_prefix(path, SERVE_QUOTE_BYTES), path, paths);
    }
    if (strcmp(method, route->method) != 0)
        return serve_error_set(e, 405, "", "%s takes %s%s, not %.*s", route->path, route->method,
                               takes_head(route) ? " (or HEAD)" : "",
                               tf__utf8_prefix(method, SERVE_QUOTE_BYTES), method);
    return 0;
}

int routes_kind_runs(const serve_route *route, int32_t kind)
{
    const int32_t own = route->kind;
    return own == SERVE_KIND(kind) || route->image_kind == SERVE_KIND(kind) ||
        (own == SERVE_KIND(TF_PIPELINE_CLASSIFIER) && kind == TF_PIPELINE_CROSS_ENCODER) ||
        (own == SERVE_KIND(TF_PIPELINE_SPARSE) && kind == TF_PIPELINE_FILL_MASK);
}

size_t routes_of_kind(int32_t kind, char *out, size_t size)
{
    size_t n = 0, used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < serve_routes_count; i++)
        if (routes_kind_runs(serve_routes[i], kind) && used < size)
            used += (size_t)snprintf(out + used, size - used, "%s%s", n++ ? " or " : "",
                                     serve_routes[i]->path);
    return n;
}

/* kind (SERVE_KIND) added to kinds[0..*n) unless SERVE_NO_KIND or there already. */
static void add_kind(int32_t *kinds, size_t *n, int32_t kind)
{
    for (size_t k = 0; k < *n; k++)
        if (kinds[k] == kind)
            return;
    if (kind != SERVE_NO_KIND)
        kinds[(*n)++] = kind;
}

void routes_served_kinds(char *out, size_t size)
{
    int32_t kinds[2 * SERVE_MAX_ROUTES]; /* [n] each kind some route runs, once (SERVE_KIND) */
    size_t n = 0, used = 0;
    for (size_t i = 0; i < serve_routes_count; i++) {
        add_kind(kinds, &n, serve_routes[i]->kind);
        add_kind(kinds, &n, serve_routes[i]->image_kind);
    }
    out[0] = '\0';
    for (size_t k = 0; k < n && used < size; k++)
        used += (size_t)snprintf(out + used, size - used, "%s%s",
                                 k == 0          ? ""
                                     : k + 1 < n ? ", "
                                                 : " and ",
                                 tf_pipeline_kind_name(SERVE_KIND_PIPELINE(kinds[k])));
}

void routes_run(serve_server *s, const serve_route *route, const char *body, size_t len,
                serve_response *out)
{
    *out = (serve_response){.queue_s = -1, .compute_s = -1};
    if (route->runs)
        route = route->runs(s);
    serve_request q;
    serve_error e;
    const size_t max = route->max_inputs ? route->max_inputs : s->limits.max_client_batch;
    int rc = route->parse ? serve_request_parse(&q, route->parse, body, len, max, &e) : 0;
    if (rc == 0 && route->parse)
        q.calibration = s->calibration;
    if (rc == 0) {
        rc = route->handle(s, route, route->parse ? &q : NULL, out, &e);
        if (route->parse)
            serve_request_free(&q);
    }
    if (rc) {
        const double queue_s = out->queue_s, compute_s = out->compute_s;
        serve_respond_error(route->errors, &e, out);
        out->queue_s = queue_s, out->compute_s = compute_s;
    }
}
