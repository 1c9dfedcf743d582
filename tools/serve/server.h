/* server.h — what every part of `tfenc serve` shares: the model, the
 * batcher, the metrics and the limits from the command line. */
#ifndef SERVE_SERVER_H
#define SERVE_SERVER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "batcher.h"
#include "connections.h"
#include "metrics.h"
#include "tfenc.h"

typedef struct serve_limits {
    size_t max_batch_tokens;   /* --max-batch-tokens */
    size_t max_client_batch;   /* --max-client-batch: inputs a request */
    size_t max_concurrent;     /* --max-concurrent: requests admitted at once */
    size_t payload_limit;      /* --payload-limit: body bytes */
    int auto_truncate;         /* --auto-truncate: cut long inputs unless asked not to */
    int dimensions_layer_norm; /* --dimensions-layer-norm: nomic's Matryoshka recipe unless
                                  a request says "dimensions_layer_norm": false */
    const char *api_key;       /* --api-key, or NULL */
    serve_connection_limits connections; /* --max-connections, --max-client-connections,
                                            --request-timeout, --keep-alive-timeout */
} serve_limits;

typedef struct serve_server {
    const tf_pipeline *p;
    const char *model_id; /* what /info and /v1/embeddings call the model */
    time_t started_at;    /* /v1/models' "created" */
    serve_limits limits;
    const struct serve_calibration *calibration; /* --calibration, or NULL (serve_precision.h) */
    serve_batcher *batcher;
    serve_connections *connections; /* http.c's, while it serves */
    serve_metrics metrics;
    atomic_int stopping; /* SIGTERM or SIGINT came: new requests get 503 */
    atomic_long active;  /* requests between their headers and their end */
} serve_server;

#endif
