/* explain_html_tensors.c — what the page's sections share about the traced
 * tensors: which the walkthrough shows, their names within a layer, the
 * tutorial's way of writing their shapes, their range. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_html_parts.h"

const char *short_name(const recorded *ev)
{
    if (ev->layer < 0)
        return ev->name;
    const char *dot = strchr(ev->name + strlen("layers."), '.');
    return dot ? dot + 1 : ev->name;
}

int in_walkthrough(const explain_page *e, const recorded *ev)
{
    return ev->layer < 0 || ev->layer == e->layer || !strcmp(short_name(ev), "add_norm2");
}

const recorded *layer_event(const explain_page *e, const char *name)
{
    char full[96];
    snprintf(full, sizeof full, "layers.%d.%s", e->layer, name);
    return recording_find(e->rec, full);
}

void tutorial_shape(const recorded *ev, char *buf, size_t size)
{
    const int skip = ev->dim_names[0] == 'B'; /* the batch of one sentence */
    const int64_t *d = ev->dims + skip;
    const int rank = ev->rank - skip;
    if (rank == 3)
        snprintf(buf, size, "%lld \u00d7 (%lld, %lld)", (long long)d[0], (long long)d[1],
                 (long long)d[2]);
    else if (rank == 2)
        snprintf(buf, size, "(%lld, %lld)", (long long)d[0], (long long)d[1]);
    else
        snprintf(buf, size, "(%lld)", rank == 1 ? (long long)d[0] : 0LL);
}

void tensor_stats(const recorded *ev, double *lo, double *hi, double *mean)
{
    double sum = 0;
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < ev->count; i++) {
        const double v = ev->data[i];
        sum += v;
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
    *mean = ev->count ? sum / (double)ev->count : 0;
}
