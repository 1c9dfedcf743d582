/* token_entities.c — tf_pipeline_entities: a token-classification head over
 * one text, then the entities of transformers' TokenClassificationPipeline
 * (pipelines/token_classification.py: gather_pre_entities, aggregate,
 * aggregate_words with "first", group_entities, group_sub_entities,
 * get_tag; ignore_labels ["O"]). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "alloc.h"
#include "classifier_head.h"
#include "error.h"
#include "pipeline.h"
#include "utf8.h"

/* One token (gather_pre_entities' pre_entity) or one entity. */
typedef struct entity {
    int32_t label;        /* id2label index of its best (first, for a word) score */
    float score;
    int64_t start, end;   /* bytes of the text */
    int32_t index;        /* the token's index in the encoding; -1 for groups */
    int32_t is_subword;   /* tokens only */
    int32_t skip;         /* bytes of labels[label] before its entity_group ("B-") */
} entity;

struct tf_entities {
    const tf_pipeline *p; /* whose labels they name */
    entity *items;        /* [n] */
    size_t n;
};

/* gather_pre_entities' is_subword for token t of the text. */
static int32_t is_subword(const tf_pipeline *p, const char *text, int32_t id, int64_t start,
                          int64_t end, int32_t unk)
{
    if (id == unk)
        return 0;
    if (p->wordpiece_subwords) { /* len(word) != len(word_ref), in characters */
        const char *token = tf_tokenizer_id_to_token(p->tok, id);
        return token && tf_utf8_count(token, strlen(token)) !=
                            tf_utf8_count(text + start, (size_t)(end - start));
    }
    return start > 0 && text[start - 1] != ' ' && text[start] != ' ';
}

/* The tokens of the batch's one row, special ones (an empty span) left out;
 * scores (len, labels) their softmax. */
static size_t gather(const tf_pipeline *p, const tf_pipeline_batch *b, const char *text,
                     const float *scores, entity *out)
{
    const int32_t len = tf_encoding_lengths(b->enc)[0], labels = p->dim;
    const int32_t *ids = tf_encoding_ids(b->enc);
    const int64_t *offsets = tf_encoding_offsets(b->enc); /* [1, T, 2] */
    int32_t unk = tf_tokenizer_token_to_id(p->tok, "[UNK]");
    if (unk < 0)
        unk = tf_tokenizer_token_to_id(p->tok, "<unk>");
    size_t n = 0;
    for (int32_t t = 0; t < len; t++) {
        const int64_t start = offsets[2 * t], end = offsets[2 * t + 1];
        if (start == end)
            continue;
        const float *row = scores + (size_t)t * (size_t)labels; /* (labels) */
        int32_t best = 0;
        for (int32_t k = 1; k < labels; k++)
            best = row[k] > row[best] ? k : best;
        out[n++] = (entity){.label = best, .score = row[best], .start = start, .end = end,
                            .index = t, .is_subword = is_subword(p, text, ids[t], start, end, unk)};
    }
    return n;
}

/* aggregate_words with "first": each word (a token and the subwords after
 * it) takes its first token's label and score; in place, the count left. */
static size_t first_of_words(entity *e, size_t n)
{
    size_t words = 0;
    for (size_t i = 0; i < n; i++) {
        if (words > 0 && e[i].is_subword) {
            e[words - 1].end = e[i].end;
            continue;
        }
        e[words] = e[i];
        e[words++].index = -1;
    }
    return words;
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

/* group_entities: runs of one tag (a B- starts a new one) become one entity
 * (group_sub_entities: the first's label after its first "-", the mean
 * score, the first's start, the last's end); in place, the count left. */
static size_t group(const tf_pipeline *p, entity *e, size_t n)
{
    size_t groups = 0, members = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        char bi, last_bi;
        const char *tag = tag_of(p->arch.labels[e[i].label], &bi);
        const char *last = groups ? tag_of(p->arch.labels[e[groups - 1].label], &last_bi) : NULL;
        if (members > 0 && strcmp(tag, last) == 0 && bi != 'B') {
            e[groups - 1].end = e[i].end;
            sum += e[i].score, members++;
            e[groups - 1].score = (float)(sum / (double)members);
            continue;
        }
        const char *label = p->arch.labels[e[i].label], *dash = strchr(label, '-');
        e[groups] = e[i];
        e[groups].index = -1;
        e[groups++].skip = dash ? (int32_t)(dash + 1 - label) : 0;
        sum = e[i].score, members = 1;
    }
    return groups;
}

/* Leaves out what is labelled "O" (ignore_labels); the count left. */
static size_t drop_outside(const tf_pipeline *p, entity *e, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(p->arch.labels[e[i].label] + e[i].skip, "O") != 0)
            e[kept++] = e[i];
    return kept;
}

static tf_status check_call(const tf_pipeline *p, const char *text, int32_t aggregation,
                            tf_entities **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!p || !text)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", p ? "text" : "pipeline");
    if (p->kind != TF_PIPELINE_TOKEN_CLASSIFIER)
        return tf_pipeline_wrong_kind(p, "tf_pipeline_entities");
    if (aggregation < TF_AGGREGATION_NONE || aggregation > TF_AGGREGATION_FIRST)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "aggregation: expected 0 (none), 1 (simple) or "
                       "2 (first), got %d", (int)aggregation);
    return TF_OK;
}

/* The entities of the batch's row by aggregation, into r. */
static tf_status entities_of(const tf_pipeline *p, const tf_pipeline_batch *b, const char *text,
                             int32_t aggregation, tf_entities *r)
{
    const size_t len = (size_t)tf_encoding_lengths(b->enc)[0], labels = (size_t)p->dim;
    const size_t D = (size_t)p->cfg.d_model;
    float *scores = tf_malloc((len ? len : 1) * labels * sizeof *scores); /* (len, labels) */
    r->items = tf_malloc((len ? len : 1) * sizeof *r->items);
    if (!scores || !r->items) {
        tf_free(scores);
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the scores of %zu tokens", len);
    }
    tf_head_logits(scores, b->hidden, p->cls_w, p->cls_b, len, labels, D); /* row 0 of [1, T, D] */
    tf_head_activate(scores, len, labels, TF_HEAD_SOFTMAX);
    size_t n = gather(p, b, text, scores, r->items);
    tf_free(scores);
    if (aggregation == TF_AGGREGATION_FIRST)
        n = first_of_words(r->items, n);
    if (aggregation != TF_AGGREGATION_NONE)
        n = group(p, r->items, n);
    r->n = drop_outside(p, r->items, n);
    return TF_OK;
}

tf_status tf_pipeline_entities(const tf_pipeline *p, const char *text, int32_t aggregation,
                             tf_entities **out)
{
    tf_status s = check_call(p, text, aggregation, out);
    if (s)
        return s;
    tf_entities *r = tf_calloc(1, sizeof *r);
    if (!r)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the entities");
    r->p = p;
    tf_pipeline_batch b;
    if ((s = tf_pipeline_batch_run(p, &text, NULL, 1, 0, 0, &b)) == TF_OK) {
        s = entities_of(p, &b, text, aggregation, r);
        tf_pipeline_batch_free(&b);
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
    tf_free(e->items);
    tf_free(e);
}

size_t tf_entities_count(const tf_entities *e)
{
    return e ? e->n : 0;
}

const char *tf_entities_label(const tf_entities *e, size_t i)
{
    return e && i < e->n ? e->p->arch.labels[e->items[i].label] + e->items[i].skip : NULL;
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
