/* error.c — tf_status names and the thread-local last-error message. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

tf_status tf_fail(tf_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

void tf_format_shape(char *buf, size_t buf_size, int32_t rank, const int64_t *dims)
{
    size_t used = 0;
    int n = snprintf(buf, buf_size, "[");
    for (int32_t i = 0; n >= 0 && i < rank; i++) {
        used += (size_t)n;
        if (used >= buf_size)
            return;
        n = snprintf(buf + used, buf_size - used, i ? ", %lld" : "%lld", (long long)dims[i]);
    }
    if (n >= 0 && used + (size_t)n < buf_size)
        snprintf(buf + used + (size_t)n, buf_size - used - (size_t)n, "]");
}

const char *tf_last_error(void)
{
    return last_error;
}

const char *tf_status_name(tf_status status)
{
    switch (status) {
    case TF_OK: return "TF_OK";
    case TF_ERR_INVALID_ARGUMENT: return "TF_ERR_INVALID_ARGUMENT";
    case TF_ERR_SHAPE: return "TF_ERR_SHAPE";
    case TF_ERR_OUT_OF_MEMORY: return "TF_ERR_OUT_OF_MEMORY";
    case TF_ERR_IO: return "TF_ERR_IO";
    case TF_ERR_FORMAT: return "TF_ERR_FORMAT";
    case TF_ERR_UNSUPPORTED: return "TF_ERR_UNSUPPORTED";
    case TF_ERR_NOT_FOUND: return "TF_ERR_NOT_FOUND";
    }
    return "TF_ERR_UNKNOWN";
}
