/* request.h — a request body read into what a route runs. The JSON is
 * checked first (lib/base/json_checked.c: valid UTF-8, bounded
 * nesting, no duplicate key, no NUL), then read by its route's parser (in
 * the route's file, routes/), with the readers here for the fields routes
 * share: each field's type and range. A bad body is a serve_error naming
 * the field, what it takes and what it got. No model is needed here:
 * token counts and the model's limits are the handlers' (route_model.h). */
#ifndef SERVE_REQUEST_H
#define SERVE_REQUEST_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "response.h"

/* The JSON nesting a body may have (TEI's deepest, predict's pairs, is 3). */
#define SERVE_MAX_JSON_DEPTH 8

/* What a body asks. Strings point into root's tree. */
typedef struct serve_request {
    cJSON *root;
    size_t n;                      /* inputs, 1..max_inputs */
    const char **texts;            /* [n] (rerank: the query, n times); NULL for ids */
    const int32_t **ids;           /* token-id inputs (/v1/embeddings, /embed, /decode): [n]
                                 lists, or NULL */
    size_t *id_counts;             /* [n] their lengths, >= 1 */
    const char **pairs;            /* [n] second segments (rerank: the texts), or NULL */
    const char *query;             /* rerank: the query every pair shares, else NULL */
    int single;                    /* the input was one string (or pair), not a list */
    const char *prompt_name;       /* NULL: the folder's default */
    int32_t normalize;             /* -1: the model's; 0; 1 */
    int32_t dimensions;            /* 0: all */
    int32_t dimensions_layer_norm; /* -1: the server's --dimensions-layer-norm; 0; 1:
                                  nomic's Matryoshka recipe (tf_pipeline_args') */
    int32_t truncate;              /* -1: the server's --auto-truncate; 0; 1 */
    int32_t truncate_left;         /* TEI's truncation_direction "Left": a cut keeps the end */
    int32_t raw_scores;            /* rerank, predict: the logits */
    int32_t return_text;           /* rerank */
    int32_t add_special_tokens;    /* tokenize */
    int32_t skip_special_tokens;   /* decode */
    int32_t base64;                /* /v1/embeddings encoding_format "base64" */
    int32_t precision;             /* the embedding routes: a tf_precision (0: float32) */
    const char *model;             /* /v1/embeddings: as given, or NULL */
    int32_t modality; /* "modality": SERVE_MODALITY_* (image_inputs.h says which inputs are
                         images) */
    /* the server's --calibration (serve_precision.h; routes_run sets it), or NULL */
    const struct serve_calibration *calibration;
} serve_request;

/* What a request's "modality" (infinity's field) says its inputs are. */
enum {
    SERVE_MODALITY_MODEL = -1, /* absent: the model's */
    SERVE_MODALITY_TEXT = 0,   /* "text" */
    SERVE_MODALITY_IMAGE = 1   /* "image": each input a data URI */
};

/* A route's parser: r->root, a JSON object, into r's fields, at most
 * max_inputs inputs; 0, or -1 with *e. */
typedef int serve_body_parser(serve_request *r, size_t max_inputs, serve_error *e);

/* Reads body[0..len) with parse; 0, or -1 with *e set. On success free *r
 * with serve_request_free. */
int serve_request_parse(serve_request *r, serve_body_parser *parse, const char *body, size_t len,
                        size_t max_inputs, serve_error *e);
void serve_request_free(serve_request *r);

/* ---- For the parsers ------------------------------------------------------------ *
 * Each reader returns 0, or -1 with *e naming the field. An optional field
 * absent or null leaves *out as it was (the request's default). */

/* The member name of r->root, or NULL. */
const cJSON *serve_field(const serve_request *r, const char *name);
/* What a JSON value is, for messages: "a string", "an array", ... */
const char *serve_json_type(const cJSON *v);
/* 400: "<field>: expected <expected>, got <what got is>"; returns -1. */
int serve_wrong_type(serve_error *e, const char *field, const char *expected, const cJSON *got);

/* An optional boolean. */
int serve_field_bool(const serve_request *r, const char *name, int32_t *out, serve_error *e);
/* An optional string. */
int serve_field_string(const serve_request *r, const char *name, const char **out, serve_error *e);
/* An optional integer 1..INT32_MAX. */
int serve_field_positive(const serve_request *r, const char *name, int32_t *out, serve_error *e);
/* TEI's truncation_direction of r->root's member `object` (NULL: the body itself):
 * "Right" (the default) or "Left" (either capitalised), into r->truncate_left. */
int serve_field_direction(serve_request *r, const char *object, serve_error *e);

/* "modality": "text" or "image", into r->modality. */
int serve_field_modality(serve_request *r, serve_error *e);

/* OpenAI's limit of inputs a /v1/embeddings request: 2048. */
#define SERVE_OPENAI_MAX_INPUTS 2048

/* `name`: a string or a list of strings, into r->texts. */
int serve_field_texts(serve_request *r, const char *name, size_t max, serve_error *e);
/* As serve_field_texts, or token ids (a list of ids, or a list of lists
 * of them: OpenAI's and TEI's) into r->ids. */
int serve_field_texts_or_ids(serve_request *r, const char *name, size_t max, serve_error *e);

/* Token ids only, into r->ids: /decode's. */
int serve_field_ids(serve_request *r, const char *name, size_t max, serve_error *e);

/* The number of items of a list of inputs `name`, 1..max. */
int serve_list_size(const cJSON *list, const char *name, size_t max, size_t *n, serve_error *e);
/* r->n = n, r->texts [n] and, with pairs, r->pairs [n] allocated. */
int serve_request_alloc_inputs(serve_request *r, size_t n, int pairs, serve_error *e);

#endif
