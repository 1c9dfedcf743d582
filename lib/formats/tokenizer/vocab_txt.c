/* vocab_txt.c — BERT's vocab.txt: one token per line, and the stages
 * BertTokenizerFast sets up around it. */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "bert_stages.h"
#include "models/wordpiece.h"
#include "tokenizer_files.h"

/* Reads vocab.txt: one token per line ("\n" or "\r\n"), id = line number;
 * a token listed twice keeps its last id, as BERT's loader does. */
static tf_status read_tokens(tf__vocab *v, const char *path)
{
    memset(v, 0, sizeof *v);
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_VOCAB_MAX_BYTES, &text, &len);
    if (s)
        return s;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    lines += len > 0 && text[len - 1] != '\n'; /* a last line without "\n" */
    if (lines == 0 || lines > TF_VOCAB_MAX_TOKENS) {
        tf__free(text);
        return tf__fail(TF_ERR_FORMAT, "%s: %zu tokens; expected 1..%d", path, lines,
                        TF_VOCAB_MAX_TOKENS);
    }
    if ((s = tf__vocab_begin(v, text, lines, path)) != TF_OK)
        return s;
    size_t start = 0;
    for (size_t i = 0; i <= len && (size_t)v->size < lines; i++) {
        if (i < len && text[i] != '\n')
            continue;
        size_t end = i;
        if (end > start && text[end - 1] == '\r')
            end--;
        text[end] = '\0';
        tf__vocab_add(v, start, end);
        start = i + 1;
    }
    return tf__vocab_finish(v, path);
}

/* Makes `token` an added special token, with the flags of `as` where the
 * folder names it so (else matched as written); 0 (and nothing added) when
 * the vocabulary lacks it, -1 when out of memory. */
static int add_special(tf_tokenizer *tok, const char *token, const tf__folder_token *as,
                       int32_t *id)
{
    *id = tf__vocab_find(&tok->vocab, token, strlen(token));
    if (*id < 0)
        return 0;
    tf__added_token *v = tf__realloc(tok->added.v, (tok->added.n + 1) * sizeof *v);
    if (!v)
        return -1;
    tok->added.v = v;
    tf__added_token *t = &v[tok->added.n];
    *t = (tf__added_token){.id = *id, .special = 1};
    if (as->content && strcmp(as->content, token) == 0) { /* (matched unnormalised) */
        t->single_word = as->single_word;
        t->lstrip = as->lstrip;
        t->rstrip = as->rstrip;
    }
    t->content = tf__malloc(strlen(token) + 1);
    if (!t->content)
        return -1;
    strcpy(t->content, token);
    tok->added.n++;
    return tf__chars_decode(&t->chars, token, strlen(token), 0, "special token") ? -1 : 1;
}

/* BertTokenizerFast's stages: BertNormalizer as the options say,
 * BertPreTokenizer, the WordPiece decoder ("##", cleanup). */
static tf_status bert_stages(tf_tokenizer *tok, const tf_tokenizer_options *o, const char *path)
{
    tf__stage *n = tf__stages_add(&tok->normalizers, &tf__bert_normalizer.stage);
    if (n)
        tf__bert_normalizer_init(n->state, 1, o->split_cjk,
                                 o->strip_accents < 0 ? o->lowercase : o->strip_accents,
                                 o->lowercase);
    tf__stage *d = n && tf__stages_add(&tok->pretokenizers, &tf__bert_pretokenizer.stage)
        ? tf__stages_add(&tok->decoders, &tf__wordpiece_decoder.stage)
        : NULL;
    if (!d || tf__wordpiece_decoder_init(d->state, "##", 1) != TF_OK)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the pipeline", path);
    return TF_OK;
}

/* BertTokenizerFast's stages over vocab.txt: its specials as added
 * tokens, BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP].
 * The specials are the options' (else [UNK], [CLS], [SEP], [PAD]) and
 * the mask token: roles' (a folder's, or all NULL) or [MASK], which the
 * vocabulary may lack; a role the folder names with flags keeps them. */
tf_status tf__vocab_txt_load(tf_tokenizer *tok, const char *path, const tf_tokenizer_options *o,
                             const tf__folder_token *roles)
{
    tf_status s = read_tokens(&tok->vocab, path);
    const char *mask = roles[TF_ROLE_MASK].content;
    const char *names[] = {o->unk_token ? o->unk_token : "[UNK]",
                           o->cls_token ? o->cls_token : "[CLS]",
                           o->sep_token ? o->sep_token : "[SEP]",
                           o->pad_token ? o->pad_token : "[PAD]", mask ? mask : "[MASK]"};
    const tf__folder_token *as[] = {&roles[TF_ROLE_UNK], &roles[TF_ROLE_CLS], &roles[TF_ROLE_SEP],
                                    &roles[TF_ROLE_PAD], &roles[TF_ROLE_MASK]};
    int32_t ids[5];
    for (int k = 0; s == TF_OK && k < 5; k++) {
        const int added = add_special(tok, names[k], as[k], &ids[k]);
        if (added < 0)
            s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the special tokens", path);
        else if (!added && k != 4) /* [MASK] is optional */
            s = tf__fail(TF_ERR_FORMAT, "%s: the vocabulary has no %s token", path, names[k]);
    }
    if (s == TF_OK && !tf__added_index(&tok->added))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the special tokens", path);
    if (s == TF_OK)
        s = tf__tokenizer_set_model(tok, &tf__wordpiece_model, path);
    if (s)
        return s;
    tf__wordpiece_init(tok->model_state, ids[0], o->max_chars_per_word);
    tok->pad_id = ids[3];
    tok->truncation = (tf__truncation){o->max_length, TF_TRUNCATE_ONE_AT_A_TIME, 0, 0};
    tok->model_max_length = o->max_length;
    if (!tf__template_cls_sep(&tok->single, &tok->pair, ids[1], ids[2], 0))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the pipeline", path);
    return bert_stages(tok, o, path);
}
