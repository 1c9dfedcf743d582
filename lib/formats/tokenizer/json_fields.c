/* json_fields.c — a tokenizer.json's fields read and checked (see
 * json_fields.h). */
#include "json_fields.h"

#include <stdarg.h>
#include <stdio.h>

#include "error.h"

void tf__field_name(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

tf_status tf__field_bad(const tf__json_loader *l, const char *field, const char *expected)
{
    return tf__fail(TF_ERR_FORMAT, "%s: %s: expected %s", l->path, field, expected);
}

tf_status tf__field_unsupported(const tf__json_loader *l, const char *field, const char *type)
{
    return tf__fail(TF_ERR_UNSUPPORTED, "%s: %s: type \"%s\" is not supported", l->path, field,
                    type);
}

tf_status tf__field_string(const tf__json_loader *l, const cJSON *o, const char *key,
                           const char *field, int optional, const char **out)
{
    const cJSON *v = tf__field_item(o, key);
    *out = "";
    if (tf__field_absent(v) && optional)
        return TF_OK;
    if (!cJSON_IsString(v))
        return tf__field_bad(l, field, "a string");
    *out = v->valuestring;
    return TF_OK;
}

tf_status tf__field_bool(const tf__json_loader *l, const cJSON *o, const char *key,
                         const char *field, int32_t dflt, int32_t *out)
{
    const cJSON *v = tf__field_item(o, key);
    *out = dflt;
    if (tf__field_absent(v))
        return TF_OK;
    if (!cJSON_IsBool(v))
        return tf__field_bad(l, field, "true or false");
    *out = cJSON_IsTrue(v);
    return TF_OK;
}

int tf__field_int_in(const cJSON *v, double lo, double hi)
{
    /* in range before the cast: a double past int64_t's range has no int64_t */
    return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
        v->valuedouble == (double)(int64_t)v->valuedouble;
}

tf_status tf__field_int(const tf__json_loader *l, const cJSON *v, const char *field, double lo,
                        double hi, int32_t dflt, int32_t *out)
{
    *out = dflt;
    if (tf__field_absent(v))
        return TF_OK;
    if (!tf__field_int_in(v, lo, hi)) {
        char expected[96];
        tf__field_name(expected, sizeof expected, "an integer in %.0f..%.0f", lo, hi);
        return tf__field_bad(l, field, expected);
    }
    *out = (int32_t)v->valuedouble;
    return TF_OK;
}

tf_status tf__field_type(const tf__json_loader *l, const cJSON *o, const char *field,
                         const char **type)
{
    char name[160];
    tf__field_name(name, sizeof name, "%s.type", field);
    if (!cJSON_IsObject(o))
        return tf__field_bad(l, field, "an object");
    return tf__field_string(l, o, "type", name, 0, type);
}
