/* metrics.h — what GET /metrics reports, in Prometheus's text format:
 * requests by route and status, the queue's depth, and histograms of each
 * forward call's tokens and of request, queue and compute seconds. */
#ifndef SERVE_METRICS_H
#define SERVE_METRICS_H

#include <pthread.h>
#include <stddef.h>

#include "json_out.h"

/* A histogram with fixed upper bounds (the last bucket is +Inf). */
#define SERVE_HISTOGRAM_BUCKETS 12
typedef struct serve_histogram {
    const double *bounds;                          /* [n_bounds] ascending */
    size_t n_bounds;                               /* < SERVE_HISTOGRAM_BUCKETS */
    unsigned long long counts[SERVE_HISTOGRAM_BUCKETS]; /* [n_bounds + 1], not cumulative */
    double sum;
    unsigned long long total;
} serve_histogram;

/* Requests are counted by route (routes.h's index; SERVE_METRIC_ROUTES
 * rows) and status (metrics.c's table; one more row, "other", for the rest). */
#define SERVE_METRIC_ROUTES 10
#define SERVE_METRIC_STATUSES 10

typedef struct serve_metrics {
    pthread_mutex_t lock;
    unsigned long long requests[SERVE_METRIC_ROUTES][SERVE_METRIC_STATUSES];
    serve_histogram batch_tokens, batch_inputs, request_seconds, queue_seconds,
        compute_seconds;
} serve_metrics;

void serve_metrics_init(serve_metrics *m);
void serve_metrics_destroy(serve_metrics *m);
/* A finished request: its route (index < SERVE_METRIC_ROUTES), status,
 * seconds in all, and, for one that ran, its queue and compute seconds
 * (negative: it did not run). */
void serve_metrics_request(serve_metrics *m, size_t route, int status, double seconds,
                           double queue_seconds, double compute_seconds);
/* A forward call (serve_batch_fn). */
void serve_metrics_batch(void *m, size_t inputs, size_t tokens, double seconds);
/* The text; route_paths[r] names route r, queue_depth is the batcher's. */
void serve_metrics_write(serve_metrics *m, json_out *o, const char *const *route_paths,
                         size_t n_routes, size_t queue_depth);

#endif
