/* image_config.h — a model folder's preprocessor_config.json read as
 * transformers' CLIPImageProcessor, SiglipImageProcessor and
 * ViTImageProcessor read it (their __init__ defaults, get_size_dict), into
 * image/image_preprocess.h's tf__image_preprocess.
 *
 * The class is image_processor_type, else feature_extractor_type with
 * FeatureExtractor read as ImageProcessor (AutoImageProcessor's rule); any
 * other class (the torchvision "...Fast" ones included, which resize
 * otherwise) is TF_ERR_UNSUPPORTED naming it. Each class reads only the
 * fields its preprocess() takes; a field of the wrong type or range is
 * TF_ERR_FORMAT "<label>: <key> must be <what>, got <value>":
 *   do_resize, do_center_crop (CLIP), do_rescale, do_normalize: booleans;
 *   size: an integer (CLIP: shortest_edge; ViT: height = width; SigLIP
 *     refuses it, as its resize reads size["height"]), {"shortest_edge"}
 *     (CLIP), {"height", "width"}, or [height, width]; longest_edge and
 *     the other size forms are TF_ERR_UNSUPPORTED;
 *   crop_size (CLIP): an integer, {"height", "width"} or [height, width];
 *   every side an integer in 1..TF_IMAGE_MAX_SIDE;
 *   resample: 1..5 (0, NEAREST, TF_ERR_UNSUPPORTED);
 *   rescale_factor: a finite number;
 *   image_mean, image_std: a number (for every channel) or 3 numbers, the
 *     stds non-zero;
 *   do_convert_rgb: a boolean or null (decoded images are RGB either way). */
#ifndef TF_IMAGE_CONFIG_H
#define TF_IMAGE_CONFIG_H

#include <stddef.h>

#include "image_preprocess.h"
#include "tfenc.h"

typedef enum tf__image_processor {
    TF_IMAGE_PROCESSOR_CLIP = 0,
    TF_IMAGE_PROCESSOR_SIGLIP = 1,
    TF_IMAGE_PROCESSOR_VIT = 2,
    TF_IMAGE_PROCESSOR_COUNT = 3
} tf__image_processor;

/* "CLIPImageProcessor", "SiglipImageProcessor", "ViTImageProcessor". */
const char *tf__image_processor_name(tf__image_processor kind);

/* The class's defaults when preprocessor_config.json says nothing
 * (transformers' __init__ arguments). */
void tf__image_processor_defaults(tf__image_processor kind, tf__image_preprocess *p);

/* len bytes of JSON text (label names it in messages) into *kind and *p. */
tf_status tf__image_config_parse(const char *text, size_t len, const char *label,
                                 tf__image_processor *kind, tf__image_preprocess *p);

/* The file at path, read and parsed as tf__image_config_parse. */
tf_status tf__image_config_read(const char *path, tf__image_processor *kind,
                                tf__image_preprocess *p);

#endif
