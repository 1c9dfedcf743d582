/* route_model.c — the pieces of running a route on the model. */
#define _POSIX_C_SOURCE 200809L
#include "route_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_inputs.h"
#include "kind_text.h"
#include "route_table.h"
#include "token_inputs.h"

void routes_inputs_free(routes_inputs *in)
{
    free(in->texts);
    free(in->tokens);
    free(in->out);
}

int routes_need_kind(serve_server *s, const serve_route *route, serve_error *e)
{
    const int32_t have = tf_pipeline_kind_of(s->p);
    if (routes_kind_runs(route, have))
        return 0;
    char needs[64], routes[256];
    kind_text(needs, sizeof needs, SERVE_KIND_PIPELINE(route->kind));
    /* TEI: "model is not a re-ranker model", a Backend error (424) */
    return serve_error_set(e, 424, "", "%s needs %s model; this server's model is %s (use %s)",
                           route->path, needs, tf_pipeline_kind_name(have),
                           routes_of_kind(have, routes, sizeof routes) ? routes : "no route");
}

int routes_need_tokenizer(serve_server *s, const serve_route *route, serve_error *e)
{
    if (tf_pipeline_tokenizer(s->p))
        return 0;
    const int32_t have = tf_pipeline_kind_of(s->p);
    char routes[256];
    return serve_error_set(e, 424, "",
                           "%s needs a model with a tokenizer; this server's model is "
                           "%s, which has none (use %s)",
                           route->path, tf_pipeline_kind_name(have),
                           routes_of_kind(have, routes, sizeof routes) ? routes : "no route");
}

/* 400 (TEI's 422): `what` (an input, or the query) has n tokens, more than limit. */
static int too_long(serve_error *e, const char *field, const char *what, int32_t n, int32_t limit)
{
    return serve_error_set(e, 400, field,
                           "%s: %d tokens, more than the model's limit of %d "
                           "(max_seq_length); send \"truncate\": true, or start the server "
                           "with --auto-truncate",
                           what, (int)n, (int)limit);
}

/* /rerank's query alone against the limit: a query too long for any pair
 * is named as the query, not as the first text. */
static int check_query(serve_server *s, const char *query, int32_t limit, serve_error *e)
{
    int32_t n;
    if (tf_pipeline_count_tokens(s->p, query, NULL, NULL, &n))
        return serve_error_set(e, 400, "query", "query: %s", tf_last_error());
    return n > limit ? too_long(e, "query", "query", n, limit) : 0;
}

/* Where the real tokens of enc's row 0 (not [CLS], [SEP]: no bytes of the
 * text) from token t on are, as real[k] token indices; their number. */
static int32_t real_tokens(const tf_encoding *enc, int32_t *real)
{
    const int32_t T = tf_encoding_lengths(enc)[0];
    const int64_t *offsets = tf_encoding_offsets(enc); /* [1, T, 2] */
    int32_t R = 0;
    for (int32_t t = 0; t < T; t++)
        if (offsets[2 * t] != offsets[2 * t + 1])
            real[R++] = t;
    return R;
}

/* text's tokens uncut (the pipeline's tokenizer cuts at max_seq_length). */
static tf_status encode_uncut(const tf_tokenizer *tok, const char *text, tf_encoding **enc)
{
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.truncation = TF_TRUNCATION_NONE;
    const size_t len = strlen(text);
    return tf_tokenizer_encode_batch_with(tok, 1, &text, &len, NULL, NULL, &o, enc);
}

/* Whether tail, tokenized alone, gives the real tokens ids[real[from..R)]. */
static int same_tokens(const tf_tokenizer *tok, const char *tail, const int32_t *ids,
                       const int32_t *real, int32_t from, int32_t R, int32_t *scratch)
{
    tf_encoding *enc;
    if (encode_uncut(tok, tail, &enc) != TF_OK)
        return 0;
    const int32_t n = real_tokens(enc, scratch), *got = tf_encoding_ids(enc);
    int same = n == R - from;
    for (int32_t k = 0; same && k < n; k++)
        same = got[scratch[k]] == ids[real[from + k]];
    tf_encoding_destroy(enc);
    return same;
}

/* TEI's truncation_direction "Left" (tokenizers' TruncationDirection::Left:
 * the last tokens kept): *tail = the end of text from its first token
 * from which the rest fits the limit with the prompt and [CLS]/[SEP], and
 * tokenizes alone to the same tokens as in the text (a cut inside a word,
 * "##ing", would not: then one token later), so the forward runs a tail of
 * the text's own tokens; *tokens its count. */
static int left_cut(serve_server *s, const char *text, const char *prompt_name, int32_t limit,
                    const char *field, size_t i, const char **tail, int32_t *tokens, serve_error *e)
{
    const tf_tokenizer *tok = tf_pipeline_tokenizer(s->p);
    tf_encoding *enc;
    int32_t bare; /* the prompt's tokens and the specials: an empty text's */
    if (tf_pipeline_count_tokens(s->p, "", NULL, prompt_name, &bare) ||
        encode_uncut(tok, text, &enc))
        return serve_error_set(e, 400, field, "%s[%zu]: %s", field, i, tf_last_error());
    const int32_t T = tf_encoding_lengths(enc)[0];
    const int32_t *ids = tf_encoding_ids(enc);
    const int64_t *offsets = tf_encoding_offsets(enc);    /* [1, T, 2] */
    int32_t *real = malloc(2 * (size_t)T * sizeof *real); /* [T] real tokens, [T] scratch */
    if (!real) {
        tf_encoding_destroy(enc);
        return serve_error_set(e, 500, "", "out of memory for %d tokens", (int)T);
    }
    const int32_t R = real_tokens(enc, real), keep = limit - bare;
    *tail = text + strlen(text), *tokens = bare; /* none of the text fits: an empty tail */
    for (int32_t k = R - keep > 0 ? R - keep : 0; k < R && keep > 0; k++) {
        const char *from = text + offsets[2 * real[k]];
        int32_t n;
        if (tf_pipeline_count_tokens(s->p, from, NULL, prompt_name, &n) == TF_OK && n <= limit &&
            same_tokens(tok, from, ids, real, k, R, real + T)) {
            *tail = from, *tokens = n;
            break;
        }
    }
    free(real);
    tf_encoding_destroy(enc);
    return 0;
}

int routes_count_inputs(serve_server *s, const serve_request *q, const char *field, size_t width,
                        routes_inputs *in, serve_error *e)
{
    *in = (routes_inputs){0};
    in->texts = malloc(q->n * sizeof *in->texts);
    in->tokens = malloc(q->n * sizeof *in->tokens);
    in->out = malloc(q->n * width * sizeof *in->out);
    if (!in->texts || !in->tokens || !in->out)
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", q->n);
    const int32_t limit = tf_pipeline_max_seq_length(s->p);
    const int cut = q->truncate >= 0 ? q->truncate : s->limits.auto_truncate;
    if (q->query && !cut && check_query(s, q->query, limit, e))
        return -1;
    for (size_t i = 0; i < q->n; i++) {
        int32_t n;
        const tf_status st = tf_pipeline_count_tokens(
            s->p, q->texts[i], q->pairs ? q->pairs[i] : NULL, q->prompt_name, &n);
        if (st)
            return serve_error_set(e, 400, q->prompt_name ? "prompt_name" : field, "%s",
                                   tf_last_error());
        if (n > limit && !cut) {
            char what[64];
            snprintf(what, sizeof what, q->query ? "%s[%zu] with the query" : "%s[%zu]", field, i);
            return too_long(e, field, what, n, limit);
        }
        in->texts[i] = q->texts[i];
        if (n > limit && q->truncate_left && q->pairs)
            return serve_error_set(e, 400, "truncation_direction",
                                   "truncation_direction "
                                   "\"Left\": %s[%zu] is a pair of texts, which is cut at its "
                                   "end only; send \"Right\"",
                                   field, i);
        if (n > limit && q->truncate_left &&
            left_cut(s, q->texts[i], q->prompt_name, limit, field, i, &in->texts[i], &n, e))
            return -1;
        in->tokens[i] = n < limit ? n : limit;
        in->total += (size_t)in->tokens[i];
    }
    return 0;
}

int routes_submit_job(serve_server *s, serve_job *job, serve_error *e)
{
    const int rc = serve_batcher_submit(s->batcher, job);
    if (rc == -1)
        return serve_error_set(e, 429, "",
                               "the server is at its limit of %zu requests at once "
                               "(--max-concurrent); retry later",
                               s->limits.max_concurrent);
    if (rc == -2)
        return serve_error_set(e, 503, "", "the server is shutting down");
    return 0;
}

int routes_wait_job(serve_server *s, serve_job *job, serve_response *out, serve_error *e)
{
    serve_batcher_wait(s->batcher, job);
    serve_metrics_inputs(&s->metrics, job->tokens, job->n);
    out->queue_s = job->started_at - job->queued_at;
    out->compute_s = job->done_at - job->started_at;
    if (job->status)
        return serve_error_set(e, 500, "", "%s: %s", tf_status_name(job->status), job->message);
    return 0;
}

int routes_run_job(serve_server *s, serve_job *job, serve_response *out, serve_error *e)
{
    return routes_submit_job(s, job, e) ? -1 : routes_wait_job(s, job, out, e);
}

int routes_run_head(serve_server *s, const serve_request *q, const char *field, serve_task task,
                    size_t width, routes_inputs *in, serve_response *out, serve_error *e)
{
    int rc = routes_count_inputs(s, q, field, width, in, e);
    serve_job job = {.task = task,
                     .n = q->n,
                     .texts = in->texts,
                     .pairs = q->pairs,
                     .tokens = in->tokens,
                     .out = in->out,
                     .width = width};
    return rc ? rc : routes_run_job(s, &job, out, e);
}

serve_job routes_embed_job(const serve_server *s, const serve_request *q, const routes_inputs *in,
                           size_t width)
{
    return (serve_job){.task = SERVE_TASK_EMBED,
                       .prompt_name = q->prompt_name,
                       .normalize = q->normalize,
                       .dimensions = q->dimensions,
                       .dimensions_layer_norm = q->dimensions_layer_norm >= 0
                           ? q->dimensions_layer_norm
                           : s->limits.dimensions_layer_norm,
                       .n = q->n,
                       .texts = in->texts,
                       .tokens = in->tokens,
                       .out = in->out,
                       .width = width};
}

int routes_embed(serve_server *s, const serve_route *route, const serve_request *q,
                 const char *field, routes_inputs *in, size_t *width, serve_response *out,
                 serve_error *e)
{
    *in = (routes_inputs){0};
    if (routes_need_kind(s, route, e))
        return -1;
    const int images = image_inputs_wanted(s->p, q, field, e);
    if (images < 0)
        return -1;
    const int32_t dim = tf_pipeline_dim(s->p);
    if (q->dimensions > dim)
        return serve_error_set(e, 400, "dimensions",
                               "dimensions: %d, but the model's vectors "
                               "have %d",
                               (int)q->dimensions, (int)dim);
    *width = (size_t)(q->dimensions ? q->dimensions : dim);
    if (images)
        return image_inputs_embed(s, q, field, *width, in, out, e);
    char **id_texts = NULL; /* [n] token-id inputs as their texts, run without a prompt */
    serve_request run = *q;
    if (q->ids && token_inputs_texts(s->p, q, field, &id_texts, e)) {
        token_inputs_free(id_texts, q->n);
        return -1;
    }
    if (q->ids)
        run.texts = (const char **)id_texts, run.prompt_name = "";
    int rc = routes_count_inputs(s, &run, field, *width, in, e);
    serve_job job = routes_embed_job(s, &run, in, *width);
    if (rc == 0)
        rc = routes_run_job(s, &job, out, e);
    token_inputs_free(id_texts, q->n);
    return rc;
}

void routes_sort_desc(size_t *order, const float *v, size_t n, size_t stride)
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

void routes_write_label(json_out *o, const tf_pipeline *p, size_t i)
{
    const char *label = tf_pipeline_label(p, (int32_t)i);
    if (label)
        json_out_string(o, label);
    else
        json_out_printf(o, "\"LABEL_%zu\"", i);
}
