/* image_inputs.c — data URIs to image bytes, and image jobs for the batcher. */
#define _POSIX_C_SOURCE 200809L
#include "image_inputs.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base64.h"
#include "utf8.h"

/* The media types an image input may have, and the first bytes of their
 * files (PNG's signature; JPEG's SOI and a marker; WebP's "RIFF" at 0 and
 * "WEBP" at 8, the size between them any). */
typedef struct image_type {
    const char *mime;
    const char *name;
    const char *magic;
    size_t magic_len, magic_at;
} image_type;

static const image_type image_types[] = {
    {"image/png", "a PNG", "\x89PNG\r\n\x1a\n", 8, 0},
    {"image/jpeg", "a JPEG", "\xff\xd8\xff", 3, 0},
    {"image/webp", "a WebP", "WEBP", 4, 8},
};
enum { IMAGE_TYPES = sizeof image_types / sizeof image_types[0] };

/* What a message lists as the taken forms. */
#define DATA_URI_FORMS "data:image/png;base64,..., image/jpeg or image/webp"

/* A request's images decoded from their data URIs. */
typedef struct image_bytes {
    uint8_t **data; /* [n] each image's bytes (malloc'ed) */
    size_t *sizes;  /* [n] */
    size_t n;
} image_bytes;

static void image_bytes_free(image_bytes *im)
{
    for (size_t i = 0; im->data && i < im->n; i++)
        free(im->data[i]);
    free(im->data);
    free(im->sizes);
    *im = (image_bytes){0};
}

static int is_image_model(const tf_pipeline *p)
{
    const int32_t kind = tf_pipeline_kind_of(p);
    return kind == TF_PIPELINE_IMAGE_EMBEDDING || kind == TF_PIPELINE_IMAGE_CLASSIFIER;
}

/* Whether text starts as an image's data URI (the scheme and type are
 * case-insensitive, RFC 2397 and RFC 2045). */
static int looks_like_image(const char *text)
{
    return text && strncasecmp(text, IMAGE_INPUTS_PREFIX, strlen(IMAGE_INPUTS_PREFIX)) == 0;
}

/* Refused: a text model's input i that looks like an image. */
static int refuse_image_text(const char *field, size_t i, const char *kind, serve_error *e)
{
    return serve_error_set(e, 400, field,
                           "%s[%zu]: a data URI of an image, but this server's model is %s, "
                           "which takes texts; send \"modality\": \"text\" to embed it as text",
                           field, i, kind);
}

/* Without "modality", on a model that takes both: images when every input
 * is a data URI of one, texts when none is; 1, 0, or -1 with *e for a mix. */
static int one_modality(const serve_request *q, const char *field, const char *kind, serve_error *e)
{
    const int first = looks_like_image(q->texts[0]);
    for (size_t i = 1; i < q->n; i++)
        if (looks_like_image(q->texts[i]) != first)
            return serve_error_set(e, 400, field,
                                   "%s[%zu] is %s, but %s[0] is %s: this server's model (%s) "
                                   "takes both, one kind a request; send them as two requests, "
                                   "or say which with \"modality\"",
                                   field, i, first ? "a text" : "an image", field,
                                   first ? "an image" : "a text", kind);
    return first;
}

int image_inputs_wanted(const tf_pipeline *p, const serve_request *q, const char *field,
                        serve_error *e)
{
    const char *kind = tf_pipeline_kind_name(tf_pipeline_kind_of(p));
    const int images = is_image_model(p), texts = tf_pipeline_tokenizer(p) != NULL;
    if (q->modality == SERVE_MODALITY_IMAGE && !images)
        return serve_error_set(e, 400, "modality",
                               "modality \"image\": this server's model is %s, which takes "
                               "texts; send texts, or serve an image model",
                               kind);
    if (q->modality == SERVE_MODALITY_TEXT && !texts)
        return serve_error_set(e, 400, "modality",
                               "modality \"text\": this server's model is %s, which takes "
                               "images; send each of %s as a data URI (%s) with \"modality\": "
                               "\"image\"",
                               kind, field, DATA_URI_FORMS);
    if (q->ids && q->modality == SERVE_MODALITY_IMAGE)
        return serve_error_set(e, 400, field,
                               "%s: token ids, but \"modality\": \"image\" takes images as data "
                               "URIs (%s)",
                               field, DATA_URI_FORMS);
    if (q->ids && !texts)
        return serve_error_set(e, 400, field,
                               "%s: token ids, but this server's model is %s, which takes images "
                               "as data URIs (%s)",
                               field, kind, DATA_URI_FORMS);
    if (q->modality != SERVE_MODALITY_MODEL || q->ids)
        return q->modality == SERVE_MODALITY_IMAGE;
    if (!images) {
        for (size_t i = 0; i < q->n; i++)
            if (looks_like_image(q->texts[i]) || (q->pairs && looks_like_image(q->pairs[i])))
                return refuse_image_text(field, i, kind, e);
        return 0;
    }
    return texts ? one_modality(q, field, kind, e) : 1;
}

/* The bytes of base64 text b64[0..len) (RFC 4648's alphabet; its '='
 * padding, or none) into *out (malloc'ed), *size of them. */
static int base64_decode(const char *b64, size_t len, const char *field, size_t i, uint8_t **out,
                         size_t *size, serve_error *e)
{
    size_t bad_at = 0;
    switch (tf__base64_decode(b64, len, 0, out, size, &bad_at)) {
    case TF__BASE64_OK:
        return 0;
    case TF__BASE64_LENGTH:
        return serve_error_set(e, 400, field,
                               "%s[%zu]: the data URI's base64 is %zu characters long, which "
                               "no bytes encode (4 for every 3 bytes, padded with '=')",
                               field, i, len);
    case TF__BASE64_CHARACTER:
        return serve_error_set(e, 400, field,
                               "%s[%zu]: the data URI's base64 has byte 0x%02x at %zu, "
                               "which is not base64 (A-Z, a-z, 0-9, '+', '/', '=' at the "
                               "end)",
                               field, i, (unsigned)(unsigned char)b64[bad_at], bad_at);
    default:
        return serve_error_set(e, 500, "", "out of memory for an image of %zu bytes", len);
    }
}

/* The image type whose media type is uri's (between "data:" and the
 * first ';' or ','), or NULL. */
static const image_type *type_of(const char *uri, size_t len)
{
    for (size_t t = 0; t < IMAGE_TYPES; t++)
        if (strlen(image_types[t].mime) == len && strncasecmp(uri, image_types[t].mime, len) == 0)
            return &image_types[t];
    return NULL;
}

/* The type whose first bytes data[0..size) has, or NULL. */
static const image_type *type_of_bytes(const uint8_t *data, size_t size)
{
    for (size_t t = 0; t < IMAGE_TYPES; t++) {
        const image_type *it = &image_types[t];
        if (size >= it->magic_at + it->magic_len &&
            memcmp(data + it->magic_at, it->magic, it->magic_len) == 0)
            return it;
    }
    return NULL;
}

/* Input i (uri, named field[i]) as an image's bytes: a data URI
 * "data:<type>[;parameters];base64,<data>" of a type of image_types whose
 * bytes are not another type's. */
static int decode_uri(const char *uri, const char *field, size_t i, const char *kind, uint8_t **out,
                      size_t *size, serve_error *e)
{
    const int quoted = tf__utf8_prefix(uri, SERVE_QUOTE_BYTES);
    if (strncasecmp(uri, "data:", 5) != 0)
        return serve_error_set(e, 400, field,
                               "%s[%zu]: expected an image as a data URI (%s: this server's "
                               "model is %s), got \"%.*s\"",
                               field, i, DATA_URI_FORMS, kind, quoted, uri);
    const char *head = uri + 5, *comma = strchr(head, ',');
    if (!comma)
        return serve_error_set(e, 400, field,
                               "%s[%zu]: a data URI without the ',' before its data: \"%.*s\"",
                               field, i, quoted, uri);
    const size_t type_len = strcspn(head, ";,");
    const image_type *type = type_of(head, type_len);
    if (!type)
        return serve_error_set(e, 400, field,
                               "%s[%zu]: a data URI of type \"%.*s\"; expected image/png, "
                               "image/jpeg or image/webp",
                               field, i, tf__utf8_prefix(head, type_len < 64 ? type_len : 64),
                               head);
    if (comma - head < 7 || strncasecmp(comma - 7, ";base64", 7) != 0)
        return serve_error_set(e, 400, field,
                               "%s[%zu]: a data URI without \";base64\" before its ',': "
                               "expected the image's bytes in base64 (%s)",
                               field, i, DATA_URI_FORMS);
    const size_t len = strlen(comma + 1);
    if (len == 0)
        return serve_error_empty(
            e, field, "%s[%zu]: an empty image (nothing after the data URI's ',')", field, i);
    if (base64_decode(comma + 1, len, field, i, out, size, e))
        return -1;
    const image_type *got = type_of_bytes(*out, *size);
    if (got && got != type) {
        free(*out);
        *out = NULL;
        return serve_error_set(e, 400, field,
                               "%s[%zu]: the data URI says %s, but its bytes are %s file", field, i,
                               type->mime, got->name);
    }
    return 0;
}

/* uris[0..n) decoded into *im. */
static int decode_all(const tf_pipeline *p, const char *const *uris, size_t n, const char *field,
                      image_bytes *im, serve_error *e)
{
    *im = (image_bytes){
        .data = calloc(n, sizeof *im->data), .sizes = calloc(n, sizeof *im->sizes), .n = n};
    if (!im->data || !im->sizes)
        return serve_error_set(e, 500, "", "out of memory for %zu images", n);
    const char *kind = tf_pipeline_kind_name(tf_pipeline_kind_of(p));
    for (size_t i = 0; i < n; i++)
        if (decode_uri(uris[i], field, i, kind, &im->data[i], &im->sizes[i], e))
            return -1;
    return 0;
}

/* The images uris[0..n) through the batcher as task: in->out [n, width]. A
 * refused image (its bytes, its size) is 400 naming field and the image's
 * index (the library's message); other failures as routes_run_job says. */
static int run_images(serve_server *s, const char *const *uris, size_t n, const char *field,
                      serve_task task, int32_t normalize, size_t width, routes_inputs *in,
                      serve_response *out, serve_error *e)
{
    *in = (routes_inputs){0};
    image_bytes im;
    int rc = decode_all(s->p, uris, n, field, &im, e);
    in->tokens = calloc(n, sizeof *in->tokens);
    in->out = malloc(n * width * sizeof *in->out);
    if (rc == 0 && (!in->tokens || !in->out))
        rc = serve_error_set(e, 500, "", "out of memory for %zu images", n);
    serve_job job = {.task = task,
                     .normalize = normalize,
                     .n = n,
                     .images = (const uint8_t *const *)im.data,
                     .image_sizes = im.sizes,
                     .tokens = in->tokens,
                     .out = in->out,
                     .width = width};
    if (rc == 0)
        rc = routes_run_job(s, &job, out, e);
    if (rc &&
        (job.status == TF_ERR_FORMAT || job.status == TF_ERR_UNSUPPORTED ||
         job.status == TF_ERR_INVALID_ARGUMENT))
        serve_error_set(e, 400, field, "%s: %s", field, job.message);
    image_bytes_free(&im);
    return rc;
}

int image_inputs_embed(serve_server *s, const serve_request *q, const char *field, size_t width,
                       routes_inputs *in, serve_response *out, serve_error *e)
{
    *in = (routes_inputs){0};
    const int32_t dim = tf_pipeline_dim(s->p);
    if (width != (size_t)dim)
        return serve_error_set(e, 400, "dimensions",
                               "dimensions: %d, but an image's vector is whole (%d values); "
                               "leave it out",
                               (int)width, (int)dim);
    if (q->prompt_name)
        return serve_error_set(e, 400, "prompt_name",
                               "prompt_name: images have no prompt; leave it out");
    return run_images(s, q->texts, q->n, field, SERVE_TASK_EMBED_IMAGES, q->normalize == 1, width,
                      in, out, e);
}

int image_inputs_classify(serve_server *s, const char *const *uris, size_t n, const char *field,
                          size_t labels, routes_inputs *in, serve_response *out, serve_error *e)
{
    return run_images(s, uris, n, field, SERVE_TASK_CLASSIFY_IMAGES, 0, labels, in, out, e);
}
