/* rerank_maxsim.c — /rerank by MaxSim on a multi-vector model. */
#include "rerank_maxsim.h"

/* 400 naming the query when the model's query length cuts it and the
 * request does not let it be cut (the library cuts queries as PyLate does). */
static int check_query(serve_server *s, const serve_request *q, serve_error *e)
{
    const int cut = q->truncate >= 0 ? q->truncate : s->limits.auto_truncate;
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = &q->query, a.is_query = 1, a.truncated = &truncated;
    tf_token_vectors *v = NULL;
    const tf_status st = tf_pipeline_embed_tokens(s->p, &a, &v);
    tf_token_vectors_destroy(v);
    if (st)
        return serve_error_set(e, 400, "query", "query: %s", tf_last_error());
    if (truncated && !cut)
        return serve_error_set(e, 400, "query",
                               "query: more tokens than the model's query length; send "
                               "\"truncate\": true, or start the server with --auto-truncate");
    return 0;
}

int rerank_maxsim(serve_server *s, const serve_request *q, routes_inputs *in, serve_response *out,
                  serve_error *e)
{
    *in = (routes_inputs){0};
    serve_request documents = *q; /* the texts alone, as documents */
    documents.texts = q->pairs, documents.pairs = NULL, documents.query = NULL;
    int rc = check_query(s, q, e);
    if (rc == 0)
        rc = routes_count_inputs(s, &documents, "texts", 1, in, e);
    serve_job job = {.task = SERVE_TASK_SCORE,
                     .n = q->n,
                     .texts = q->texts,
                     .pairs = in->texts,
                     .tokens = in->tokens,
                     .out = in->out,
                     .width = 1};
    return rc ? rc : routes_run_job(s, &job, out, e);
}
