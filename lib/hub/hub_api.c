/* hub_api.c — tf_hub_resolve: the Hub when it may be asked, else (or when
 * it cannot be reached) the cache, as huggingface_hub's snapshot_download
 * decides (_snapshot_download.py). See tfenc.h, "Models by name". */
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"

static const tf_hub_options options_defaults = {.struct_size = sizeof(tf_hub_options)};

void tf_hub_options_init_sized(tf_hub_options *opts, size_t struct_size)
{
    tf__abi_init(opts, struct_size, &options_defaults, sizeof options_defaults);
}

/* The cached snapshot of the request's revision: its commit (the revision
 * itself, or refs/<revision>) into commit[41], checked complete. */
static tf_status cached_commit(const tf__hub_request *req, char *commit)
{
    if (!tf__hub_is_commit(req->revision))
        return tf__hub_read_ref(req, commit);
    memcpy(commit, req->revision, TF_HUB_COMMIT_LEN + 1);
    return TF_OK;
}

static tf_status cached_snapshot(const tf__hub_request *req, char *commit)
{
    tf_status s = cached_commit(req, commit);
    return s ? s : tf__hub_check_snapshot(req, commit);
}

/* The cache alone; offline names what keeps the Hub out. */
static tf_status offline(const tf__hub_request *req, const char *why, char *commit)
{
    const tf_status s = cached_snapshot(req, commit);
    if (s == TF_OK)
        return s;
    char *cache_error;
    if (tf__format_alloc(&cache_error, "%s", tf_last_error()))
        return TF_ERR_OUT_OF_MEMORY;
    tf__fail(s, "%s at revision %s: not in the cache, and %s keeps the Hub out: %s", req->repo_id,
             req->revision, why, cache_error);
    tf__free(cache_error);
    return s;
}

/* The Hub, and the cache when the Hub could not say which commit the
 * revision is (huggingface_hub's fallback); on success the message the
 * thread had before the call stays. */
static tf_status online(const tf__hub_request *req, char *commit)
{
    char *before, *hub_error = NULL;
    if (tf__format_alloc(&before, "%s", tf_last_error()))
        return TF_ERR_OUT_OF_MEMORY;
    int fallback = 0;
    tf_status s = tf__hub_fetch(req, commit, &fallback);
    const tf_status hub_status = s;
    if (s && fallback && (s = tf__format_alloc(&hub_error, "%s", tf_last_error())) == TF_OK &&
        (s = cached_snapshot(req, commit)) != TF_OK)
        s = tf__fail(hub_status, "%s; and the cache does not have it: %s", hub_error,
                     tf_last_error());
    if (s == TF_OK) /* a broken connection resumed, or the cache: the message as it was */
        tf__fail(TF_OK, "%s", before);
    tf__free(hub_error);
    tf__free(before);
    return s;
}

/* path and its NUL into dir [size], its length into *len. */
static tf_status write_out(const char *path, char *dir, size_t size, size_t *len)
{
    const size_t n = strlen(path);
    if (len)
        *len = n;
    if (n + 1 > size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "dir: %zu bytes, and the folder's path needs "
                        "%zu with its NUL: %s",
                        size, n + 1, path);
    memcpy(dir, path, n + 1);
    return TF_OK;
}

tf_status tf_hub_resolve(const char *repo_id, const tf_hub_options *opts, char *dir, size_t size,
                         size_t *len)
{
    tf_hub_options o = options_defaults;
    tf_status s = opts ? tf__abi_read(&o, sizeof o, opts, TF_HUB_OPTIONS_SIZE_0_4, "options")
                       : TF_OK;
    const char *revision = o.revision ? o.revision : TF_HUB_DEFAULT_REVISION;
    if (s == TF_OK)
        s = tf__hub_check_repo_id(repo_id);
    if (s == TF_OK)
        s = tf__hub_check_revision(revision);
    if (s == TF_OK && o.local_files_only != 0 && o.local_files_only != 1)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT, "options.local_files_only: expected 0 or 1, got %d",
                     (int)o.local_files_only);
    if (s == TF_OK && !dir && size)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT, "dir: NULL with size %zu", size);
    tf__hub_request req;
    if (s == TF_OK)
        s = tf__hub_request_init(&req, repo_id, revision, o.cache_dir, o.endpoint, o.token);
    if (s)
        return s;
    req.progress = o.progress;
    req.progress_user_data = o.progress_user_data;
    const char *keeps_out = o.local_files_only ? "options.local_files_only"
                                               : tf__hub_offline_variable();
    char commit[TF_HUB_COMMIT_LEN + 1], *snapshot = NULL;
    s = keeps_out ? offline(&req, keeps_out, commit) : online(&req, commit);
    if (s == TF_OK)
        s = tf__hub_snapshot_path(&req, commit, NULL, &snapshot);
    if (s == TF_OK)
        s = write_out(snapshot, dir, size, len);
    tf__free(snapshot);
    tf__hub_request_free(&req);
    return s;
}
