/* file_message.c — tf_fail for the tool's copy of lib/common/file.c. */
#include "file_message.h"

#include <stdarg.h>
#include <stdio.h>

#include "error.h"

static _Thread_local char message[512];

tf_status tf_fail(tf_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return status;
}

const char *file_message(void)
{
    return message;
}
