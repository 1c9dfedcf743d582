/* hub_cache.c — huggingface_hub's cache, as its file_download.py lays it
 * out (repo_folder_name, _cache_commit_hash_for_specific_revision,
 * _create_symlink, _get_pointer_path; the lock of _hf_hub_download_to_cache_dir):
 *   <storage>/refs/<revision>             the commit, 40 hex digits, no newline
 *   <storage>/blobs/<etag>                a file's bytes
 *   <storage>/snapshots/<commit>/<file>   a link to ../../blobs/<etag> (one more
 *                                         ../ per folder in <file>)
 *   <cache>/.locks/<repo folder>/<etag>.lock  flock'ed while a blob is fetched
 * See hub.h. */
#define _DEFAULT_SOURCE /* flock */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"

/* The largest refs/ file read, and how long a wait for a lock sleeps
 * between two tries. */
#define TF_HUB_REF_MAX 256
#define TF_HUB_LOCK_POLL_NS 100000000L

/* ---- Paths ------------------------------------------------------------------- */

/* *out, the path tf__format_alloc's status s made, refused
 * (TF_ERR_INVALID_ARGUMENT, *out freed) above TF_HUB_PATH_MAX. */
static tf_status bounded(tf_status s, char **out)
{
    if (s == TF_OK && strlen(*out) > TF_HUB_PATH_MAX) {
        s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                     "%s: a path of %zu bytes, more than the %d a path "
                     "may have (a shorter cache folder?)",
                     *out, strlen(*out), TF_HUB_PATH_MAX);
        tf__free(*out);
        *out = NULL;
    }
    return s;
}

tf_status tf__hub_snapshot_path(const tf__hub_request *req, const char *commit, const char *file,
                                char **out)
{
    return bounded(tf__format_alloc(out, "%s/snapshots/%s%s%s", req->storage, commit,
                                    file ? "/" : "", file ? file : ""),
                   out);
}

tf_status tf__hub_blob_path(const tf__hub_request *req, const char *etag, const char *suffix,
                            char **out)
{
    return bounded(tf__format_alloc(out, "%s/blobs/%s%s", req->storage, etag, suffix), out);
}

int tf__hub_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

tf_status tf__hub_make_parents(const char *path)
{
    char *dir;
    tf_status s = tf__format_alloc(&dir, "%s", path);
    for (char *slash = dir ? strchr(dir + 1, '/') : NULL; s == TF_OK && slash;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(dir, 0777) != 0 && (errno != EEXIST || !is_dir(dir)))
            s = tf__fail(TF_ERR_IO, "%s: cannot create the folder: %s", dir,
                         errno == EEXIST ? "a file is there" : strerror(errno));
        *slash = '/';
    }
    tf__free(dir);
    return s;
}

/* ---- refs/ --------------------------------------------------------------------- */

static tf_status ref_path(const tf__hub_request *req, char **out)
{
    return bounded(tf__format_alloc(out, "%s/refs/%s", req->storage, req->revision), out);
}

tf_status tf__hub_read_ref(const tf__hub_request *req, char *commit)
{
    char *path, *text = NULL;
    size_t len = 0;
    mode_t mode = 0;
    tf_status s = ref_path(req, &path);
    if (s == TF_OK)
        s = tf__file_probe(path, &mode);
    if (s == TF_OK && !mode)
        s = tf__fail(TF_ERR_NOT_FOUND,
                     "%s: no such file: the cache has no commit for %s at "
                     "revision %s",
                     path, req->repo_id, req->revision);
    if (s == TF_OK)
        s = tf__file_read_all(path, TF_HUB_REF_MAX, &text, &len);
    while (s == TF_OK && len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    if (s == TF_OK && !tf__hub_is_commit(text))
        s = tf__fail(TF_ERR_FORMAT, "%s: expected a commit (40 hex digits), got \"%.64s\"", path,
                     text);
    if (s == TF_OK)
        memcpy(commit, text, TF_HUB_COMMIT_LEN + 1);
    tf__free(text);
    tf__free(path);
    return s;
}

/* 1 when the file at path holds commit (a newline after it allowed); read
 * without a message, as a ref that cannot be read is replaced. */
static int ref_holds(const char *path, const char *commit)
{
    char text[TF_HUB_COMMIT_LEN + 2];
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    const ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
        ? read(fd, text, sizeof text)
        : -1;
    if (fd >= 0)
        close(fd);
    return (n == TF_HUB_COMMIT_LEN || (n == TF_HUB_COMMIT_LEN + 1 && text[n - 1] == '\n')) &&
        memcmp(text, commit, TF_HUB_COMMIT_LEN) == 0;
}

tf_status tf__hub_write_ref(const tf__hub_request *req, const char *commit)
{
    if (strcmp(req->revision, commit) == 0)
        return TF_OK;
    char *path;
    tf__file_out w;
    tf_status s = ref_path(req, &path);
    if (s == TF_OK && !ref_holds(path, commit) && (s = tf__hub_make_parents(path)) == TF_OK &&
        (s = tf__file_create(&w, path)) == TF_OK) {
        s = tf__file_write(&w, commit, TF_HUB_COMMIT_LEN);
        if (s == TF_OK)
            s = tf__file_commit(&w);
        else
            tf__file_discard(&w);
    }
    tf__free(path);
    return s;
}

/* ---- snapshots/ ------------------------------------------------------------------- */

tf_status tf__hub_link(const tf__hub_request *req, const char *commit, const char *file,
                       const char *etag)
{
    char *pointer, *target = NULL;
    tf_status s = tf__hub_snapshot_path(req, commit, file, &pointer);
    if (s || tf__hub_is_file(pointer)) {
        tf__free(pointer);
        return s;
    }
    size_t ups = 2; /* snapshots/<commit>/ */
    for (const char *c = file; *c; c++)
        ups += *c == '/';
    const size_t prefix = 3 * ups; /* "../" each */
    s = tf__format_alloc(&target, "%*sblobs/%s", (int)prefix, "", etag);
    for (size_t i = 0; s == TF_OK && i < ups; i++)
        memcpy(target + 3 * i, "../", 3);
    if (s == TF_OK)
        s = tf__hub_make_parents(pointer);
    struct stat st;
    if (s == TF_OK && lstat(pointer, &st) == 0) { /* a link to a blob that is gone, or else */
        if (!S_ISLNK(st.st_mode))
            s = tf__fail(TF_ERR_IO, "%s: %s is in the way of the link to blobs/%s", pointer,
                         tf__file_kind(st.st_mode), etag);
        else if (unlink(pointer) != 0 && errno != ENOENT)
            s = tf__fail(TF_ERR_IO, "%s: cannot remove the broken link: %s", pointer,
                         strerror(errno));
    }
    if (s == TF_OK && symlink(target, pointer) != 0 &&
        !(errno == EEXIST && tf__hub_is_file(pointer))) /* another download made it */
        s = tf__fail(TF_ERR_IO, "%s: cannot create the link to %s: %s", pointer, target,
                     strerror(errno));
    tf__free(target);
    tf__free(pointer);
    return s;
}

/* TF_ERR_NOT_FOUND unless file (of the snapshot snap) leads to a file. */
static tf_status need_file(const tf__hub_request *req, const char *commit, const char *file)
{
    char *path;
    tf_status s = tf__hub_snapshot_path(req, commit, file, &path);
    if (s == TF_OK && !tf__hub_is_file(path))
        s = tf__fail(TF_ERR_NOT_FOUND,
                     "%s: not in the cached snapshot of %s (revision %s, "
                     "commit %s)",
                     path, req->repo_id, req->revision, commit);
    tf__free(path);
    return s;
}

/* Where a snapshot is, for tf__hub_has_fn. */
typedef struct snapshot_of {
    const tf__hub_request *req;
    const char *commit;
} snapshot_of;

/* tf__hub_has_fn of a cached snapshot. */
static int in_snapshot(const char *file, const void *where)
{
    const snapshot_of *snap = where;
    char *path;
    const int found = tf__hub_snapshot_path(snap->req, snap->commit, file, &path) == TF_OK &&
        tf__hub_is_file(path);
    tf__free(path);
    return found;
}

/* "<dir>/<name>" ("name" alone for the top folder ""), allocated into *out. */
static tf_status dir_file(const char *dir, const char *name, char **out)
{
    return tf__format_alloc(out, "%s%s%s", dir, dir[0] ? "/" : "", name);
}

/* The weights of folder dir: model.safetensors, or the index and each
 * shard it names; PyTorch's pickle instead refused as the folder's loader
 * refuses it. */
static tf_status need_weights(const tf__hub_request *req, const char *commit, const char *dir)
{
    const snapshot_of snap = {req, commit};
    char *index = NULL, *path = NULL, *weights = NULL;
    tf_status s = tf__hub_check_weights(req, commit, dir, 0, in_snapshot, &snap);
    if (s == TF_OK && (s = dir_file(dir, "model.safetensors.index.json", &index)) == TF_OK)
        s = tf__hub_snapshot_path(req, commit, index, &path);
    if (s == TF_OK && !tf__hub_is_file(path) &&
        (s = dir_file(dir, "model.safetensors", &weights)) == TF_OK)
        s = need_file(req, commit, weights);
    else if (s == TF_OK) {
        tf__hub_names shards = {0};
        s = tf__hub_index_shards(path, dir, path, &shards);
        for (size_t i = 0; s == TF_OK && i < shards.count; i++)
            s = need_file(req, commit, shards.items[i]);
        tf__hub_names_free(&shards);
    }
    tf__free(weights);
    tf__free(path);
    tf__free(index);
    return s;
}

/* The model's folder (tf__hub_model_dir of the module folders named, NULL
 * without modules.json): its config.json and weights. */
static tf_status need_model(const tf__hub_request *req, const char *commit,
                            const tf__hub_names *named)
{
    const snapshot_of snap = {req, commit};
    const char *dir = "";
    char *config = NULL;
    tf_status s = tf__hub_model_dir(named, in_snapshot, &snap, &dir);
    if (s == TF_OK && (s = dir_file(dir, "config.json", &config)) == TF_OK)
        s = need_file(req, commit, config);
    if (s == TF_OK)
        s = need_weights(req, commit, dir);
    tf__free(config);
    return s;
}

/* The Router in folder dir: its router config (router_config.json, or the
 * legacy config.json; neither: router_config.json missing), whose route
 * folders are added to dirs and configured. */
static tf_status need_routes(const tf__hub_request *req, const char *commit, const char *dir,
                             tf__hub_names *dirs, tf__hub_names *configured)
{
    const snapshot_of snap = {req, commit};
    char *config = NULL, *path = NULL;
    tf_status s = tf__hub_router_config(dir, in_snapshot, &snap, &config);
    if (s == TF_OK && !config && (s = dir_file(dir, "router_config.json", &config)) == TF_OK)
        s = need_file(req, commit, config);
    if (s == TF_OK)
        s = tf__hub_snapshot_path(req, commit, config, &path);
    if (s == TF_OK)
        s = tf__hub_route_dirs(path, dir, path, dirs, configured);
    tf__free(path);
    tf__free(config);
    return s;
}

tf_status tf__hub_check_snapshot(const tf__hub_request *req, const char *commit)
{
    char *snap, *modules = NULL;
    tf_status s = tf__hub_snapshot_path(req, commit, NULL, &snap);
    if (s == TF_OK && !is_dir(snap))
        s = tf__fail(TF_ERR_NOT_FOUND,
                     "%s: no such folder: the cache has no snapshot of %s at "
                     "revision %s (commit %s)",
                     snap, req->repo_id, req->revision, commit);
    if (s == TF_OK)
        s = tf__hub_snapshot_path(req, commit, "modules.json", &modules);
    tf__hub_names dirs = {0}, configured = {0}, routers = {0};
    const int has_modules = s == TF_OK && tf__hub_is_file(modules);
    if (has_modules)
        s = tf__hub_module_dirs(modules, modules, &dirs, &configured, &routers);
    for (size_t i = 0; s == TF_OK && i < routers.count; i++)
        s = need_routes(req, commit, routers.items[i], &dirs, &configured);
    if (s == TF_OK)
        s = need_model(req, commit, has_modules ? &dirs : NULL);
    for (size_t i = 0; s == TF_OK && i < configured.count; i++) {
        char *config;
        if ((s = tf__format_alloc(&config, "%s/config.json", configured.items[i])) == TF_OK)
            s = need_file(req, commit, config);
        tf__free(config);
    }
    tf__hub_names_free(&dirs);
    tf__hub_names_free(&configured);
    tf__hub_names_free(&routers);
    tf__free(modules);
    tf__free(snap);
    return s;
}

/* ---- .locks/ ------------------------------------------------------------------------ */

/* progress's callback (waiting 1): non-zero to stop waiting. */
static int tell_waiting(const tf__hub_request *req, tf_hub_progress *progress)
{
    if (!req->progress)
        return 0;
    progress->waiting = 1;
    const int stop = req->progress(progress, req->progress_user_data) != 0;
    progress->waiting = 0;
    return stop;
}

tf_status tf__hub_lock(const tf__hub_request *req, const char *etag, tf_hub_progress *progress,
                       int *fd)
{
    *fd = -1;
    const char *folder = strrchr(req->storage, '/') + 1;
    char *path;
    tf_status s = bounded(tf__format_alloc(&path, "%s/.locks/%s/%s.lock", req->cache, folder, etag),
                          &path);
    if (s == TF_OK)
        s = tf__hub_make_parents(path);
    const int f = s == TF_OK ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;
    if (s == TF_OK && f < 0)
        s = tf__fail(TF_ERR_IO, "%s: cannot open the lock: %s", path, strerror(errno));
    while (s == TF_OK && flock(f, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            s = tf__fail(TF_ERR_IO, "%s: cannot lock: %s", path, strerror(errno));
        else if (tell_waiting(req, progress))
            s = tf__fail(TF_ERR_IO,
                         "%s: cancelled by the progress callback while another "
                         "download of %s held its lock",
                         path, progress->file);
        else
            nanosleep(&(struct timespec){0, TF_HUB_LOCK_POLL_NS}, NULL);
    }
    if (s && f >= 0)
        close(f);
    else
        *fd = f;
    tf__free(path);
    return s;
}

void tf__hub_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}
