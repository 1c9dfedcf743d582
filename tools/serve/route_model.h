/* route_model.h — what the handlers of routes/ share: the model's kind
 * checked against the route's, token counts against the model's limit, a
 * job for the batcher, an embedding request run, and results sorted and
 * labelled. */
#ifndef SERVE_ROUTE_MODEL_H
#define SERVE_ROUTE_MODEL_H

#include <stddef.h>

#include "batcher.h"
#include "json_out.h"
#include "route.h"
#include "server.h"

/* A request's inputs as a job runs them. */
typedef struct routes_inputs {
    const char **texts; /* [n] as run: q's, or the tail a "Left" cut keeps */
    int32_t *tokens;    /* [n] as run (cut to the limit) */
    float *out;         /* [n, width] */
    size_t total;       /* tokens of them all */
} routes_inputs;

void routes_inputs_free(routes_inputs *in);

/* 0 when the server's model is of route's kind (a classifier route: or a
 * cross-encoder, a classifier of one label); else 400 naming the routes
 * its model takes. */
int routes_need_kind(serve_server *s, const serve_route *route, serve_error *e);

/* 0 when the server's model has a tokenizer (an image model has none);
 * else 424 naming the routes its model takes. */
int routes_need_tokenizer(serve_server *s, const serve_route *route, serve_error *e);

/* Counts each of q's inputs' tokens into *in (its out [n, width]
 * allocated); one over the model's limit is 400 (TEI's 422), naming field, unless the
 * request (or --auto-truncate) lets it be cut: at its end (the library's
 * cut), or with truncation_direction "Left" at its start, in->texts[i]
 * then the tail kept (see left_cut in route_model.c). */
int routes_count_inputs(serve_server *s, const serve_request *q, const char *field, size_t width,
                        routes_inputs *in, serve_error *e);

/* Queues the job, waits for it, its queue and compute seconds in *out; 0,
 * or -1 with *e (429, 503, 500). */
int routes_run_job(serve_server *s, serve_job *job, serve_response *out, serve_error *e);
/* routes_run_job in two steps, so that jobs queued together can share a
 * call: queues the job (0, or -1 with *e: 429, 503); then, once queued,
 * waits for it (every queued job must be waited for before its arrays
 * are freed): 0, or -1 with *e (500). */
int routes_submit_job(serve_server *s, serve_job *job, serve_error *e);
int routes_wait_job(serve_server *s, serve_job *job, serve_response *out, serve_error *e);

/* The embedding job of q's text inputs, counted into in ([n, width] out):
 * q's prompt, normalize and dimensions, the server's default for
 * dimensions_layer_norm. */
serve_job routes_embed_job(const serve_server *s, const serve_request *q, const routes_inputs *in,
                           size_t width);

/* Counts q's inputs and runs them as a head's task: in->out [n, width]. */
int routes_run_head(serve_server *s, const serve_request *q, const char *field, serve_task task,
                    size_t width, routes_inputs *in, serve_response *out, serve_error *e);

/* An embedding route's request run (its kind checked, dimensions against
 * the model's, token ids as their text, images as image_inputs.h says,
 * inputs named field): in->out [n, *width] the vectors; 0, or -1 with *e. */
int routes_embed(serve_server *s, const serve_route *route, const serve_request *q,
                 const char *field, routes_inputs *in, size_t *width, serve_response *out,
                 serve_error *e);

/* order[0..n) = 0..n-1 sorted by v[order[k] * stride] descending (ties by index). */
void routes_sort_desc(size_t *order, const float *v, size_t n, size_t stride);

/* Label i's name (id2label), or "LABEL_i" as transformers names one it lacks. */
void routes_write_label(json_out *o, const tf_pipeline *p, size_t i);

#endif
