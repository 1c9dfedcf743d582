/* metrics.h — what GET /metrics reports, in Prometheus's text format:
 * requests by route and status and the connections the server refused or
 * closed itself (connections.h), tfenc_*; and under text-embeddings-
 * inference's names (te_*) the requests that ran the model, the queue's
 * depth, histograms of each input's and each forward call's tokens and
 * inputs, and of request, queue and compute seconds. */
#ifndef SERVE_METRICS_H
#define SERVE_METRICS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "json_out.h"
#include "route_table.h"

/* A histogram with fixed upper bounds (the last bucket is +Inf). */
#define SERVE_HISTOGRAM_BUCKETS 12
typedef struct serve_histogram {
    const double *bounds;                               /* [n_bounds] ascending */
    size_t n_bounds;                                    /* < SERVE_HISTOGRAM_BUCKETS */
    unsigned long long counts[SERVE_HISTOGRAM_BUCKETS]; /* [n_bounds + 1], not cumulative */
    double sum;
    unsigned long long total;
} serve_histogram;

/* Requests are counted by route and status (metrics.c's table; its last
 * column, "other", for the rest). */
#define SERVE_METRIC_STATUSES 12

/* A route's requests by status; route NULL: those of a path no route has. */
typedef struct serve_route_requests {
    const serve_route *route;
    unsigned long long by_status[SERVE_METRIC_STATUSES];
} serve_route_requests;

/* A connection the server refused or closed by itself. */
typedef enum serve_connection_event {
    SERVE_CONNECTION_REFUSED_SERVER_FULL, /* 503: --max-connections */
    SERVE_CONNECTION_REFUSED_CLIENT_FULL, /* 429: --max-client-connections */
    SERVE_CONNECTION_KEEP_ALIVE_TIMEOUT,  /* no request line in --keep-alive-timeout */
    SERVE_CONNECTION_REQUEST_TIMEOUT,     /* a request not whole in --request-timeout */
    SERVE_CONNECTION_EVENT_COUNT
} serve_connection_event;

typedef struct serve_metrics {
    pthread_mutex_t lock;
    serve_route_requests requests[SERVE_MAX_ROUTES + 1]; /* [n_requests]: a row for each
                                                            route of serve_routes, in its
                                                            order, then the unmatched */
    size_t n_requests;
    unsigned long long connections[SERVE_CONNECTION_EVENT_COUNT];
    serve_histogram batch_tokens, batch_inputs, input_tokens, request_seconds, queue_seconds,
        compute_seconds;
} serve_metrics;

void serve_metrics_init(serve_metrics *m);
void serve_metrics_destroy(serve_metrics *m);
/* A finished request: its route (NULL: none has its path), status,
 * seconds in all, and, for one that ran, its queue and compute seconds
 * (negative: it did not run). */
void serve_metrics_request(serve_metrics *m, const serve_route *route, int status, double seconds,
                           double queue_seconds, double compute_seconds);
/* The tokens of each of n inputs a request ran (tokens [n]). */
void serve_metrics_inputs(serve_metrics *m, const int32_t *tokens, size_t n);
/* A connection refused or closed by the server. */
void serve_metrics_connection(serve_metrics *m, serve_connection_event event);
/* A forward call (serve_batch_fn). */
void serve_metrics_batch(void *m, size_t inputs, size_t tokens, double seconds);
/* The text; queue_depth is the batcher's, open_connections those open and
 * not refused (connections.h). */
void serve_metrics_write(serve_metrics *m, json_out *o, size_t queue_depth,
                         size_t open_connections);

#endif
