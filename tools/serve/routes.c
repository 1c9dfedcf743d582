/* routes.c — each route from its parsed request to its response: token
 * counts against the model's limit, a job for the batcher, the results in
 * the API's JSON. */
#define _POSIX_C_SOURCE 200809L
#include "routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "token_inputs.h"
#include "utf8.h"

/* The folder kinds the routes serve, and the routes that run each. A kind
 * not here is refused when the server starts (serve.c). */
static const struct {
    tf_pipeline_kind kind;
    const char *routes;
} served_kinds[] = {
    {TF_PIPELINE_EMBEDDING, "/embed or /v1/embeddings"},
    {TF_PIPELINE_CROSS_ENCODER, "/rerank"},
    {TF_PIPELINE_CLASSIFIER, "/predict"},
};
#define SERVED_KINDS (sizeof served_kinds / sizeof served_kinds[0])

const char *routes_of_kind(int32_t kind)
{
    for (size_t i = 0; i < SERVED_KINDS; i++)
        if ((int32_t)served_kinds[i].kind == kind)
            return served_kinds[i].routes;
    return NULL;
}

void routes_served_kinds(char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < SERVED_KINDS && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s",
                                 i == 0 ? "" : i + 1 < SERVED_KINDS ? ", " : " and ",
                                 tf_pipeline_kind_name(served_kinds[i].kind));
}

/* ---- Running inputs ------------------------------------------------------------- */

/* A request's inputs as a job runs them. */
typedef struct inputs {
    int32_t *tokens; /* [n] as run (cut to the limit) */
    float *out;      /* [n, width] */
    size_t total;    /* tokens of them all */
} inputs;

static void inputs_free(inputs *in)
{
    free(in->tokens);
    free(in->out);
}

/* 413: `what` (an input, or the query) has n tokens, more than limit. */
static int too_long(serve_error *e, const char *field, const char *what, int32_t n,
                    int32_t limit)
{
    return serve_error_set(e, 413, field, "%s: %d tokens, more than the model's limit of %d "
                           "(max_seq_length); send \"truncate\": true, or start the server "
                           "with --auto-truncate", what, (int)n, (int)limit);
}

/* /rerank's query alone against the limit: a query too long for any pair
 * is named as the query, not as the first text. */
static int check_query(serve_server *s, const serve_request *q, int32_t limit, serve_error *e)
{
    int32_t n;
    if (tf_pipeline_count_tokens(s->p, q->texts[0], NULL, NULL, &n))
        return serve_error_set(e, 400, "query", "query: %s", tf_last_error());
    return n > limit ? too_long(e, "query", "query", n, limit) : 0;
}

/* Counts each input's tokens; one over the model's limit is 413 unless
 * the request (or --auto-truncate) lets it be cut. */
static int count_inputs(serve_server *s, const serve_request *q, const char *field,
                        size_t width, inputs *in, serve_error *e)
{
    *in = (inputs){0};
    in->tokens = malloc(q->n * sizeof *in->tokens);
    in->out = malloc(q->n * width * sizeof *in->out);
    if (!in->tokens || !in->out)
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", q->n);
    const int32_t limit = tf_pipeline_max_seq_length(s->p);
    const int cut = q->truncate >= 0 ? q->truncate : s->limits.auto_truncate;
    const int rerank = q->kind == SERVE_BODY_RERANK; /* texts[i] is the query, pairs[i] text i */
    if (rerank && !cut && check_query(s, q, limit, e))
        return -1;
    for (size_t i = 0; i < q->n; i++) {
        int32_t n;
        const tf_status st = tf_pipeline_count_tokens(s->p, q->texts[i], q->pairs ? q->pairs[i]
                                                      : NULL, q->prompt_name, &n);
        if (st)
            return serve_error_set(e, 400, q->prompt_name ? "prompt_name" : field, "%s",
                                   tf_last_error());
        if (n > limit && !cut) {
            char what[64];
            snprintf(what, sizeof what, rerank ? "%s[%zu] with the query" : "%s[%zu]", field, i);
            return too_long(e, field, what, n, limit);
        }
        in->tokens[i] = n < limit ? n : limit;
        in->total += (size_t)in->tokens[i];
    }
    return 0;
}

/* Queues the job, waits for it; 0, or -1 with *e (429, 503, 500). */
static int run_job(serve_server *s, serve_job *job, serve_response *out, serve_error *e)
{
    const int rc = serve_batcher_submit(s->batcher, job);
    if (rc == -1)
        return serve_error_set(e, 429, "", "the server is at its limit of %zu requests at once "
                               "(--max-concurrent); retry later", s->limits.max_concurrent);
    if (rc == -2)
        return serve_error_set(e, 503, "", "the server is shutting down");
    serve_batcher_wait(s->batcher, job);
    out->queue_s = job->started_at - job->queued_at;
    out->compute_s = job->done_at - job->started_at;
    if (job->status)
        return serve_error_set(e, 500, "", "%s: %s", tf_status_name(job->status), job->message);
    return 0;
}

/* 0 when the server's model is of kind (or, for /predict's classifier, a
 * cross-encoder, a classifier of one label); else 400 naming the routes
 * its model takes. */
static int need_kind(serve_server *s, tf_pipeline_kind kind, const char *route, serve_error *e)
{
    const int32_t have = tf_pipeline_kind_of(s->p);
    if (have == (int32_t)kind ||
        (kind == TF_PIPELINE_CLASSIFIER && have == TF_PIPELINE_CROSS_ENCODER))
        return 0;
    return serve_error_set(e, 400, "", "%s needs %s model; this server's model is %s (use %s)",
                           route, kind == TF_PIPELINE_EMBEDDING ? "an embedding"
                           : kind == TF_PIPELINE_CROSS_ENCODER ? "a cross-encoder"
                                                               : "a classifier",
                           tf_pipeline_kind_name(have),
                           routes_of_kind(have) ? routes_of_kind(have) : "no route");
}

/* ---- Embeddings ------------------------------------------------------------------ */

static void write_openai(serve_server *s, const serve_request *q, const inputs *in,
                         size_t width, json_out *o)
{
    json_out_str(o, "{\"object\":\"list\",\"data\":[");
    for (size_t i = 0; i < q->n; i++) {
        json_out_printf(o, "%s{\"object\":\"embedding\",\"index\":%zu,\"embedding\":",
                        i ? "," : "", i);
        if (q->base64)
            json_out_base64_floats(o, in->out + i * width, width);
        else
            json_out_floats(o, in->out + i * width, width);
        json_out_str(o, "}");
    }
    json_out_str(o, "],\"model\":");
    json_out_string(o, q->model ? q->model : s->model_id);
    json_out_printf(o, ",\"usage\":{\"prompt_tokens\":%zu,\"total_tokens\":%zu}}", in->total,
                    in->total);
}

static int embed(serve_server *s, serve_route_id r, const serve_request *q,
                 serve_response *out, serve_error *e)
{
    const char *field = routes_table[r].openai ? "input" : "inputs";
    if (need_kind(s, TF_PIPELINE_EMBEDDING, routes_table[r].path, e))
        return -1;
    const int32_t dim = tf_pipeline_dim(s->p);
    if (q->dimensions > dim)
        return serve_error_set(e, 400, "dimensions", "dimensions: %d, but the model's vectors "
                               "have %d", (int)q->dimensions, (int)dim);
    const size_t width = (size_t)(q->dimensions ? q->dimensions : dim);
    char **id_texts = NULL; /* [n] token-id inputs as their texts, run without a prompt */
    serve_request run = *q;
    if (q->ids && token_inputs_texts(s->p, q, &id_texts, e)) {
        token_inputs_free(id_texts, q->n);
        return -1;
    }
    if (q->ids)
        run.texts = (const char **)id_texts, run.prompt_name = "";
    inputs in;
    int rc = count_inputs(s, &run, field, width, &in, e);
    serve_job job = {.task = SERVE_TASK_EMBED, .prompt_name = run.prompt_name,
                     .normalize = q->normalize, .dimensions = q->dimensions,
                     .dimensions_layer_norm = q->dimensions_layer_norm >= 0
                                                  ? q->dimensions_layer_norm
                                                  : s->limits.dimensions_layer_norm,
                     .n = q->n,
                     .texts = run.texts, .tokens = in.tokens, .out = in.out, .width = width};
    if (rc == 0)
        rc = run_job(s, &job, out, e);
    if (rc == 0) {
        json_out o = {0};
        if (routes_table[r].openai) {
            write_openai(s, q, &in, width, &o);
        } else {
            json_out_str(&o, "[");
            for (size_t i = 0; i < q->n; i++) {
                json_out_str(&o, i ? "," : "");
                json_out_floats(&o, in.out + i * width, width);
            }
            json_out_str(&o, "]");
        }
        out->tokens = in.total;
        routes_respond_json(out, 200, &o);
    }
    inputs_free(&in);
    token_inputs_free(id_texts, q->n);
    return rc;
}

/* ---- Heads ------------------------------------------------------------------------ */

/* order[0..n) = 0..n-1 sorted by v[order[k] * stride] descending (ties by index). */
static void sort_desc(size_t *order, const float *v, size_t n, size_t stride)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is at most --max-client-batch */
        const size_t k = order[i];
        size_t j = i;
        while (j > 0 && v[order[j - 1] * stride] < v[k * stride])
            order[j] = order[j - 1], j--;
        order[j] = k;
    }
}

/* Counts q's inputs and runs them as a head's task: in->out [n, width]. */
static int run_head(serve_server *s, const serve_request *q, const char *field,
                    serve_task task, size_t width, inputs *in, serve_response *out,
                    serve_error *e)
{
    int rc = count_inputs(s, q, field, width, in, e);
    serve_job job = {.task = task, .n = q->n, .texts = q->texts, .pairs = q->pairs,
                     .tokens = in->tokens, .out = in->out, .width = width};
    return rc ? rc : run_job(s, &job, out, e);
}

/* Label i's name (id2label), or "LABEL_i" as transformers names one it lacks. */
static void write_label(json_out *o, const tf_pipeline *p, size_t i)
{
    const char *label = tf_pipeline_label(p, (int32_t)i);
    if (label)
        json_out_string(o, label);
    else
        json_out_printf(o, "\"LABEL_%zu\"", i);
}

/* TEI's rank: [{"index", "score"(, "text")}] best first. */
static void write_ranking(const serve_request *q, const float *scores, size_t *order,
                          json_out *o)
{
    sort_desc(order, scores, q->n, 1);
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

/* TEI's predictions: [{"score", "label"}] best first for each input (a
 * list of them for a list of inputs). */
static void write_predictions(const serve_server *s, const serve_request *q, const float *probs,
                              size_t labels, size_t *order, json_out *o)
{
    json_out_str(o, q->single ? "" : "[");
    for (size_t i = 0; i < q->n; i++) {
        const float *row = probs + i * labels; /* [labels] */
        sort_desc(order, row, labels, 1);
        json_out_str(o, i ? ",[" : "[");
        for (size_t k = 0; k < labels; k++) {
            json_out_str(o, k ? ",{\"score\":" : "{\"score\":");
            json_out_float(o, row[order[k]]);
            json_out_str(o, ",\"label\":");
            write_label(o, s->p, order[k]);
            json_out_str(o, "}");
        }
        json_out_str(o, "]");
    }
    json_out_str(o, q->single ? "" : "]");
}

/* /rerank (a cross-encoder: one score a pair) and /predict (a head's labels). */
static int head_route(serve_server *s, serve_route_id r, const serve_request *q,
                      serve_response *out, serve_error *e)
{
    const int rank = r == SERVE_ROUTE_RERANK;
    if (need_kind(s, rank ? TF_PIPELINE_CROSS_ENCODER : TF_PIPELINE_CLASSIFIER,
                  routes_table[r].path, e))
        return -1;
    const size_t width = rank ? 1 : (size_t)tf_pipeline_dim(s->p);
    const serve_task task = q->raw_scores ? SERVE_TASK_LOGITS
                          : rank ? SERVE_TASK_SCORE : SERVE_TASK_CLASSIFY;
    size_t *order = malloc((rank ? q->n : width) * sizeof *order); /* a sort's indices */
    if (!order)
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", q->n);
    inputs in;
    int rc = run_head(s, q, rank ? "texts" : "inputs", task, width, &in, out, e);
    if (rc == 0) {
        json_out o = {0};
        if (rank)
            write_ranking(q, in.out, order, &o);
        else
            write_predictions(s, q, in.out, width, order, &o);
        out->tokens = in.total;
        routes_respond_json(out, 200, &o);
    }
    inputs_free(&in);
    free(order);
    return rc;
}

/* ---- Tokens -------------------------------------------------------------------- */

/* One input's tokens as TEI's SimpleToken list: id, text, special, start,
 * stop (bytes of the text, the prompt before it). */
static int write_tokens(serve_server *s, const serve_request *q, const char *text, json_out *o,
                        size_t *total, serve_error *e)
{
    const char *name = q->prompt_name ? q->prompt_name : tf_pipeline_default_prompt_name(s->p);
    const char *prompt = name && name[0] ? tf_pipeline_prompt(s->p, name) : "";
    if (!prompt)
        return serve_error_set(e, 400, "prompt_name", "prompt_name \"%.*s\": the model has no "
                               "such prompt", tf_utf8_prefix(name, SERVE_QUOTE_BYTES), name);
    const size_t plen = strlen(prompt), tlen = strlen(text);
    char *joined = malloc(plen + tlen + 1); /* the prompt, then the text */
    if (!joined)
        return serve_error_set(e, 500, "", "out of memory for a text of %zu bytes", tlen);
    memcpy(joined, prompt, plen);
    memcpy(joined + plen, text, tlen + 1);
    tf_encoding *enc;
    const tf_tokenizer *tok = tf_pipeline_tokenizer(s->p);
    if (tf_tokenizer_encode(tok, joined, plen + tlen, NULL, 0, &enc) != TF_OK) {
        free(joined);
        return serve_error_set(e, 400, "inputs", "%s", tf_last_error());
    }
    const int32_t n = tf_encoding_lengths(enc)[0];
    const int32_t *ids = tf_encoding_ids(enc);
    const int64_t *offsets = tf_encoding_offsets(enc); /* [1, T, 2] */
    json_out_str(o, "[");
    int first = 1;
    for (int32_t t = 0; t < n; t++) {
        const int64_t start = offsets[2 * t], stop = offsets[2 * t + 1];
        const int special = start == stop;
        if (special && !q->add_special_tokens)
            continue;
        json_out_printf(o, "%s{\"id\":%d,\"text\":", first ? "" : ",", (int)ids[t]);
        if (special)
            json_out_string(o, tf_tokenizer_id_to_token(tok, ids[t]));
        else
            json_out_string_n(o, joined + start, (size_t)(stop - start));
        json_out_printf(o, ",\"special\":%s,\"start\":%lld,\"stop\":%lld}",
                        special ? "true" : "false", (long long)start, (long long)stop);
        first = 0;
        (*total)++;
    }
    json_out_str(o, "]");
    tf_encoding_destroy(enc);
    free(joined);
    return 0;
}

static int tokenize(serve_server *s, serve_route_id r, const serve_request *q,
                    serve_response *out, serve_error *e)
{
    (void)r;
    json_out o = {0};
    json_out_str(&o, "[");
    for (size_t i = 0; i < q->n; i++) {
        json_out_str(&o, i ? "," : "");
        if (write_tokens(s, q, q->texts[i], &o, &out->tokens, e)) {
            json_out_free(&o);
            return -1;
        }
    }
    json_out_str(&o, "]");
    routes_respond_json(out, 200, &o);
    return 0;
}

/* ---- GET routes -------------------------------------------------------------------- */

/* TEI's model_type: {"embedding": {dim, similarity}}, or a head's labels
 * as {"reranker"|"classifier": {"id2label": {...}}}. */
static void write_model_type(const tf_pipeline *p, json_out *o)
{
    const char *head = "classifier";
    switch ((tf_pipeline_kind)tf_pipeline_kind_of(p)) {
    case TF_PIPELINE_EMBEDDING:
        json_out_printf(o, "{\"embedding\":{\"dim\":%d,\"similarity\":",
                        (int)tf_pipeline_dim(p));
        json_out_string(o, tf_pipeline_similarity(p));
        json_out_str(o, "}}");
        return;
    case TF_PIPELINE_CROSS_ENCODER: head = "reranker"; break;
    case TF_PIPELINE_CLASSIFIER: break;
    case TF_PIPELINE_TOKEN_CLASSIFIER: /* refused when the server starts */
        json_out_str(o, "null");
        return;
    }
    json_out_printf(o, "{\"%s\":{\"id2label\":{", head);
    for (int32_t i = 0; i < tf_pipeline_dim(p); i++) {
        json_out_printf(o, "%s\"%d\":", i ? "," : "", (int)i);
        write_label(o, p, (size_t)i);
    }
    json_out_str(o, "}}}");
}

static int info(serve_server *s, serve_route_id r, const serve_request *q, serve_response *out,
                serve_error *e)
{
    json_out o = {0};
    (void)r, (void)q, (void)e;
    json_out_str(&o, "{\"model_id\":");
    json_out_string(&o, s->model_id);
    json_out_str(&o, ",\"model_dtype\":\"float32\",\"model_type\":");
    write_model_type(s->p, &o);
    json_out_printf(&o, ",\"max_concurrent_requests\":%zu,\"max_input_length\":%d,"
                    "\"max_batch_tokens\":%zu,\"max_client_batch_size\":%zu,"
                    "\"auto_truncate\":%s,\"version\":\"%s\"}",
                    s->limits.max_concurrent, (int)tf_pipeline_max_seq_length(s->p),
                    s->limits.max_batch_tokens, s->limits.max_client_batch,
                    s->limits.auto_truncate ? "true" : "false", tf_version_string());
    routes_respond_json(out, 200, &o);
    return 0;
}

static int health(serve_server *s, serve_route_id r, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)s, (void)r, (void)q, (void)e;
    json_out_str(&o, "{\"status\":\"ok\"}");
    routes_respond_json(out, 200, &o);
    return 0;
}

static int metrics(serve_server *s, serve_route_id r, const serve_request *q,
                   serve_response *out, serve_error *e)
{
    json_out o = {0};
    (void)r, (void)q, (void)e;
    serve_metrics_write(&s->metrics, &o, serve_batcher_depth(s->batcher),
                        serve_connections_open(s->connections));
    routes_respond_json(out, 200, &o);
    out->content_type = "text/plain; version=0.0.4";
    return 0;
}

/* ---- Dispatch ----------------------------------------------------------------------- */

/* What runs route r (q: its parsed body; NULL for a GET route): 0, or -1
 * with *e. */
typedef int route_fn(serve_server *s, serve_route_id r, const serve_request *q,
                     serve_response *out, serve_error *e);
static route_fn *const route_handlers[] = {
    [SERVE_ROUTE_OPENAI_EMBEDDINGS] = embed, [SERVE_ROUTE_EMBED] = embed,
    [SERVE_ROUTE_RERANK] = head_route, [SERVE_ROUTE_PREDICT] = head_route,
    [SERVE_ROUTE_TOKENIZE] = tokenize, [SERVE_ROUTE_INFO] = info,
    [SERVE_ROUTE_HEALTH] = health, [SERVE_ROUTE_METRICS] = metrics,
};
_Static_assert(sizeof route_handlers / sizeof route_handlers[0] == SERVE_ROUTE_COUNT,
               "a handler for each serve_route_id");

void routes_run(serve_server *s, serve_route_id r, const char *body, size_t len,
                serve_response *out)
{
    *out = (serve_response){.queue_s = -1, .compute_s = -1};
    serve_request q;
    serve_error e;
    int rc = routes_table[r].has_body ? serve_request_parse(&q, routes_table[r].body, body, len,
                                                            s->limits.max_client_batch, &e)
                                      : 0;
    if (rc == 0) {
        rc = route_handlers[r](s, r, routes_table[r].has_body ? &q : NULL, out, &e);
        if (routes_table[r].has_body)
            serve_request_free(&q);
    }
    if (rc) {
        const double queue_s = out->queue_s, compute_s = out->compute_s;
        routes_error((int)r, &e, out);
        out->queue_s = queue_s, out->compute_s = compute_s;
    }
}
