/* metrics.c — counters and histograms behind GET /metrics. */
#include "metrics.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* The statuses the server answers with, a column each, and "other" (0). */
static const int statuses[] = {200, 400, 401, 404, 405, 413, 422, 424, 429, 500, 503, 0};
_Static_assert(COUNT(statuses) == SERVE_METRIC_STATUSES, "a status for each column");

/* Each connection event's counter and its reason label. */
static const struct {
    const char *counter, *reason;
} connection_events[] = {
    [SERVE_CONNECTION_REFUSED_SERVER_FULL] = {"refused", "max_connections"},
    [SERVE_CONNECTION_REFUSED_CLIENT_FULL] = {"refused", "max_client_connections"},
    [SERVE_CONNECTION_KEEP_ALIVE_TIMEOUT] = {"timed_out", "keep_alive"},
    [SERVE_CONNECTION_REQUEST_TIMEOUT] = {"timed_out", "request"},
};
_Static_assert(COUNT(connection_events) == SERVE_CONNECTION_EVENT_COUNT,
               "a name for each serve_connection_event");

static const double token_bounds[] = {16, 64, 256, 1024, 4096, 16384, 65536};
static const double input_bounds[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
static const double length_bounds[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 8192};
static const double second_bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                       0.1,   0.25,   0.5,   1,    2.5};
_Static_assert(COUNT(token_bounds) < SERVE_HISTOGRAM_BUCKETS, "buckets");
_Static_assert(COUNT(input_bounds) < SERVE_HISTOGRAM_BUCKETS, "buckets");
_Static_assert(COUNT(length_bounds) < SERVE_HISTOGRAM_BUCKETS, "buckets");
_Static_assert(COUNT(second_bounds) < SERVE_HISTOGRAM_BUCKETS, "buckets");

static serve_histogram histogram(const double *bounds, size_t n)
{
    return (serve_histogram){.bounds = bounds, .n_bounds = n};
}

void serve_metrics_init(serve_metrics *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    for (size_t r = 0; r < serve_routes_count; r++)
        m->requests[r].route = serve_routes[r];
    m->n_requests = serve_routes_count + 1; /* the last row's route NULL: the unmatched */
    m->batch_tokens = histogram(token_bounds, COUNT(token_bounds));
    m->batch_inputs = histogram(input_bounds, COUNT(input_bounds));
    m->input_tokens = histogram(length_bounds, COUNT(length_bounds));
    m->request_seconds = histogram(second_bounds, COUNT(second_bounds));
    m->queue_seconds = histogram(second_bounds, COUNT(second_bounds));
    m->compute_seconds = histogram(second_bounds, COUNT(second_bounds));
}

void serve_metrics_destroy(serve_metrics *m)
{
    pthread_mutex_destroy(&m->lock);
}

static void observe(serve_histogram *h, double v)
{
    size_t i = 0;
    while (i < h->n_bounds && v > h->bounds[i])
        i++;
    h->counts[i]++;
    h->sum += v;
    h->total++;
}

static size_t status_column(int status)
{
    size_t i = 0;
    while (i + 1 < SERVE_METRIC_STATUSES && statuses[i] != status)
        i++;
    return i;
}

/* The row of route's requests (the last, the unmatched, for NULL). */
static serve_route_requests *requests_of(serve_metrics *m, const serve_route *route)
{
    size_t r = 0;
    while (r + 1 < m->n_requests && m->requests[r].route != route)
        r++;
    return &m->requests[r];
}

void serve_metrics_request(serve_metrics *m, const serve_route *route, int status, double seconds,
                           double queue_seconds, double compute_seconds)
{
    pthread_mutex_lock(&m->lock);
    requests_of(m, route)->by_status[status_column(status)]++;
    observe(&m->request_seconds, seconds);
    if (queue_seconds >= 0) {
        observe(&m->queue_seconds, queue_seconds);
        observe(&m->compute_seconds, compute_seconds);
    }
    pthread_mutex_unlock(&m->lock);
}

void serve_metrics_connection(serve_metrics *m, serve_connection_event event)
{
    pthread_mutex_lock(&m->lock);
    m->connections[event]++;
    pthread_mutex_unlock(&m->lock);
}

void serve_metrics_batch(void *user, size_t inputs, size_t tokens, double seconds)
{
    serve_metrics *m = user;
    (void)seconds; /* each request's compute seconds are counted with it */
    pthread_mutex_lock(&m->lock);
    observe(&m->batch_tokens, (double)tokens);
    observe(&m->batch_inputs, (double)inputs);
    pthread_mutex_unlock(&m->lock);
}

void serve_metrics_inputs(serve_metrics *m, const int32_t *tokens, size_t n)
{
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < n; i++)
        observe(&m->input_tokens, (double)tokens[i]);
    pthread_mutex_unlock(&m->lock);
}

static void write_histogram(json_out *o, const char *name, const char *help,
                            const serve_histogram *h)
{
    json_out_printf(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    unsigned long long cumulative = 0;
    for (size_t i = 0; i <= h->n_bounds; i++) {
        cumulative += h->counts[i];
        if (i < h->n_bounds)
            json_out_printf(o, "%s_bucket{le=\"%g\"} %llu\n", name, h->bounds[i], cumulative);
        else
            json_out_printf(o, "%s_bucket{le=\"+Inf\"} %llu\n", name, cumulative);
    }
    json_out_printf(o, "%s_sum %.9g\n%s_count %llu\n", name, h->sum, name, h->total);
}

/* The connections open, and those refused and closed by reason (every
 * reason, 0 too). */
static void write_connections(const serve_metrics *m, json_out *o, size_t open)
{
    json_out_printf(o,
                    "# HELP tfenc_connections_open Connections open, refused ones aside.\n"
                    "# TYPE tfenc_connections_open gauge\ntfenc_connections_open %zu\n",
                    open);
    static const struct {
        const char *counter, *help;
    } counters[] = {
        {"refused",
         "Connections answered at once and closed: over --max-connections (503) "
         "or --max-client-connections (429)."},
        {"timed_out",
         "Connections closed without an answer: no request line within "
         "--keep-alive-timeout, or a request not whole within --request-timeout."},
    };
    for (size_t c = 0; c < COUNT(counters); c++) {
        json_out_printf(o,
                        "# HELP tfenc_connections_%s_total %s\n"
                        "# TYPE tfenc_connections_%s_total counter\n",
                        counters[c].counter, counters[c].help, counters[c].counter);
        for (size_t i = 0; i < SERVE_CONNECTION_EVENT_COUNT; i++)
            if (strcmp(connection_events[i].counter, counters[c].counter) == 0)
                json_out_printf(o, "tfenc_connections_%s_total{reason=\"%s\"} %llu\n",
                                connection_events[i].counter, connection_events[i].reason,
                                m->connections[i]);
    }
}

/* Whether route runs the model (TEI counts those requests only). */
static int runs_model(const serve_route *route)
{
    return route && (route->kind != SERVE_NO_KIND || route->runs);
}

/* TEI's te_request_failure err label of a refusal's status. */
static const char *tei_failure(int status)
{
    switch (status) {
    case 429:
        return "overloaded";
    case 424:
    case 500:
        return "backend";
    case 503:
        return "unhealthy";
    default:
        return "validation";
    }
}

/* text-embeddings-inference's metrics (router/src/http/server.rs,
 * prometheus.rs), by its names: te_request_count, te_request_success and
 * te_request_failure{err} over the routes that run the model, and te_queue_size,
 * te_request_input_length, te_batch_next_size, te_batch_next_tokens,
 * te_request_duration, te_request_queue_duration, te_request_inference_duration
 * (seconds; te_request_duration over every route). */
static void write_tei(const serve_metrics *m, json_out *o, size_t queue_depth)
{
    unsigned long long count = 0, by_status[SERVE_METRIC_STATUSES] = {0};
    for (size_t r = 0; r < m->n_requests; r++)
        for (size_t s = 0; runs_model(m->requests[r].route) && s < SERVE_METRIC_STATUSES; s++) {
            count += m->requests[r].by_status[s];
            by_status[s] += m->requests[r].by_status[s];
        }
    json_out_printf(o,
                    "# TYPE te_request_count counter\nte_request_count %llu\n"
                    "# TYPE te_request_success counter\nte_request_success %llu\n"
                    "# TYPE te_request_failure counter\n",
                    count, by_status[0]);
    const char *errs[] = {"validation", "overloaded", "backend", "unhealthy"};
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
        unsigned long long n = 0;
        for (size_t s = 1; s < SERVE_METRIC_STATUSES; s++)
            n += strcmp(tei_failure(statuses[s]), errs[k]) == 0 ? by_status[s] : 0;
        json_out_printf(o, "te_request_failure{err=\"%s\"} %llu\n", errs[k], n);
    }
    json_out_printf(o, "# TYPE te_queue_size gauge\nte_queue_size %zu\n", queue_depth);
    write_histogram(o, "te_request_input_length", "Tokens of each input run.", &m->input_tokens);
    write_histogram(o, "te_batch_next_size", "Inputs of each forward call.", &m->batch_inputs);
    write_histogram(o, "te_batch_next_tokens", "Real tokens of each forward call.",
                    &m->batch_tokens);
    write_histogram(o, "te_request_duration",
                    "Seconds from a request's body to its "
                    "response.",
                    &m->request_seconds);
    write_histogram(o, "te_request_queue_duration",
                    "Seconds a request waited for its first "
                    "forward call.",
                    &m->queue_seconds);
    write_histogram(o, "te_request_inference_duration",
                    "Seconds from a request's first "
                    "forward call to its last result.",
                    &m->compute_seconds);
}

void serve_metrics_write(serve_metrics *m, json_out *o, size_t queue_depth, size_t open_connections)
{
    pthread_mutex_lock(&m->lock);
    json_out_str(o,
                 "# HELP tfenc_requests_total Requests answered, by route and status.\n"
                 "# TYPE tfenc_requests_total counter\n");
    for (size_t r = 0; r < m->n_requests; r++) {
        const serve_route_requests *row = &m->requests[r];
        for (size_t s = 0; s < SERVE_METRIC_STATUSES; s++)
            if (row->by_status[s]) {
                char status[16] = "other";
                if (statuses[s])
                    snprintf(status, sizeof status, "%d", statuses[s]);
                json_out_printf(o, "tfenc_requests_total{route=\"%s\",status=\"%s\"} %llu\n",
                                row->route ? row->route->path : "unmatched", status,
                                row->by_status[s]);
            }
    }
    write_connections(m, o, open_connections);
    write_tei(m, o, queue_depth);
    pthread_mutex_unlock(&m->lock);
}
