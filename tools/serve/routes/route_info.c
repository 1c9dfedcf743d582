/* route_info.c — GET /info, TEI's Info (every field its schema requires,
 * and its nullable ones as null): the model's id, dtype and type (an
 * embedding's dim and similarity, or a head's id2label and label2id), and
 * the server's limits. tokenization_workers is 1: the compute thread
 * tokenizes each forward call's inputs (a request's thread counts them). */
#include <string.h>

#include "route_model.h"

/* What /info's model_type says an image-embedding model's pooling is (the
 * library names none: a tower pools as its architecture says). */
#define SERVE_IMAGE_POOLING "image"

/* TEI's model_type: {"embedding": {pooling}} (tf_pipeline_pooling, with
 * TEI's name "last_token" for sentence-transformers' "lasttoken"; an
 * image model's SERVE_IMAGE_POOLING), or a head's (an image classifier's
 * too) labels as
 * {"reranker"|"classifier": {"id2label": {...}, "label2id": {...}}}. */
static void write_model_type(const tf_pipeline *p, json_out *o)
{
    const char *head = "classifier";
    switch ((tf_pipeline_kind)tf_pipeline_kind_of(p)) {
    case TF_PIPELINE_EMBEDDING:
    case TF_PIPELINE_SPARSE:
    case TF_PIPELINE_FILL_MASK: /* TEI runs a *ForMaskedLM as SPLADE: /embed_sparse */
        json_out_str(o, "{\"embedding\":{\"pooling\":");
        const char *pooling = tf_pipeline_pooling(p);
        json_out_string(o, strcmp(pooling, "lasttoken") ? pooling : "last_token");
        json_out_str(o, "}}");
        return;
    case TF_PIPELINE_CROSS_ENCODER:
        head = "reranker";
        break;
    case TF_PIPELINE_CLASSIFIER:
    case TF_PIPELINE_IMAGE_CLASSIFIER:
        break;
    case TF_PIPELINE_IMAGE_EMBEDDING: /* a tower pools as its architecture says */
        json_out_str(o, "{\"embedding\":{\"pooling\":\"" SERVE_IMAGE_POOLING "\"}}");
        return;
    case TF_PIPELINE_TOKEN_CLASSIFIER: /* refused when the server starts */
    case TF_PIPELINE_MULTI_VECTOR:
        json_out_str(o, "null");
        return;
    }
    json_out_printf(o, "{\"%s\":{\"id2label\":{", head);
    for (int32_t i = 0; i < tf_pipeline_dim(p); i++) {
        json_out_printf(o, "%s\"%d\":", i ? "," : "", (int)i);
        routes_write_label(o, p, (size_t)i);
    }
    json_out_str(o, "},\"label2id\":{");
    for (int32_t i = 0; i < tf_pipeline_dim(p); i++) {
        json_out_str(o, i ? "," : "");
        routes_write_label(o, p, (size_t)i);
        json_out_printf(o, ":%d", (int)i);
    }
    json_out_str(o, "}}}");
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)route, (void)q, (void)e;
    json_out_str(&o, "{\"model_id\":");
    json_out_string(&o, s->model_id);
    json_out_str(&o, ",\"model_sha\":null,\"served_model_name\":");
    json_out_string(&o, s->model_id);
    json_out_str(&o, ",\"model_dtype\":\"float32\",\"model_type\":");
    write_model_type(s->p, &o);
    json_out_printf(&o,
                    ",\"max_concurrent_requests\":%zu,\"max_input_length\":%d,"
                    "\"max_batch_tokens\":%zu,\"max_batch_requests\":null,"
                    "\"max_client_batch_size\":%zu,\"auto_truncate\":%s,"
                    "\"tokenization_workers\":1,\"version\":\"%s\",\"sha\":null,"
                    "\"docker_label\":null}",
                    s->limits.max_concurrent, (int)tf_pipeline_max_seq_length(s->p),
                    s->limits.max_batch_tokens, s->limits.max_client_batch,
                    s->limits.auto_truncate ? "true" : "false", tf_version_string());
    serve_respond_json(out, 200, &o);
    return 0;
}

const serve_route route_info = {
    .path = "/info",
    .method = "GET",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .handle = handle,
    .summary = "The model and the server's limits (TEI)",
    .response_schema = "Info",
};
