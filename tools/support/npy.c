/* npy.c — a minimal reader (format versions 1 to 3) and writer (version 1)
 * of NumPy's .npy files. The reader trusts no length in the file: the
 * header and the data must fit in the file's own size. */
#include "npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_header(const char *h, npy_array *out, char *err, size_t err_size)
{
    const char *descr = strstr(h, "'descr':");
    const char *order = strstr(h, "'fortran_order':");
    const char *shape = strstr(h, "'shape':");
    if (!descr || !order || !shape) {
        snprintf(err, err_size, "header lacks descr/fortran_order/shape: %s", h);
        return -1;
    }
    if (strstr(descr, "'<f4'"))
        out->dtype = 'f';
    else if (strstr(descr, "'<i4'"))
        out->dtype = 'i';
    else {
        snprintf(err, err_size, "unsupported dtype in %s", h);
        return -1;
    }
    if (strncmp(order + strlen("'fortran_order':"), " False", 6) != 0) {
        snprintf(err, err_size, "Fortran order is not supported");
        return -1;
    }
    const char *p = strchr(shape, '(');
    out->rank = 0;
    out->count = 1;
    while (p && *++p && *p != ')') {
        char *end;
        long long d = strtoll(p, &end, 10);
        if (end == p)
            continue;
        if (out->rank == 8 || d < 0) {
            snprintf(err, err_size, "bad shape in %s", h);
            return -1;
        }
        out->dims[out->rank++] = d;
        /* saturated, for the reader to compare with the file's size */
        out->count = d && out->count > SIZE_MAX / (size_t)d ? SIZE_MAX : out->count * (size_t)d;
        p = end - 1;
    }
    return 0;
}

int npy_read(const char *path, npy_array *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (err_size)
        err[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    unsigned char pre[10];
    int rc = -1;
    char *header = NULL;
    const long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        goto done;
    }
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        snprintf(err, err_size, "%s: not a .npy file", path);
        goto done;
    }
    size_t header_len = pre[8] | (size_t)pre[9] << 8;
    if (pre[6] >= 2) { /* 4-byte header length */
        unsigned char more[2];
        if (fread(more, 1, 2, f) != 2)
            goto done;
        header_len |= (size_t)more[0] << 16 | (size_t)more[1] << 24;
    }
    const long data_at = (pre[6] >= 2 ? 12 : 10) + (long)header_len;
    if (data_at > size) {
        snprintf(err, err_size, "%s: a header of %zu bytes in a file of %ld", path, header_len,
                 size);
        goto done;
    }
    header = calloc(1, header_len + 1);
    if (!header || fread(header, 1, header_len, f) != header_len ||
        parse_header(header, out, err, err_size) != 0)
        goto done;
    if (out->count > (size_t)(size - data_at) / 4) {
        snprintf(err, err_size, "%s: the shape holds more values than the file's %ld bytes of data",
                 path, size - data_at);
        goto done;
    }
    out->data = malloc(out->count * 4 + 1);
    if (!out->data || fread(out->data, 4, out->count, f) != out->count) {
        snprintf(err, err_size, "%s: truncated data", path);
        goto done;
    }
    rc = 0;
done:
    if (rc != 0 && !err[0])
        snprintf(err, err_size, "%s: malformed", path);
    if (rc != 0)
        npy_free(out);
    free(header);
    fclose(f);
    return rc;
}

void npy_free(npy_array *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

int npy_fwrite(FILE *f, const char *descr, size_t item_bytes, const void *data, int rank,
               const int64_t *dims)
{
    char header[256];
    int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    size_t count = 1;
    for (int i = 0; i < rank; i++) {
        n += snprintf(header + n, sizeof header - (size_t)n,
                      rank == 1 ? "%lld,"
                          : i   ? ", %lld"
                                : "%lld",
                      (long long)dims[i]);
        count *= (size_t)dims[i];
    }
    n += snprintf(header + n, sizeof header - (size_t)n, "), }");
    /* magic (6) + version (2) + length (2) + header + '\n', padded to 64 */
    const int total = (10 + n + 1 + 63) / 64 * 64;
    const int pad = total - 10 - n - 1;
    const unsigned char prefix[10] = {0x93,
                                      'N',
                                      'U',
                                      'M',
                                      'P',
                                      'Y',
                                      1,
                                      0,
                                      (unsigned char)((total - 10) & 0xff),
                                      (unsigned char)((total - 10) >> 8)};
    int ok = fwrite(prefix, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
    for (int i = 0; ok && i < pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF && fwrite(data, item_bytes, count, f) == count;
    return ok ? 0 : -1;
}

int npy_fwrite_f32(FILE *f, const float *data, int rank, const int64_t *dims)
{
    return npy_fwrite(f, "<f4", sizeof *data, data, rank, dims);
}
