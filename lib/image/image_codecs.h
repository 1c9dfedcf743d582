/* image_codecs.h — what image_decode.c asks of each decoder (image_jpeg.c,
 * image_png.c, image_webp.c; image_codecs_absent.c in a build without
 * them) and what they share. */
#ifndef TF_IMAGE_CODECS_H
#define TF_IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

/* One decode call's bounds and name. */
typedef struct tf__image_request {
    int64_t max_pixels; /* > 0 */
    const char *label;  /* names the data in messages */
} tf__image_request;

/* The image as stored (not yet oriented), converted to RGB, into *out, and
 * the EXIF Orientation tag's value into *orientation (1 when none). On
 * failure *out is zeroed and nothing is held. */
tf_status tf__jpeg_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                          tf__image *out, int *orientation);
tf_status tf__png_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                         tf__image *out, int *orientation);
tf_status tf__webp_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                          tf__image *out, int *orientation);

/* TF_ERR_INVALID_ARGUMENT "<label>: a <format> image of <width> x <height>
 * = <product> pixels, above the limit of <max_pixels>" (or a side of 0:
 * TF_ERR_FORMAT), from a header's dimensions, before anything is allocated
 * for the pixels; TF_OK when they are within it. */
tf_status tf__image_check_size(uint64_t width, uint64_t height, const tf__image_request *req,
                               tf__image_format format);

/* The Orientation tag (0x0112) of EXIF data: a TIFF structure, optionally
 * after "Exif\0\0" (as PIL's Exif.load takes it); 1 when it has none or
 * cannot be read, else the tag's value as written. */
int tf__exif_orientation(const uint8_t *exif, size_t size);

/* img turned as PIL's exif_transpose turns it for orientation 2-8
 * (Image.transpose: 2 FLIP_LEFT_RIGHT, 3 ROTATE_180, 4 FLIP_TOP_BOTTOM,
 * 5 TRANSPOSE, 6 ROTATE_270, 7 TRANSVERSE, 8 ROTATE_90); any other value
 * leaves it as it is. On TF_ERR_OUT_OF_MEMORY img is unchanged. */
tf_status tf__image_orient(tf__image *img, int orientation);

#endif
