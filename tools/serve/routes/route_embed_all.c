/* route_embed_all.c — POST /embed_all, TEI's per-token vectors: refused.
 * tfenc.h gives a pipeline's pooled vectors only (tf_pipeline_embed): no
 * call returns the hidden states of a pipeline's forward, nor its encoder
 * handle, so this route answers TEI's error for a backend that cannot run
 * a request (424, "Backend") naming the route that can. */
#include "route.h"

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    (void)s, (void)route, (void)q, (void)out;
    return serve_error_set(e, 424, "",
                           "/embed_all: per-token vectors are not available from "
                           "this server (libtfenc's pipeline gives pooled vectors only); use "
                           "/embed");
}

const serve_route route_embed_all = {
    .path = "/embed_all",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND, /* no model runs it: not named among the embedding routes */
    .handle = handle,
    .summary = "Per-token vectors (TEI): not available, answers 424",
    .request_schema = "EmbedAllRequest",
    .response_schema = "EmbedAllResponse",
};
