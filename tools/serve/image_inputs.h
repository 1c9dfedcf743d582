/* image_inputs.h — image inputs of /v1/embeddings, /embed and /predict:
 * each a data URI (RFC 2397) of a PNG, JPEG or WebP file in base64,
 * "data:image/png;base64,iVBOR...", whose bytes the library decodes
 * (tf_pipeline_embed_images). Which inputs are images: the request's
 * "modality" (infinity's field: "image" or "text"), else the model's: an
 * image model's inputs are images; a text model's are texts, and one that
 * is a data URI of an image is refused unless "modality": "text" asks for
 * its text to be embedded; a model that takes both (a whole CLIPModel or
 * SiglipModel folder: an image model with a tokenizer) takes images when
 * every input is a data URI, texts when none is. Every refusal is 400
 * (TEI's 422) naming the field, the input's index and what it got; an
 * empty image is TEI's Empty. */
#ifndef SERVE_IMAGE_INPUTS_H
#define SERVE_IMAGE_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "route_model.h"

/* The data URI's start every image input has: "data:image/". */
#define IMAGE_INPUTS_PREFIX "data:image/"

/* 1 when q's inputs (named field) are images for p, 0 when they are texts;
 * -1 with *e: images to a text model, texts or token ids to an image model
 * without a text tower, images and texts mixed without "modality". */
int image_inputs_wanted(const tf_pipeline *p, const serve_request *q, const char *field,
                        serve_error *e);

/* Embeds q's image inputs (named field) into in->out [n, width] (width:
 * the model's dim; q's "dimensions" and "prompt_name" are refused), unit
 * rows with q->normalize 1 and as the model gives them otherwise (-1, 0),
 * through the batcher; in->tokens zeros. 0, or -1 with *e. */
int image_inputs_embed(serve_server *s, const serve_request *q, const char *field, size_t width,
                       routes_inputs *in, serve_response *out, serve_error *e);

/* The label probabilities [n, labels] of the images uris[0..n) (named
 * field) into in->out, through the batcher. 0, or -1 with *e. */
int image_inputs_classify(serve_server *s, const char *const *uris, size_t n, const char *field,
                          size_t labels, routes_inputs *in, serve_response *out, serve_error *e);

#endif
