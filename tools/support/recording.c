/* recording.c — copies of trace events, kept in order. */
#include "recording.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void recording_add(recording *r, const tf_trace_event *e)
{
    if (r->out_of_memory)
        return;
    if (r->n == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 32;
        recorded *bigger = realloc(r->events, cap * sizeof *bigger);
        if (!bigger) {
            r->out_of_memory = 1;
            return;
        }
        r->events = bigger;
        r->cap = cap;
    }
    recorded *ev = &r->events[r->n];
    memset(ev, 0, sizeof *ev);
    snprintf(ev->name, sizeof ev->name, "%s", e->name);
    snprintf(ev->dim_names, sizeof ev->dim_names, "%s", e->dim_names);
    ev->layer = e->layer;
    ev->rank = e->rank;
    ev->count = 1;
    for (int32_t i = 0; i < e->rank; i++) {
        ev->dims[i] = e->dims[i];
        ev->count *= (size_t)e->dims[i];
    }
    ev->data = malloc(ev->count * sizeof *ev->data);
    if (!ev->data) {
        r->out_of_memory = 1;
        return;
    }
    memcpy(ev->data, e->data, ev->count * sizeof *ev->data);
    r->n++;
}

const recorded *recording_find(const recording *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->events[i].name, name) == 0)
            return &r->events[i];
    return NULL;
}

void recording_free(recording *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->events[i].data);
    free(r->events);
    memset(r, 0, sizeof *r);
}
