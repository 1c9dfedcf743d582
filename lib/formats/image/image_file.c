/* image_file.c — an image file into an RGB image (image_file.h). */
#include "image_file.h"

#include "alloc.h"
#include "file.h"

tf_status tf__image_read_file(const char *path, int64_t max_pixels, tf__image *out)
{
    char *bytes;
    size_t len;
    tf_status st = tf__file_read_all(path, TF_IMAGE_MAX_FILE_BYTES, &bytes, &len);
    if (st != TF_OK) {
        *out = (tf__image){0};
        return st;
    }
    st = tf__image_decode((const uint8_t *)bytes, len, max_pixels, path, out);
    tf__free(bytes);
    return st;
}
