/* fuzz_serve_request.c — tfenc serve's request parser (tools/serve/
 * request.c) on arbitrary bodies: the first byte picks the route (OpenAI's
 * /v1/embeddings, TEI's /embed, /rerank, /predict, /tokenize), the rest is
 * the body. A body is read or refused with a status and a message, never
 * a crash; what is read holds 1..SERVE_FUZZ_MAX_INPUTS inputs, each a
 * string (and a pair where the route has them) or, for /v1/embeddings, a
 * non-empty list of token ids. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

#define SERVE_FUZZ_MAX_INPUTS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const serve_request *r, int rc, const serve_error *e)
{
    if (rc != 0) {
        if ((e->status != 400 && e->status != 413 && e->status != 500) || !e->message[0])
            abort();
        return;
    }
    if (r->n < 1 || r->n > SERVE_FUZZ_MAX_INPUTS || (r->single && r->n != 1))
        abort();
    for (size_t i = 0; i < r->n; i++) {
        if (r->ids) { /* token ids: each list non-empty, each id >= 0 */
            if (r->texts || r->id_counts[i] < 1)
                abort();
            for (size_t k = 0; k < r->id_counts[i]; k++)
                if (r->ids[i][k] < 0)
                    abort();
        } else if (!r->texts[i] || (r->pairs && !r->pairs[i]) ||
                   strlen(r->texts[i]) > SIZE_MAX / 2) {
            abort();
        }
    }
    if ((r->kind == SERVE_BODY_RERANK) != (r->pairs && r->kind == SERVE_BODY_RERANK))
        abort(); /* rerank always has pairs */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const serve_body_kind kind = (serve_body_kind)(data[0] % SERVE_BODY_KIND_COUNT);
    serve_request r;
    serve_error e = {0};
    const int rc = serve_request_parse(&r, kind, (const char *)data + 1, size - 1,
                                       SERVE_FUZZ_MAX_INPUTS, &e);
    check(&r, rc, &e);
    if (rc == 0)
        serve_request_free(&r);
    return 0;
}
