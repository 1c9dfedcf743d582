/* image_preprocess.h — an RGB image into a model's pixel_values, exactly as
 * transformers' CLIPImageProcessor, SiglipImageProcessor and
 * ViTImageProcessor compute them (their preprocess(), on a uint8 image):
 *   1. resize   image_transforms.resize: PIL's Image.resize on the uint8
 *               image (reducing_gap None), to shortest_edge
 *               (get_resize_output_image_size, default_to_square False:
 *               the long side int(shortest_edge * long / short)) or to
 *               height x width; PIL's filters and two passes, 8-bit
 *               between them (tf__image_resize);
 *   2. crop     image_transforms.center_crop: top = (H - crop_h) // 2,
 *               left = (W - crop_w) // 2, zero-padded where the image is
 *               smaller;
 *   3. rescale  image_transforms.rescale: float32(float64(v) * factor);
 *   4. normalise image_transforms.normalize: (x - mean) / std in float32;
 *   5. layout   channels first: pixel_values [3, H, W].
 * Steps a config turns off are skipped; a uint8 value not rescaled is its
 * float32. Every image here is [H, W, 3]: transformers infers channels
 * first for an image of height 1 or 3 (image_utils'
 * infer_channel_dimension_format) and so misreads or refuses it. */
#ifndef TF_IMAGE_PREPROCESS_H
#define TF_IMAGE_PREPROCESS_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "tfenc.h"

/* PIL's Image.Resampling values, as preprocessor_config.json's resample
 * writes them. NEAREST (0) is not a convolution and is not offered. */
typedef enum tf__resample {
    TF_RESAMPLE_NEAREST = 0,
    TF_RESAMPLE_LANCZOS = 1,
    TF_RESAMPLE_BILINEAR = 2,
    TF_RESAMPLE_BICUBIC = 3,
    TF_RESAMPLE_BOX = 4,
    TF_RESAMPLE_HAMMING = 5,
    TF_RESAMPLE_COUNT = 6
} tf__resample;

/* PIL's name of a resample value ("BICUBIC"), "unknown" past them. */
const char *tf__resample_name(int resample);

/* The largest side a config may ask for (sizes and crops). */
#define TF_IMAGE_MAX_SIDE 16384

/* What preprocessor_config.json asks for (formats/image/image_config.h
 * reads it), in the processors' terms. */
typedef struct tf__image_preprocess {
    int32_t do_resize;
    int32_t shortest_edge;               /* > 0: resize to it (CLIP); 0: to height x width */
    int32_t resize_height, resize_width; /* when shortest_edge is 0 */
    tf__resample resample;
    int32_t do_center_crop;
    int32_t crop_height, crop_width;
    int32_t do_rescale;
    double rescale_factor;
    int32_t do_normalize;
    float mean[3], std[3]; /* float32, as normalize makes them */
} tf__image_preprocess;

/* TF_OK, or TF_ERR_INVALID_ARGUMENT naming the first field out of range:
 * sizes in 1..TF_IMAGE_MAX_SIDE where used, a resample other than NEAREST,
 * a finite rescale_factor, finite means, finite non-zero stds. */
tf_status tf__image_preprocess_check(const tf__image_preprocess *p);

/* The height x width of the image after resizing an in_h x in_w one (the
 * size itself when do_resize is off). */
void tf__image_resized_size(const tf__image_preprocess *p, int32_t in_h, int32_t in_w, int32_t *h,
                            int32_t *w);

/* The pixel_values' height x width for an in_h x in_w image. */
void tf__image_output_size(const tf__image_preprocess *p, int32_t in_h, int32_t in_w, int32_t *h,
                           int32_t *w);

/* in preprocessed into out, float32 [3, H, W] with H x W from
 * tf__image_output_size; out_len, the floats out holds, below 3 H W is
 * TF_ERR_SHAPE naming both. A resized image of more than max_pixels
 * (shortest_edge on a long thin image) is TF_ERR_INVALID_ARGUMENT naming
 * its size and the limit, before it is allocated. */
tf_status tf__image_preprocess_run(const tf__image_preprocess *p, const tf__image *in,
                                   int64_t max_pixels, float *out, size_t out_len);

/* in resized to out_h x out_w into *out (tf__image_free it), as Pillow's
 * ImagingResample (libImaging/Resample.c) resizes a uint8 RGB image: each
 * output pixel's filter centred on it, its support widened by the
 * downscale factor (the antialiasing), the coefficients normalised to sum
 * 1 then fixed-point with 22 fraction bits, a horizontal pass then a
 * vertical one, each rounded and clipped to uint8; a side of equal size
 * skips its pass. */
tf_status tf__image_resize(const tf__image *in, int32_t out_h, int32_t out_w, tf__resample resample,
                           tf__image *out);

#endif
