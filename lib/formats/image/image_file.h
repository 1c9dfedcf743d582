/* image_file.h — an image file read and decoded (image/image.h's rules;
 * the file read as file.h reads: a regular file only). */
#ifndef TF_IMAGE_FILE_H
#define TF_IMAGE_FILE_H

#include <stdint.h>

#include "image.h"
#include "tfenc.h"

/* The largest image file read: 256 MiB. */
#define TF_IMAGE_MAX_FILE_BYTES (256u << 20)

/* The image in the file at path into *out (tf__image_free it), its pixels
 * bounded by max_pixels (TF_IMAGE_MAX_PIXELS by default); messages name the
 * path. */
tf_status tf__image_read_file(const char *path, int64_t max_pixels, tf__image *out);

#endif
