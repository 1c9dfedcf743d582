/* route_predict.c — POST /predict, TEI's PredictRequest on a classifier
 * (or a cross-encoder, a classifier of one label): "inputs" a string,
 * [text], a pair [text, text], or a batch of [text] or of [text, text]
 * lists (all texts or all pairs; a list of 3 strings or more: texts);
 * "raw_scores", "truncate", "truncation_direction"; each input's
 * [{"score", "label"}] best first. On an image classifier
 * (ViTForImageClassification) each input is an image as a data URI
 * (image_inputs.h): a string, a list of them, or TEI's batch of one-item
 * lists. */
#include <stdio.h>
#include <stdlib.h>

#include "image_inputs.h"
#include "route_model.h"

/* A batch's item i: [text] or [text, text] (TEI's Sequence in a batch), or
 * a string. */
static int one_item(serve_request *r, const cJSON *v, size_t i, serve_error *e)
{
    if (cJSON_IsString(v)) {
        r->texts[i] = v->valuestring;
        return 0;
    }
    const int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    if ((n != 1 && n != 2) || !cJSON_IsString(v->child) ||
        (n == 2 && !cJSON_IsString(v->child->next)))
        return serve_error_set(e, 400, "inputs",
                               "inputs[%zu]: expected [text] or a pair "
                               "[text, text], got %s%s",
                               i, n > 2 ? "an array of " : serve_json_type(v),
                               n > 2 ? "more than 2" : "");
    r->texts[i] = v->child->valuestring;
    r->pairs[i] = n == 2 ? v->child->next->valuestring : NULL;
    return 0;
}

/* TEI's PredictInput: a string, [text] or a pair [text, text] (one input),
 * or a batch of [text] and [text, text] lists; and, beyond TEI's, a list of
 * three strings or more as a batch of texts. */
static int get_inputs(serve_request *r, size_t max, serve_error *e)
{
    static const char expected[] = "a string, a pair [text, text] or a batch [[text], [text, "
                                   "text], ...]";
    const cJSON *v = serve_field(r, "inputs");
    if (!v)
        return serve_error_set(e, 400, "inputs", "inputs: missing; expected %s", expected);
    size_t n = 1;
    if (cJSON_IsString(v)) {
        r->single = 1;
        if (serve_request_alloc_inputs(r, 1, 0, e))
            return -1;
        r->texts[0] = v->valuestring;
        return 0;
    }
    if (!cJSON_IsArray(v))
        return serve_wrong_type(e, "inputs", expected, v);
    if (cJSON_IsString(v->child) && cJSON_GetArraySize(v) <= 2) { /* [text] or [text, text] */
        r->single = 1;
        if (serve_request_alloc_inputs(r, 1, 1, e))
            return -1;
        if (one_item(r, v, 0, e))
            return -1;
    } else {
        if (serve_list_size(v, "inputs", max, &n, e) || serve_request_alloc_inputs(r, n, 1, e))
            return -1;
        size_t i = 0;
        for (const cJSON *item = v->child; item; item = item->next, i++)
            if (one_item(r, item, i, e))
                return -1;
    }
    size_t i;
    for (i = 0; i < n && !r->pairs[i]; i++)
        ;
    if (i == n) { /* no pair among them */
        free(r->pairs);
        r->pairs = NULL;
    } else {
        for (i = 0; i < n; i++)
            if (!r->pairs[i])
                return serve_error_set(e, 400, "inputs",
                                       "inputs[%zu]: a single text among "
                                       "pairs; a batch is all texts or all pairs (send them "
                                       "as two requests)",
                                       i);
    }
    return 0;
}

static int parse(serve_request *r, size_t max, serve_error *e)
{
    return get_inputs(r, max, e) || serve_field_bool(r, "raw_scores", &r->raw_scores, e) ||
            serve_field_bool(r, "truncate", &r->truncate, e) || serve_field_direction(r, NULL, e) ||
            serve_field_modality(r, e)
        ? -1
        : 0;
}

/* TEI's predictions: [{"score", "label"}] best first for each input (a
 * list of them for a list of inputs). */
static void write_predictions(const serve_server *s, size_t n, int single, const float *probs,
                              size_t labels, size_t *order, json_out *o)
{
    json_out_str(o, single ? "" : "[");
    for (size_t i = 0; i < n; i++) {
        const float *row = probs + i * labels; /* [labels] */
        routes_sort_desc(order, row, labels, 1);
        json_out_str(o, i ? ",[" : "[");
        for (size_t k = 0; k < labels; k++) {
            json_out_str(o, k ? ",{\"score\":" : "{\"score\":");
            json_out_float(o, row[order[k]]);
            json_out_str(o, ",\"label\":");
            routes_write_label(o, s->p, order[k]);
            json_out_str(o, "}");
        }
        json_out_str(o, "]");
    }
    json_out_str(o, single ? "" : "]");
}

/* An image classifier's probabilities of q's inputs, each string an image
 * (a data URI): a string, a list of them, or TEI's batch of one-item lists;
 * what the parser reads as one pair [a, b] is two images (*single 0), and a
 * batch of pairs is refused. in->out [*n, labels]. */
static int classify_images(serve_server *s, const serve_request *q, size_t labels,
                           routes_inputs *in, size_t *n, int *single, serve_response *out,
                           serve_error *e)
{
    *in = (routes_inputs){0};
    if (q->raw_scores)
        return serve_error_set(e, 400, "raw_scores",
                               "raw_scores: an image classifier gives probabilities only; "
                               "leave it out");
    if (q->pairs && !q->single)
        return serve_error_set(e, 400, "inputs",
                               "inputs[0]: a pair, but an image classifier takes one image "
                               "an input: send [[image], [image], ...] or a list of images");
    const char *two[2] = {q->texts[0], q->pairs ? q->pairs[0] : NULL}; /* a pair's images */
    *n = q->pairs ? 2 : q->n, *single = q->single && !q->pairs;
    return image_inputs_classify(s, q->pairs ? two : q->texts, *n, "inputs", labels, in, out, e);
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    const int images = routes_need_kind(s, route, e) ? -1
                                                     : image_inputs_wanted(s->p, q, "inputs", e);
    if (images < 0)
        return -1;
    const size_t labels = (size_t)tf_pipeline_dim(s->p);
    size_t *order = malloc(labels * sizeof *order); /* a row's labels, sorted */
    if (!order)
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", q->n);
    routes_inputs in;
    size_t n = q->n;
    int single = q->single;
    const int rc = images
        ? classify_images(s, q, labels, &in, &n, &single, out, e)
        : routes_run_head(s, q, "inputs", q->raw_scores ? SERVE_TASK_LOGITS : SERVE_TASK_CLASSIFY,
                          labels, &in, out, e);
    if (rc == 0) {
        json_out o = {0};
        write_predictions(s, n, single, in.out, labels, order, &o);
        out->tokens = in.total;
        serve_respond_json(out, 200, &o);
    }
    routes_inputs_free(&in);
    free(order);
    return rc;
}

const serve_route route_predict = {
    .path = "/predict",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_KIND(TF_PIPELINE_CLASSIFIER),
    .image_kind = SERVE_KIND(TF_PIPELINE_IMAGE_CLASSIFIER),
    .parse = parse,
    .handle = handle,
    .summary = "Label scores of texts or pairs (TEI)",
    .request_schema = "PredictRequest",
    .response_schema = "PredictResponse",
};
