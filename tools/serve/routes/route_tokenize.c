/* route_tokenize.c — POST /tokenize, TEI's TokenizeRequest: "inputs" a
 * string or a list of them, "add_special_tokens", "prompt_name"; each
 * input's tokens as TEI's SimpleToken list. */
#include <stdlib.h>
#include <string.h>

#include "route_model.h"
#include "utf8.h"

static int parse(serve_request *r, size_t max, serve_error *e)
{
    return serve_field_texts(r, "inputs", max, e) ||
            serve_field_bool(r, "add_special_tokens", &r->add_special_tokens, e) ||
            serve_field_string(r, "prompt_name", &r->prompt_name, e)
        ? -1
        : 0;
}

/* One input's tokens as TEI's SimpleToken list: id, text, special, start,
 * stop (bytes of the text, the prompt before it). */
static int write_tokens(serve_server *s, const serve_request *q, const char *text, json_out *o,
                        size_t *total, serve_error *e)
{
    const char *name = q->prompt_name ? q->prompt_name : tf_pipeline_default_prompt_name(s->p);
    const char *prompt = name && name[0] ? tf_pipeline_prompt(s->p, name) : "";
    if (!prompt)
        return serve_error_set(e, 400, "prompt_name",
                               "prompt_name \"%.*s\": the model has no "
                               "such prompt",
                               tf__utf8_prefix(name, SERVE_QUOTE_BYTES), name);
    const size_t plen = strlen(prompt), tlen = strlen(text);
    char *joined = malloc(plen + tlen + 1); /* the prompt, then the text */
    if (!joined)
        return serve_error_set(e, 500, "", "out of memory for a text of %zu bytes", tlen);
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): the text's NUL comes next */
    memcpy(joined, prompt, plen);
    memcpy(joined + plen, text, tlen + 1);
    tf_encoding *enc;
    const tf_tokenizer *tok = tf_pipeline_tokenizer(s->p);
    if (tf_tokenizer_encode(tok, joined, plen + tlen, NULL, 0, &enc) != TF_OK) {
        free(joined);
        return serve_error_set(e, 400, "inputs", "%s", tf_last_error());
    }
    const int32_t n = tf_encoding_lengths(enc)[0];
    const int32_t *ids = tf_encoding_ids(enc);
    const int64_t *offsets = tf_encoding_offsets(enc); /* [1, T, 2] */
    json_out_str(o, "[");
    int first = 1;
    for (int32_t t = 0; t < n; t++) {
        const int64_t start = offsets[2 * t], stop = offsets[2 * t + 1];
        const int special = start == stop;
        if (special && !q->add_special_tokens)
            continue;
        json_out_printf(o, "%s{\"id\":%d,\"text\":", first ? "" : ",", (int)ids[t]);
        if (special)
            json_out_string(o, tf_tokenizer_id_to_token(tok, ids[t]));
        else
            json_out_string_n(o, joined + start, (size_t)(stop - start));
        json_out_printf(o, ",\"special\":%s,\"start\":%lld,\"stop\":%lld}",
                        special ? "true" : "false", (long long)start, (long long)stop);
        first = 0;
        (*total)++;
    }
    json_out_str(o, "]");
    tf_encoding_destroy(enc);
    free(joined);
    return 0;
}

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    if (routes_need_tokenizer(s, route, e))
        return -1;
    json_out o = {0};
    json_out_str(&o, "[");
    for (size_t i = 0; i < q->n; i++) {
        json_out_str(&o, i ? "," : "");
        if (write_tokens(s, q, q->texts[i], &o, &out->tokens, e)) {
            json_out_free(&o);
            return -1;
        }
    }
    json_out_str(&o, "]");
    serve_respond_json(out, 200, &o);
    return 0;
}

const serve_route route_tokenize = {
    .path = "/tokenize",
    .method = "POST",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .parse = parse,
    .handle = handle,
    .summary = "Tokens of texts (TEI)",
    .request_schema = "TokenizeRequest",
    .response_schema = "TokenizeResponse",
};
