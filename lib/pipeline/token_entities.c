/* token_entities.c — tf_pipeline_entities: a token-classification head over
 * one text, then the entities of transformers' TokenClassificationPipeline
 * (pipelines/token_classification.py: gather_pre_entities, aggregate,
 * aggregate_words and aggregate_word with "first", "average" and "max",
 * group_entities, group_sub_entities, get_tag; ignore_labels ["O"]; each
 * word through the tokenizer's convert_tokens_to_string). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "alloc.h"
#include "classifier_head.h"
#include "error.h"
#include "pipeline.h"
#include "utf8.h"

/* One token (gather_pre_entities' pre_entity) or one entity. */
typedef struct entity {
    int32_t label; /* id2label index of its best score */
    float score;
    int64_t start, end;  /* bytes of the text */
    int32_t index;       /* the token's index in the encoding; -1 for groups */
    int32_t is_subword;  /* tokens only */
    int32_t skip;        /* bytes of labels[label] before its entity_group ("B-") */
    const float *scores; /* tokens: their softmax (labels), while aggregating */
    char *word;          /* owned (or NULL: moved): the token, or the decoder's text of
                             what it groups */
} entity;

struct tf_entities {
    const tf_pipeline *p; /* whose labels they name */
    entity *items;        /* [n], each owning its word */
    size_t n;
};

static const char *const aggregation_names[] = {"none", "simple", "first", "average", "max"};
_Static_assert(sizeof aggregation_names / sizeof *aggregation_names == TF_AGGREGATION_MAX + 1,
               "a name for each tf_aggregation");

const char *tf_aggregation_name(int32_t aggregation)
{
    return aggregation >= TF_AGGREGATION_NONE && aggregation <= TF_AGGREGATION_MAX
        ? aggregation_names[aggregation]
        : NULL;
}

static char *copy_text(const char *s, size_t n)
{
    char *out = tf__malloc(n + 1);
    if (out) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

/* gather_pre_entities' is_subword for token t of the text. */
static int32_t is_subword(const tf_pipeline *p, const char *text, const char *token, int64_t start,
                          int64_t end)
{
    if (p->wordpiece_subwords) /* len(word) != len(word_ref), in characters */
        return tf__utf8_count(token, strlen(token)) !=
            tf__utf8_count(text + start, (size_t)(end - start));
    return start > 0 && text[start - 1] != ' ' && text[start] != ' ';
}

/* tokenizers' ByteLevel trim_offsets (byte_level.rs process_offsets), which
 * the encoding does not apply: a token's leading "Ġ"s (U+0120, a space in
 * GPT-2's byte map) taken off the start of its span [start, end) where the
 * text has those spaces, except the one space add_prefix_space put before
 * the text's first word; the start. */
static int64_t trimmed_start(const char *token, const char *text, int64_t start, int64_t end)
{
    static const char space_char[] = "\xc4\xa0"; /* "Ġ" */
    int64_t spaces = 0;
    for (const char *t = token; strncmp(t, space_char, 2) == 0; t += 2)
        spaces++;
    if (start == 0 && spaces == 1)
        return start;
    while (spaces-- > 0 && start < end && text[start] == ' ')
        start++;
    return start;
}

/* The index of the largest of row[0..n) (the first of equals, as argmax). */
static int32_t argmax(const float *row, int32_t n)
{
    int32_t best = 0;
    for (int32_t k = 1; k < n; k++)
        best = row[k] > row[best] ? k : best;
    return best;
}

/* The tokens of the batch's one row, special ones (an empty span) left out,
 * into out[*n]: scores (len, labels) their softmax; each its token (the
 * unknown one: its text span) as word. */
static tf_status gather(const tf_pipeline *p, const tf__pipeline_batch *b, const char *text,
                        const float *scores, entity *out, size_t *n)
{
    const int32_t len = tf_encoding_lengths(b->enc)[0], labels = p->dim;
    const int32_t *ids = tf_encoding_ids(b->enc);
    const int64_t *offsets = tf_encoding_offsets(b->enc); /* [1, T, 2] */
    int32_t unk = tf_tokenizer_token_to_id(p->tok, "[UNK]");
    if (unk < 0)
        unk = tf_tokenizer_token_to_id(p->tok, "<unk>");
    for (int32_t t = 0; t < len; t++) {
        int64_t start = offsets[2 * t];
        const int64_t end = offsets[2 * t + 1];
        if (start == end)
            continue;
        const char *token = tf_tokenizer_id_to_token(p->tok, ids[t]);
        const int known = ids[t] != unk && token;
        if (known)
            start = trimmed_start(token, text, start, end);
        const float *row = scores + (size_t)t * (size_t)labels; /* (labels) */
        const int32_t best = argmax(row, labels);
        entity *e = &out[*n];
        *e = (entity){.label = best,
                      .score = row[best],
                      .start = start,
                      .end = end,
                      .index = t,
                      .is_subword = known && is_subword(p, text, token, start, end),
                      .scores = row};
        e->word = known ? copy_text(token, strlen(token))
                        : copy_text(text + start, (size_t)(end - start));
        if (!e->word)
            return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the word of token %d", (int)t);
        (*n)++;
    }
    return TF_OK;
}

/* e[0..n)'s words through the decoder (convert_tokens_to_string) as e[0]'s,
 * the others' freed; in the caller's words on failure. */
static tf_status join_words(const tf_pipeline *p, entity *e, size_t n)
{
    const char **words = tf__malloc(n * sizeof *words); /* [n] */
    if (!words)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu words", n);
    for (size_t i = 0; i < n; i++)
        words[i] = e[i].word;
    size_t len = 0;
    tf_status s = tf_tokenizer_decode_tokens(p->tok, words, n, NULL, 0, &len);
    char *joined = s ? NULL : tf__malloc(len + 1);
    if (s == TF_OK && !joined)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a word of %zu bytes", len);
    if (s == TF_OK)
        s = tf_tokenizer_decode_tokens(p->tok, words, n, joined, len + 1, &len);
    tf__free(words);
    if (s) {
        tf__free(joined);
        return s;
    }
    for (size_t i = 0; i < n; i++) {
        tf__free(e[i].word);
        e[i].word = NULL;
    }
    e[0].word = joined;
    return TF_OK;
}

/* aggregate_word's label and score for the tokens w[0..n) of one word:
 * "first" its first token's; "max" the best-scored token's (the first of
 * equals); "average" the best of the mean of their softmaxes. */
static void word_label(const tf_pipeline *p, const entity *w, size_t n, int32_t aggregation,
                       int32_t *label, float *score)
{
    size_t pick = 0;
    if (aggregation == TF_AGGREGATION_MAX)
        for (size_t i = 1; i < n; i++)
            pick = w[i].score > w[pick].score ? i : pick;
    if (aggregation != TF_AGGREGATION_AVERAGE) {
        *label = w[pick].label, *score = w[pick].score;
        return;
    }
    *label = 0, *score = -1.0f;
    for (int32_t k = 0; k < p->dim; k++) { /* the mean of column k, in double */
        double sum = 0.0;
        for (size_t i = 0; i < n; i++)
            sum += w[i].scores[k];
        const float mean = (float)(sum / (double)n);
        if (mean > *score)
            *label = k, *score = mean;
    }
}

/* aggregate_words: each word (a token and the subwords after it) one
 * entity by aggregation (word_label), its word the decoder's text of its
 * tokens; in place, *n the count left. Every item of e[0..*n) owns its
 * word or has NULL throughout, so a failure leaves them to free. */
static tf_status aggregate_words(const tf_pipeline *p, entity *e, size_t *n, int32_t aggregation)
{
    size_t words = 0;
    for (size_t i = 0; i < *n;) {
        size_t end = i + 1;
        while (end < *n && e[end].is_subword)
            end++;
        int32_t label;
        float score;
        word_label(p, e + i, end - i, aggregation, &label, &score);
        tf_status s = join_words(p, e + i, end - i);
        if (s)
            return s;
        entity word = e[i];
        word.label = label, word.score = score, word.end = e[end - 1].end, word.index = -1;
        e[i].word = NULL;
        e[words++] = word;
        i = end;
    }
    *n = words;
    return TF_OK;
}

/* get_tag: "B-X" -> (B, X), "I-X" -> (I, X), else (I, the label). */
static const char *tag_of(const char *label, char *bi)
{
    if ((label[0] == 'B' || label[0] == 'I') && label[1] == '-') {
        *bi = label[0];
        return label + 2;
    }
    *bi = 'I';
    return label;
}

/* The end of the run of one tag from e[i] (a B- starts a new one). */
static size_t run_end(const tf_pipeline *p, const entity *e, size_t i, size_t n)
{
    char bi;
    const char *tag = tag_of(p->arch.labels[e[i].label], &bi);
    size_t end = i + 1;
    while (end < n && strcmp(tag_of(p->arch.labels[e[end].label], &bi), tag) == 0 && bi != 'B')
        end++;
    return end;
}

/* group_entities: runs of one tag become one entity (group_sub_entities:
 * the first's label after its first "-", the mean score, the first's
 * start, the last's end, the decoder's text of their words); in place, *n
 * the count left. */
static tf_status group(const tf_pipeline *p, entity *e, size_t *n)
{
    size_t groups = 0;
    for (size_t i = 0; i < *n;) {
        const size_t end = run_end(p, e, i, *n);
        double sum = 0.0;
        for (size_t k = i; k < end; k++)
            sum += e[k].score;
        tf_status s = join_words(p, e + i, end - i);
        if (s)
            return s;
        const char *label = p->arch.labels[e[i].label], *dash = strchr(label, '-');
        entity g = e[i];
        g.score = (float)(sum / (double)(end - i)), g.end = e[end - 1].end, g.index = -1;
        g.skip = dash ? (int32_t)(dash + 1 - label) : 0;
        e[i].word = NULL;
        e[groups++] = g;
        i = end;
    }
    *n = groups;
    return TF_OK;
}

/* Leaves out what is labelled "O" (ignore_labels); the count left. */
static size_t drop_outside(const tf_pipeline *p, entity *e, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(p->arch.labels[e[i].label] + e[i].skip, "O") != 0) {
            e[kept++] = e[i];
            continue;
        }
        tf__free(e[i].word);
    }
    return kept;
}

static tf_status check_call(const tf_pipeline *p, const char *text, int32_t aggregation,
                            tf_entities **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!p || !text)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", p ? "text" : "pipeline");
    if (p->kind != TF_PIPELINE_TOKEN_CLASSIFIER)
        return tf__pipeline_wrong_kind(p, "tf_pipeline_entities");
    if (!tf_aggregation_name(aggregation))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "aggregation: expected 0 (none) to %d (%s), got %d", TF_AGGREGATION_MAX,
                        tf_aggregation_name(TF_AGGREGATION_MAX), (int)aggregation);
    return TF_OK;
}

/* The entities of the batch's row by aggregation, into r (r->n of them
 * owning their words, also on failure). */
static tf_status entities_of(const tf_pipeline *p, const tf__pipeline_batch *b, const char *text,
                             int32_t aggregation, tf_entities *r)
{
    const size_t len = (size_t)tf_encoding_lengths(b->enc)[0], labels = (size_t)p->dim;
    const size_t D = (size_t)p->cfg.d_model;
    float *scores = tf__malloc((len ? len : 1) * labels * sizeof *scores); /* (len, labels) */
    r->items = tf__malloc((len ? len : 1) * sizeof *r->items);
    if (!scores || !r->items) {
        tf__free(scores);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the scores of %zu tokens", len);
    }
    tf__head_logits(scores, b->hidden, p->cls_w, p->cls_b, len, labels, D); /* row 0 of [1, T, D] */
    tf__head_activate(scores, len, labels, TF_HEAD_SOFTMAX);
    tf_status s = gather(p, b, text, scores, r->items, &r->n);
    if (s == TF_OK && aggregation >= TF_AGGREGATION_FIRST)
        s = aggregate_words(p, r->items, &r->n, aggregation);
    if (s == TF_OK && aggregation != TF_AGGREGATION_NONE)
        s = group(p, r->items, &r->n);
    tf__free(scores);
    if (s == TF_OK)
        r->n = drop_outside(p, r->items, r->n);
    return s;
}

tf_status tf_pipeline_entities(const tf_pipeline *p, const char *text, int32_t aggregation,
                               tf_entities **out)
{
    tf_status s = check_call(p, text, aggregation, out);
    if (s)
        return s;
    tf_entities *r = tf__calloc(1, sizeof *r);
    if (!r)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the entities");
    r->p = p;
    tf__pipeline_batch b;
    if ((s = tf__pipeline_batch_run(p, &text, NULL, 1, 0, 0, &b)) == TF_OK) {
        s = entities_of(p, &b, text, aggregation, r);
        tf__pipeline_batch_free(&b);
    }
    if (s) {
        tf_entities_destroy(r);
        return s;
    }
    *out = r;
    return TF_OK;
}

void tf_entities_destroy(tf_entities *e)
{
    if (!e)
        return;
    for (size_t i = 0; e->items && i < e->n; i++)
        tf__free(e->items[i].word);
    tf__free(e->items);
    tf__free(e);
}

size_t tf_entities_count(const tf_entities *e)
{
    return e ? e->n : 0;
}

const char *tf_entities_label(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->p->arch.labels[e->items[i].label] + e->items[i].skip : NULL;
}

const char *tf_entities_word(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->items[i].word : NULL;
}

float tf_entities_score(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->items[i].score : 0.0f;
}

int64_t tf_entities_start(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->items[i].start : 0;
}

int64_t tf_entities_end(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->items[i].end : 0;
}

int32_t tf_entities_index(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->items[i].index : -1;
}
