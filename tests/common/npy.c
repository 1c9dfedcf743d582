/* npy.c — a minimal reader of NumPy's .npy format (versions 1 to 3). */
#include "npy.h"

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
        out->count *= (size_t)d;
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
        snprintf(err, err_size, "%s: cannot open", path);
        return -1;
    }
    unsigned char pre[10];
    int rc = -1;
    char *header = NULL;
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
    header = calloc(1, header_len + 1);
    if (!header || fread(header, 1, header_len, f) != header_len ||
        parse_header(header, out, err, err_size) != 0)
        goto done;
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
