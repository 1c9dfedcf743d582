/* digits.c — tokenizers' Digits (pre_tokenizers/digits.rs): numeric
 * characters (Nd, Nl, No) isolated, each (individual_digits) or in runs. */
#include <utf8proc.h>

#include "pretokenizers.h"

typedef struct digits {
    int32_t individual;
} digits;

static int is_numeric(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

static tf_status read(void *state, const tf__fields *f)
{
    digits *p = state;
    return f->boolean(f, "individual_digits", 0, &p->individual);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const digits *p = state;
    const tf__delimiters d = {NULL, is_numeric};
    return tf__split_pieces(out, in, d, p->individual ? TF_SPLIT_ISOLATED : TF_SPLIT_CONTIGUOUS, 0,
                            what);
}

const tf__pretokenizer_type tf__digits_pretokenizer = {
    .stage = {"Digits", sizeof(digits), read, NULL},
    .apply = apply,
};
