/* route_embed_sparse.c — POST /embed_sparse, TEI's EmbedSparseRequest:
 * "inputs" a string or a list of them, "truncate", "truncation_direction"
 * and "prompt_name"; each input's non-zero values as TEI's SparseValue
 * list, [{"index": i, "value": v}, ...] in ascending index order
 * (tf_pipeline_embed_sparse on a SparseEncoder folder: documents, or with
 * this server's "is_query": true a Router's query route, as /embed_all
 * takes it). The call runs on the request's thread:
 * its results differ in size between inputs, which the batcher's [n, width]
 * jobs do not hold. */
#include <stdlib.h>

#include "route_model.h"

static int parse(serve_request *r, size_t max, serve_error *e)
{
    return serve_field_texts(r, "inputs", max, e) ||
            serve_field_bool(r, "truncate", &r->truncate, e) || serve_field_direction(r, NULL, e) ||
            serve_field_string(r, "prompt_name", &r->prompt_name, e)
        ? -1
        : 0;
}

/* Input i of v as TEI's list of SparseValue. */
static void write_vector(json_out *o, const tf_sparse_vectors *v, size_t i)
{
    const int32_t nnz = tf_sparse_vectors_nnz(v, i);
    const int32_t *index = tf_sparse_vectors_indices(v, i);
    const float *value = tf_sparse_vectors_values(v, i);
    json_out_str(o, "[");
    for (int32_t j = 0; j < nnz; j++) {
        json_out_printf(o, "%s{\"index\":%d,\"value\":", j ? "," : "", (int)index[j]);
        json_out_float(o, value[j]);
        json_out_str(o, "}");
    }
    json_out_str(o, "]");
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    const int32_t kind = tf_pipeline_kind_of(s->p);
    if (kind != TF_PIPELINE_FILL_MASK && routes_need_kind(s, route, e))
        return -1;
    int32_t is_query = 0;
    if (serve_field_bool(q, "is_query", &is_query, e))
        return -1;
    routes_inputs in;
    int rc = routes_count_inputs(s, q, "inputs", 1, &in, e);
    tf_sparse_vectors *v = NULL;
    if (rc == 0) {
        tf_pipeline_args a;
        tf_pipeline_args_init(&a);
        a.n = q->n, a.texts = in.texts, a.prompt_name = q->prompt_name, a.is_query = is_query;
        const tf_status st = tf_pipeline_embed_sparse(s->p, &a, &v);
        if (st)
            rc = serve_error_set(e, 500, "", "%s: %s", tf_status_name(st), tf_last_error());
    }
    if (rc == 0) {
        json_out o = {0};
        json_out_str(&o, "[");
        for (size_t i = 0; i < q->n; i++) {
            json_out_str(&o, i ? "," : "");
            write_vector(&o, v, i);
        }
        json_out_str(&o, "]");
        out->tokens = in.total;
        serve_respond_json(out, 200, &o);
    }
    tf_sparse_vectors_destroy(v);
    routes_inputs_free(&in);
    return rc;
}

const serve_route route_embed_sparse = {
    .path = "/embed_sparse",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_KIND(TF_PIPELINE_SPARSE),
    .parse = parse,
    .handle = handle,
    .summary = "SPLADE sparse embeddings (TEI)",
    .request_schema = "EmbedSparseRequest",
    .response_schema = "EmbedSparseResponse",
};
