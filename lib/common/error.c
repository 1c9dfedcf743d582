/* error.c — tf_status names and the thread-local last-error message. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

/* What vsnprintf writes (room for a message naming two paths of PATH_MAX
 * bytes) and what tf_last_error returns: valid UTF-8, room for a few
 * escaped bytes; a message cut to fit ends in CUT_MARK. */
enum { RAW_MAX = 10240, MESSAGE_MAX = 12288 };
static const char CUT_MARK[] = " [...]";

static _Thread_local char last_error[MESSAGE_MAX];

/* raw [len] into last_error as valid UTF-8: each byte that starts no valid
 * character as the text \xNN, except an incomplete character at the end of
 * a cut message, which is dropped; as much as fits, ending between two
 * characters. */
static void set_message(const char *raw, size_t len, int cut)
{
    size_t out = 0, i = 0;
    const size_t fits = sizeof last_error - sizeof CUT_MARK; /* bytes before the mark */
    while (i < len) {
        const size_t n = tf__utf8_valid_char((const unsigned char *)raw + i, len - i);
        if (n == 0 && cut && len - i < 4 && !tf__utf8_is_continuation((unsigned char)raw[i]))
            break; /* vsnprintf cut a character in two */
        const size_t room = n ? n : 4;
        if (out + room > fits) {
            cut = 1;
            break;
        }
        if (n)
            memcpy(last_error + out, raw + i, n);
        else
            snprintf(last_error + out, 5, "\\x%02X", (unsigned char)raw[i]);
        out += room, i += n ? n : 1;
    }
    if (cut)
        memcpy(last_error + out, CUT_MARK, sizeof CUT_MARK);
    else
        last_error[out] = '\0';
}

tf_status tf__fail(tf_status status, const char *fmt, ...)
{
    char raw[RAW_MAX];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    const int cut = n >= (int)sizeof raw;
    set_message(raw, n < 0 ? 0 : cut ? sizeof raw - 1 : (size_t)n, cut);
    return status;
}

void tf__format_shape(char *buf, size_t buf_size, int32_t rank, const int64_t *dims)
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
