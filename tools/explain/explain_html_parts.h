/* explain_html_parts.h — the sections of the --html page, one function
 * each, and what they share: which traced tensors the walkthrough shows,
 * their short names and the tutorial's way of writing their shapes. */
#ifndef TFENC_EXPLAIN_HTML_PARTS_H
#define TFENC_EXPLAIN_HTML_PARTS_H

#include "explain_html.h"
#include "html_page.h"

/* The name within its layer: "attn.q" of "layers.0.attn.q". */
const char *short_name(const recorded *ev);

/* 1 if the walkthrough shows ev: the embeddings, every event of the chosen
 * layer, every other layer's output, final_norm and pooler. */
int in_walkthrough(const explain_page *e, const recorded *ev);

/* The chosen layer's event called name ("attn.weights"), or NULL. */
const recorded *layer_event(const explain_page *e, const char *name);

/* The shape as the tutorial writes it, without the batch: "(5, 512)",
 * "8 × (5, 64)", "(512)". */
void tutorial_shape(const recorded *ev, char *buf, size_t size);

/* (explain_html_tensors.c) min, max and mean of the tensor's values. */
void tensor_stats(const recorded *ev, double *lo, double *hi, double *mean);

/* The data-flow diagram (explain_html_diagram.c) and every tensor's values
 * (explain_html_values.c), which the diagram's boxes link to. */
void html_diagram(html_page *p, const explain_page *e);
void html_values(html_page *p, const explain_page *e);

/* The pictures (explain_html_plots.c). */
void html_heatmaps(html_page *p, const explain_page *e);
void html_positions(html_page *p, const explain_page *e);
void html_layer_norms(html_page *p, const explain_page *e);
void html_ffn_histogram(html_page *p, const explain_page *e);

#endif
