/* route_v1_embeddings.c — POST /v1/embeddings, OpenAI's embeddings API
 * (CreateEmbeddingRequest): "input" a string, a list of them, or token ids
 * (a list, or a list of lists); "encoding_format" "float" or "base64";
 * "dimensions"; "model" and "user" taken as given. This server's
 * "precision" (serve_precision.h) answers integers instead of floats, or
 * with "base64" the base64 of each row's bytes. "modality" (infinity's
 * "text" or "image") and an image model take images as data URIs
 * (image_inputs.h). */
#include <string.h>

#include "route_model.h"
#include "serve_precision.h"
#include "utf8.h"

static int parse(serve_request *r, size_t max, serve_error *e)
{
    const char *format = NULL, *user = NULL;
    if (serve_field_texts_or_ids(r, "input", max, e) ||
        serve_field_string(r, "model", &r->model, e) ||
        serve_field_string(r, "encoding_format", &format, e) ||
        serve_field_string(r, "user", &user, e) ||
        serve_field_positive(r, "dimensions", &r->dimensions, e) ||
        serve_field_bool(r, "dimensions_layer_norm", &r->dimensions_layer_norm, e) ||
        serve_field_precision(r, e) || serve_field_modality(r, e))
        return -1;
    if (format && strcmp(format, "float") != 0 && strcmp(format, "base64") != 0)
        return serve_error_set(e, 400, "encoding_format",
                               "encoding_format: expected \"float\" "
                               "or \"base64\", got \"%.*s\"",
                               tf__utf8_prefix(format, SERVE_QUOTE_BYTES), format);
    r->base64 = format && strcmp(format, "base64") == 0;
    return 0;
}

/* {"object": "list", "data": [{"object": "embedding", "index", "embedding"}],
 * "model", "usage"}. */
static void write_list(const serve_server *s, const serve_request *q, const routes_inputs *in,
                       const serve_rows *rows, json_out *o)
{
    json_out_str(o, "{\"object\":\"list\",\"data\":[");
    for (size_t i = 0; i < q->n; i++) {
        json_out_printf(o, "%s{\"object\":\"embedding\",\"index\":%zu,\"embedding\":", i ? "," : "",
                        i);
        serve_write_row(o, rows, i, q->base64);
        json_out_str(o, "}");
    }
    json_out_str(o, "],\"model\":");
    json_out_string(o, q->model ? q->model : s->model_id);
    json_out_printf(o, ",\"usage\":{\"prompt_tokens\":%zu,\"total_tokens\":%zu}}", in->total,
                    in->total);
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    routes_inputs in;
    size_t width;
    serve_rows rows = {0};
    int rc = routes_embed(s, route, q, "input", &in, &width, out, e);
    if (rc == 0)
        rc = serve_quantize(q, in.out, width, &rows, e);
    if (rc == 0) {
        json_out o = {0};
        write_list(s, q, &in, &rows, &o);
        out->tokens = in.total;
        serve_respond_json(out, 200, &o);
    }
    serve_rows_free(&rows);
    routes_inputs_free(&in);
    return rc;
}

const serve_route route_v1_embeddings = {
    .path = "/v1/embeddings",
    .method = "POST",
    .errors = SERVE_ERRORS_OPENAI,
    .kind = SERVE_KIND(TF_PIPELINE_EMBEDDING),
    .image_kind = SERVE_KIND(TF_PIPELINE_IMAGE_EMBEDDING),
    .parse = parse,
    .handle = handle,
    .max_inputs = SERVE_OPENAI_MAX_INPUTS,
    .summary = "Embeddings (OpenAI)",
    .request_schema = "OpenAICompatRequest",
    .response_schema = "OpenAICompatResponse",
};
