/* route_decode.c — POST /decode, TEI's DecodeRequest: "ids" a list of token
 * ids or a list of such lists, "skip_special_tokens" (default true); each
 * list's text through the model's tokenizer's decoder (tf_tokenizer_decode). */
#include <stdlib.h>

#include "route_model.h"

static int parse(serve_request *r, size_t max, serve_error *e)
{
    return serve_field_ids(r, "ids", max, e) ||
            serve_field_bool(r, "skip_special_tokens", &r->skip_special_tokens, e)
        ? -1
        : 0;
}

/* The text of q's list i as a JSON string. */
static int write_text(const serve_server *s, const serve_request *q, size_t i, json_out *o,
                      serve_error *e)
{
    const tf_tokenizer *tok = tf_pipeline_tokenizer(s->p);
    size_t len = 0;
    if (tf_tokenizer_decode(tok, q->ids[i], q->id_counts[i], q->skip_special_tokens, NULL, 0,
                            &len) != TF_OK)
        return serve_error_set(e, 400, "ids", "ids[%zu]: %s", i, tf_last_error());
    char *text = malloc(len + 1); /* [len] and the NUL */
    if (!text)
        return serve_error_set(e, 500, "", "out of memory for a text of %zu bytes", len);
    const tf_status st = tf_tokenizer_decode(tok, q->ids[i], q->id_counts[i],
                                             q->skip_special_tokens, text, len + 1, &len);
    if (st == TF_OK)
        json_out_string_n(o, text, len);
    free(text);
    return st == TF_OK ? 0 : serve_error_set(e, 400, "ids", "ids[%zu]: %s", i, tf_last_error());
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    if (routes_need_tokenizer(s, route, e))
        return -1;
    json_out o = {0};
    json_out_str(&o, "[");
    for (size_t i = 0; i < q->n; i++) {
        json_out_str(&o, i ? "," : "");
        if (write_text(s, q, i, &o, e)) {
            json_out_free(&o);
            return -1;
        }
        out->tokens += q->id_counts[i];
    }
    json_out_str(&o, "]");
    serve_respond_json(out, 200, &o);
    return 0;
}

const serve_route route_decode = {
    .path = "/decode",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .parse = parse,
    .handle = handle,
    .summary = "Texts of token ids (TEI)",
    .request_schema = "DecodeRequest",
    .response_schema = "DecodeResponse",
};
