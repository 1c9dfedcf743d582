/* explain_html.h — `tfenc explain --html PAGE.html`: the walkthrough as one
 * self-contained page (inline SVG and CSS, no script, nothing fetched):
 * the data-flow diagram of the traced tensors in the tutorial's order, each
 * box linked to its values; the attention weights of every head as
 * heatmaps; the position table and a few of its columns as curves;
 * LayerNorm's per-token mean and std before and after; the FFN activation's
 * histogram; the tutorial's worked example beside its own numbers; a
 * retrieval folder's head (explain_html_retrieval.h). */
#ifndef TFENC_EXPLAIN_HTML_H
#define TFENC_EXPLAIN_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "explain_retrieval.h"
#include "recording.h"
#include "tfenc.h"
#include "worked_example.h"

/* What the page is drawn from: one forward call of one sentence. */
typedef struct explain_page {
    const recording *rec;      /* every trace event of the call */
    const tf_config *cfg;      /* the model's configuration */
    const char *model;         /* its path, or NULL: the tutorial's model */
    const char *text;          /* the sentence as given */
    const char *const *tokens; /* [T]: each token, whole */
    const int32_t *ids;        /* [T]: its id */
    int T;
    int layer, head; /* the layer drawn step by step; the head whose values show */
    const worked_example *example;
    const retrieval_view *retrieval; /* a retrieval folder's head (explain_retrieval.h), or NULL */
} explain_page;

/* Writes the page to path (whole, or not at all): 0, or -1 with a message
 * naming the path in err. */
int explain_html_write(const char *path, const explain_page *page, char *err, size_t err_size);

#endif
