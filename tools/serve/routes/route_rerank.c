/* route_rerank.c — POST /rerank, TEI's RerankRequest on a cross-encoder:
 * "query" and "texts", each (query, text) pair scored; "raw_scores",
 * "return_text", "truncate", "truncation_direction"; the ranking
 * [{"index", "score"(, "text")}] best first. On a multi-vector (ColBERT)
 * model the score is MaxSim of the query and each text as a document
 * (rerank_maxsim.c). */
#include <stdio.h>
#include <stdlib.h>

#include "rerank_maxsim.h"
#include "route_model.h"

/* The query and the texts: n (query, text) pairs. */
static int get_pairs(serve_request *r, size_t max, serve_error *e)
{
    const cJSON *query = serve_field(r, "query"), *texts = serve_field(r, "texts");
    if (!query || !cJSON_IsString(query))
        return query ? serve_wrong_type(e, "query", "a string", query)
                     : serve_error_set(e, 400, "query", "query: missing; expected a string");
    if (!texts || !cJSON_IsArray(texts))
        return texts ? serve_wrong_type(e, "texts", "a list of strings", texts)
                     : serve_error_set(e, 400, "texts",
                                       "texts: missing; expected a list of "
                                       "strings");
    size_t n, i = 0;
    if (serve_list_size(texts, "texts", max, &n, e) || serve_request_alloc_inputs(r, n, 1, e))
        return -1;
    r->query = query->valuestring;
    for (const cJSON *item = texts->child; item; item = item->next, i++) {
        if (!cJSON_IsString(item)) {
            char where[48];
            snprintf(where, sizeof where, "texts[%zu]", i);
            return serve_wrong_type(e, where, "a string", item);
        }
        r->texts[i] = r->query;
        r->pairs[i] = item->valuestring;
    }
    return 0;
}

static int parse(serve_request *r, size_t max, serve_error *e)
{
    return get_pairs(r, max, e) || serve_field_bool(r, "raw_scores", &r->raw_scores, e) ||
            serve_field_bool(r, "return_text", &r->return_text, e) ||
            serve_field_bool(r, "truncate", &r->truncate, e) || serve_field_direction(r, NULL, e)
        ? -1
        : 0;
}

/* TEI's rank: [{"index", "score"(, "text")}] best first. */
static void write_ranking(const serve_request *q, const float *scores, size_t *order, json_out *o)
{
    routes_sort_desc(order, scores, q->n, 1);
    json_out_str(o, "[");
    for (size_t k = 0; k < q->n; k++) {
        json_out_printf(o, "%s{\"index\":%zu,\"score\":", k ? "," : "", order[k]);
        json_out_float(o, scores[order[k]]);
        if (q->return_text) {
            json_out_str(o, ",\"text\":");
            json_out_string(o, q->pairs[order[k]]);
        }
        json_out_str(o, "}");
    }
    json_out_str(o, "]");
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    const int maxsim = tf_pipeline_kind_of(s->p) == TF_PIPELINE_MULTI_VECTOR;
    if (!maxsim && routes_need_kind(s, route, e))
        return -1;
    size_t *order = malloc(q->n * sizeof *order); /* the ranking's indices */
    if (!order)
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", q->n);
    routes_inputs in;
    const int rc = maxsim
        ? rerank_maxsim(s, q, &in, out, e)
        : routes_run_head(s, q, "texts", q->raw_scores ? SERVE_TASK_LOGITS : SERVE_TASK_SCORE, 1,
                          &in, out, e);
    if (rc == 0) {
        json_out o = {0};
        write_ranking(q, in.out, order, &o);
        out->tokens = in.total;
        serve_respond_json(out, 200, &o);
    }
    routes_inputs_free(&in);
    free(order);
    return rc;
}

const serve_route route_rerank = {
    .path = "/rerank",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_KIND(TF_PIPELINE_CROSS_ENCODER),
    .parse = parse,
    .handle = handle,
    .summary = "Ranks texts by their relevance to a query (TEI)",
    .request_schema = "RerankRequest",
    .response_schema = "RerankResponse",
};
