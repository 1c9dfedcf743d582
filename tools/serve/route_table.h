/* route_table.h — the server's routes, one table of route objects
 * (route.h): OpenAI's POST /v1/embeddings and GET /v1/models, and
 * text-embeddings-inference's POST /, /embed, /embed_all, /similarity,
 * /rerank, /predict, /tokenize, /decode and GET /info, /health, /metrics,
 * /api-doc/openapi.json, /docs. A request's route from its path (404
 * otherwise), its method checked (405), its body parsed and its handler run. */
#ifndef SERVE_ROUTE_TABLE_H
#define SERVE_ROUTE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "route.h"

/* [serve_routes_count] every route, in the order 404's message and
 * /metrics list them. */
extern const serve_route *const serve_routes[];
extern const size_t serve_routes_count;

/* The most routes the table may hold (/metrics keeps a row for each). */
#define SERVE_MAX_ROUTES 32

/* The route of path, or NULL. */
const serve_route *routes_find(const char *path);

/* 0 when route (routes_find's) takes method; else 404 (no route: path
 * quoted, the paths listed) or 405 in *e, and -1. */
int routes_check_method(const serve_route *route, const char *method, const char *path,
                        serve_error *e);

/* The method a request of method runs route as: GET for HEAD on a GET
 * route (RFC 9110, section 9.3.2: HEAD is GET without the body, which
 * libmicrohttpd leaves out), else method. */
const char *routes_run_as(const serve_route *route, const char *method);

/* The methods route takes, as a 405's Allow header says them: "GET, HEAD"
 * or "POST". */
const char *routes_allow(const serve_route *route);

/* The shape of route's errors; TEI's for NULL (no route). */
serve_error_shape routes_errors_of(const serve_route *route);

/* The routes that run a folder of kind (tf_pipeline_kind), as a message
 * names them ("/v1/embeddings or /embed") in out; 0 when none does (a
 * token classifier: TEI's API has no route for it), which the server
 * refuses when it starts. */
size_t routes_of_kind(int32_t kind, char *out, size_t size);

/* Whether route runs a folder of kind: its own, its image kind, and a
 * classifier route a cross-encoder (a classifier of one label), a sparse
 * route a *ForMaskedLM folder loaded with its head (the older SPLADE
 * folders, tfenc serve --pooling splade). */
int routes_kind_runs(const serve_route *route, int32_t kind);

/* The kinds some route runs (its kind or its image kind), for a message:
 * "embedding, image-embedding, cross-encoder and classifier". */
void routes_served_kinds(char *out, size_t size);

/* Runs route on the request body[0..len) (a route without a body: none)
 * into *out: the handler's response, or the refusal in the route's shape. */
void routes_run(serve_server *s, const serve_route *route, const char *body, size_t len,
                serve_response *out);

#endif
