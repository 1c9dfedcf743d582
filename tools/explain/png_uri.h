/* png_uri.h — an RGB image as a data: URI of a PNG file (libpng's
 * simplified write API), for a page that fetches nothing. */
#ifndef TFENC_PNG_URI_H
#define TFENC_PNG_URI_H

#include <stddef.h>
#include <stdint.h>

/* *uri (malloc'ed, NUL-terminated) = "data:image/png;base64,..." of rgb
 * [height, width, 3]: 0, or -1 with a message in err (no libpng in this
 * build, or an allocation that failed). */
int png_data_uri(const uint8_t *rgb, int height, int width, char **uri, char *err, size_t err_size);

#endif
