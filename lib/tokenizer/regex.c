/* regex.c — PCRE2 behind tf_regex; its memory comes from tf_malloc, so the
 * allocation-failure test reaches it too. */
#include "regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"

#define TF_REGEX_MATCH_LIMIT 10000000u /* backtracking steps per match */
#define TF_REGEX_DEPTH_LIMIT 10000u    /* nested backtracking points */
#define TF_REGEX_HEAP_LIMIT 65536u     /* KiB of backtracking memory */

struct tf_regex {
    char what[160];     /* the component and field, for messages */
    pcre2_code *code;
    pcre2_general_context *general;
    pcre2_match_context *match;
};

struct tf_regex_scratch {
    pcre2_match_data *data;
};

static void *regex_malloc(size_t n, void *user)
{
    (void)user;
    return tf_malloc(n);
}

static void regex_free(void *p, void *user)
{
    (void)user;
    tf_free(p);
}

/* Oniguruma's \w in Unicode mode (letters, marks, numbers, connector
 * punctuation, the joiners ZWNJ and ZWJ), which tokenizer.json's patterns
 * mean (tokenizers runs them on Oniguruma); PCRE2's leaves marks and
 * joiners out. */
#define TF_ONIG_WORD "\\p{L}\\p{M}\\p{N}\\p{Pc}\\x{200C}\\x{200D}"

/* pattern[0..len) with \w and \W as Oniguruma has them, into *out
 * (tf_malloc'd, *out_len bytes); 0 when out of memory. Inside a class \w
 * becomes the properties; \W there is left to PCRE2 (no class can say "none
 * of them" beside other members). */
static int translate(const char *pattern, size_t len, char **out, size_t *out_len)
{
    char *t = tf_malloc(len * (sizeof "[^" TF_ONIG_WORD "]") + 1); /* each byte at most that */
    if (!t)
        return 0;
    size_t n = 0;
    int in_class = 0;
    for (size_t i = 0; i < len; i++) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < len && (pattern[i + 1] == 'w' || pattern[i + 1] == 'W') &&
            !(in_class && pattern[i + 1] == 'W')) {
            const char *with = in_class                ? TF_ONIG_WORD
                               : pattern[i + 1] == 'w' ? "[" TF_ONIG_WORD "]"
                                                       : "[^" TF_ONIG_WORD "]";
            memcpy(t + n, with, strlen(with));
            n += strlen(with);
            i++;
            continue;
        }
        t[n++] = c;
        if (c == '\\' && i + 1 < len)
            t[n++] = pattern[++i]; /* an escaped character, [ and ] included */
        else if (c == '[')
            in_class++;
        else if (c == ']' && in_class)
            in_class--;
    }
    *out = t;
    *out_len = n;
    return 1;
}

tf_status tf_regex_compile(tf_regex **out, const char *pattern, size_t len, int literal,
                           const char *what)
{
    *out = NULL;
    tf_regex *re = tf_calloc(1, sizeof *re);
    pcre2_compile_context *cc = NULL;
    if (re)
        re->general = pcre2_general_context_create(regex_malloc, regex_free, NULL);
    if (re && re->general) {
        cc = pcre2_compile_context_create(re->general);
        re->match = pcre2_match_context_create(re->general);
    }
    if (!re || !re->general || !cc || !re->match) {
        pcre2_compile_context_free(cc);
        tf_regex_free(re);
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the regex", what);
    }
    snprintf(re->what, sizeof re->what, "%s", what);
    pcre2_set_match_limit(re->match, TF_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(re->match, TF_REGEX_DEPTH_LIMIT);
    pcre2_set_heap_limit(re->match, TF_REGEX_HEAP_LIMIT);
    int error = 0;
    PCRE2_SIZE at = 0;
    const uint32_t options = PCRE2_UTF | PCRE2_NO_UTF_CHECK |
                             (literal ? PCRE2_LITERAL : PCRE2_UCP); /* UCP: Unicode's \d \s */
    char *translated = NULL;
    size_t n = len;
    if (!literal && !translate(pattern, len, &translated, &n)) {
        pcre2_compile_context_free(cc);
        tf_regex_free(re);
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the regex", what);
    }
    re->code = pcre2_compile((PCRE2_SPTR)(literal ? pattern : translated), n, options, &error, &at,
                             cc);
    tf_free(translated);
    pcre2_compile_context_free(cc);
    if (!re->code) {
        PCRE2_UCHAR message[120];
        pcre2_get_error_message(error, message, sizeof message);
        tf_regex_free(re);
        const int memory = error == PCRE2_ERROR_NOMEMORY || error == PCRE2_ERROR_HEAP_FAILED;
        return tf_fail(memory ? TF_ERR_OUT_OF_MEMORY : TF_ERR_FORMAT,
                       "%s: the regex does not compile at offset %zu: %s", what, (size_t)at,
                       (const char *)message);
    }
    *out = re;
    return TF_OK;
}

void tf_regex_free(tf_regex *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    pcre2_match_context_free(re->match);
    pcre2_general_context_free(re->general);
    tf_free(re);
}

tf_regex_scratch *tf_regex_scratch_create(const tf_regex *re)
{
    tf_regex_scratch *s = tf_malloc(sizeof *s);
    if (s)
        s->data = pcre2_match_data_create_from_pattern(re->code, re->general);
    if (s && !s->data) {
        tf_free(s);
        return NULL;
    }
    return s;
}

void tf_regex_scratch_free(tf_regex_scratch *s)
{
    if (!s)
        return;
    pcre2_match_data_free(s->data);
    tf_free(s);
}

int tf_regex_next(const tf_regex *re, tf_regex_scratch *scratch, const char *s, size_t len,
                  size_t from, size_t *begin, size_t *end, const char *what)
{
    while (from <= len) {
        const int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, from, PCRE2_NO_UTF_CHECK,
                                   scratch->data, re->match);
        if (rc == PCRE2_ERROR_NOMATCH)
            return 0;
        if (rc < 0) {
            PCRE2_UCHAR message[120];
            pcre2_get_error_message(rc, message, sizeof message);
            return -(int)tf_fail(rc == PCRE2_ERROR_NOMEMORY ? TF_ERR_OUT_OF_MEMORY
                                                             : TF_ERR_UNSUPPORTED,
                                 "%s: %s: the regex failed at byte %zu: %s", what, re->what,
                                 from, (const char *)message);
        }
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(scratch->data);
        if (ov[1] > ov[0]) {
            *begin = ov[0];
            *end = ov[1];
            return 1;
        }
        /* an empty match: on from the next character */
        from = ov[0] + 1;
        while (from < len && ((unsigned char)s[from] & 0xC0) == 0x80)
            from++;
    }
    return 0;
}
