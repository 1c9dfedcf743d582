/* regex.c — PCRE2 behind tf__regex; its memory comes from tf__malloc, so the
 * allocation-failure test reaches it too. The bound on a text's work is
 * regex.h's: searches run in windows of the text, each with PCRE2's hard
 * partial matching, which reports an attempt that reaches the window's end
 * (an assertion there included) instead of deciding it; such an attempt is
 * tried again alone in a window twice as large. An attempt decided within
 * its window is decided as it is in the whole text. */
#include "regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "chars.h"
#include "error.h"

#define TF_REGEX_DEPTH_LIMIT 10000u /* nested backtracking points */
#define TF_REGEX_HEAP_LIMIT 65536u  /* KiB of backtracking memory */
#define TF_REGEX_SHOWN_BYTES 64     /* of a pattern, in messages */

/* The windows an attempt may have: TF_REGEX_FIRST_WINDOW << k bytes for k
 * below this, the last past any text's length. */
#define TF_REGEX_WINDOWS 28
_Static_assert(((uint64_t)TF_REGEX_FIRST_WINDOW << (TF_REGEX_WINDOWS - 1)) > TF_TEXT_MAX_BYTES,
               "the last window holds any text");

/* tf__regex_next's searches: their work passed the text's bound (beyond
 * PCRE2's error codes, which are small negative numbers). */
#define TF_REGEX_OVER_BOUND (-1000000)

struct tf__regex {
    char what[512];                           /* the component and field, for messages */
    char shown[4 * TF_REGEX_SHOWN_BYTES + 4]; /* the pattern, for messages */
    pcre2_code *code;
    pcre2_code *later; /* with \G never holding, for attempts after a search's start;
                          NULL when the pattern has no \G */
    int literal;       /* a plain string of literal_bytes: an attempt reads no more */
    size_t literal_bytes;
    pcre2_general_context *general;
    /* [k]: the limits of an attempt in window k: its steps, PCRE2's depth and heap */
    pcre2_match_context *match[TF_REGEX_WINDOWS];
};

struct tf__regex_scratch {
    pcre2_match_data *data;
    uint64_t work_left;  /* of the text being searched, in regex.h's bytes */
    uint64_t spare_left; /* of TF_REGEX_WORK_SPARE, for every text this scratch searches */
    size_t search_start; /* where the search started: where \G holds */
    int window;          /* the window of the last attempt alone */
};

static void *regex_malloc(size_t n, void *user)
{
    (void)user;
    return tf__malloc(n);
}

static void regex_free(void *p, void *user)
{
    (void)user;
    tf__free(p);
}

/* ---- Oniguruma's escapes as PCRE2 patterns ------------------------------------- */

/* Oniguruma's \w in Unicode mode (letters, marks, numbers, connector
 * punctuation, the joiners ZWNJ and ZWJ), which tokenizer.json's patterns
 * mean (tokenizers runs them on Oniguruma); PCRE2's leaves marks and
 * joiners out. */
#define TF_ONIG_WORD "\\p{L}\\p{M}\\p{N}\\p{Pc}\\x{200C}\\x{200D}"
/* Oniguruma's (and PCRE2's) \R, spelt out: PCRE2's own \R in a repeat
 * ends at a window's end after \r without reporting it (partial matching
 * misses that \n may follow). */
#define TF_ONIG_NEWLINE "(?>\\r\\n|[\\n\\x0b\\f\\r\\x{85}\\x{2028}\\x{2029}])"
#define TF_ESCAPE_MAX (sizeof TF_ONIG_NEWLINE) /* the longest escape's text, and one */
_Static_assert(sizeof "[^" TF_ONIG_WORD "]" <= TF_ESCAPE_MAX, "TF_ESCAPE_MAX is the longest");

/* What the escape \c outside a character class becomes (NULL: itself).
 * With later, \G never holds. */
static const char *escape_outside_class(char c, int later)
{
    switch (c) {
    case 'w':
        return "[" TF_ONIG_WORD "]";
    case 'W':
        return "[^" TF_ONIG_WORD "]";
    case 'R':
        return TF_ONIG_NEWLINE;
    case 'G':
        return later ? "(?!)" : NULL;
    }
    return NULL;
}

/* pattern[0..len) with \w, \W and \R as Oniguruma has them (and \G never
 * holding when later), into *out (tf__malloc'd, *out_len bytes); *has_g
 * says whether it has \G. 0 when out of memory. Inside a class \w becomes
 * the properties; \W there is left to PCRE2 (no class can say "none of
 * them" beside other members). */
static int translate(const char *pattern, size_t len, int later, char **out, size_t *out_len,
                     int *has_g)
{
    char *t = tf__malloc(len * TF_ESCAPE_MAX + 1); /* each byte at most that */
    if (!t)
        return 0;
    size_t n = 0;
    int in_class = 0;
    *has_g = 0;
    for (size_t i = 0; i < len; i++) {
        const char c = pattern[i];
        const char next = i + 1 < len ? pattern[i + 1] : '\0';
        const char *with = c != '\\' ? NULL
            : in_class               ? (next == 'w' ? TF_ONIG_WORD : NULL)
                                     : escape_outside_class(next, later);
        *has_g |= c == '\\' && !in_class && next == 'G';
        if (with) {
            memcpy(t + n, with, strlen(with)); /* NOLINT(bugprone-not-null-terminated-result) */
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

/* ---- Compiling ------------------------------------------------------------------ */

/* pattern[0..len) as messages quote it into shown: control characters as
 * \xNN, cut after TF_REGEX_SHOWN_BYTES bytes (at a character) with "...". */
static void show_pattern(char *shown, const char *pattern, size_t len)
{
    size_t cut = len < TF_REGEX_SHOWN_BYTES ? len : TF_REGEX_SHOWN_BYTES;
    while (cut < len && ((unsigned char)pattern[cut] & 0xC0) == 0x80)
        cut--;
    size_t n = 0;
    for (size_t i = 0; i < cut; i++) {
        const unsigned char c = (unsigned char)pattern[i];
        if (c < 0x20 || c == 0x7F)
            n += (size_t)sprintf(shown + n, "\\x%02X", c);
        else
            shown[n++] = (char)c;
    }
    strcpy(shown + n, cut < len ? "..." : "");
}

/* re->code (and re->later, for a pattern with \G) from pattern[0..len);
 * on failure PCRE2's error code into *error and the offset into *at. */
static int compile_codes(tf__regex *re, const char *pattern, size_t len, int literal,
                         pcre2_compile_context *cc, int *error, PCRE2_SIZE *at)
{
    const uint32_t options = PCRE2_UTF | PCRE2_NO_UTF_CHECK |
        (literal ? PCRE2_LITERAL : PCRE2_UCP); /* UCP: Unicode's \d \s */
    if (literal) {
        re->code = pcre2_compile((PCRE2_SPTR)pattern, len, options, error, at, cc);
        return re->code != NULL;
    }
    for (int later = 0; later < 2; later++) {
        char *translated;
        size_t n;
        int has_g;
        if (!translate(pattern, len, later, &translated, &n, &has_g)) {
            *error = PCRE2_ERROR_NOMEMORY;
            return 0;
        }
        pcre2_code *code = pcre2_compile((PCRE2_SPTR)translated, n, options, error, at, cc);
        tf__free(translated);
        *(later ? &re->later : &re->code) = code;
        if (!code || !has_g)
            return code != NULL;
    }
    return 1;
}

/* The limit of steps of an attempt in window k (regex.h). */
static uint64_t steps_bound(int k)
{
    return (uint64_t)TF_REGEX_STEPS_PER_BYTE * (TF_REGEX_FIRST_WINDOW << k) + TF_REGEX_STEPS_MIN;
}

/* re->match; 0 when out of memory. */
static int create_match_contexts(tf__regex *re)
{
    for (int k = 0; k < TF_REGEX_WINDOWS; k++) {
        pcre2_match_context *m = pcre2_match_context_create(re->general);
        if (!m)
            return 0;
        re->match[k] = m;
        const uint64_t steps = steps_bound(k);
        pcre2_set_match_limit(m, steps < UINT32_MAX ? (uint32_t)steps : UINT32_MAX);
        pcre2_set_depth_limit(m, TF_REGEX_DEPTH_LIMIT);
        pcre2_set_heap_limit(m, TF_REGEX_HEAP_LIMIT);
    }
    return 1;
}

tf_status tf__regex_compile(tf__regex **out, const char *pattern, size_t len, int literal,
                            const char *what)
{
    *out = NULL;
    tf__regex *re = tf__calloc(1, sizeof *re);
    pcre2_compile_context *cc = NULL;
    if (re)
        re->general = pcre2_general_context_create(regex_malloc, regex_free, NULL);
    if (re && re->general)
        cc = pcre2_compile_context_create(re->general);
    if (!re || !re->general || !cc || !create_match_contexts(re)) {
        pcre2_compile_context_free(cc);
        tf__regex_free(re);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the regex", what);
    }
    snprintf(re->what, sizeof re->what, "%s", what);
    show_pattern(re->shown, pattern, len);
    re->literal = literal;
    re->literal_bytes = len;
    int error = 0;
    PCRE2_SIZE at = 0;
    const int compiled = compile_codes(re, pattern, len, literal, cc, &error, &at);
    pcre2_compile_context_free(cc);
    if (!compiled) {
        PCRE2_UCHAR message[120];
        pcre2_get_error_message(error, message, sizeof message);
        tf__regex_free(re);
        const int memory = error == PCRE2_ERROR_NOMEMORY || error == PCRE2_ERROR_HEAP_FAILED;
        return tf__fail(memory ? TF_ERR_OUT_OF_MEMORY : TF_ERR_FORMAT,
                        "%s: the regex does not compile at offset %zu: %s", what, (size_t)at,
                        (const char *)message);
    }
    *out = re;
    return TF_OK;
}

void tf__regex_free(tf__regex *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    pcre2_code_free(re->later);
    for (int k = 0; k < TF_REGEX_WINDOWS; k++)
        pcre2_match_context_free(re->match[k]);
    pcre2_general_context_free(re->general);
    tf__free(re);
}

const char *tf__regex_what(const tf__regex *re)
{
    return re->what;
}

const char *tf__regex_shown(const tf__regex *re)
{
    return re->shown;
}

tf__regex_scratch *tf__regex_scratch_create(const tf__regex *re)
{
    tf__regex_scratch *s = tf__malloc(sizeof *s);
    if (s)
        *s = (tf__regex_scratch){
            .data = pcre2_match_data_create_from_pattern(re->code, re->general),
            .spare_left = TF_REGEX_WORK_SPARE};
    if (s && !s->data) {
        tf__free(s);
        return NULL;
    }
    return s;
}

void tf__regex_scratch_free(tf__regex_scratch *s)
{
    if (!s)
        return;
    pcre2_match_data_free(s->data);
    tf__free(s);
}

/* ---- Searching in windows ------------------------------------------------------- */

/* The work a text of len bytes may take (regex.h). */
static uint64_t work_bound(size_t len)
{
    return (uint64_t)TF_REGEX_WORK_PER_BYTE * ((uint64_t)len + 1);
}

/* Takes `bytes` of the text's work, beyond its bound from the spare: 0
 * when that passes both. */
static int charge(tf__regex_scratch *x, uint64_t bytes)
{
    if (bytes > x->work_left) {
        if (bytes - x->work_left > x->spare_left)
            return 0;
        x->spare_left -= bytes - x->work_left;
        x->work_left = bytes;
    }
    x->work_left -= bytes;
    return 1;
}

/* The first character of s[0..len) at or after byte i <= len (len: none). */
static size_t char_start(const char *s, size_t len, size_t i)
{
    while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

/* The end of window k from `start`: a character's start, or len. */
static size_t window_end(const char *s, size_t len, size_t start, int k)
{
    const size_t bytes = (size_t)TF_REGEX_FIRST_WINDOW << k;
    return len - start > bytes && k + 1 < TF_REGEX_WINDOWS ? char_start(s, len, start + bytes)
                                                           : len;
}

/* pcre2_match on s[0..end) from start (anchored or not), the end of window
 * k: hard partial unless it is the text's end, with window k's steps. */
static int match_window(const tf__regex *re, tf__regex_scratch *x, const char *s, size_t len,
                        size_t start, size_t end, int k, uint32_t anchored)
{
    const pcre2_code *code = start != x->search_start && re->later ? re->later : re->code;
    const uint32_t options = PCRE2_NO_UTF_CHECK | anchored | (end < len ? PCRE2_PARTIAL_HARD : 0);
    return pcre2_match(code, (PCRE2_SPTR)s, end, start, options, x->data, re->match[k]);
}

/* The work of the attempts at from..at (at <= end), each up to end. */
static uint64_t attempts_work(size_t from, size_t at, size_t end)
{
    const uint64_t k = at - from + 1, first = end - from + 1; /* attempts; the first's bytes */
    return k * first - k * (k - 1) / 2;
}

/* The attempt at `at` alone (anchored), in windows 1, 2, ... while it
 * reaches its window's end or its steps: PCRE2's result, or
 * TF_REGEX_OVER_BOUND; x->window the last window. */
static int attempt(const tf__regex *re, tf__regex_scratch *x, const char *s, size_t len, size_t at)
{
    for (x->window = 1;; x->window++) {
        const size_t end = window_end(s, len, at, x->window);
        const int rc = match_window(re, x, s, len, at, end, x->window, PCRE2_ANCHORED);
        if (!charge(x, end - at + 1))
            return TF_REGEX_OVER_BOUND;
        if ((rc != PCRE2_ERROR_PARTIAL && rc != PCRE2_ERROR_MATCHLIMIT) || end == len)
            return rc;
    }
}

/* search() for a plain string: in the whole text at once, each attempt
 * costing the string's bytes and one. */
static int search_literal(const tf__regex *re, tf__regex_scratch *x, const char *s, size_t len,
                          size_t from, size_t *at)
{
    const int rc = match_window(re, x, s, len, from, len, TF_REGEX_WINDOWS - 1, 0);
    *at = rc >= 0 ? pcre2_get_startchar(x->data) : rc == PCRE2_ERROR_NOMATCH ? len : from;
    const uint64_t attempts = *at - from + 1;
    return charge(x, attempts * (re->literal_bytes + 1)) ? rc : TF_REGEX_OVER_BOUND;
}

/* The leftmost attempt at or after `from` that does not fail: PCRE2's
 * result (a match, its start attempt at *at) or PCRE2_ERROR_NOMATCH, or a
 * failure at *at: PCRE2's error or TF_REGEX_OVER_BOUND. */
static int search(const tf__regex *re, tf__regex_scratch *x, const char *s, size_t len, size_t from,
                  size_t *at)
{
    if (re->literal)
        return search_literal(re, x, s, len, from, at);
    for (;;) {
        const size_t end = window_end(s, len, from, 0);
        int rc = match_window(re, x, s, len, from, end, 0, 0);
        const int decided = rc >= 0 || rc == PCRE2_ERROR_PARTIAL; /* at an attempt it names */
        *at = decided ? pcre2_get_startchar(x->data) : rc == PCRE2_ERROR_NOMATCH ? end : from;
        if (!charge(x, attempts_work(from, decided ? *at : end, end)))
            return TF_REGEX_OVER_BOUND;
        if (rc == PCRE2_ERROR_NOMATCH && end < len) {
            from = end; /* no attempt before it matches */
            continue;
        }
        if (rc != PCRE2_ERROR_PARTIAL && rc != PCRE2_ERROR_MATCHLIMIT)
            return rc;
        rc = attempt(re, x, s, len, *at); /* which reached its window 0's end or steps */
        if (rc != PCRE2_ERROR_NOMATCH || *at == len)
            return rc;
        from = char_start(s, len, *at + 1);
    }
}

/* A failed search at byte `at` of s[0..len) as -status. */
static int search_failure(const tf__regex *re, const tf__regex_scratch *x, int rc, size_t len,
                          size_t at, const char *what)
{
    if (rc == TF_REGEX_OVER_BOUND)
        return -(int)tf__fail(TF_ERR_UNSUPPORTED,
                              "%s: %s: the regex would look at more than %llu bytes for a text "
                              "of %zu bytes (%u per byte, and %u, and what is left of %u for "
                              "all of the input's texts), at byte %zu; pattern \"%s\"",
                              what, re->what, (unsigned long long)work_bound(len), len,
                              TF_REGEX_WORK_PER_BYTE, TF_REGEX_WORK_PER_BYTE, TF_REGEX_WORK_SPARE,
                              at, re->shown);
    PCRE2_UCHAR message[120];
    pcre2_get_error_message(rc, message, sizeof message);
    if (rc == PCRE2_ERROR_MATCHLIMIT)
        return -(int)tf__fail(TF_ERR_UNSUPPORTED,
                              "%s: %s: the regex failed at byte %zu: %s: more than %llu "
                              "backtracking steps (%u per byte of a window of %zu bytes, and %u); "
                              "pattern \"%s\"",
                              what, re->what, at, (const char *)message,
                              (unsigned long long)steps_bound(x->window), TF_REGEX_STEPS_PER_BYTE,
                              (size_t)TF_REGEX_FIRST_WINDOW << x->window, TF_REGEX_STEPS_MIN,
                              re->shown);
    return -(int)tf__fail(rc == PCRE2_ERROR_NOMEMORY ? TF_ERR_OUT_OF_MEMORY : TF_ERR_UNSUPPORTED,
                          "%s: %s: the regex failed at byte %zu: %s; pattern \"%s\"", what,
                          re->what, at, (const char *)message, re->shown);
}

int tf__regex_next(const tf__regex *re, tf__regex_scratch *scratch, const char *s, size_t len,
                   size_t from, size_t *begin, size_t *end, const char *what)
{
    if (from == 0)
        scratch->work_left = work_bound(len);
    scratch->search_start = from;
    while (from <= len) {
        size_t at;
        const int rc = search(re, scratch, s, len, from, &at);
        if (rc == PCRE2_ERROR_NOMATCH)
            return 0;
        if (rc < 0)
            return search_failure(re, scratch, rc, len, at, what);
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(scratch->data);
        if (ov[1] > ov[0]) {
            *begin = ov[0];
            *end = ov[1];
            return 1;
        }
        /* an empty match: on from the next character, a search of its own */
        from = ov[0] + 1;
        while (from < len && ((unsigned char)s[from] & 0xC0) == 0x80)
            from++;
        scratch->search_start = from;
    }
    return 0;
}
