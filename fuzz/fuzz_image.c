/* fuzz_image.c — the image decoder on arbitrary bytes (JPEG, PNG, WebP by
 * their magic), bounded at 2^20 pixels so that a large valid header is a
 * refusal, not a slow run; a decoded image is then preprocessed as CLIP's
 * processor does at a small size (resize by shortest edge, center crop,
 * rescale, normalise), which meets every aspect ratio the decoder gives. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "image.h"
#include "image/image_config.h"
#include "image_preprocess.h"

#define FUZZ_MAX_PIXELS (1 << 20)
#define FUZZ_SIDE 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tf__image img;
    if (tf__image_decode(data, size, FUZZ_MAX_PIXELS, "fuzz", &img) != TF_OK)
        return 0;
    tf__image_preprocess p;
    tf__image_processor_defaults(TF_IMAGE_PROCESSOR_CLIP, &p);
    p.shortest_edge = FUZZ_SIDE;
    p.crop_height = p.crop_width = FUZZ_SIDE;
    p.resample = (tf__resample)(1 + size % 5);   /* each of PIL's convolution filters */
    static float out[3 * FUZZ_SIDE * FUZZ_SIDE]; /* [3, side, side] */
    tf__image_preprocess_run(&p, &img, FUZZ_MAX_PIXELS, out, sizeof out / sizeof out[0]);
    tf__image_free(&img);
    return 0;
}
