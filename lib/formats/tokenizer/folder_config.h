/* folder_config.h — what a model folder says of its tokenizer beside its
 * tokenizer.json or vocab.txt: tokenizer_config.json and
 * special_tokens_map.json, read as transformers reads them
 * (tokenization_utils_base.py, PreTrainedTokenizerBase._from_pretrained),
 * and the tokens transformers then adds to the tokenizer
 * (tokenization_utils_fast.py, PreTrainedTokenizerFast.__init__).
 *
 * tokenizer_config.json gives the init arguments. When it has no
 * added_tokens_decoder (files written before transformers 4.34),
 * special_tokens_map.json's keys replace its special tokens and add to its
 * additional_special_tokens; when it has one, special_tokens_map.json is not
 * read, as transformers does not read it then. */
#ifndef TF_FOLDER_CONFIG_H
#define TF_FOLDER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* The special token attributes (SPECIAL_TOKENS_ATTRIBUTES less
 * additional_special_tokens), in transformers' order. */
typedef enum tf__special_role {
    TF_ROLE_BOS,
    TF_ROLE_EOS,
    TF_ROLE_UNK,
    TF_ROLE_SEP,
    TF_ROLE_PAD,
    TF_ROLE_CLS,
    TF_ROLE_MASK,
    TF_ROLE_COUNT
} tf__special_role;

/* An AddedToken as the files write it: "text" or {"content": "text", ...}. */
typedef struct tf__folder_token {
    char *content; /* NULL: not said */
    int32_t special, single_word, lstrip, rstrip, normalized;
} tf__folder_token;

typedef struct tf__folder_config {
    int32_t model_max_length;             /* 0: not said, or no limit (null, or 2^31 on
                                             as transformers' 1e30) */
    int32_t lowercase, strip_accents;     /* do_lower_case, strip_accents; -1: not said */
    int32_t split_cjk;                    /* tokenize_chinese_chars; -1: not said */
    tf__folder_token role[TF_ROLE_COUNT]; /* bos_token .. mask_token */
    tf__folder_token *added;              /* [n_added]: added_tokens_decoder by id
                                             ([0, n_decoder)), then
                                             additional_special_tokens */
    size_t n_added, n_decoder;
    char *tokenizer_class; /* tokenizer_config.json's tokenizer_class; NULL: not said */
} tf__folder_config;

/* Reads dir's tokenizer_config.json and special_tokens_map.json where they
 * exist into *c (zeroed first; tf__folder_config_clear it, on failure too).
 * A file that is no JSON object, a field of the wrong type (null too where
 * transformers has no None: do_lower_case, tokenize_chinese_chars), an
 * added_tokens_decoder key that is no id or an empty content is
 * TF_ERR_FORMAT naming the file, the field and the value; a file that is a
 * symbolic link to nothing is TF_ERR_IO naming it (tf__file_probe). */
tf_status tf__folder_config_read(const char *dir, tf__folder_config *c);

void tf__folder_config_clear(tf__folder_config *c);

#endif
