/* maxsim.c — MaxSim (pylate/scores/scores.py colbert_scores: einsum of the
 * query and document token vectors, max over the document's, sum over the
 * query's). */
#include "maxsim.h"

#include <cblas.h>

float tf__maxsim(const float *q, size_t nq, const float *d, size_t nd, size_t dim, float *sim)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nq, (int)nd, (int)dim, 1.0f, q,
                (int)dim, d, (int)dim, 0.0f, sim, (int)nd); /* sim (nq, nd) */
    double score = 0.0;
    for (size_t i = 0; i < nq; i++) {
        const float *row = sim + i * nd; /* (nd) */
        float best = row[0];
        for (size_t j = 1; j < nd; j++)
            best = row[j] > best ? row[j] : best;
        score += best;
    }
    return (float)score;
}
