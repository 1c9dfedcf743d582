/* maxsim.h — ColBERT's late interaction (PyLate's scores.colbert_scores):
 * the sum over a query's token vectors of the largest dot product with a
 * document's. */
#ifndef TF_MAXSIM_H
#define TF_MAXSIM_H

#include <stddef.h>

/* Returns sum_i max_j (q (nq, dim) . d (nd, dim)^T)[i, j], the products in
 * sim (nq, nd) through one cblas_sgemm; nq, nd, dim >= 1, validated by the
 * caller to fit in an int. */
float tf__maxsim(const float *q, size_t nq, const float *d, size_t nd, size_t dim, float *sim);

#endif
