/* hub_http.c — the Hub's HTTP requests through libcurl (see hub_http.h). */
#define _POSIX_C_SOURCE 200809L
#include "hub_http.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "error.h"
#include "file.h"

/* An answer kept in memory: a JSON file list, or an error's text (of
 * which only the start is kept). */
#define TF_HUB_BODY_MAX (64u << 20)
#define TF_HUB_ERROR_BODY_MAX (64u << 10)
#define TF_HUB_MAX_REDIRECTS 10
/* huggingface_hub's HF_HUB_ETAG_TIMEOUT and HF_HUB_DOWNLOAD_TIMEOUT defaults. */
#define TF_HUB_DEFAULT_TIMEOUT_S 10
#define TF_HUB_MAX_TIMEOUT_S 86400

/* ---- Set-up ---------------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_code;

static void curl_init(void)
{
    curl_init_code = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Seconds from the environment's name (a number, as huggingface_hub's
 * float), rounded up, else the default. */
static tf_status timeout_env(const char *name, long *out)
{
    *out = TF_HUB_DEFAULT_TIMEOUT_S;
    const char *v = getenv(name);
    if (!v || !v[0])
        return TF_OK;
    char *end;
    const double seconds = strtod(v, &end);
    if (end == v || *end || !(seconds > 0 && seconds <= TF_HUB_MAX_TIMEOUT_S))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s \"%s\": expected a number of seconds above "
                        "0 and at most %d",
                        name, v, TF_HUB_MAX_TIMEOUT_S);
    *out = (long)seconds + ((double)(long)seconds < seconds);
    return TF_OK;
}

tf_status tf__hub_http_open(tf__hub_http *http, const tf__hub_request *req)
{
    *http = (tf__hub_http){.req = req};
    tf_status s = timeout_env("HF_HUB_ETAG_TIMEOUT", &http->connect_timeout_s);
    if (s == TF_OK)
        s = timeout_env("HF_HUB_DOWNLOAD_TIMEOUT", &http->stall_timeout_s);
    if (s)
        return s;
    pthread_once(&curl_once, curl_init);
    if (curl_init_code != CURLE_OK)
        return tf__fail(TF_ERR_IO, "libcurl cannot start: %s", curl_easy_strerror(curl_init_code));
    if (!(http->curl = curl_easy_init()))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "libcurl cannot start a transfer (curl_easy_init)");
    return TF_OK;
}

void tf__hub_http_close(tf__hub_http *http)
{
    if (http->curl)
        curl_easy_cleanup(http->curl);
    http->curl = NULL;
}

void tf__hub_response_free(tf__hub_response *r)
{
    char **fields[] = {&r->repo_commit,    &r->etag,          &r->linked_etag, &r->linked_size,
                       &r->content_length, &r->content_range, &r->location,    &r->error_code,
                       &r->error_message,  &r->body};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        tf__free(*fields[i]);
    *r = (tf__hub_response){0};
}

/* ---- URLs ------------------------------------------------------------------------ */

/* Where url's host and port (netloc) start, and their length. */
static const char *netloc(const char *url, size_t *len)
{
    const char *scheme_end = strstr(url, "://");
    const char *start = scheme_end ? scheme_end + 3 : url;
    *len = strcspn(start, "/?#");
    return start;
}

int tf__hub_same_host(const char *a, const char *b)
{
    size_t na, nb;
    const char *ha = netloc(a, &na), *hb = netloc(b, &nb);
    return na == nb && strncasecmp(ha, hb, na) == 0;
}

/* ---- One transfer ---------------------------------------------------------------- */

typedef struct transfer {
    tf__hub_response *r;
    const tf__hub_call *call;
    tf_status failed; /* the sink's (or the body's size) failure, its message set */
    int body_started; /* a byte of a 2xx body arrived */
} transfer;

/* The header name's field of r, or NULL when it is not one read. */
static char **header_field(tf__hub_response *r, const char *name, size_t len)
{
    static const struct {
        const char *name;
        size_t offset;
    } fields[] = {
        {"X-Repo-Commit", offsetof(tf__hub_response, repo_commit)},
        {"ETag", offsetof(tf__hub_response, etag)},
        {"X-Linked-Etag", offsetof(tf__hub_response, linked_etag)},
        {"X-Linked-Size", offsetof(tf__hub_response, linked_size)},
        {"Content-Length", offsetof(tf__hub_response, content_length)},
        {"Content-Range", offsetof(tf__hub_response, content_range)},
        {"Location", offsetof(tf__hub_response, location)},
        {"X-Error-Code", offsetof(tf__hub_response, error_code)},
        {"X-Error-Message", offsetof(tf__hub_response, error_message)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (strlen(fields[i].name) == len && strncasecmp(fields[i].name, name, len) == 0)
            return (char **)((char *)r + fields[i].offset);
    return NULL;
}

/* A status line starts a new answer (after a redirect followed): the
 * headers kept are the last answer's. */
static void start_answer(tf__hub_response *r, const char *line)
{
    tf__hub_response_free(r);
    const char *space = strchr(line, ' ');
    r->status = space ? strtol(space + 1, NULL, 10) : 0;
}

static size_t on_header(char *line, size_t size, size_t count, void *user)
{
    transfer *t = user;
    const size_t n = size * count; /* curl: size is 1 */
    size_t len = n;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    char *text;
    if (tf__format_alloc(&text, "%.*s", (int)len, line))
        return 0;
    const char *colon = strchr(text, ':');
    char **field = NULL;
    if (strncmp(text, "HTTP/", 5) == 0)
        start_answer(t->r, text);
    else if (colon && (field = header_field(t->r, text, (size_t)(colon - text))) != NULL) {
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        tf__free(*field);
        if (tf__format_alloc(field, "%s", value))
            *field = NULL;
    }
    tf__free(text);
    return n;
}

/* Appends data [n] to r->body, up to max bytes (more is an error when
 * keep_start is 0, else dropped). */
static tf_status keep_body(tf__hub_response *r, const char *data, size_t n, size_t max,
                           int keep_start, const char *url)
{
    if (r->body_len + n > max) {
        if (!keep_start)
            return tf__fail(TF_ERR_FORMAT, "%s: the answer is larger than %zu bytes", url, max);
        n = max - r->body_len;
    }
    char *body = tf__realloc(r->body, r->body_len + n + 1);
    if (!body)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes for the answer", url,
                        r->body_len + n + 1);
    memcpy(body + r->body_len, data, n);
    r->body_len += n;
    body[r->body_len] = '\0';
    r->body = body;
    return TF_OK;
}

static size_t on_body(char *data, size_t size, size_t count, void *user)
{
    transfer *t = user;
    const size_t n = size * count;
    const int success = t->r->status >= 200 && t->r->status < 300;
    if (success)
        t->body_started = 1;
    if (!success)
        t->failed = keep_body(t->r, data, n, TF_HUB_ERROR_BODY_MAX, 1, t->call->url);
    else if (t->call->sink)
        t->failed = t->call->sink(data, n, t->r, t->call->sink_user);
    else
        t->failed = keep_body(t->r, data, n, TF_HUB_BODY_MAX, 0, t->call->url);
    return t->failed == TF_OK ? n : 0;
}

/* Transfers that broke off after the request went out: worth resuming. */
static int broke_off(CURLcode code)
{
    return code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR ||
        code == CURLE_OPERATION_TIMEDOUT || code == CURLE_GOT_NOTHING;
}

/* The request's headers: the token to the endpoint's host only, and no
 * compression (sizes are the files'). */
static tf_status request_headers(const tf__hub_http *http, const char *url,
                                 struct curl_slist **list)
{
    *list = curl_slist_append(NULL, "Accept-Encoding: identity");
    char *auth = NULL;
    tf_status s = *list ? TF_OK : tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a header");
    if (s == TF_OK && http->req->token && tf__hub_same_host(url, http->req->endpoint))
        s = tf__format_alloc(&auth, "Authorization: Bearer %s", http->req->token);
    struct curl_slist *more = auth ? curl_slist_append(*list, auth) : *list;
    if (s == TF_OK && !more)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a header");
    else if (more)
        *list = more;
    tf__free(auth);
    return s;
}

static void set_options(const tf__hub_http *http, const tf__hub_call *call, transfer *t,
                        struct curl_slist *headers, char *errors, const char *range)
{
    CURL *c = http->curl;
    char agent[64];
    snprintf(agent, sizeof agent, "tfenc/%s", tf_version_string());
    curl_easy_reset(c); /* keeps the connections */
    curl_easy_setopt(c, CURLOPT_URL, call->url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85.0 */
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(c, CURLOPT_USERAGENT, agent);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errors);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, http->connect_timeout_s);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, http->stall_timeout_s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(c, CURLOPT_NOBODY, call->head ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, call->follow ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)TF_HUB_MAX_REDIRECTS);
    if (range)
        curl_easy_setopt(c, CURLOPT_RANGE, range);
}

tf_status tf__hub_perform(tf__hub_http *http, const tf__hub_call *call, tf__hub_response *r,
                          int *broke)
{
    *broke = 0;
    tf__hub_response_free(r);
    transfer t = {.r = r, .call = call};
    char errors[CURL_ERROR_SIZE] = "", range[32];
    snprintf(range, sizeof range, "%lld-", (long long)call->from);
    struct curl_slist *headers;
    tf_status s = request_headers(http, call->url, &headers);
    if (s == TF_OK) {
        set_options(http, call, &t, headers, errors, call->from > 0 ? range : NULL);
        const CURLcode code = curl_easy_perform(http->curl);
        long status = 0;
        curl_easy_getinfo(http->curl, CURLINFO_RESPONSE_CODE, &status);
        r->status = status;
        if (code == CURLE_WRITE_ERROR && t.failed)
            s = t.failed; /* its message is set */
        else if (code != CURLE_OK) {
            *broke = broke_off(code) && (status == 0 || (status >= 200 && status < 300));
            s = tf__fail(TF_ERR_IO, "%s: %s", call->url,
                         errors[0] ? errors : curl_easy_strerror(code));
        }
    }
    curl_slist_free_all(headers);
    return s;
}

/* ---- HEAD ------------------------------------------------------------------------ */

/* 1 when location names no host (urlparse's netloc ""). */
static int is_relative(const char *location)
{
    return !strstr(location, "://") && strncmp(location, "//", 2) != 0;
}

tf_status tf__hub_head(tf__hub_http *http, const char *url, tf__hub_response *r)
{
    char *current;
    tf_status s = tf__format_alloc(&current, "%s", url);
    for (int hops = 0; s == TF_OK; hops++) {
        int broke;
        const tf__hub_call call = {.url = current, .head = 1};
        s = tf__hub_perform(http, &call, r, &broke);
        if (s || r->status < 300 || r->status > 399 || !r->location || !is_relative(r->location))
            break;
        if (hops == TF_HUB_MAX_REDIRECTS) {
            s = tf__fail(TF_ERR_IO, "%s: more than %d redirects", url, TF_HUB_MAX_REDIRECTS);
            break;
        }
        size_t host_len;
        const char *host = netloc(current, &host_len);
        const char *path = r->location;
        char *next;
        s = tf__format_alloc(&next, "%.*s%s%.*s", (int)(host + host_len - current), current,
                             path[0] == '/' ? "" : "/", (int)strcspn(path, "?#"), path);
        tf__free(current);
        current = next;
    }
    tf__free(current);
    return s;
}

/* ---- The Hub's errors -------------------------------------------------------------- */

/* What the Hub says of an error: X-Error-Message, else the body's JSON
 * "error", else "". */
static void server_says(const tf__hub_response *r, char *out, size_t size)
{
    out[0] = '\0';
    if (r->error_message) {
        snprintf(out, size, "%s", r->error_message);
        return;
    }
    cJSON *json = r->body ? cJSON_ParseWithLength(r->body, r->body_len) : NULL;
    const cJSON *error = json ? cJSON_GetObjectItemCaseSensitive(json, "error") : NULL;
    if (cJSON_IsString(error))
        snprintf(out, size, "%s", error->valuestring);
    cJSON_Delete(json);
}

tf_status tf__hub_http_error(const tf__hub_http *http, const tf__hub_response *r, const char *url,
                             const char *what)
{
    const char *code = r->error_code ? r->error_code : "";
    char says[512];
    server_says(r, says, sizeof says);
    const char *token = http->req->token;
    tf_status status = TF_ERR_NOT_FOUND;
    const char *why;
    if (strcmp(code, "RevisionNotFound") == 0)
        why = "no such revision";
    else if (strcmp(code, "EntryNotFound") == 0)
        why = "no such file";
    else if (strcmp(code, "GatedRepo") == 0)
        why = token ? "a gated repository, whose conditions the account of the token sent has "
                      "not accepted"
                    : "a gated repository: accept its conditions on the Hub and set HF_TOKEN "
                      "(or options.token) to a token of that account";
    else if (r->status == 401 && strcmp(says, "Invalid credentials in Authorization header") == 0)
        status = TF_ERR_INVALID_ARGUMENT, why = "the token sent was refused";
    else if (strcmp(code, "RepoNotFound") == 0 || r->status == 401)
        why = token ? "Repository Not Found: no such repository, or a private or gated one the "
                      "token sent may not read"
                    : "Repository Not Found: no such repository, or a private or gated one, and "
                      "no token was sent (set HF_TOKEN or options.token)";
    else if (r->status == 403)
        status = TF_ERR_IO, why = "Forbidden: the token may not read it";
    else
        status = TF_ERR_IO, why = "an unexpected answer";
    return tf__fail(status, "%s: HTTP %ld%s%s from %s: %s%s%.300s", what, r->status,
                    code[0] ? " " : "", code, url, why, says[0] ? "; the Hub says: " : "", says);
}
