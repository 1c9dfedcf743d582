/* explain_html_retrieval.h — the retrieval heads' section of `tfenc explain
 * --html` (explain_retrieval.h's view as tables). */
#ifndef TFENC_EXPLAIN_HTML_RETRIEVAL_H
#define TFENC_EXPLAIN_HTML_RETRIEVAL_H

#include "explain_retrieval.h"
#include "html_page.h"

/* The view's tables: the masked-LM head's top tokens (position x top k,
 * with probabilities, id "mlm-table") and the sparse vector's top terms
 * ("sparse-terms"); or a ColBERT folder's document and query rows
 * ("colbert-document", "colbert-query"). Nothing for NULL or an empty view. */
void html_retrieval(html_page *p, const retrieval_view *v);

#endif
