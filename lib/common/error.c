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
