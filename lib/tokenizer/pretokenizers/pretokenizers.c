/* pretokenizers.c — the one table of pre-tokenizers, and running one.
 *
 * Adding a pre-tokenizer (say tokenizers' UnicodeScripts, "UnicodeScripts"
 * in its "type"):
 *  1. write pretokenizers/<type>.c, after tokenizers' pre_tokenizers/
 *     (named at its top), defining `const tf_pretokenizer_type
 *     tf_<type>_pretokenizer` (pretokenizers.h and stages.h say what each
 *     field is): its state, a read that reads and checks every field
 *     tokenizers reads, apply (most are a tf_split_pieces), destroy;
 *  2. add its line to TF_PRETOKENIZERS below and the file to
 *     tokenizer/meson.build;
 *  3. a fixture and the tests that read it (docs/adding.md).
 * Nothing else names a pre-tokenizer: tokenizer.json's "type" finds its
 * row here (a "Sequence" is a list of them), and the tokenizer calls the
 * row. */
#include "pretokenizers.h"

#include <string.h>

#include "error.h"

#define TF_PRETOKENIZERS(ROW) /* the table: a line per type, the row its file defines */ \
    ROW(tf_bert_pretokenizer)                                                            \
    ROW(tf_byte_level_pretokenizer)                                                      \
    ROW(tf_whitespace_pretokenizer)                                                      \
    ROW(tf_whitespace_split_pretokenizer)                                                \
    ROW(tf_punctuation_pretokenizer)                                                     \
    ROW(tf_digits_pretokenizer)                                                          \
    ROW(tf_split_pretokenizer)                                                           \
    ROW(tf_metaspace_pretokenizer)                                                       \
    /* (the table ends here) */

#define DECLARE_ROW(row) extern const tf_pretokenizer_type row;
TF_PRETOKENIZERS(DECLARE_ROW)
#define ROW_ADDRESS(row) &row,
static const tf_pretokenizer_type *const pretokenizers[] = {TF_PRETOKENIZERS(ROW_ADDRESS)};
enum { N_PRETOKENIZERS = sizeof pretokenizers / sizeof pretokenizers[0] };

const tf_stage_type *tf_pretokenizer_find(const char *name)
{
    for (int i = 0; i < N_PRETOKENIZERS; i++)
        if (strcmp(pretokenizers[i]->stage.name, name) == 0)
            return &pretokenizers[i]->stage;
    return NULL;
}

/* The pre-tokenizer row of stage p (its first member is p's type). */
static const tf_pretokenizer_type *row_of(const tf_stage *p)
{
    return (const tf_pretokenizer_type *)p->type;
}

int tf_pretokenizer_whitespace_cuts(const tf_stage *p)
{
    return row_of(p)->whitespace_cuts;
}

tf_status tf_pretokenizer_no_memory(const char *what)
{
    return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
}

tf_status tf_pre_tokenize(tf_chars *out, const tf_chars *in, const tf_stage *p,
                          const char *what)
{
    if (!tf_chars_reserve_output(out, in))
        return tf_pretokenizer_no_memory(what);
    return row_of(p)->apply(out, in, p->state, what);
}
