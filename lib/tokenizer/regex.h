/* regex.h — the regular expressions of tokenizer.json (Oniguruma syntax as
 * these files use it) through PCRE2 in UTF + UCP mode, with a bound on the
 * work a text may take that is linear in its length: a pattern that
 * backtracks catastrophically, or tries every start position over the rest
 * of the text, fails; it never hangs. */
#ifndef TF_REGEX_H
#define TF_REGEX_H

#include <stddef.h>

#include "tfenc.h"

/* The work of searching one text of n bytes (tfenc.h, Tokenizers). PCRE2
 * counts backtracking steps, and per start position only; the characters a
 * repeat reads cost it nothing (\s*\d+ takes 2 steps at each start in a run
 * of spaces, reading the rest of the run each time). So each start
 * position's attempt is given a window of the text, which it may not read
 * past: TF_REGEX_FIRST_WINDOW bytes from where the search starts, then,
 * while the attempt reaches the window's end or its steps, twice the
 * window from the attempt's start (PCRE2's hard partial matching tells);
 * and at most TF_REGEX_STEPS_PER_BYTE steps per byte of its window, plus
 * TF_REGEX_STEPS_MIN. An attempt costs the bytes from its start to its
 * window's end, plus one (a plain string's, which reads no more than the
 * string, needs no window: its bytes, plus one); the attempts over a text
 * may cost at most TF_REGEX_WORK_PER_BYTE (n + 1) in all, and beyond that
 * what is left of TF_REGEX_WORK_SPARE, which the texts one scratch searches
 * share (a stage's pieces of one input): a short run that every start reads
 * to its end is quadratic but cheap (500 spaces through \s*\n look at
 * 125,000 bytes; about 2,800 spaces fit), a long one is refused. */
#define TF_REGEX_FIRST_WINDOW 32u
#define TF_REGEX_STEPS_PER_BYTE 16u
#define TF_REGEX_STEPS_MIN 64u
#define TF_REGEX_WORK_PER_BYTE 256u
#define TF_REGEX_WORK_SPARE (4u << 20)

/* The most a normalizer may make of a text, in characters per byte of the
 * text they come from, and a decoder of tokens, in bytes per byte of their
 * strings (tfenc.h, Tokenizers): NFKD makes at most 6 (U+FDFA, 3 bytes, is
 * 18 code points), a Replace of one byte by up to 16 characters fits. */
#define TF_GROWTH_PER_BYTE 16

typedef struct tf__regex tf__regex; /* immutable once compiled: shared by threads */

/* Compiles pattern[0..len); a pattern PCRE2 refuses is TF_ERR_FORMAT naming
 * `what` (the component and field), the offset and PCRE2's reason. With
 * literal, the pattern is a plain string. */
tf_status tf__regex_compile(tf__regex **out, const char *pattern, size_t len, int literal,
                            const char *what);
void tf__regex_free(tf__regex *re);

/* The component and field the regex came from, and its pattern as messages
 * quote it (control characters as \xNN, cut after 64 bytes with "..."). */
const char *tf__regex_what(const tf__regex *re);
const char *tf__regex_shown(const tf__regex *re);

/* One call's scratch for matching: PCRE2's match data, and the work left
 * to the text being searched. */
typedef struct tf__regex_scratch tf__regex_scratch;
tf__regex_scratch *tf__regex_scratch_create(const tf__regex *re);
void tf__regex_scratch_free(tf__regex_scratch *s);

/* The first match in s[0..len) at or after byte `from` (an empty match is
 * skipped): 1 and its bytes [*begin, *end), 0 for none, or a failure as
 * -status naming `what`, the regex's component and its pattern:
 * TF_ERR_UNSUPPORTED when the text's work would pass its bound or an
 * attempt its steps or PCRE2's depth limit. A text is searched by calls
 * from `from` 0 on, each from where the last match ended; the call from 0
 * gives it its bound of work. */
int tf__regex_next(const tf__regex *re, tf__regex_scratch *scratch, const char *s, size_t len,
                   size_t from, size_t *begin, size_t *end, const char *what);

#endif
