/* image_codecs_absent.c — the decoders of a library built without
 * libjpeg, libpng and libwebp (-Dimages=disabled, or auto without them):
 * every image is TF_ERR_UNSUPPORTED, naming the build option. */
#include "error.h"
#include "image_codecs.h"

static tf_status absent(const tf__image_request *req, tf__image_format format)
{
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: a %s image, and this libtfenc was built without image decoding "
                    "(meson -Dimages=enabled needs libjpeg, libpng and libwebp)",
                    req->label, tf__image_format_name(format));
}

tf_status tf__jpeg_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                          tf__image *out, int *orientation)
{
    return absent(req, TF_IMAGE_JPEG);
}

tf_status tf__png_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                         tf__image *out, int *orientation)
{
    return absent(req, TF_IMAGE_PNG);
}

tf_status tf__webp_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                          tf__image *out, int *orientation)
{
    return absent(req, TF_IMAGE_WEBP);
}
