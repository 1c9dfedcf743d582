/* route_embed_all.c — POST /embed_all, TEI's EmbedAllRequest: "inputs" a
 * string, token ids, or a list of them; "prompt_name", "truncate",
 * "truncation_direction"; every token's vector of each input as a list of
 * lists of lists (TEI's EmbedAllResponse): an embedding model's last hidden
 * state ([CLS] and [SEP] included), a multi-vector (ColBERT) model's
 * vectors as PyLate's encode gives them, documents unless this server's
 * "is_query": true asks for queries (tf_pipeline_embed_tokens). This
 * server's "precision" (serve_precision.h) answers integers instead: the
 * rows of all the request's inputs quantized together. The call runs on
 * the request's thread, outside the batcher: its results differ in size
 * between inputs. */
#include <stdlib.h>
#include <string.h>

#include "route_model.h"
#include "serve_precision.h"
#include "token_inputs.h"

static int parse(serve_request *r, size_t max, serve_error *e)
{
    return serve_field_texts_or_ids(r, "inputs", max, e) ||
            serve_field_bool(r, "truncate", &r->truncate, e) || serve_field_direction(r, NULL, e) ||
            serve_field_string(r, "prompt_name", &r->prompt_name, e) || serve_field_precision(r, e)
        ? -1
        : 0;
}

/* TEI's 424 for a model of another kind: either kind runs this route. */
static int need_kind(serve_server *s, serve_error *e)
{
    const int32_t kind = tf_pipeline_kind_of(s->p);
    if (kind == TF_PIPELINE_EMBEDDING || kind == TF_PIPELINE_MULTI_VECTOR)
        return 0;
    return serve_error_set(e, 424, "",
                           "/embed_all needs an embedding or multi-vector model; this "
                           "server's model is %s",
                           tf_pipeline_kind_name(kind));
}

/* Every input's rows of v, one after another: *all [total, dim] (owned)
 * and *total; 0, or -1 with *e. */
static int gather_rows(const tf_token_vectors *v, float **all, size_t *total, serve_error *e)
{
    const size_t dim = (size_t)tf_token_vectors_dim(v);
    *total = 0;
    for (size_t i = 0; i < tf_token_vectors_count(v); i++)
        *total += (size_t)tf_token_vectors_rows(v, i);
    if (!(*all = malloc(*total * dim * sizeof **all + 1)))
        return serve_error_set(e, 500, "", "out of memory");
    for (size_t i = 0, at = 0; i < tf_token_vectors_count(v); i++) {
        const size_t values = (size_t)tf_token_vectors_rows(v, i) * dim;
        memcpy(*all + at, tf_token_vectors_data(v, i), values * sizeof **all);
        at += values;
    }
    return 0;
}

/* [[[value, ...] a token] an input]: rows, v's inputs' rows one after another */
static void write_vectors(const tf_token_vectors *v, const serve_rows *rows, json_out *o)
{
    json_out_str(o, "[");
    for (size_t i = 0, first = 0; i < tf_token_vectors_count(v); i++) {
        json_out_str(o, i ? ",[" : "[");
        const size_t n = (size_t)tf_token_vectors_rows(v, i);
        for (size_t r = first; r < first + n; r++) {
            json_out_str(o, r > first ? "," : "");
            serve_write_row(o, rows, r, 0);
        }
        first += n;
        json_out_str(o, "]");
    }
    json_out_str(o, "]");
}

/* v in q's precision as the response; 0, or -1 with *e. */
static int respond(const serve_request *q, const routes_inputs *in, const tf_token_vectors *v,
                   serve_response *out, serve_error *e)
{
    float *all = NULL; /* [total, dim]: every input's rows */
    size_t total;
    serve_rows rows = {0};
    int rc = gather_rows(v, &all, &total, e);
    if (rc == 0)
        rc = serve_quantize_rows(q, all, total, (size_t)tf_token_vectors_dim(v), &rows, e);
    if (rc == 0) {
        json_out o = {0};
        write_vectors(v, &rows, &o);
        out->tokens = in->total;
        serve_respond_json(out, 200, &o);
    }
    serve_rows_free(&rows);
    free(all);
    return rc;
}

/* The vectors of q's inputs as counted (in), queries when is_query. An
 * input the library cuts (a query longer than the model's query length)
 * is refused, as one over the limit is, unless the request lets it be cut. */
static int run(serve_server *s, const serve_request *q, const routes_inputs *in, int32_t is_query,
               serve_response *out, serve_error *e)
{
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = q->n, a.texts = in->texts, a.prompt_name = q->prompt_name;
    a.is_query = is_query, a.truncated = &truncated;
    tf_token_vectors *v = NULL;
    if (tf_pipeline_embed_tokens(s->p, &a, &v) != TF_OK)
        return serve_error_set(e, 400, "inputs", "inputs: %s", tf_last_error());
    const int cut = q->truncate >= 0 ? q->truncate : s->limits.auto_truncate;
    int rc = 0;
    if (truncated && !cut)
        rc = serve_error_set(e, 400, "inputs",
                             "inputs: %zu have more tokens than the model's %s length; send "
                             "\"truncate\": true, or start the server with --auto-truncate",
                             truncated, is_query ? "query" : "document");
    if (rc == 0)
        rc = respond(q, in, v, out, e);
    tf_token_vectors_destroy(v);
    return rc;
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    (void)route;
    int32_t is_query = 0;
    if (need_kind(s, e) || serve_field_bool(q, "is_query", &is_query, e))
        return -1;
    char **id_texts = NULL; /* [n] token-id inputs as their texts, run without a prompt */
    serve_request counted = *q;
    if (q->ids && token_inputs_texts(s->p, q, "inputs", &id_texts, e)) {
        token_inputs_free(id_texts, q->n);
        return -1;
    }
    if (q->ids)
        counted.texts = (const char **)id_texts, counted.prompt_name = "";
    routes_inputs in;
    int rc = routes_count_inputs(s, &counted, "inputs", 1, &in, e);
    if (rc == 0)
        rc = run(s, &counted, &in, is_query, out, e);
    routes_inputs_free(&in);
    token_inputs_free(id_texts, q->n);
    return rc;
}

const serve_route route_embed_all = {
    .path = "/embed_all",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    /* a multi-vector model's route (its kind: tfenc serve serves such a
       folder); an embedding model's too (need_kind) */
    .kind = SERVE_KIND(TF_PIPELINE_MULTI_VECTOR),
    .parse = parse,
    .handle = handle,
    .summary = "Every token's vector (TEI): an embedding model's last hidden state, a "
               "multi-vector model's ColBERT vectors",
    .request_schema = "EmbedAllRequest",
    .response_schema = "EmbedAllResponse",
};
