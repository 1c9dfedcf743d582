/* error.h — status values with a thread-local message. */
#ifndef TF_ERROR_H
#define TF_ERROR_H

#include "tfenc.h"

/* Sets this thread's message (printf-style) and returns `status`, so that a
 * failure reads `return tf__fail(TF_ERR_SHAPE, "...", ...);`. */
tf_status tf__fail(tf_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Writes "[d0, d1, ...]" into buf (always NUL-terminated). */
void tf__format_shape(char *buf, size_t buf_size, int32_t rank, const int64_t *dims);

#endif
