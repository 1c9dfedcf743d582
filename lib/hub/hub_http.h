/* hub_http.h — the Hub's HTTP requests through libcurl, and its answers
 * read as huggingface_hub reads them (utils/_http.py, hf_raise_for_status;
 * file_download.py, get_hf_file_metadata). Only in a build with libcurl. */
#ifndef TF_HUB_HTTP_H
#define TF_HUB_HTTP_H

#include <curl/curl.h>
#include <stdint.h>

#include "hub.h"

/* One resolve call's connection to the Hub (and its CDN). */
typedef struct tf__hub_http {
    CURL *curl;
    const tf__hub_request *req;
    long connect_timeout_s; /* HF_HUB_ETAG_TIMEOUT, else 10 */
    long stall_timeout_s;   /* HF_HUB_DOWNLOAD_TIMEOUT, else 10: a transfer with no byte for
                               this long ends */
} tf__hub_http;

/* One answer: its status and the headers read (NULL when absent). */
typedef struct tf__hub_response {
    long status;
    char *repo_commit;    /* X-Repo-Commit */
    char *etag;           /* ETag */
    char *linked_etag;    /* X-Linked-Etag */
    char *linked_size;    /* X-Linked-Size */
    char *content_length; /* Content-Length */
    char *content_range;  /* Content-Range */
    char *location;       /* Location */
    char *error_code;     /* X-Error-Code */
    char *error_message;  /* X-Error-Message */
    char *body;           /* an answer kept in memory (JSON, or an error's text) */
    size_t body_len;
} tf__hub_response;

void tf__hub_response_free(tf__hub_response *r);

/* Called with each piece of a body; returns TF_OK to go on, else a failure
 * (its message set) that stops the transfer and is what perform returns. */
typedef tf_status (*tf__hub_sink)(const char *data, size_t n, const tf__hub_response *r,
                                  void *user);

/* One request. */
typedef struct tf__hub_call {
    const char *url;
    int head;          /* HEAD: no body */
    int with_token;    /* send the token (to the endpoint's host only) */
    int follow;        /* follow redirects (at most 10) */
    int64_t from;      /* > 0: "Range: bytes=<from>-" */
    tf__hub_sink sink; /* NULL: the body (at most 64 MiB) into r->body */
    void *sink_user;
} tf__hub_call;

tf_status tf__hub_http_open(tf__hub_http *http, const tf__hub_request *req);
void tf__hub_http_close(tf__hub_http *http);

/* Runs one request into *r (tf__hub_response_free it, also on failure).
 * TF_OK when an answer came, whatever its status; TF_ERR_IO "<url>: <why>"
 * when none did (or it broke off: *broke is then 1 when the transfer
 * started and may be resumed), or the sink's failure. */
tf_status tf__hub_perform(tf__hub_http *http, const tf__hub_call *call, tf__hub_response *r,
                          int *broke);

/* HEAD url as get_hf_file_metadata: redirects to the same host followed
 * (a renamed repository), one to another host (an LFS file's bytes) not. */
tf_status tf__hub_head(tf__hub_http *http, const char *url, tf__hub_response *r);

/* The failure an answer of status >= 400 (or another unexpected one) is,
 * as hf_raise_for_status tells it: TF_ERR_NOT_FOUND for a repository,
 * revision or file the Hub does not have (or hides: 401), with its
 * X-Error-Code and X-Error-Message; TF_ERR_INVALID_ARGUMENT for a token
 * refused; else TF_ERR_IO. what says what was asked ("the file list of
 * org/name at main"). */
tf_status tf__hub_http_error(const tf__hub_http *http, const tf__hub_response *r, const char *url,
                             const char *what);

/* 1 when both URLs have the same host and port (urlparse's netloc). */
int tf__hub_same_host(const char *a, const char *b);

/* ---- hub_blob.c ------------------------------------------------------------ */

/* A file to fetch: where its bytes are and what they must be. */
typedef struct tf__hub_blob {
    const char *file;               /* the repository's name of it */
    char etag[TF_HUB_ETAG_MAX + 1]; /* the blob's name; a sha256 one is checked */
    int64_t size;                   /* X-Linked-Size or Content-Length */
    char *url;                      /* the resolve URL, or where it redirects */
} tf__hub_blob;

/* blobs/<etag> := the bytes at blob->url, through blobs/<etag>.incomplete
 * (resumed where an earlier try left it), under the blob's lock; nothing
 * done when another download made it meanwhile. progress: file_index,
 * file_count and total_bytes set; file, file_bytes, file_size and bytes
 * kept up to date, and the request's callback told. */
tf_status tf__hub_fetch_blob(tf__hub_http *http, const tf__hub_blob *blob,
                             tf_hub_progress *progress);

#endif
