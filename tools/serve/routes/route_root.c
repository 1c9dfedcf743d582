/* route_root.c — POST /, TEI's route for the model's kind
 * (router/src/http/server.rs): /embed for an embedding model (an image one's
 * too), /embed_sparse for a SPLADE one, /predict for a classifier (an image
 * one's too), /rerank for a cross-encoder
 * (a reranker); /embed_all for a ColBERT one (not TEI's); what
 * @huggingface/inference posts to when given the server's URL. */
#include "route_model.h"

extern const serve_route route_embed, route_embed_all, route_embed_sparse, route_predict,
    route_rerank;

static const serve_route *runs(const serve_server *s)
{
    switch ((tf_pipeline_kind)tf_pipeline_kind_of(s->p)) {
    case TF_PIPELINE_CROSS_ENCODER:
        return &route_rerank;
    case TF_PIPELINE_CLASSIFIER:
    case TF_PIPELINE_IMAGE_CLASSIFIER:
        return &route_predict;
    case TF_PIPELINE_SPARSE:
    case TF_PIPELINE_FILL_MASK: /* served as SPLADE (--pooling splade) */
        return &route_embed_sparse;
    case TF_PIPELINE_MULTI_VECTOR: /* ColBERT's vectors: every token's */
        return &route_embed_all;
    case TF_PIPELINE_EMBEDDING:
    case TF_PIPELINE_IMAGE_EMBEDDING:  /* images as data URIs */
    case TF_PIPELINE_TOKEN_CLASSIFIER: /* refused when the server starts */
        break;
    }
    return &route_embed;
}

const serve_route route_root = {
    .path = "/",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .runs = runs,
    .summary = "The model's route: /embed, /embed_sparse, /embed_all, /predict or /rerank as its "
               "kind is",
};
