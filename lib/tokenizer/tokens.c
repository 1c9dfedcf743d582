/* tokens.c — the growing list of tokens. */
#include "tokens.h"

#include "chars.h"
#include "error.h"

int tf__token_push(tf__token_vec *t, int32_t id, uint32_t begin, uint32_t end)
{
    tf__token *v = tf__reserve_one(t->v, &t->cap, t->n, sizeof *v, 64);
    if (!v)
        return 0;
    t->v = v;
    t->v[t->n++] = (tf__token){id, 0, begin, end};
    return 1;
}

tf_status tf__tokens_no_memory(const char *what)
{
    return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
}
