/* png_uri.c — an RGB image as a data: URI of a PNG: libpng encodes it into
 * memory (png_image_write_to_memory, libpng 1.6), then base64 (RFC 4648's
 * alphabet, '=' padding). */
#include "png_uri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

#ifdef TFENC_HAVE_LIBPNG
#include <png.h>

int png_data_uri(const uint8_t *rgb, int height, int width, char **uri, char *err, size_t err_size)
{
    static const char prefix[] = "data:image/png;base64,";
    *uri = NULL;
    png_image image = {.version = PNG_IMAGE_VERSION,
                       .width = (png_uint_32)width,
                       .height = (png_uint_32)height,
                       .format = PNG_FORMAT_RGB};
    png_alloc_size_t bytes = 0;
    uint8_t *png = NULL;
    /* the first call sizes the file, the second writes it */
    int ok = png_image_write_to_memory(&image, NULL, &bytes, 0, rgb, 0, NULL) &&
        (png = malloc(bytes)) != NULL &&
        png_image_write_to_memory(&image, png, &bytes, 0, rgb, 0, NULL);
    if (ok && !(*uri = malloc(sizeof prefix + tf__base64_length(bytes))))
        ok = 0;
    if (ok) {
        memcpy(*uri, prefix, sizeof prefix - 1);
        tf__base64_encode(png, bytes, *uri + sizeof prefix - 1);
        (*uri)[sizeof prefix - 1 + tf__base64_length(bytes)] = '\0';
    } else {
        snprintf(err, err_size, "cannot encode the %d x %d image as PNG: %s", width, height,
                 image.message[0] ? image.message : "out of memory");
    }
    png_image_free(&image);
    free(png);
    return ok ? 0 : -1;
}
#else
int png_data_uri(const uint8_t *rgb, int height, int width, char **uri, char *err, size_t err_size)
{
    (void)rgb;
    *uri = NULL;
    snprintf(err, err_size,
             "cannot draw the %d x %d image: this tfenc was built without libpng (the images "
             "feature)",
             width, height);
    return -1;
}
#endif
