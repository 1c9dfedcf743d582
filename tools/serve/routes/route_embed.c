/* route_embed.c — POST /embed, TEI's EmbedRequest: "inputs" a string, token
 * ids, or a list of them; "normalize" (TEI's default true: unit vectors;
 * false skips the folder's Normalize too), "truncate",
 * "truncation_direction", "prompt_name", "dimensions" and
 * "dimensions_layer_norm"; the vectors as a list of lists. This server's
 * "precision" (serve_precision.h) answers integers instead; its "modality"
 * (infinity's) and an image model take images as data URIs (image_inputs.h). */
#include "route_model.h"
#include "serve_precision.h"

static int parse(serve_request *r, size_t max, serve_error *e)
{
    r->normalize = 1; /* TEI's default_normalize */
    return serve_field_texts_or_ids(r, "inputs", max, e) ||
            serve_field_bool(r, "normalize", &r->normalize, e) ||
            serve_field_bool(r, "truncate", &r->truncate, e) || serve_field_direction(r, NULL, e) ||
            serve_field_string(r, "prompt_name", &r->prompt_name, e) ||
            serve_field_positive(r, "dimensions", &r->dimensions, e) ||
            serve_field_bool(r, "dimensions_layer_norm", &r->dimensions_layer_norm, e) ||
            serve_field_precision(r, e) || serve_field_modality(r, e)
        ? -1
        : 0;
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    routes_inputs in;
    size_t width;
    serve_rows rows = {0};
    int rc = routes_embed(s, route, q, "inputs", &in, &width, out, e);
    if (rc == 0)
        rc = serve_quantize(q, in.out, width, &rows, e);
    if (rc == 0) {
        json_out o = {0};
        json_out_str(&o, "[");
        for (size_t i = 0; i < q->n; i++) {
            json_out_str(&o, i ? "," : "");
            serve_write_row(&o, &rows, i, 0);
        }
        json_out_str(&o, "]");
        out->tokens = in.total;
        serve_respond_json(out, 200, &o);
    }
    serve_rows_free(&rows);
    routes_inputs_free(&in);
    return rc;
}

const serve_route route_embed = {
    .path = "/embed",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_KIND(TF_PIPELINE_EMBEDDING),
    .image_kind = SERVE_KIND(TF_PIPELINE_IMAGE_EMBEDDING),
    .parse = parse,
    .handle = handle,
    .summary = "Embeddings (TEI)",
    .request_schema = "EmbedRequest",
    .response_schema = "EmbedResponse",
};
