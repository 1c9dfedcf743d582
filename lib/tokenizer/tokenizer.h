/* tokenizer.h — the WordPiece tokenizer behind tf_tokenizer. */
#ifndef TF_TOKENIZER_H
#define TF_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"
#include "vocab.h"

enum { TF_SPECIAL_UNK, TF_SPECIAL_CLS, TF_SPECIAL_SEP, TF_SPECIAL_PAD, TF_SPECIAL_MASK,
       TF_N_SPECIALS };
#define TF_SPECIAL_MAX 64

struct tf_tokenizer {
    tf_vocab vocab;
    int32_t lowercase, strip_accents, split_cjk, max_chars_per_word, max_length;
    int32_t unk_id;
    char special[TF_N_SPECIALS][TF_SPECIAL_MAX];   /* kept whole when written in text */
    size_t special_len[TF_N_SPECIALS];             /* 0: not in the vocabulary */
    int32_t special_id[TF_N_SPECIALS];
    unsigned char special_first[256];              /* first bytes of the specials */
};

/* One token: its id and the bytes [begin, end) of the text it came from. */
typedef struct tf_token {
    int32_t id;
    int64_t begin, end;
} tf_token;

typedef struct tf_token_vec {
    tf_token *v;
    size_t n, cap;
} tf_token_vec;

/* Appends the tokens of text[0..len) (no [CLS]/[SEP]) to out; `what` names
 * the text in messages. */
tf_status tf_tokenize(tf_token_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                      const char *what);

#endif
