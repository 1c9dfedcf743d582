/* json.c — the checks that make cJSON safe on hostile input. */
#include "json.h"

#include <math.h>
#include <string.h>

#include "error.h"

/* Offset of the first byte that is not valid UTF-8 (shortest form, no
 * surrogates, at most U+10FFFF), or len. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const unsigned char c = s[i];
        size_t n;
        unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return i;
        }
        if (len - i <= n || s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k <= n; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return i;
        i += n + 1;
    }
    return len;
}

/* Offset where arrays/objects first nest deeper than max_depth, or len. */
static size_t too_deep_at(const char *s, size_t len, int max_depth)
{
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < len; i++) {
        const char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth)
                return i;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return len;
}

/* ---- Telling cJSON's allocation failures from syntax errors -------------- *
 * cJSON returns NULL for both. This check builds nothing: it only says
 * whether text is well-formed JSON, so that a NULL for well-formed text is
 * reported as what it is, an allocation failure. (Depth is bounded by the
 * nesting check before cJSON runs.) */

typedef struct scanner {
    const char *p, *end;
} scanner;

static void skip_space(scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int accept(scanner *s, char c)
{
    skip_space(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return 1;
    }
    return 0;
}

static int is_digit(scanner *s)
{
    return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

static int scan_string(scanner *s)
{
    if (!accept(s, '"'))
        return 0;
    while (s->p < s->end && *s->p != '"') {
        const unsigned char c = (unsigned char)*s->p++;
        if (c < 0x20)
            return 0;
        if (c != '\\')
            continue;
        if (s->p >= s->end)
            return 0;
        const char e = *s->p++;
        if (e == 'u') {
            for (int i = 0; i < 4; i++, s->p++)
                if (s->p >= s->end || !*s->p || !strchr("0123456789abcdefABCDEF", *s->p))
                    return 0;
        } else if (!strchr("\"\\/bfnrt", e) || !e) {
            return 0;
        }
    }
    return s->p++ < s->end;
}

static int scan_number(scanner *s)
{
    if (s->p < s->end && *s->p == '-')
        s->p++;
    if (!is_digit(s))
        return 0;
    if (*s->p++ != '0')
        while (is_digit(s))
            s->p++;
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (!is_digit(s))
            return 0;
        while (is_digit(s))
            s->p++;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        if (!is_digit(s))
            return 0;
        while (is_digit(s))
            s->p++;
    }
    return 1;
}

static int scan_value(scanner *s)
{
    skip_space(s);
    if (s->p >= s->end)
        return 0;
    if (*s->p == '"')
        return scan_string(s);
    if (accept(s, '{')) {
        if (accept(s, '}'))
            return 1;
        do {
            if (!scan_string(s) || !accept(s, ':') || !scan_value(s))
                return 0;
        } while (accept(s, ','));
        return accept(s, '}');
    }
    if (accept(s, '[')) {
        if (accept(s, ']'))
            return 1;
        do {
            if (!scan_value(s))
                return 0;
        } while (accept(s, ','));
        return accept(s, ']');
    }
    static const char *const literals[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        const size_t n = strlen(literals[i]);
        if ((size_t)(s->end - s->p) >= n && memcmp(s->p, literals[i], n) == 0) {
            s->p += n;
            return 1;
        }
    }
    return scan_number(s);
}

static int well_formed(const char *text, size_t len)
{
    scanner s = {text, text + len};
    if (!scan_value(&s))
        return 0;
    skip_space(&s);
    return s.p == s.end;
}

tf_status tf_json_parse(const char *text, size_t len, int max_depth, const char *label,
                        cJSON **out)
{
    *out = NULL;
    size_t at = utf8_invalid_at((const unsigned char *)text, len);
    if (at < len)
        return tf_fail(TF_ERR_FORMAT, "%s: not valid UTF-8 at byte %zu (0x%02x)", label, at,
                       (unsigned char)text[at]);
    if ((at = too_deep_at(text, len, max_depth)) < len)
        return tf_fail(TF_ERR_FORMAT, "%s: JSON nests deeper than %d levels at byte %zu", label,
                       max_depth, at);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root && well_formed(text, len))
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: out of memory while parsing the JSON", label);
    if (!root) {
        at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        return tf_fail(TF_ERR_FORMAT, "%s: not valid JSON (error near byte %zu)", label, at);
    }
    for (at = (size_t)(end - text); at < len; at++) {
        const char c = text[at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            cJSON_Delete(root);
            return tf_fail(TF_ERR_FORMAT, "%s: unexpected bytes after the JSON value at byte %zu",
                           label, at);
        }
    }
    *out = root;
    return TF_OK;
}

int tf_json_uint(const cJSON *item, double max, uint64_t *out)
{
    if (!cJSON_IsNumber(item))
        return 0;
    const double v = item->valuedouble;
    if (!(v >= 0.0) || v > max || v > 9007199254740992.0 || floor(v) != v)
        return 0;
    *out = (uint64_t)v;
    return 1;
}
