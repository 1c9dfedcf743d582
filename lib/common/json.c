/* json.c — tf__json_parse: base/json_checked.c's checked parse with its
 * message as the library's error. */
#include "json.h"

#include "error.h"

tf_status tf__json_parse(const char *text, size_t len, int max_depth, const char *label,
                         cJSON **out)
{
    char why[1024]; /* a label (a path) and a message quoting at most 200 bytes */
    const int result = tf__json_checked_parse(text, len, max_depth, label, out, why, sizeof why);
    if (result == TF__JSON_OK)
        return TF_OK;
    return tf__fail(result == TF__JSON_NO_MEMORY ? TF_ERR_OUT_OF_MEMORY : TF_ERR_FORMAT, "%s", why);
}
