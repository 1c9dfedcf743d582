/* route_similarity.c — POST /similarity, TEI's SimilarityRequest (its
 * sentence-similarity task): "inputs" {"source_sentence", "sentences"},
 * "parameters" {"truncate", "truncation_direction", "prompt_name"} (and
 * this server's "modality", as on /embed); the
 * cosine similarity of the source's vector with each sentence's, as TEI's
 * similarity() computes it (1 - simsimd's cosine distance of the vectors
 * /embed gives with normalize false), here in float64. On an image model
 * the inputs are images as data URIs (image_inputs.h), and on a whole CLIP
 * folder the source and the sentences may each be texts or images. */
#include <math.h>
#include <stdio.h>

#include "image_inputs.h"
#include "route_model.h"

/* The source sentence, then the sentences: 1 + n inputs, at most max. */
static int get_inputs(serve_request *r, size_t max, serve_error *e)
{
    const cJSON *in = serve_field(r, "inputs");
    if (!cJSON_IsObject(in))
        return in ? serve_wrong_type(e, "inputs",
                                     "an object {\"source_sentence\", "
                                     "\"sentences\"}",
                                     in)
                  : serve_error_set(e, 400, "inputs",
                                    "inputs: missing; expected an object "
                                    "{\"source_sentence\", \"sentences\"}");
    const cJSON *source = cJSON_GetObjectItemCaseSensitive(in, "source_sentence");
    const cJSON *sentences = cJSON_GetObjectItemCaseSensitive(in, "sentences");
    if (!cJSON_IsString(source))
        return source ? serve_wrong_type(e, "inputs.source_sentence", "a string", source)
                      : serve_error_set(e, 400, "inputs.source_sentence",
                                        "inputs."
                                        "source_sentence: missing; expected a string");
    if (!cJSON_IsArray(sentences))
        return sentences ? serve_wrong_type(e, "inputs.sentences", "a list of strings", sentences)
                         : serve_error_set(e, 400, "inputs.sentences",
                                           "inputs.sentences: "
                                           "missing; expected a list of strings");
    size_t n;
    if (max < 2)
        return serve_error_set(e, 400, "inputs.sentences",
                               "inputs.sentences: the server's "
                               "limit of %zu inputs a request (--max-client-batch) leaves no "
                               "room for a sentence beside the source",
                               max);
    if (serve_list_size(sentences, "inputs.sentences", max - 1, &n, e) ||
        serve_request_alloc_inputs(r, n + 1, 0, e))
        return -1;
    r->texts[0] = source->valuestring;
    size_t i = 0;
    for (const cJSON *item = sentences->child; item; item = item->next, i++) {
        if (!cJSON_IsString(item)) {
            char where[48];
            snprintf(where, sizeof where, "inputs.sentences[%zu]", i);
            return serve_wrong_type(e, where, "a string", item);
        }
        r->texts[i + 1] = item->valuestring;
    }
    return 0;
}

/* TEI's SimilarityParameters, all optional. */
static int get_parameters(serve_request *r, serve_error *e)
{
    const cJSON *p = serve_field(r, "parameters");
    if (!p || cJSON_IsNull(p))
        return 0;
    if (!cJSON_IsObject(p))
        return serve_wrong_type(e, "parameters", "an object", p);
    const cJSON *truncate = cJSON_GetObjectItemCaseSensitive(p, "truncate");
    const cJSON *prompt = cJSON_GetObjectItemCaseSensitive(p, "prompt_name");
    if (truncate && !cJSON_IsNull(truncate) && !cJSON_IsBool(truncate))
        return serve_wrong_type(e, "parameters.truncate", "true or false", truncate);
    if (prompt && !cJSON_IsNull(prompt) && !cJSON_IsString(prompt))
        return serve_wrong_type(e, "parameters.prompt_name", "a string", prompt);
    if (cJSON_IsBool(truncate))
        r->truncate = cJSON_IsTrue(truncate);
    if (cJSON_IsString(prompt))
        r->prompt_name = prompt->valuestring;
    return serve_field_direction(r, "parameters", e);
}

static int parse(serve_request *r, size_t max, serve_error *e)
{
    r->normalize = 0; /* TEI's similarity embeds with normalize false */
    return get_inputs(r, max, e) || get_parameters(r, e) || serve_field_modality(r, e) ? -1 : 0;
}

/* The cosine of a [dim] and b [dim], in float64. */
static double cosine(const float *a, const float *b, size_t dim)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t k = 0; k < dim; k++) {
        ab += (double)a[k] * b[k];
        aa += (double)a[k] * a[k];
        bb += (double)b[k] * b[k];
    }
    return aa > 0 && bb > 0 ? ab / (sqrt(aa) * sqrt(bb)) : 0;
}

/* Texts both: the two jobs queued together, so that they share a call. */
static int embed_texts(serve_server *s, const serve_request *one, const serve_request *rest,
                       routes_inputs *source, routes_inputs *sentences, size_t width,
                       serve_response *out, serve_error *e)
{
    if (routes_count_inputs(s, one, "inputs.source_sentence", width, source, e) ||
        routes_count_inputs(s, rest, "inputs.sentences", width, sentences, e))
        return -1;
    serve_job a = routes_embed_job(s, one, source, width);
    serve_job b = routes_embed_job(s, rest, sentences, width);
    if (routes_submit_job(s, &a, e))
        return -1;
    serve_error b_error = {0};
    serve_response b_out = *out;
    const int b_queued = routes_submit_job(s, &b, &b_error) == 0;
    int rc = routes_wait_job(s, &a, out, e);
    if (b_queued && routes_wait_job(s, &b, &b_out, rc ? &b_error : e))
        rc = -1;
    if (!b_queued && rc == 0) {
        *e = b_error;
        return -1;
    }
    if (rc == 0 && b_out.compute_s > out->compute_s) /* one call, or the later of two */
        out->queue_s = b_out.queue_s, out->compute_s = b_out.compute_s;
    return rc;
}

/* The source's vector [1, width] and the sentences' [n - 1, width]: two
 * embeddings, so that each field names its own inputs in a refusal and
 * each may be of its own modality (an image model's images, or a whole
 * CLIP folder's texts or images: an image against captions is CLIP's
 * image-text similarity). Texts both share a call; otherwise the
 * sentences run after the source. */
static int embed_both(serve_server *s, const serve_route *route, const serve_request *q,
                      routes_inputs *source, routes_inputs *sentences, size_t *width,
                      serve_response *out, serve_error *e)
{
    serve_request one = *q, rest = *q;
    one.n = 1;
    rest.n = q->n - 1, rest.texts = q->texts + 1;
    *source = *sentences = (routes_inputs){0};
    if (routes_need_kind(s, route, e))
        return -1;
    const int source_images = image_inputs_wanted(s->p, &one, "inputs.source_sentence", e);
    const int sentence_images = source_images < 0
        ? -1
        : image_inputs_wanted(s->p, &rest, "inputs.sentences", e);
    if (sentence_images < 0)
        return -1;
    *width = (size_t)tf_pipeline_dim(s->p);
    int rc;
    if (!source_images && !sentence_images)
        rc = embed_texts(s, &one, &rest, source, sentences, *width, out, e);
    else {
        size_t rest_width;
        rc = routes_embed(s, route, &one, "inputs.source_sentence", source, width, out, e);
        const double queue_s = out->queue_s, compute_s = out->compute_s;
        if (rc == 0)
            rc = routes_embed(s, route, &rest, "inputs.sentences", sentences, &rest_width, out, e);
        if (rc == 0)
            out->queue_s += queue_s, out->compute_s += compute_s;
    }
    if (rc == 0)
        out->tokens = source->total + sentences->total;
    return rc;
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    routes_inputs source, sentences;
    size_t width;
    const int rc = embed_both(s, route, q, &source, &sentences, &width, out, e);
    if (rc == 0) {
        json_out o = {0};
        json_out_str(&o, "[");
        for (size_t i = 0; i + 1 < q->n; i++) {
            json_out_str(&o, i ? "," : "");
            json_out_float(&o, (float)cosine(source.out, sentences.out + i * width, width));
        }
        json_out_str(&o, "]");
        serve_respond_json(out, 200, &o);
    }
    routes_inputs_free(&source);
    routes_inputs_free(&sentences);
    return rc;
}

const serve_route route_similarity = {
    .path = "/similarity",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_KIND(TF_PIPELINE_EMBEDDING),
    .image_kind = SERVE_KIND(TF_PIPELINE_IMAGE_EMBEDDING),
    .parse = parse,
    .handle = handle,
    .summary = "Cosine similarity of a sentence with others (TEI)",
    .request_schema = "SimilarityRequest",
    .response_schema = "SimilarityResponse",
};
