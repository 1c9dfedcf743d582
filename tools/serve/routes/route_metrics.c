/* route_metrics.c — GET /metrics: the counters and histograms of
 * metrics.h in Prometheus's text format. */
#include "route.h"
#include "server.h"

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)route, (void)q, (void)e;
    serve_metrics_write(&s->metrics, &o, serve_batcher_depth(s->batcher),
                        serve_connections_open(s->connections));
    serve_respond_json(out, 200, &o);
    out->content_type = "text/plain; version=0.0.4";
    return 0;
}

const serve_route route_metrics = {
    .path = "/metrics",
    .method = "GET",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .handle = handle,
    .summary = "Prometheus metrics",
};
