/* route_openapi.c — GET /api-doc/openapi.json, where TEI serves its
 * OpenAPI document: this server's (openapi.h). */
#include "openapi.h"
#include "route.h"

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)s, (void)route, (void)q, (void)e;
    openapi_write(&o);
    serve_respond_json(out, 200, &o);
    return 0;
}

const serve_route route_openapi = {
    .path = "/api-doc/openapi.json",
    .method = "GET",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .no_key = 1,
    .handle = handle,
    .summary = "This document",
};
