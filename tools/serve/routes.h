/* routes.h — running the server's routes (route_table.h) on a model: token
 * counts against the model's limit, a job for the batcher, the results in
 * the API's JSON (metrics: Prometheus text). */
#ifndef SERVE_ROUTES_H
#define SERVE_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#include "route_table.h"
#include "server.h"

/* The routes that run a folder of kind (tf_pipeline_kind), as a message
 * names them ("/embed or /v1/embeddings"); NULL for a kind no route serves
 * (a token classifier: TEI's API has no route for it), which the server
 * refuses when it starts. */
const char *routes_of_kind(int32_t kind);

/* The kinds some route serves, for a message: "embedding, cross-encoder
 * and classifier". */
void routes_served_kinds(char *out, size_t size);

/* Runs route r on the request body[0..len) (GET routes: none). */
void routes_run(serve_server *s, serve_route_id r, const char *body, size_t len,
                serve_response *out);

#endif
