/* routes.c — each route from its parsed request to its response: token
 * counts against the model's limit, a job for the batcher, the results in
 * the API's JSON. */
#define _POSIX_C_SOURCE 200809L
#include "routes.h"

#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "token_inputs.h"

const serve_route routes_table[] = {
    {"/v1/embeddings", "POST", 1, 1, SERVE_BODY_OPENAI_EMBEDDINGS},
    {"/embed", "POST", 0, 1, SERVE_BODY_EMBED},
    {"/rerank", "POST", 0, 1, SERVE_BODY_RERANK},
    {"/predict", "POST", 0, 1, SERVE_BODY_PREDICT},
    {"/tokenize", "POST", 0, 1, SERVE_BODY_TOKENIZE},
    {"/info", "GET", 0, 0, 0},
    {"/health", "GET", 0, 0, 0},
    {"/metrics", "GET", 0, 0, 0},
};
const size_t routes_count = sizeof routes_table / sizeof routes_table[0];
enum { ROUTE_INFO = 5, ROUTE_HEALTH = 6, ROUTE_METRICS = 7 };
_Static_assert(sizeof routes_table / sizeof routes_table[0] < SERVE_METRIC_ROUTES,
               "a metrics row for each route and one for unmatched paths");

int routes_find(const char *path)
{
    for (size_t i = 0; i < routes_count; i++)
        if (strcmp(path, routes_table[i].path) == 0)
            return (int)i;
    return -1;
}

static void respond_json(serve_response *out, int status, json_out *o)
{
    out->status = status, out->content_type = "application/json";
    out->body = json_out_take(o, &out->len);
    if (!out->body) { /* out of memory: a body that needs none */
        static const char oom[] = "{\"error\":\"out of memory\",\"error_type\":\"Backend\"}";
        out->status = 500;
        out->body = strdup(oom);
        out->len = out->body ? sizeof oom - 1 : 0;
    }
}

/* TEI's error_type of a status. */
static const char *tei_error_type(int status)
{
    switch (status) {
    case 400: case 413: return "Validation";
    case 401: return "Unauthorized";
    case 404: case 405: return "NotFound";
    case 429: return "Overloaded";
    case 503: return "Unhealthy";
    default: return "Backend";
    }
}

/* OpenAI's error type of a status. */
static const char *openai_error_type(int status)
{
    switch (status) {
    case 401: return "authentication_error";
    case 404: case 405: return "not_found_error";
    case 429: return "rate_limit_error";
    case 500: case 503: return "server_error";
    default: return "invalid_request_error";
    }
}

void routes_error(int r, const serve_error *e, serve_response *out)
{
    json_out o = {0};
    *out = (serve_response){0};
    if (r >= 0 && routes_table[r].openai) {
        json_out_str(&o, "{\"error\":{\"message\":");
        json_out_string(&o, e->message);
        json_out_str(&o, ",\"type\":");
        json_out_string(&o, openai_error_type(e->status));
        json_out_str(&o, ",\"param\":");
        if (e->param[0])
            json_out_string(&o, e->param);
        else
            json_out_str(&o, "null");
        json_out_printf(&o, ",\"code\":%d}}", e->status);
    } else {
        json_out_str(&o, "{\"error\":");
        json_out_string(&o, e->message);
        json_out_str(&o, ",\"error_type\":");
        json_out_string(&o, tei_error_type(e->status));
        json_out_str(&o, "}");
    }
    respond_json(out, e->status, &o);
    out->queue_s = out->compute_s = -1;
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
    for (size_t i = 0; i < q->n; i++) {
        int32_t n;
        const tf_status st = tf_pipeline_count_tokens(s->p, q->texts[i], q->pairs ? q->pairs[i]
                                                      : NULL, q->prompt_name, &n);
        if (st)
            return serve_error_set(e, 400, q->prompt_name ? "prompt_name" : field, "%s",
                                   tf_last_error());
        if (n > limit && !cut)
            return serve_error_set(e, 413, field, "%s[%zu]: %d tokens, more than the model's "
                                   "limit of %d (max_seq_length); send \"truncate\": true, or "
                                   "start the server with --auto-truncate", field, i, (int)n,
                                   (int)limit);
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

static int need_kind(serve_server *s, int kind, const char *route, serve_error *e)
{
    const int32_t have = tf_pipeline_kind_of(s->p);
    if (have == kind || (kind == TF_PIPELINE_CLASSIFIER && have == TF_PIPELINE_CROSS_ENCODER))
        return 0;
    static const char *const routes_of[] = {"/embed or /v1/embeddings", "/rerank", "/predict"};
    return serve_error_set(e, 400, "", "%s needs %s model; this server's model is %s (use %s)",
                           route, kind == TF_PIPELINE_EMBEDDING ? "an embedding"
                           : kind == TF_PIPELINE_CROSS_ENCODER ? "a cross-encoder"
                                                               : "a classifier",
                           tf_pipeline_kind_name(have), routes_of[have]);
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

static int embed(serve_server *s, int r, const serve_request *q, serve_response *out,
                 serve_error *e)
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
        respond_json(out, 200, &o);
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
static int head_route(serve_server *s, const serve_request *q, int rank, serve_response *out,
                      serve_error *e)
{
    if (need_kind(s, rank ? TF_PIPELINE_CROSS_ENCODER : TF_PIPELINE_CLASSIFIER,
                  rank ? "/rerank" : "/predict", e))
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
        respond_json(out, 200, &o);
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
        return serve_error_set(e, 400, "prompt_name", "prompt_name \"%.64s\": the model has no "
                               "such prompt", name);
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

static int tokenize(serve_server *s, const serve_request *q, serve_response *out,
                    serve_error *e)
{
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
    respond_json(out, 200, &o);
    return 0;
}

/* ---- GET routes -------------------------------------------------------------------- */

static void info(serve_server *s, json_out *o)
{
    const int32_t kind = tf_pipeline_kind_of(s->p);
    json_out_str(o, "{\"model_id\":");
    json_out_string(o, s->model_id);
    json_out_str(o, ",\"model_dtype\":\"float32\",\"model_type\":");
    if (kind == TF_PIPELINE_EMBEDDING) {
        json_out_printf(o, "{\"embedding\":{\"dim\":%d,\"similarity\":",
                        (int)tf_pipeline_dim(s->p));
        json_out_string(o, tf_pipeline_similarity(s->p));
        json_out_str(o, "}}");
    } else {
        json_out_str(o, kind == TF_PIPELINE_CROSS_ENCODER ? "{\"reranker\":{\"id2label\":{"
                                                          : "{\"classifier\":{\"id2label\":{");
        for (int32_t i = 0; i < tf_pipeline_dim(s->p); i++) {
            json_out_printf(o, "%s\"%d\":", i ? "," : "", (int)i);
            write_label(o, s->p, (size_t)i);
        }
        json_out_str(o, "}}}");
    }
    json_out_printf(o, ",\"max_concurrent_requests\":%zu,\"max_input_length\":%d,"
                    "\"max_batch_tokens\":%zu,\"max_client_batch_size\":%zu,"
                    "\"auto_truncate\":%s,\"version\":\"%s\"}",
                    s->limits.max_concurrent, (int)tf_pipeline_max_seq_length(s->p),
                    s->limits.max_batch_tokens, s->limits.max_client_batch,
                    s->limits.auto_truncate ? "true" : "false", tf_version_string());
}

static void get_route(serve_server *s, int r, serve_response *out)
{
    json_out o = {0};
    if (r == ROUTE_INFO) {
        info(s, &o);
    } else if (r == ROUTE_HEALTH) {
        json_out_str(&o, "{\"status\":\"ok\"}");
    } else {
        serve_metrics_write(&s->metrics, &o, (const char *const[]){
            routes_table[0].path, routes_table[1].path, routes_table[2].path,
            routes_table[3].path, routes_table[4].path, routes_table[5].path,
            routes_table[6].path, routes_table[7].path, "unmatched"}, routes_count + 1,
            serve_batcher_depth(s->batcher));
    }
    respond_json(out, 200, &o);
    if (r == ROUTE_METRICS)
        out->content_type = "text/plain; version=0.0.4";
}

void routes_run(serve_server *s, int r, const char *body, size_t len, serve_response *out)
{
    *out = (serve_response){.queue_s = -1, .compute_s = -1};
    if (!routes_table[r].has_body) {
        get_route(s, r, out);
        return;
    }
    serve_request q;
    serve_error e;
    int rc = serve_request_parse(&q, routes_table[r].body, body, len, s->limits.max_client_batch,
                                 &e);
    if (rc == 0) {
        switch (routes_table[r].body) {
        case SERVE_BODY_OPENAI_EMBEDDINGS:
        case SERVE_BODY_EMBED: rc = embed(s, r, &q, out, &e); break;
        case SERVE_BODY_RERANK: rc = head_route(s, &q, 1, out, &e); break;
        case SERVE_BODY_PREDICT: rc = head_route(s, &q, 0, out, &e); break;
        case SERVE_BODY_TOKENIZE: rc = tokenize(s, &q, out, &e); break;
        case SERVE_BODY_KIND_COUNT: break;
        }
        serve_request_free(&q);
    }
    if (rc) {
        const double queue_s = out->queue_s, compute_s = out->compute_s;
        routes_error(r, &e, out);
        out->queue_s = queue_s, out->compute_s = compute_s;
    }
}
