/* explain_html_retrieval.c — the retrieval heads' section of the page
 * (explain_html_retrieval.h). */
#include "explain_html_retrieval.h"

static void mlm_table(html_page *p, const retrieval_view *v)
{
    const tf_fill_mask *m = v->predictions;
    const int32_t *ids = tf_encoding_ids(v->enc); /* (T) */
    page_printf(p,
                "<h3>The masked-LM head at every position</h3>\n<p>The encoder's output "
                "through the head gives logits (%zu, %d); the softmax of each row, its top "
                "%d best first.</p>\n<div class=\"scroll\"><table id=\"mlm-table\">"
                "<tr><th>position</th><th>token</th>",
                tf_fill_mask_count(m), (int)tf_pipeline_dim(v->p), (int)tf_fill_mask_top_k(m));
    for (int32_t k = 0; k < tf_fill_mask_top_k(m); k++)
        page_printf(p, "<th>top %d</th>", (int)k + 1);
    page_printf(p, "</tr>\n");
    for (size_t t = 0; t < tf_fill_mask_count(m); t++) {
        page_printf(p, "<tr><td>%zu</td><th scope=\"row\">", t);
        page_escaped(p, retrieval_token(v, ids[t]));
        page_printf(p, "</th>");
        for (int32_t k = 0; k < tf_fill_mask_top_k(m); k++) {
            page_printf(p, "<td data-token=\"%d\">", (int)tf_fill_mask_token(m, t, k));
            page_escaped(p, retrieval_token(v, tf_fill_mask_token(m, t, k)));
            page_printf(p, " <span class=\"prob\">%.3f</span></td>",
                        (double)tf_fill_mask_score(m, t, k));
        }
        page_printf(p, "</tr>\n");
    }
    page_printf(p, "</table></div>\n");
}

static void sparse_table(html_page *p, const retrieval_view *v)
{
    const int32_t *index = tf_sparse_vectors_indices(v->sparse, 0);
    const float *value = tf_sparse_vectors_values(v->sparse, 0);
    page_printf(p,
                "<h3>The sparse vector's top terms</h3>\n<p>%d of %d values are not zero; the "
                "largest %d:</p>\n<table id=\"sparse-terms\"><tr><th>term</th><th>id</th>"
                "<th>weight</th></tr>\n",
                (int)tf_sparse_vectors_nnz(v->sparse, 0), (int)tf_sparse_vectors_dim(v->sparse),
                (int)v->n_top_terms);
    for (int32_t i = 0; i < v->n_top_terms; i++) {
        int32_t at = 0;
        while (index[at] != v->top_terms[i])
            at++;
        page_printf(p, "<tr><td>");
        page_escaped(p, retrieval_token(v, index[at]));
        page_printf(p, "</td><td>%d</td><td>%.4f</td></tr>\n", (int)index[at], (double)value[at]);
    }
    page_printf(p, "</table>\n");
}

static void colbert_table(html_page *p, const retrieval_view *v, const char *id,
                          const tf_token_vectors *m, const retrieval_row *rows, int32_t n)
{
    page_printf(p, "<table id=\"%s\"><tr><th>token</th><th>row</th><th>first values</th></tr>\n",
                id);
    const int32_t dim = tf_token_vectors_dim(m);
    for (int32_t i = 0; i < n; i++) {
        page_printf(p, "<tr%s><td>", rows[i].row < 0 ? " class=\"skipped\"" : "");
        page_escaped(p, retrieval_token(v, rows[i].id));
        if (rows[i].row < 0) {
            page_printf(p, "</td><td>skipped</td><td>the skiplist</td></tr>\n");
            continue;
        }
        page_printf(p, "</td><td>%d</td><td>", (int)rows[i].row);
        const float *x = tf_token_vectors_data(m, 0) + (size_t)rows[i].row * (size_t)dim;
        for (int32_t d = 0; d < dim && d < 4; d++)
            page_printf(p, "%s%.3f", d ? " " : "", (double)x[d]);
        page_printf(p, "%s%s</td></tr>\n", dim > 4 ? " \u2026" : "",
                    rows[i].expansion ? " (expansion)" : "");
    }
    page_printf(p, "</table>\n");
}

void html_retrieval(html_page *p, const retrieval_view *v)
{
    if (!v || !v->p)
        return;
    page_printf(p, "<section id=\"retrieval\"><h2>The retrieval head</h2>\n");
    if (v->kind == TF_PIPELINE_MULTI_VECTOR) {
        page_printf(p,
                    "<h3>ColBERT document: one vector per token</h3>\n<p>The tokens of the "
                    "skiplist have no row.</p>\n");
        colbert_table(p, v, "colbert-document", v->doc, v->doc_rows, v->n_doc_rows);
        page_printf(p, "<h3>ColBERT query: [MASK] expansion</h3>\n");
        colbert_table(p, v, "colbert-query", v->query, v->query_rows, v->n_query_rows);
    } else {
        mlm_table(p, v);
        sparse_table(p, v);
    }
    page_printf(p, "</section>\n");
}
