/* tokenizer_options.c — tf_tokenizer_options: its defaults, and the
 * options a caller gives read and checked. */
#include <string.h>

#include "abi.h"
#include "error.h"
#include "tokenizer.h"

#define TF_SPECIAL_MAX 64 /* bytes of a special token named in the options, NUL included */

const tf_tokenizer_options tf__tokenizer_defaults = {
    .struct_size = sizeof(tf_tokenizer_options),
    .lowercase = 1,
    .strip_accents = -1,
    .split_cjk = 1,
    .max_chars_per_word = 100,
    .max_length = 0,
};

void tf_tokenizer_options_init_sized(tf_tokenizer_options *opts, size_t struct_size)
{
    tf__abi_init(opts, struct_size, &tf__tokenizer_defaults, sizeof tf__tokenizer_defaults);
}

void(tf_tokenizer_options_init)(tf_tokenizer_options *opts)
{
    tf_tokenizer_options_init_sized(opts, TF_TOKENIZER_OPTIONS_SIZE_0_1);
}

static tf_status check_options(const tf_tokenizer_options *o)
{
    if ((o->lowercase != 0 && o->lowercase != 1) || o->strip_accents < -1 || o->strip_accents > 1 ||
        (o->split_cjk != 0 && o->split_cjk != 1))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options: lowercase and split_cjk are 0 or 1, "
                        "strip_accents -1, 0 or 1");
    if (o->max_chars_per_word < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_chars_per_word: expected >= 1, got %d",
                        (int)o->max_chars_per_word);
    if (o->max_length != 0 && o->max_length < 3)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_length: expected 0 (no limit) or "
                        ">= 3, got %d",
                        (int)o->max_length);
    const char *tokens[] = {o->unk_token, o->cls_token, o->sep_token, o->pad_token};
    for (int i = 0; i < 4; i++)
        if (tokens[i] && (!tokens[i][0] || strlen(tokens[i]) >= TF_SPECIAL_MAX))
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "options: special tokens are 1..%d bytes",
                            TF_SPECIAL_MAX - 1);
    return TF_OK;
}

tf_status tf__tokenizer_options_read(tf_tokenizer_options *o, const tf_tokenizer_options *opts)
{
    *o = tf__tokenizer_defaults;
    tf_status s = opts ? tf__abi_read(o, sizeof *o, opts, TF_TOKENIZER_OPTIONS_SIZE_0_1, "options")
                       : TF_OK;
    return s ? s : check_options(o);
}
