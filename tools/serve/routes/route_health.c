/* route_health.c — GET /health: {"status": "ok"} while the server runs,
 * without the API key (a load balancer's probe has none). */
#include "route.h"

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)s, (void)route, (void)q, (void)e;
    json_out_str(&o, "{\"status\":\"ok\"}");
    serve_respond_json(out, 200, &o);
    return 0;
}

const serve_route route_health = {
    .path = "/health",
    .method = "GET",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .no_key = 1,
    .handle = handle,
    .summary = "Whether the server runs",
};
