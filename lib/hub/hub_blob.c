/* hub_blob.c — one blob into the cache, as file_download.py's
 * _download_to_tmp_and_move and http_get make it: the bytes into
 * blobs/<etag>.incomplete (resumed with "Range: bytes=<have>-" after a
 * broken connection, from where the file on disk ends; a 200 to a Range
 * starts over), the size checked as they come, an LFS file's sha256 (its
 * ETag) at the end, then fsync and rename to blobs/<etag>. See hub_http.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"
#include "hub_http.h"

/* Tries in a row that bring no new byte before a broken download gives up
 * (http_get's _nb_retries), and the pause before each such try. */
#define TF_HUB_TRIES_WITHOUT_PROGRESS 5
#define TF_HUB_RETRY_PAUSE_S 1
#define TF_HUB_HASH_CHUNK (1u << 20)

/* One blob being written. */
typedef struct download {
    tf__hub_http *http;
    const tf__hub_blob *blob;
    tf_hub_progress *progress;
    const char *path; /* blobs/<etag>.incomplete */
    int fd;
    int64_t have;        /* bytes in the file */
    int64_t bytes_start; /* progress->bytes before this file */
    EVP_MD_CTX *sha;     /* of the bytes in the file, for a sha256 ETag */
    int bad_data;        /* the bytes are wrong: the file is removed */
} download;

static tf_status sha_start(download *d)
{
    if (d->sha && EVP_DigestInit_ex(d->sha, EVP_sha256(), NULL) != 1)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: OpenSSL cannot start a sha256", d->path);
    return TF_OK;
}

/* The file emptied: a download from its first byte. */
static tf_status start_over(download *d)
{
    d->have = 0;
    if (ftruncate(d->fd, 0) != 0 || lseek(d->fd, 0, SEEK_SET) != 0)
        return tf__fail(TF_ERR_IO, "%s: cannot empty the file: %s", d->path, strerror(errno));
    return sha_start(d);
}

/* The bytes an earlier try left in the file, hashed; a file longer than
 * the blob starts over. */
static tf_status take_up(download *d)
{
    struct stat st;
    if (fstat(d->fd, &st) != 0)
        return tf__fail(TF_ERR_IO, "%s: cannot stat: %s", d->path, strerror(errno));
    tf_status s = sha_start(d);
    if (s || st.st_size > d->blob->size)
        return s ? s : start_over(d);
    char *chunk = tf__malloc(TF_HUB_HASH_CHUNK); /* [TF_HUB_HASH_CHUNK] */
    if (!chunk)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %u bytes", TF_HUB_HASH_CHUNK);
    while (s == TF_OK && d->have < st.st_size) {
        const ssize_t n = read(d->fd, chunk, TF_HUB_HASH_CHUNK);
        if (n > 0 && d->sha)
            EVP_DigestUpdate(d->sha, chunk, (size_t)n);
        if (n > 0)
            d->have += n;
        else if (n == 0)
            break; /* it shrank */
        else if (errno != EINTR)
            s = tf__fail(TF_ERR_IO, "%s: read error: %s", d->path, strerror(errno));
    }
    tf__free(chunk);
    if (s == TF_OK && lseek(d->fd, d->have, SEEK_SET) != d->have)
        s = tf__fail(TF_ERR_IO, "%s: cannot seek: %s", d->path, strerror(errno));
    return s;
}

static tf_status tell_progress(download *d)
{
    tf_hub_progress *p = d->progress;
    p->file_bytes = d->have;
    p->bytes = d->bytes_start + d->have;
    const tf__hub_request *req = d->http->req;
    if (req->progress && req->progress(p, req->progress_user_data) != 0)
        return tf__fail(TF_ERR_IO,
                        "%s: %s: cancelled by the progress callback after %" PRId64 " of %" PRId64
                        " bytes (kept in %s, to be resumed)",
                        req->repo_id, d->blob->file, d->have, d->blob->size, d->path);
    return TF_OK;
}

/* The first bytes of an answer: a 206 must start where the file ends; a
 * 200 (a Range ignored) starts the file over. */
static tf_status check_start(download *d, const tf__hub_response *r, int64_t asked_from)
{
    if (r->status == 200)
        return d->have > 0 ? start_over(d) : TF_OK;
    long long from = -1; /* Content-Range: bytes <from>-<to>/<size> */
    if (r->content_range && strncmp(r->content_range, "bytes ", 6) == 0) {
        char *end;
        from = strtoll(r->content_range + 6, &end, 10);
        if (end == r->content_range + 6 || *end != '-')
            from = -1;
    }
    if (r->status == 206 && from == asked_from)
        return TF_OK;
    d->bad_data = 1;
    return tf__fail(TF_ERR_FORMAT,
                    "%s: HTTP %ld with Content-Range \"%s\" to a request for the "
                    "bytes from %" PRId64 " on",
                    d->blob->url, r->status, r->content_range ? r->content_range : "", asked_from);
}

typedef struct sink_state {
    download *d;
    int64_t asked_from;
    int started; /* the answer's first bytes were checked */
} sink_state;

static tf_status sink(const char *data, size_t n, const tf__hub_response *r, void *user)
{
    sink_state *state = user;
    download *d = state->d;
    tf_status s = state->started ? TF_OK : check_start(d, r, state->asked_from);
    state->started = 1;
    if (s == TF_OK && (int64_t)n > d->blob->size - d->have) {
        d->bad_data = 1;
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: %s: the server sends more than the %" PRId64 " bytes "
                     "it announced (X-Linked-Size or Content-Length)",
                     d->http->req->repo_id, d->blob->file, d->blob->size);
    }
    for (size_t done = 0; s == TF_OK && done < n;) {
        const ssize_t w = write(d->fd, data + done, n - done);
        if (w > 0)
            done += (size_t)w;
        else if (errno != EINTR)
            s = tf__fail(TF_ERR_IO, "%s: cannot write: %s", d->path, strerror(errno));
    }
    if (s == TF_OK && d->sha)
        EVP_DigestUpdate(d->sha, data, n);
    if (s == TF_OK)
        d->have += (int64_t)n;
    return s == TF_OK ? tell_progress(d) : s;
}

/* Requests until the file holds blob->size bytes: a broken connection is
 * tried again from where the file ends, as long as tries bring bytes. */
static tf_status transfer_all(download *d)
{
    tf_status s = TF_OK;
    for (int idle_tries = 0; s == TF_OK && d->have < d->blob->size;) {
        sink_state state = {.d = d, .asked_from = d->have};
        const tf__hub_call call = {
            .url = d->blob->url, .follow = 1, .from = d->have, .sink = sink, .sink_user = &state};
        tf__hub_response r = {0};
        int broke = 0;
        const int64_t before = d->have;
        s = tf__hub_perform(d->http, &call, &r, &broke);
        const int got_bytes = d->have > before;
        idle_tries = got_bytes ? 0 : idle_tries + 1;
        if (s && broke && idle_tries < TF_HUB_TRIES_WITHOUT_PROGRESS) {
            s = TF_OK; /* resumed by the next turn */
            if (!got_bytes)
                nanosleep(&(struct timespec){TF_HUB_RETRY_PAUSE_S, 0}, NULL);
        } else if (s == TF_OK && r.status == 416 && d->have > 0 && idle_tries < 2) {
            s = start_over(d); /* the server has no bytes past ours: once from the start */
        } else if (s == TF_OK && r.status != 200 && r.status != 206) {
            char what[512];
            snprintf(what, sizeof what, "%s: %s (its bytes)", d->http->req->repo_id, d->blob->file);
            s = tf__hub_http_error(d->http, &r, d->blob->url, what);
        } else if (s == TF_OK && d->have < d->blob->size && !broke) {
            d->bad_data = 1;
            s = tf__fail(TF_ERR_FORMAT,
                         "%s: %s: the server ended the file after %" PRId64 " of "
                         "the %" PRId64 " bytes it announced",
                         d->http->req->repo_id, d->blob->file, d->have, d->blob->size);
        }
        if (s && broke)
            tf__fail(s,
                     "%s; the connection broke %d times in a row without a byte; the %" PRId64
                     " bytes so far are kept in %s and the next call resumes them",
                     tf_last_error(), idle_tries, d->have, d->path);
        tf__hub_response_free(&r);
    }
    return s;
}

/* The file's sha256 against the ETag, for an LFS file. */
static tf_status check_sha256(download *d)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!d->sha)
        return TF_OK;
    if (EVP_DigestFinal_ex(d->sha, digest, &len) != 1 || len != 32)
        return tf__fail(TF_ERR_IO, "%s: OpenSSL cannot finish the sha256", d->path);
    char hex[65];
    for (unsigned int i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    if (strcmp(hex, d->blob->etag) == 0)
        return TF_OK;
    d->bad_data = 1;
    return tf__fail(TF_ERR_FORMAT,
                    "%s: %s: the %" PRId64 " bytes downloaded have sha256 %s, "
                    "but its ETag (the LFS file's sha256) is %s: refused, nothing kept",
                    d->http->req->repo_id, d->blob->file, d->have, hex, d->blob->etag);
}

/* fsync, then the rename to blobs/<etag> and fsync of blobs/. */
static tf_status finish(download *d, const char *blob_path)
{
    if (fsync(d->fd) != 0)
        return tf__fail(TF_ERR_IO, "%s: cannot sync: %s", d->path, strerror(errno));
    if (rename(d->path, blob_path) != 0)
        return tf__fail(TF_ERR_IO, "%s: cannot rename to %s: %s", d->path, blob_path,
                        strerror(errno));
    char *dir;
    tf_status s = tf__format_alloc(&dir, "%.*s", (int)(strrchr(blob_path, '/') - blob_path),
                                   blob_path);
    const int dfd = s == TF_OK ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (s == TF_OK && (dfd < 0 || fsync(dfd) != 0))
        s = tf__fail(TF_ERR_IO, "%s: cannot sync the folder: %s", dir, strerror(errno));
    if (dfd >= 0)
        close(dfd);
    tf__free(dir);
    return s;
}

/* Opens (or creates) blobs/<etag>.incomplete: a regular file, never
 * through a link. */
static tf_status open_incomplete(download *d)
{
    d->fd = open(d->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    struct stat st;
    if (d->fd < 0)
        return tf__fail(TF_ERR_IO, "%s: cannot open: %s", d->path, strerror(errno));
    if (fstat(d->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return tf__fail(TF_ERR_IO, "%s: not a regular file", d->path);
    const int flags = fcntl(d->fd, F_GETFL);
    if (flags < 0 || fcntl(d->fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        return tf__fail(TF_ERR_IO, "%s: cannot make the descriptor blocking: %s", d->path,
                        strerror(errno));
    return TF_OK;
}

/* The download, its lock held and the blob not there yet. */
static tf_status download_blob(download *d, const char *blob_path)
{
    tf_status s = open_incomplete(d);
    if (s == TF_OK && tf__hub_etag_is_sha256(d->blob->etag) && !(d->sha = EVP_MD_CTX_new()))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "OpenSSL cannot allocate a sha256");
    if (s == TF_OK)
        s = take_up(d);
    if (s == TF_OK)
        s = tell_progress(d);
    if (s == TF_OK)
        s = transfer_all(d);
    if (s == TF_OK)
        s = check_sha256(d);
    if (s == TF_OK)
        s = finish(d, blob_path);
    if (d->fd >= 0)
        close(d->fd);
    if (s && d->bad_data)
        unlink(d->path);
    EVP_MD_CTX_free(d->sha);
    return s;
}

tf_status tf__hub_fetch_blob(tf__hub_http *http, const tf__hub_blob *blob,
                             tf_hub_progress *progress)
{
    const tf__hub_request *req = http->req;
    char *blob_path, *incomplete = NULL;
    int lock = -1;
    progress->file = blob->file;
    progress->file_size = blob->size;
    progress->file_bytes = 0;
    download d = {
        .http = http, .blob = blob, .progress = progress, .fd = -1, .bytes_start = progress->bytes};
    tf_status s = tf__hub_blob_path(req, blob->etag, "", &blob_path);
    if (s == TF_OK)
        s = tf__hub_blob_path(req, blob->etag, ".incomplete", &incomplete);
    if (s == TF_OK)
        s = tf__hub_make_parents(blob_path);
    if (s == TF_OK)
        s = tf__hub_lock(req, blob->etag, progress, &lock);
    d.path = incomplete;
    if (s == TF_OK && !tf__hub_is_file(blob_path)) /* else made meanwhile */
        s = download_blob(&d, blob_path);
    if (s == TF_OK)
        progress->bytes = d.bytes_start + blob->size;
    tf__hub_unlock(lock);
    tf__free(incomplete);
    tf__free(blob_path);
    return s;
}
