/* route_table.h — the server's routes as data: OpenAI's POST /v1/embeddings
 * and text-embeddings-inference's POST /embed, /rerank, /predict, /tokenize
 * and GET /info, /health, /metrics, each with its method, the shape of its
 * API's errors and the kind of its body; a request's route from its method
 * and path (404, 405 otherwise), and an error's body in the route's shape.
 * Nothing here needs a model (the fuzz target fuzz/fuzz_serve_request.c
 * builds it without one); running a route is routes.c's. */
#ifndef SERVE_ROUTE_TABLE_H
#define SERVE_ROUTE_TABLE_H

#include <stddef.h>

#include "json_out.h"
#include "request.h"

/* routes_table's rows. */
typedef enum serve_route_id {
    SERVE_ROUTE_OPENAI_EMBEDDINGS, /* POST /v1/embeddings */
    SERVE_ROUTE_EMBED,             /* POST /embed */
    SERVE_ROUTE_RERANK,            /* POST /rerank */
    SERVE_ROUTE_PREDICT,           /* POST /predict */
    SERVE_ROUTE_TOKENIZE,          /* POST /tokenize */
    SERVE_ROUTE_INFO,              /* GET /info */
    SERVE_ROUTE_HEALTH,            /* GET /health */
    SERVE_ROUTE_METRICS,           /* GET /metrics */
    SERVE_ROUTE_COUNT
} serve_route_id;

typedef struct serve_route {
    const char *path, *method;
    int openai;              /* errors as OpenAI's {"error": {...}}, else TEI's */
    int has_body;            /* a JSON body of kind `body` */
    serve_body_kind body;
} serve_route;

/* [SERVE_ROUTE_COUNT], a row for each serve_route_id. */
extern const serve_route routes_table[];

/* A response: status, body (malloc'ed) and what the log line says. */
typedef struct serve_response {
    int status;
    char *body;
    size_t len;
    const char *content_type;
    size_t tokens;                  /* the inputs' tokens, as run */
    double queue_s, compute_s;      /* negative when nothing ran */
} serve_response;

/* The route of path (its serve_route_id), or -1. */
int routes_find(const char *path);

/* 0 when route (routes_find's) takes method; else 404 (no route: path
 * quoted) or 405 in *e, and -1. */
int routes_check_method(int route, const char *method, const char *path, serve_error *e);

/* The method a request of method runs route as: GET for HEAD on a GET
 * route (RFC 9110, section 9.3.2: HEAD is GET without the body, which
 * libmicrohttpd leaves out), else method. */
const char *routes_run_as(int route, const char *method);

/* The methods a route takes, as a 405's Allow header says them: "GET,
 * HEAD" or "POST". */
const char *routes_allow(int route);

/* An error response of route r's API (r = -1: TEI's). */
void routes_error(int r, const serve_error *e, serve_response *out);

/* A JSON body (json_out's) as the response, status as given; a body that
 * could not be allocated is answered 500 with a body that needs none. */
void routes_respond_json(serve_response *out, int status, json_out *o);

#endif
