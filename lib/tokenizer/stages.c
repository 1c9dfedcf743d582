/* stages.c — a tokenizer's list of stages of one kind (stages.h). */
#include "stages.h"

#include "alloc.h"

tf__stage *tf__stages_add(tf__stages *l, const tf__stage_type *type)
{
    void *state = type->state_size ? tf__calloc(1, type->state_size) : NULL;
    if (type->state_size && !state)
        return NULL;
    tf__stage *bigger = tf__realloc(l->v, (l->n + 1) * sizeof *bigger);
    if (!bigger) {
        tf__free(state);
        return NULL;
    }
    l->v = bigger;
    l->v[l->n] = (tf__stage){type, state};
    return &l->v[l->n++];
}

void tf__stages_destroy(tf__stages *l)
{
    for (size_t k = 0; k < l->n; k++) {
        if (l->v[k].type->destroy && l->v[k].state)
            l->v[k].type->destroy(l->v[k].state);
        tf__free(l->v[k].state);
    }
    tf__free(l->v);
    *l = (tf__stages){0};
}
