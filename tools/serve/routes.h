/* routes.h — the server's routes: OpenAI's POST /v1/embeddings and
 * text-embeddings-inference's POST /embed, /rerank, /predict, /tokenize and
 * GET /info, /health, /metrics; each answers with a JSON body (metrics:
 * Prometheus text), errors shaped as its API shapes them. */
#ifndef SERVE_ROUTES_H
#define SERVE_ROUTES_H

#include <stddef.h>

#include "request.h"
#include "server.h"

/* A response: status, body (malloc'ed) and what the log line says. */
typedef struct serve_response {
    int status;
    char *body;
    size_t len;
    const char *content_type;
    size_t tokens;                  /* the inputs' tokens, as run */
    double queue_s, compute_s;      /* negative when nothing ran */
} serve_response;

typedef struct serve_route {
    const char *path, *method;
    int openai;              /* errors as OpenAI's {"error": {...}}, else TEI's */
    int has_body;            /* a JSON body of kind `body` */
    serve_body_kind body;
} serve_route;

/* The route of path (its index in routes_table), or -1. */
int routes_find(const char *path);
extern const serve_route routes_table[];
extern const size_t routes_count;

/* Runs route r on the request body[0..len) (GET routes: none). */
void routes_run(serve_server *s, int r, const char *body, size_t len, serve_response *out);

/* An error response of route r's API (r = -1: TEI's). */
void routes_error(int r, const serve_error *e, serve_response *out);

#endif
