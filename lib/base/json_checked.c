/* json_checked.c — the checks that make cJSON safe on hostile input: a
 * checkpoint's header, tokenizer.json, a client's request body. */
#include "json_checked.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "utf8.h"

/* Where a parse's message goes, and what it starts with. */
typedef struct reader {
    const char *label;
    char *err;
    size_t err_size;
} reader;

/* The message (after the label and ": ") into rd->err; returns result. */
__attribute__((format(printf, 3, 4))) static int fail(const reader *rd, tf__json_result result,
                                                      const char *format, ...)
{
    const int n = snprintf(rd->err, rd->err_size, "%s: ", rd->label);
    if (n >= 0 && (size_t)n < rd->err_size) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(rd->err + n, rd->err_size - (size_t)n, format, ap);
        va_end(ap);
    }
    return (int)result;
}

/* How much of the string whose opening quote is at `quote` a message
 * quotes, as written: up to its closing quote or its first control byte, at
 * most 64 bytes, ending between two characters. */
static int written_length(const char *s, size_t len, size_t quote)
{
    size_t end = quote + 1;
    while (end < len && s[end] != '"' && (unsigned char)s[end] >= 0x20)
        end += s[end] == '\\' ? 2 : 1;
    size_t n = (end < len ? end : len) - quote - 1;
    if (n > 64)
        for (n = 64; n > 0 && tf__utf8_is_continuation((unsigned char)s[quote + 1 + n]); n--)
            ;
    return (int)n;
}

/* What cJSON would not see in the raw text: arrays and objects nested deeper
 * than max_depth; the escape \u0000 in a key or string, which cJSON decodes
 * into a NUL that ends its C string, so that "a\u0000b" would read as "a"
 * (and "num_attention_heads\u0000" as num_attention_heads); a raw control
 * byte (U+0000..U+001F) in a key or string, which RFC 8259 (section 7)
 * requires escaped and cJSON accepts, a raw NUL cutting the string as the
 * escaped one does; and one between tokens other than RFC 8259's whitespace
 * (space, tab, line feed, carriage return), which cJSON skips as if it
 * were. */
static int check_raw(const reader *rd, const char *s, size_t len, int max_depth)
{
    int depth = 0;
    size_t quote = SIZE_MAX; /* where the string being read opens, or SIZE_MAX */
    for (size_t i = 0; i < len; i++) {
        const char c = s[i];
        if (quote != SIZE_MAX) {
            if (c == '\\' && len - i >= 6 && memcmp(s + i, "\\u0000", 6) == 0)
                return fail(rd, TF__JSON_INVALID,
                            "the string \"%.*s\" at byte %zu contains \\u0000 (NUL): keys "
                            "and strings must not hold NUL characters",
                            written_length(s, len, quote), s + quote + 1, quote);
            if ((unsigned char)c < 0x20)
                return fail(rd, TF__JSON_INVALID,
                            "the string \"%.*s\" at byte %zu holds the control byte 0x%02x "
                            "unescaped at byte %zu: JSON (RFC 8259) requires it escaped "
                            "(\\u%04x)",
                            written_length(s, len, quote), s + quote + 1, quote, (unsigned char)c,
                            i, (unsigned char)c);
            if (c == '\\')
                i++;
            else if (c == '"')
                quote = SIZE_MAX;
        } else if (c == '"') {
            quote = i;
        } else if ((unsigned char)c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            return fail(rd, TF__JSON_INVALID,
                        "the control byte 0x%02x at byte %zu: JSON (RFC 8259) allows only "
                        "space, tab, line feed and carriage return between its tokens",
                        (unsigned char)c, i);
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth)
                return fail(rd, TF__JSON_INVALID, "JSON nests deeper than %d levels at byte %zu",
                            max_depth, i);
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return 0;
}

/* ---- No key twice in any object ------------------------------------------- *
 * cJSON keeps every member of an object; a lookup finds the first, while
 * Python's json and Hugging Face keep the last. A text whose readers would
 * disagree is refused. (With NUL refused above, comparing the C strings
 * compares the whole decoded keys.) */

typedef struct key_scratch {
    const cJSON **items; /* [cap] the members of the object being checked */
    size_t cap;
    char path[256]; /* where that object is: 'a'[2]'b' */
} key_scratch;

static int compare_keys(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static int check_object_keys(const reader *rd, const cJSON *object, key_scratch *k)
{
    size_t n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, object) n++;
    if (n < 2)
        return 0;
    if (n > k->cap) {
        /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
        const cJSON **grown = tf__realloc(k->items, n * sizeof *grown);
        if (!grown)
            return fail(rd, TF__JSON_NO_MEMORY, "cannot allocate %zu keys", n);
        k->items = grown;
        k->cap = n;
    }
    n = 0;
    cJSON_ArrayForEach(item, object) k->items[n++] = item;
    qsort(k->items, n, sizeof *k->items, compare_keys); /* NOLINT(bugprone-sizeof-expression) */
    for (size_t i = 1; i < n; i++)
        if (strcmp(k->items[i - 1]->string, k->items[i]->string) == 0)
            return fail(rd, TF__JSON_INVALID,
                        "key '%.*s' appears twice in %s%s; readers disagree on which one "
                        "counts",
                        tf__utf8_prefix(k->items[i]->string, 200), k->items[i]->string,
                        k->path[0] ? "the object at " : "the top-level object", k->path);
    return 0;
}

/* Checks value and everything inside it; path grows by one step per level. */
static int check_keys(const reader *rd, const cJSON *value, key_scratch *k)
{
    int rc = cJSON_IsObject(value) ? check_object_keys(rd, value, k) : 0;
    const size_t len = strlen(k->path);
    int index = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, value)
    {
        if (rc)
            break;
        if (!cJSON_IsObject(item) && !cJSON_IsArray(item)) { /* nothing inside it to check */
            index++;
            continue;
        }
        char step[80]; /* 'key' (its first 64 bytes) or [index] */
        if (cJSON_IsObject(value))
            snprintf(step, sizeof step, "'%.*s'", tf__utf8_prefix(item->string, 64), item->string);
        else
            snprintf(step, sizeof step, "[%d]", index++);
        if (len + strlen(step) < sizeof k->path) /* a path too deep to say ends before it */
            memcpy(k->path + len, step, strlen(step) + 1);
        rc = check_keys(rd, item, k);
    }
    k->path[len] = '\0';
    return rc;
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

/* ---- Parsing -------------------------------------------------------------- */

/* cJSON's tree of text, or -1 when it has none (*end: where it stopped). */
static int parse_tree(const reader *rd, const char *text, size_t len, cJSON **root)
{
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!*root && well_formed(text, len))
        return fail(rd, TF__JSON_NO_MEMORY, "out of memory while parsing the JSON");
    if (!*root) {
        const size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        return fail(rd, TF__JSON_INVALID, "not valid JSON (error near byte %zu)", at);
    }
    for (size_t at = (size_t)(end - text); at < len; at++) {
        const char c = text[at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return fail(rd, TF__JSON_INVALID, "unexpected bytes after the JSON value at byte %zu",
                        at);
    }
    return 0;
}

int tf__json_checked_parse(const char *text, size_t len, int max_depth, const char *label,
                           cJSON **out, char *err, size_t err_size)
{
    const reader rd = {label, err, err_size};
    *out = NULL;
    const size_t at = tf__utf8_invalid_at(text, len);
    if (at < len)
        return fail(&rd, TF__JSON_INVALID, "not valid UTF-8 at byte %zu (0x%02x)", at,
                    (unsigned char)text[at]);
    cJSON *root = NULL;
    int rc = check_raw(&rd, text, len, max_depth);
    if (rc == 0)
        rc = parse_tree(&rd, text, len, &root);
    key_scratch keys = {NULL, 0, ""};
    if (rc == 0)
        rc = check_keys(&rd, root, &keys);
    tf__free(keys.items);
    if (rc) {
        cJSON_Delete(root);
        return rc;
    }
    *out = root;
    return 0;
}

int tf__json_uint(const cJSON *item, double max, uint64_t *out)
{
    if (!cJSON_IsNumber(item))
        return 0;
    const double v = item->valuedouble;
    if (!(v >= 0.0) || v > max || v > TF_JSON_MAX_EXACT_INT || floor(v) != v)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

void tf__json_describe(const cJSON *item, char *buf, size_t size)
{
    /* cJSON asks for 5 bytes more than it writes */
    if (size > 5 && cJSON_PrintPreallocated((cJSON *)item, buf, (int)(size - 5), 0))
        return;
    const int n = cJSON_GetArraySize(item);
    if (cJSON_IsObject(item))
        snprintf(buf, size, "an object of %d key%s", n, n == 1 ? "" : "s");
    else if (cJSON_IsArray(item))
        snprintf(buf, size, "an array of %d value%s", n, n == 1 ? "" : "s");
    else if (cJSON_IsString(item))
        snprintf(buf, size, "a string of %zu bytes", strlen(item->valuestring));
    else
        snprintf(buf, size, "a value");
}
