/* regex.h — the regular expressions of tokenizer.json (Oniguruma syntax as
 * these files use it) through PCRE2 in UTF + UCP mode, with match and depth
 * limits: a pattern that backtracks catastrophically fails, it never hangs. */
#ifndef TF_REGEX_H
#define TF_REGEX_H

#include <stddef.h>

#include "tfenc.h"

typedef struct tf_regex tf_regex; /* immutable once compiled: shared by threads */

/* Compiles pattern[0..len); a pattern PCRE2 refuses is TF_ERR_FORMAT naming
 * `what` (the component and field), the offset and PCRE2's reason. With
 * literal, the pattern is a plain string. */
tf_status tf_regex_compile(tf_regex **out, const char *pattern, size_t len, int literal,
                           const char *what);
void tf_regex_free(tf_regex *re);

/* One call's scratch for matching (PCRE2 match data). */
typedef struct tf_regex_scratch tf_regex_scratch;
tf_regex_scratch *tf_regex_scratch_create(const tf_regex *re);
void tf_regex_scratch_free(tf_regex_scratch *s);

/* The first match in s[0..len) at or after byte `from` (an empty match is
 * skipped): 1 and its bytes [*begin, *end), 0 for none, or a failure
 * (TF_ERR_UNSUPPORTED when a limit was hit, naming `what`, the text, and
 * the pattern's component) as -status. */
int tf_regex_next(const tf_regex *re, tf_regex_scratch *scratch, const char *s, size_t len,
                  size_t from, size_t *begin, size_t *end, const char *what);

#endif
