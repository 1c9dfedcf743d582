/* rerank_maxsim.h — /rerank on a multi-vector (ColBERT) model: the query
 * against each text by MaxSim (tf_pipeline_score of (query, text) pairs),
 * as PyLate's rank.rerank scores them. */
#ifndef SERVE_RERANK_MAXSIM_H
#define SERVE_RERANK_MAXSIM_H

#include "route_model.h"

/* The texts counted against the model's document length (each alone: a
 * ColBERT encodes the query apart), the query against its query length
 * (cut only when the request lets it be), then in->out [n] the scores;
 * 0, or -1 with *e. */
int rerank_maxsim(serve_server *s, const serve_request *q, routes_inputs *in, serve_response *out,
                  serve_error *e);

#endif
