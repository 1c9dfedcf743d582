/* post_process.h — what tokenizers does after the tokenizer model:
 * truncation of a text (and its pair) to max_length, the template that adds
 * the special tokens and token types (what post_processors/ make of
 * tokenizer.json's post-processor), padding. */
#ifndef TF_POST_PROCESS_H
#define TF_POST_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#include "tokens.h"
#include "tfenc.h"

/* One item of a template: a sequence ($A: 0, $B: 1) or special ids. */
typedef struct tf__template_item {
    int32_t sequence; /* 0 or 1; -1: the special ids below */
    int32_t type_id;
    int32_t *ids; /* [n_ids] */
    size_t n_ids;
} tf__template_item;

typedef struct tf__template {
    tf__template_item *items; /* [n] */
    size_t n;
    int32_t window_types; /* TemplateProcessing's: the tokens of an overflowing window
                                past a sequence's first have that sequence's type (0 for
                                $A, 1 for $B), not the template's, as tokenizers gives them */
} tf__template;

/* The special ids the template adds. */
size_t tf__template_added(const tf__template *t);
/* Appends the row the template makes of a (and b) to out; 0 when out of
 * memory. */
int tf__template_apply(tf__token_vec *out, const tf__template *t, const tf__token_vec *a,
                       const tf__token_vec *b);
void tf__template_destroy(tf__template *t);
/* Appends an item: sequence 0 ($A) or 1 ($B), or -1 and the special
 * ids[0..n_ids) (copied). 0 when out of memory. */
int tf__template_add(tf__template *t, int32_t sequence, int32_t type_id, const int32_t *ids,
                     size_t n_ids);
/* What is wrong with t as a TemplateProcessing template for a single text
 * (pair 0) or a pair (1), NULL when nothing: a pair template must use both
 * $A and $B (as tokenizers' TemplateProcessingBuilder::validate requires;
 * its deserializer does not check, and gives an empty pair template's rows
 * no tokens at all), and a single one $A and not $B (tokenizers indexes a
 * second sequence a single text does not have, and panics; without $A the
 * text would be left out). */
const char *tf__template_fault(const tf__template *t, int pair);
/* BERT's templates, [CLS] $A [SEP] and [CLS] $A [SEP] $B:1 [SEP]:1, or with
 * roberta RoBERTa's, <s> $A </s> and <s> $A </s> </s> $B </s> (all type 0). */
int tf__template_cls_sep(tf__template *single, tf__template *pair, int32_t cls, int32_t sep,
                         int roberta);

typedef enum tf__truncation_strategy {
    TF_TRUNCATE_LONGEST_FIRST, /* tokenizers' LongestFirst */
    TF_TRUNCATE_ONLY_FIRST,
    TF_TRUNCATE_ONLY_SECOND,
    TF_TRUNCATE_ONE_AT_A_TIME /* BERT's Python tokenizer: the longer loses one, b on ties */
} tf__truncation_strategy;

typedef struct tf__truncation {
    int32_t max_length; /* 0: none; with the template's specials */
    tf__truncation_strategy strategy;
    int32_t left;   /* direction Left: tokens go from the start */
    int32_t stride; /* >= 0: the overlap of overflowing windows */
} tf__truncation;

/* How many tokens of a (na) and b (nb, when has_pair) truncation keeps, so
 * that they and `added` specials fit max_length: *ka, *kb (tokenizers'
 * truncate_encodings). A strategy that cannot (only_second without a pair,
 * or the sequence too short) is TF_ERR_INVALID_ARGUMENT naming `what`. */
tf_status tf__truncation_keep(size_t na, size_t nb, int has_pair, size_t added,
                              const tf__truncation *t, const char *what, size_t *ka, size_t *kb);

/* The windows truncation with a stride cuts n tokens into, keeping `keep`
 * (tokenizers' Encoding::truncate): the first is what truncation keeps
 * (the first `keep` tokens, or the last when left), each next one starts
 * keep - stride tokens on (back, when left) until one reaches the end.
 * keep >= n: one window of all; keep <= stride: the first alone (the caller
 * refuses such a stride). */
typedef struct tf__windows {
    size_t n, len, step; /* tokens, a window's (at most), between starts */
    int left;
    size_t count;
} tf__windows;

tf__windows tf__windows_of(size_t n, size_t keep, size_t stride, int left);
/* Window k < w->count: tokens [*begin, *end). */
void tf__window(const tf__windows *w, size_t k, size_t *begin, size_t *end);

#endif
