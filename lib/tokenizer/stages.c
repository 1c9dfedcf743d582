/* stages.c — a tokenizer's list of stages of one kind (stages.h). */
#include "stages.h"

#include "alloc.h"

tf_stage *tf_stages_add(tf_stages *l, const tf_stage_type *type)
{
    void *state = type->state_size ? tf_calloc(1, type->state_size) : NULL;
    if (type->state_size && !state)
        return NULL;
    tf_stage *bigger = tf_realloc(l->v, (l->n + 1) * sizeof *bigger);
    if (!bigger) {
        tf_free(state);
        return NULL;
    }
    l->v = bigger;
    l->v[l->n] = (tf_stage){type, state};
    return &l->v[l->n++];
}

void tf_stages_destroy(tf_stages *l)
{
    for (size_t k = 0; k < l->n; k++) {
        if (l->v[k].type->destroy && l->v[k].state)
            l->v[k].type->destroy(l->v[k].state);
        tf_free(l->v[k].state);
    }
    tf_free(l->v);
    *l = (tf_stages){0};
}
