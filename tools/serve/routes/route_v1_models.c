/* route_v1_models.c — GET /v1/models, OpenAI's list of models (the openai
 * client's models.list()): the one model this server runs. */
#include "route.h"
#include "server.h"

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)route, (void)q, (void)e;
    json_out_str(&o, "{\"object\":\"list\",\"data\":[{\"id\":");
    json_out_string(&o, s->model_id);
    json_out_printf(&o, ",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"tfenc\"}]}",
                    (long long)s->started_at);
    serve_respond_json(out, 200, &o);
    return 0;
}

const serve_route route_v1_models = {
    .path = "/v1/models",
    .method = "GET",
    .errors = SERVE_ERRORS_OPENAI,
    .kind = SERVE_NO_KIND,
    .handle = handle,
    .summary = "The model this server runs (OpenAI)",
    .response_schema = "ListModelsResponse",
};
