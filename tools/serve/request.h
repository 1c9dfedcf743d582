/* request.h — a request body read into what a route runs: JSON checked by
 * lib/common/json.c (valid UTF-8, bounded nesting, no duplicate key, no
 * NUL), then each field's type and range. A bad body is a serve_error
 * naming the field, what it takes and what it got. No model is needed
 * here: token counts and the model's limits are the routes' (routes.c). */
#ifndef SERVE_REQUEST_H
#define SERVE_REQUEST_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The routes that take a JSON body. */
typedef enum serve_body_kind {
    SERVE_BODY_OPENAI_EMBEDDINGS, /* POST /v1/embeddings */
    SERVE_BODY_EMBED,             /* POST /embed */
    SERVE_BODY_RERANK,            /* POST /rerank */
    SERVE_BODY_PREDICT,           /* POST /predict */
    SERVE_BODY_TOKENIZE,          /* POST /tokenize */
    SERVE_BODY_KIND_COUNT
} serve_body_kind;

/* A refused request: the HTTP status, the field it names (OpenAI's
 * "param"; "" for none) and the message. */
typedef struct serve_error {
    int status;
    char param[32];
    char message[320];
} serve_error;

/* Sets *e and returns -1. A message longer than e->message is cut between
 * two characters. */
int serve_error_set(serve_error *e, int status, const char *param, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* The bytes of a client's string (a path, a field's value) a message
 * quotes, at most, cut between two characters:
 * "%.*s", tf_utf8_prefix(s, SERVE_QUOTE_BYTES), s (lib/common/utf8.h). */
#define SERVE_QUOTE_BYTES 64

/* The JSON nesting a body may have (TEI's deepest, predict's pairs, is 3). */
#define SERVE_MAX_JSON_DEPTH 8

/* What a body asks. Strings point into root's tree. */
typedef struct serve_request {
    serve_body_kind kind;
    cJSON *root;
    size_t n;                 /* inputs, 1..max_inputs */
    const char **texts;       /* [n] (rerank: the query, n times); NULL for ids */
    const int32_t **ids;      /* /v1/embeddings' token-id inputs: [n] lists, or NULL */
    size_t *id_counts;        /* [n] their lengths, >= 1 */
    const char **pairs;       /* [n] second segments (rerank: the texts), or NULL */
    int single;               /* the input was one string (or pair), not a list */
    const char *prompt_name;  /* NULL: the folder's default */
    int32_t normalize;        /* -1: the model's; 0; 1 */
    int32_t dimensions;       /* 0: all */
    int32_t dimensions_layer_norm; /* -1: the server's --dimensions-layer-norm; 0; 1:
                                  nomic's Matryoshka recipe (tf_pipeline_args') */
    int32_t truncate;         /* -1: the server's --auto-truncate; 0; 1 */
    int32_t raw_scores;       /* rerank, predict: the logits */
    int32_t return_text;      /* rerank */
    int32_t add_special_tokens; /* tokenize */
    int32_t base64;           /* /v1/embeddings encoding_format "base64" */
    const char *model;        /* /v1/embeddings: as given, or NULL */
} serve_request;

/* Parses body[0..len) for the route kind, at most max_inputs inputs; 0,
 * or -1 with *e set (400, or 413 for more inputs than max_inputs). On
 * success free *r with serve_request_free. */
int serve_request_parse(serve_request *r, serve_body_kind kind, const char *body, size_t len,
                        size_t max_inputs, serve_error *e);
void serve_request_free(serve_request *r);

#endif
