/* explain_image.h — `tfenc explain --model VISION_DIR --image FILE`: one
 * image through a vision tower (ViT, CLIP, SigLIP) traced (tfenc.h's
 * "Tracing an image"), printed step by step, or drawn as a page
 * (explain_image_html.c): the preprocessing, the patch grid, the patch
 * embeddings, the class token, the positions, every layer's tensors, the
 * attention of the class token (SigLIP: the attention a patch receives,
 * averaged over the queries; the head's probe at the end) over the image,
 * and the attention rollout across the layers.
 *
 * Dimension letters: H x W the pixel_values' size, p the patch side, P =
 * (H/p)(W/p) patches, T tokens (P + 1 with a class token), D the width, NH
 * heads, L layers. */
#ifndef TFENC_EXPLAIN_IMAGE_H
#define TFENC_EXPLAIN_IMAGE_H

#include <stdint.h>

#include "recording.h"
#include "tfenc.h"

typedef struct explain_image_options {
    const char *model, *image, *html;
    int32_t head; /* the head whose attention the text shows */
} explain_image_options;

/* What one traced image gives, read from the recording. */
typedef struct image_view {
    const char *model, *image;
    int32_t kind; /* tf_pipeline_kind */
    const recording *rec;
    const recorded *decoded, *resized; /* [H0, W0, 3], [H1, W1, 3] (NULL: no resize) */
    const recorded *pixel_values;      /* [1, 3, H, W] */
    const recorded *patches;           /* [1, P, D] */
    const recorded *class_token;       /* [D], or NULL (SigLIP) */
    const recorded *position;          /* [T, D] */
    const recorded *probe;             /* [1, NH, 1, T]: SigLIP's head, or NULL */
    int H, W, p, rows, cols, P, T, cls, D, heads, layers;
    int crop_top, crop_left; /* where the center crop starts in the resized image
                                (negative where it pads) */
    uint8_t *shown;          /* [H, W, 3]: the image the tower reads, before rescale and
                         normalise (the resized image center-cropped) */
    float *attention;        /* [L, NH, P]: the class token's attention to each patch;
                         without one, the mean over the queries of each
                         patch's column */
    float *rollout;          /* [P]: the class token's row of the rollout (SigLIP: the
                         probe's attention, heads averaged, times the rollout) */
    float *output;           /* [dim]: the pipeline's vector or label probabilities */
    int32_t dim;
} image_view;

/* `tfenc explain --image`: an exit status (0, CLI_FAILED, CLI_USAGE) after
 * the walkthrough on stdout, or the page written. */
int explain_image(const explain_image_options *o);

/* The page of a view (explain_image_html.c): 0, or -1 with a message
 * naming path in err; written whole or not at all. */
int explain_image_html_write(const char *path, const image_view *v, char *err, size_t err_size);

/* The layers' attention [L, NH, T, T] of the view's recording. */
const recorded *image_view_weights(const image_view *v, int layer);

#endif
