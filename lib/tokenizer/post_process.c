/* post_process.c — truncation and the templates of special tokens. */
#include "post_process.h"

#include <string.h>

#include "alloc.h"
#include "error.h"

size_t tf__template_added(const tf__template *t)
{
    size_t n = 0;
    for (size_t k = 0; k < t->n; k++)
        n += t->items[k].sequence < 0 ? t->items[k].n_ids : 0;
    return n;
}

int tf__template_apply(tf__token_vec *out, const tf__template *t, const tf__token_vec *a,
                       const tf__token_vec *b)
{
    for (size_t k = 0; k < t->n; k++) {
        const tf__template_item *it = &t->items[k];
        const tf__token_vec *seq = it->sequence == 0 ? a : b;
        const size_t n = it->sequence < 0 ? it->n_ids : seq->n;
        for (size_t i = 0; i < n; i++) {
            const int ok = it->sequence < 0
                ? tf__token_push(out, it->ids[i], 0, 0)
                : tf__token_push(out, seq->v[i].id, seq->v[i].begin, seq->v[i].end);
            if (!ok)
                return 0;
            out->v[out->n - 1].type_id = it->type_id;
        }
    }
    return 1;
}

void tf__template_destroy(tf__template *t)
{
    for (size_t k = 0; k < t->n; k++)
        tf__free(t->items[k].ids);
    tf__free(t->items);
    t->items = NULL, t->n = 0, t->window_types = 0;
}

/* tokenizers' LongestFirst: the shorter keeps what it has where the longer
 * still fits beside it, else they share `room` (the first gets the smaller
 * half). */
static void longest_first(size_t *ka, size_t *kb, size_t room)
{
    size_t n1 = *ka, n2 = *kb;
    const int swap = n1 > n2;
    if (swap)
        n1 = *kb, n2 = *ka;
    n2 = n1 > room ? n1 : (n1 > room - n1 ? n1 : room - n1);
    if (n1 + n2 > room) {
        n1 = room / 2;
        n2 = n1 + room % 2;
    }
    *ka = *ka < (swap ? n2 : n1) ? *ka : (swap ? n2 : n1);
    *kb = *kb < (swap ? n1 : n2) ? *kb : (swap ? n1 : n2);
}

tf_status tf__truncation_keep(size_t na, size_t nb, int has_pair, size_t added,
                              const tf__truncation *t, const char *what, size_t *ka, size_t *kb)
{
    *ka = na, *kb = nb;
    if (t->max_length <= 0 || na + nb + added <= (size_t)t->max_length)
        return TF_OK;
    if ((size_t)t->max_length < added)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: max_length %d leaves no room beside the "
                        "%zu special tokens",
                        what, (int)t->max_length, added);
    const size_t room = (size_t)t->max_length - added, remove = na + nb - room;
    if (!has_pair && t->strategy == TF_TRUNCATE_ONLY_SECOND)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: truncation only_second needs a pair", what);
    if (!has_pair && t->strategy != TF_TRUNCATE_ONLY_FIRST) {
        *ka = room;
        return TF_OK;
    }
    switch (t->strategy) {
    case TF_TRUNCATE_LONGEST_FIRST:
        longest_first(ka, kb, room);
        break;
    case TF_TRUNCATE_ONE_AT_A_TIME:
        while (*ka + *kb > room)
            --*(*ka > *kb ? ka : kb);
        break;
    case TF_TRUNCATE_ONLY_FIRST:
    case TF_TRUNCATE_ONLY_SECOND: {
        size_t *k = t->strategy == TF_TRUNCATE_ONLY_FIRST ? ka : kb;
        if (*k <= remove)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "%s: truncating only the %s text cannot "
                            "make it fit %d tokens",
                            what, k == ka ? "first" : "second", (int)t->max_length);
        *k -= remove;
        break;
    }
    }
    return TF_OK;
}

tf__windows tf__windows_of(size_t n, size_t keep, size_t stride, int left)
{
    tf__windows w = {n, keep < n ? keep : n, 1, left, 1};
    if (keep < n && keep > stride) {
        w.step = keep - stride;
        w.count = 1 + (n - keep + w.step - 1) / w.step;
    }
    return w;
}

void tf__window(const tf__windows *w, size_t k, size_t *begin, size_t *end)
{
    if (w->left) {
        *end = w->n - k * w->step;
        *begin = *end > w->len ? *end - w->len : 0;
    } else {
        *begin = k * w->step;
        *end = *begin + w->len < w->n ? *begin + w->len : w->n;
    }
}

int tf__template_add(tf__template *t, int32_t sequence, int32_t type_id, const int32_t *ids,
                     size_t n_ids)
{
    tf__template_item *items = tf__realloc(t->items, (t->n + 1) * sizeof *items);
    if (!items)
        return 0;
    t->items = items;
    tf__template_item *it = &t->items[t->n];
    *it = (tf__template_item){sequence, type_id, NULL, 0};
    if (sequence < 0) {
        it->ids = tf__malloc(n_ids * sizeof *it->ids);
        if (!it->ids)
            return 0;
        memcpy(it->ids, ids, n_ids * sizeof *ids);
        it->n_ids = n_ids;
    }
    t->n++;
    return 1;
}

const char *tf__template_fault(const tf__template *t, int pair)
{
    int uses[2] = {0, 0}; /* $A, $B */
    for (size_t k = 0; k < t->n; k++)
        if (t->items[k].sequence >= 0)
            uses[t->items[k].sequence] = 1;
    if (pair)
        return uses[0] && uses[1] ? NULL : "a pair template must use both $A and $B";
    return uses[0] && !uses[1] ? NULL : "a single template must use $A and not $B";
}

int tf__template_cls_sep(tf__template *single, tf__template *pair, int32_t cls, int32_t sep,
                         int roberta)
{
    const int32_t b_type = roberta ? 0 : 1;
    return tf__template_add(single, -1, 0, &cls, 1) && tf__template_add(single, 0, 0, NULL, 0) &&
        tf__template_add(single, -1, 0, &sep, 1) && tf__template_add(pair, -1, 0, &cls, 1) &&
        tf__template_add(pair, 0, 0, NULL, 0) && tf__template_add(pair, -1, 0, &sep, 1) &&
        (!roberta || tf__template_add(pair, -1, 0, &sep, 1)) &&
        tf__template_add(pair, 1, b_type, NULL, 0) && tf__template_add(pair, -1, b_type, &sep, 1);
}
