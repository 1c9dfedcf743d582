/* response.c — response bodies, and refusals in the shape of each API. */
#define _POSIX_C_SOURCE 200809L
#include "response.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* s[0..len) as snprintf left it when it cut a longer text there: its last
 * character, when the cut split it, taken off. */
static void end_between_characters(char *s, size_t len)
{
    size_t lead = len; /* the last character's first byte is s[lead - 1] */
    while (lead > 0 && tf__utf8_is_continuation((unsigned char)s[lead - 1]))
        lead--;
    if (lead > 0 && (unsigned char)s[lead - 1] >= 0xC0 &&
        tf__utf8_valid_char((const unsigned char *)s + lead - 1, len - (lead - 1)) == 0)
        s[lead - 1] = '\0';
}

__attribute__((format(printf, 5, 0))) static int error_set(serve_error *e, int status,
                                                           serve_refusal refusal, const char *param,
                                                           const char *format, va_list ap)
{
    e->status = status, e->refusal = refusal;
    if (snprintf(e->param, sizeof e->param, "%s", param) >= (int)sizeof e->param)
        end_between_characters(e->param, sizeof e->param - 1);
    const int n = vsnprintf(e->message, sizeof e->message, format, ap);
    if (n >= (int)sizeof e->message)
        end_between_characters(e->message, sizeof e->message - 1);
    return -1;
}

int serve_error_set(serve_error *e, int status, const char *param, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    error_set(e, status, SERVE_INVALID, param, format, ap);
    va_end(ap);
    return -1;
}

int serve_error_empty(serve_error *e, const char *param, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    error_set(e, 400, SERVE_EMPTY, param, format, ap);
    va_end(ap);
    return -1;
}

int serve_error_malformed(serve_error *e, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    error_set(e, 400, SERVE_MALFORMED, "", format, ap);
    va_end(ap);
    return -1;
}

void serve_respond_json(serve_response *out, int status, json_out *o)
{
    out->status = status, out->content_type = "application/json";
    out->body = json_out_take(o, &out->len);
    if (!out->body) { /* out of memory: a body that needs none */
        static const char oom[] = "{\"error\":\"out of memory\",\"error_type\":\"Backend\"}";
        out->status = 500;
        out->body = strdup(oom);
        out->len = out->body ? sizeof oom - 1 : 0;
    }
}

/* TEI's status of a refusal: its ErrorType's (router/src/http/server.rs,
 * From<&ErrorType> for StatusCode): Validation and Tokenizer 422, Empty 400;
 * the others are HTTP's own. */
static int tei_status(const serve_error *e)
{
    return e->status == 400 && e->refusal == SERVE_INVALID ? 422 : e->status;
}

/* TEI's error_type of a refusal. TEI's ErrorType (router/src/lib.rs) has
 * Unhealthy, Backend, Overloaded, Validation, Tokenizer and Empty; a
 * request the server cannot take as sent (no API key, no such route,
 * another method, a transfer coding it does not decode) is Validation, the
 * closest. */
static const char *tei_error_type(const serve_error *e)
{
    if (e->refusal == SERVE_EMPTY)
        return "Empty";
    switch (e->status) {
    case 400:
    case 401:
    case 404:
    case 405:
    case 413:
    case 501:
        return "Validation";
    case 429:
        return "Overloaded";
    case 503:
        return "Unhealthy";
    default:
        return "Backend";
    }
}

/* OpenAI's error type of a status. */
static const char *openai_error_type(int status)
{
    switch (status) {
    case 401:
        return "authentication_error";
    case 404:
    case 405:
        return "not_found_error";
    case 429:
        return "rate_limit_error";
    case 500:
    case 503:
        return "server_error";
    default:
        return "invalid_request_error";
    }
}

void serve_respond_error(serve_error_shape shape, const serve_error *e, serve_response *out)
{
    json_out o = {0};
    *out = (serve_response){0};
    switch (shape) {
    case SERVE_ERRORS_OPENAI:
        json_out_str(&o, "{\"error\":{\"message\":");
        json_out_string(&o, e->message);
        json_out_str(&o, ",\"type\":");
        json_out_string(&o, openai_error_type(e->status));
        json_out_str(&o, ",\"param\":");
        if (e->param[0])
            json_out_string(&o, e->param);
        else
            json_out_str(&o, "null");
        json_out_printf(&o, ",\"code\":%d}}", e->status);
        break;
    case SERVE_ERRORS_TEI:
        json_out_str(&o, "{\"error\":");
        json_out_string(&o, e->message);
        json_out_str(&o, ",\"error_type\":");
        json_out_string(&o, tei_error_type(e));
        json_out_str(&o, "}");
        break;
    }
    serve_respond_json(out, shape == SERVE_ERRORS_TEI ? tei_status(e) : e->status, &o);
    out->queue_s = out->compute_s = -1;
}
