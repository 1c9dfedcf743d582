/* png_uri.c — an RGB image as a data: URI of a PNG: libpng encodes it into
 * memory (png_image_write_to_memory, libpng 1.6), then base64 (RFC 4648's
 * alphabet, '=' padding). */
#include "png_uri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TFENC_HAVE_LIBPNG
#include <png.h>

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* out (4 ceil(n / 3) + 1 bytes) = base64 of the n bytes of in, NUL-terminated. */
static void base64(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i += 3) {
        const size_t left = n - i;
        const uint32_t v = (uint32_t)in[i] << 16 | (left > 1 ? (uint32_t)in[i + 1] << 8 : 0) |
            (left > 2 ? in[i + 2] : 0);
        *out++ = base64_alphabet[v >> 18 & 63];
        *out++ = base64_alphabet[v >> 12 & 63];
        *out++ = left > 1 ? base64_alphabet[v >> 6 & 63] : '=';
        *out++ = left > 2 ? base64_alphabet[v & 63] : '=';
    }
    *out = '\0';
}

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
    if (ok && !(*uri = malloc(sizeof prefix + 4 * ((bytes + 2) / 3))))
        ok = 0;
    if (ok) {
        memcpy(*uri, prefix, sizeof prefix - 1);
        base64(*uri + sizeof prefix - 1, png, bytes);
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
