/* response.h — what a request is answered with: a body (JSON, or
 * /metrics' text), or a refusal (serve_error: a status, the field it
 * names and a message) written in the shape of its route's API. */
#ifndef SERVE_RESPONSE_H
#define SERVE_RESPONSE_H

#include <stddef.h>

#include "json_out.h"

/* A response: status, body (malloc'ed) and what the log line says. */
typedef struct serve_response {
    int status;
    char *body;
    size_t len;
    const char *content_type;
    size_t tokens;             /* the inputs' tokens, as run */
    double queue_s, compute_s; /* negative when nothing ran */
} serve_response;

/* What a 400 refuses, which TEI's routes answer as TEI does
 * (router/src/http/server.rs): a request it will not run is 422
 * "Validation", an empty input 400 "Empty", a request HTTP or JSON cannot
 * read (its framing, its JSON syntax: axum's own refusals) 400. */
typedef enum serve_refusal {
    SERVE_INVALID = 0, /* serve_error_set */
    SERVE_EMPTY,       /* serve_error_empty */
    SERVE_MALFORMED    /* serve_error_malformed */
} serve_refusal;

/* A refused request: the HTTP status (OpenAI's: 400 for each kind of
 * refusal above), the field it names (OpenAI's "param"; "" for none) and
 * the message. */
typedef struct serve_error {
    int status;
    serve_refusal refusal;
    char param[32];
    char message[320];
} serve_error;

/* Sets *e and returns -1. A message longer than e->message is cut between
 * two characters. */
int serve_error_set(serve_error *e, int status, const char *param, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with status 400: an empty input, list or body (TEI's Empty), or
 * bytes that are not an HTTP request or not JSON. */
int serve_error_empty(serve_error *e, const char *param, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int serve_error_malformed(serve_error *e, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The bytes of a client's string (a path, a field's value) a message
 * quotes, at most, cut between two characters:
 * "%.*s", tf__utf8_prefix(s, SERVE_QUOTE_BYTES), s (lib/base/utf8.h). */
#define SERVE_QUOTE_BYTES 64

/* The shape of an API's errors. */
typedef enum serve_error_shape {
    SERVE_ERRORS_TEI,    /* text-embeddings-inference's {"error": message, "error_type"} */
    SERVE_ERRORS_OPENAI, /* OpenAI's {"error": {"message", "type", "param", "code"}} */
} serve_error_shape;

/* A JSON body (json_out's) as the response, status as given; a body that
 * could not be allocated is answered 500 with a body that needs none. */
void serve_respond_json(serve_response *out, int status, json_out *o);

/* e as the response, its body in the given shape; nothing ran. */
void serve_respond_error(serve_error_shape shape, const serve_error *e, serve_response *out);

#endif
