/* route.h — a route of tfenc serve as one object: its path and method, the
 * shape of its API's errors, the folder kind it runs, whether it needs the
 * API key, its body's parser and its handler. Each route is a file of
 * routes/ that defines one (`const serve_route route_<name>`); the table
 * in route_table.c lists them, and everything else (dispatch, 404's list,
 * 405 and its Allow header, HEAD on a GET route, the API key, /metrics'
 * route label, the error bodies) follows from the object. */
#ifndef SERVE_ROUTE_H
#define SERVE_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "request.h"
#include "response.h"

typedef struct serve_server serve_server; /* server.h */
typedef struct serve_route serve_route;

/* Runs route on its parsed request q (NULL for a route without a body)
 * into *out: 0, or -1 with *e (the caller answers it in the route's
 * shape). */
typedef int serve_route_handler(serve_server *s, const serve_route *route, const serve_request *q,
                                serve_response *out, serve_error *e);

/* A route's folder kind: SERVE_KIND(TF_PIPELINE_EMBEDDING), ..., or
 * SERVE_NO_KIND for a route that runs no model's head (/tokenize, /info). */
#define SERVE_NO_KIND 0
#define SERVE_KIND(kind) ((int32_t)(kind) + 1)
/* The tf_pipeline_kind of a route's kind other than SERVE_NO_KIND. */
#define SERVE_KIND_PIPELINE(route_kind) ((route_kind)-1)

struct serve_route {
    const char *path;         /* "/embed": one route a path */
    const char *method;       /* "POST", or "GET" (which HEAD runs too) */
    serve_error_shape errors; /* its API's error bodies */
    int32_t kind;             /* the folder kind it runs (SERVE_KIND; a classifier route
                                  takes a cross-encoder too, a classifier of one label):
                                  another is 424 (TEI's) naming the routes of the server's kind, and
                                  a folder of a kind no route runs is refused at start */
    /* The image kind it runs beside its kind (SERVE_KIND(TF_PIPELINE_IMAGE_EMBEDDING) on
       the embedding routes that take images as data URIs, image_inputs.h), or
       SERVE_NO_KIND. */
    int32_t image_kind;
    int no_key;               /* 1: answered without --api-key's header (/health) */
    serve_body_parser *parse; /* its JSON body into a serve_request; NULL: no body */
    serve_route_handler *handle;
    /* A route that runs another one, chosen by the server's model (POST /,
       TEI's route for the model's kind): that route; NULL for the rest. */
    const serve_route *(*runs)(const serve_server *s);
    size_t max_inputs; /* inputs a request may have; 0: --max-client-batch */
    /* Its entry of /api-doc/openapi.json: a summary, and the names of its
       request's and its answer's schemas in the document's components
       (route_openapi.c's), NULL for none. */
    const char *summary, *request_schema, *response_schema;
};

#endif
