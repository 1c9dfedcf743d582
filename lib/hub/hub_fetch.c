/* hub_fetch.c — online: the revision's commit and file list (hf_api.py,
 * model_info: GET /api/models/<id>/revision/<revision>), the files the
 * folder needs (hub_select.c), each one's metadata (file_download.py,
 * get_hf_file_metadata: HEAD /<id>/resolve/<commit>/<file>), then the
 * blobs the cache lacks (hub_blob.c) and the snapshot's links. See hub.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"
#include "hub_http.h"
#include "json_file.h"

/* The deepest JSON the file list may be. */
#define TF_HUB_INFO_MAX_DEPTH 64

static const char index_name[] = "model.safetensors.index.json";

/* ---- The commit and the file list --------------------------------------------------- */

/* The answer's "sha" (the commit) and the siblings' "rfilename"s. */
static tf_status read_info(const tf__hub_response *r, const char *url, char *commit,
                           tf__hub_names *files)
{
    cJSON *root = NULL;
    tf_status s = tf__json_parse(r->body ? r->body : "", r->body_len, TF_HUB_INFO_MAX_DEPTH, url,
                                 &root);
    const cJSON *sha = root ? cJSON_GetObjectItemCaseSensitive(root, "sha") : NULL;
    const cJSON *siblings = root ? cJSON_GetObjectItemCaseSensitive(root, "siblings") : NULL;
    if (s == TF_OK && !(cJSON_IsString(sha) && tf__hub_is_commit(sha->valuestring)))
        s = tf__json_wrong(sha, "sha", "a commit (40 hex digits)", url);
    if (s == TF_OK && !cJSON_IsArray(siblings))
        s = tf__json_wrong(siblings, "siblings", "an array", url);
    for (const cJSON *f = s == TF_OK ? siblings->child : NULL; s == TF_OK && f; f = f->next) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "rfilename");
        s = cJSON_IsString(name) ? tf__hub_names_add(files, name->valuestring)
                                 : tf__json_wrong(name, "siblings[].rfilename", "a string", url);
    }
    if (s == TF_OK)
        memcpy(commit, sha->valuestring, TF_HUB_COMMIT_LEN + 1);
    cJSON_Delete(root);
    return s;
}

static tf_status repo_info(tf__hub_http *http, char *commit, tf__hub_names *files, int *fallback)
{
    const tf__hub_request *req = http->req;
    char *revision, *url = NULL, *what = NULL;
    tf__hub_response r = {0};
    tf_status s = tf__hub_quote(req->revision, 0, &revision);
    if (s == TF_OK)
        s = tf__format_alloc(&url, "%s/api/models/%s/revision/%s", req->endpoint, req->repo_id,
                             revision);
    if (s == TF_OK)
        s = tf__format_alloc(&what, "the file list of %s at revision %s", req->repo_id,
                             req->revision);
    int broke;
    const tf__hub_call call = {.url = url, .follow = 1};
    if (s == TF_OK && (s = tf__hub_perform(http, &call, &r, &broke)) != TF_OK)
        *fallback = s == TF_ERR_IO; /* the Hub not reached */
    else if (s == TF_OK && r.status != 200) {
        s = tf__hub_http_error(http, &r, url, what);
        *fallback = !(r.error_code && strcmp(r.error_code, "RevisionNotFound") == 0);
    } else if (s == TF_OK)
        s = read_info(&r, url, commit, files);
    tf__hub_response_free(&r);
    tf__free(what);
    tf__free(url);
    tf__free(revision);
    return s;
}

/* ---- One file's metadata ------------------------------------------------------------- */

/* A size header's value, a non-negative integer. */
static tf_status read_size(const char *value, const char *header, const char *what, int64_t *size)
{
    char *end = NULL;
    errno = 0;
    const long long v = value && value[0] >= '0' && value[0] <= '9' ? strtoll(value, &end, 10) : -1;
    if (v < 0 || errno || *end)
        return value
            ? tf__fail(TF_ERR_FORMAT, "%s: %s \"%s\" is not a size in bytes", what, header, value)
            : tf__fail(TF_ERR_FORMAT,
                       "%s: the answer has no %s header, so the size "
                       "cannot be checked",
                       what, header);
    *size = v;
    return TF_OK;
}

/* The answer to HEAD of file's resolve URL, as get_hf_file_metadata reads
 * it, into *blob (url allocated). */
static tf_status read_metadata(const tf__hub_response *r, const char *url, const char *commit,
                               const char *what, tf__hub_blob *blob)
{
    const int redirect = r->status >= 300 && r->status <= 399;
    if (!r->repo_commit)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: the answer from %s has no X-Repo-Commit header: not "
                        "the Hub (a proxy or firewall in the way?)",
                        what, url);
    if (strcmp(r->repo_commit, commit) != 0)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: X-Repo-Commit %.64s, but the file list was of commit "
                        "%s",
                        what, r->repo_commit, commit);
    const char *etag = r->linked_etag ? r->linked_etag : r->etag;
    if (!etag)
        return tf__fail(TF_ERR_FORMAT, "%s: the answer from %s has neither X-Linked-Etag nor ETag",
                        what, url);
    tf_status s = tf__hub_etag(etag, r->linked_etag ? "X-Linked-Etag" : "ETag", blob->etag);
    if (s)
        return tf__fail(s, "%s: %s", what, tf_last_error());
    if (s == TF_OK)
        s = r->linked_size || redirect
            ? read_size(r->linked_size, "X-Linked-Size", what, &blob->size)
            : read_size(r->content_length, "Content-Length", what, &blob->size);
    if (s == TF_OK && redirect &&
        !(r->location &&
          (strncmp(r->location, "http://", 7) == 0 || strncmp(r->location, "https://", 8) == 0)))
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: a redirect (HTTP %ld) without an http:// or https:// "
                     "Location",
                     what, r->status);
    if (s == TF_OK)
        s = tf__format_alloc(&blob->url, "%s", redirect ? r->location : url);
    return s;
}

static tf_status head_file(tf__hub_http *http, const char *commit, const char *file,
                           tf__hub_blob *blob)
{
    const tf__hub_request *req = http->req;
    char *quoted, *url = NULL, *what = NULL;
    tf__hub_response r = {0};
    tf_status s = tf__hub_quote(file, 1, &quoted);
    if (s == TF_OK)
        s = tf__format_alloc(&url, "%s/%s/resolve/%s/%s", req->endpoint, req->repo_id, commit,
                             quoted);
    if (s == TF_OK)
        s = tf__format_alloc(&what, "%s: %s at commit %s", req->repo_id, file, commit);
    if (s == TF_OK)
        s = tf__hub_head(http, url, &r);
    if (s == TF_OK && !(r.status >= 200 && r.status <= 399))
        s = tf__hub_http_error(http, &r, url, what);
    if (s == TF_OK)
        s = read_metadata(&r, url, commit, what, blob);
    tf__hub_response_free(&r);
    tf__free(what);
    tf__free(url);
    tf__free(quoted);
    return s;
}

/* ---- A batch of files ---------------------------------------------------------------- */

typedef struct plan {
    tf__hub_blob *blobs; /* [count]: the files whose blobs the cache lacks */
    size_t count;
    int64_t total_bytes;
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->count; i++)
        tf__free(p->blobs[i].url);
    tf__free(p->blobs);
    *p = (plan){0};
}

/* Each of files the snapshot lacks: linked now when its blob is cached,
 * else added to the plan. */
static tf_status make_plan(tf__hub_http *http, const char *commit, const tf__hub_names *files,
                           plan *p)
{
    const tf__hub_request *req = http->req;
    tf_status s = TF_OK;
    if (files->count && !(p->blobs = tf__calloc(files->count, sizeof *p->blobs)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu files", files->count);
    for (size_t i = 0; s == TF_OK && i < files->count; i++) {
        char *pointer, *blob_path = NULL;
        tf__hub_blob blob = {.file = files->items[i]};
        s = tf__hub_snapshot_path(req, commit, blob.file, &pointer);
        const int cached = s == TF_OK && tf__hub_is_file(pointer);
        if (s == TF_OK && !cached)
            s = head_file(http, commit, blob.file, &blob);
        if (s == TF_OK && !cached)
            s = tf__hub_blob_path(req, blob.etag, "", &blob_path);
        if (s == TF_OK && !cached && tf__hub_is_file(blob_path)) {
            s = tf__hub_link(req, commit, blob.file, blob.etag);
            tf__free(blob.url);
        } else if (s == TF_OK && !cached) {
            p->blobs[p->count++] = blob;
            p->total_bytes += blob.size;
        } else {
            tf__free(blob.url);
        }
        tf__free(blob_path);
        tf__free(pointer);
    }
    return s;
}

/* Brings files (each checked) into the snapshot of commit. */
static tf_status get_files(tf__hub_http *http, const char *commit, const tf__hub_names *files)
{
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < files->count; i++)
        s = tf__hub_check_repo_file(files->items[i], "the repository's file list");
    plan p = {0};
    if (s == TF_OK)
        s = make_plan(http, commit, files, &p);
    tf_hub_progress progress = {.struct_size = sizeof progress,
                                .repo_id = http->req->repo_id,
                                .file_count = (int32_t)p.count,
                                .total_bytes = p.total_bytes};
    for (size_t i = 0; s == TF_OK && i < p.count; i++) {
        progress.file_index = (int32_t)i;
        s = tf__hub_fetch_blob(http, &p.blobs[i], &progress);
        if (s == TF_OK)
            s = tf__hub_link(http->req, commit, p.blobs[i].file, p.blobs[i].etag);
    }
    plan_free(&p);
    return s;
}

/* get_files of the one file name, when the repository has it. */
static tf_status get_file(tf__hub_http *http, const char *commit, const tf__hub_names *repo,
                          const char *name)
{
    if (!tf__hub_names_has(repo, name))
        return TF_OK;
    tf__hub_names one = {.items = (char **)&name, .count = 1, .capacity = 1};
    return get_files(http, commit, &one);
}

/* 1 when file is a safetensors index. */
static int is_index(const char *file)
{
    const char *slash = strrchr(file, '/');
    return strcmp(slash ? slash + 1 : file, index_name) == 0;
}

/* The shards each index of wanted names (the indexes fetched first), added
 * to wanted; each must be a file of the repository. */
static tf_status add_shards(tf__hub_http *http, const char *commit, const tf__hub_names *repo,
                            tf__hub_names *wanted)
{
    tf__hub_names indexes = {0};
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < wanted->count; i++)
        if (is_index(wanted->items[i]))
            s = tf__hub_names_add(&indexes, wanted->items[i]);
    if (s == TF_OK)
        s = get_files(http, commit, &indexes);
    for (size_t i = 0; s == TF_OK && i < indexes.count; i++) {
        const char *file = indexes.items[i], *slash = strrchr(file, '/');
        char *dir = NULL, *index = NULL;
        const size_t before = wanted->count;
        if ((s = tf__format_alloc(&dir, "%.*s", slash ? (int)(slash - file) : 0, file)) == TF_OK &&
            (s = tf__hub_snapshot_path(http->req, commit, file, &index)) == TF_OK)
            s = tf__hub_index_shards(index, dir, file, wanted);
        for (size_t k = before; s == TF_OK && k < wanted->count; k++)
            if (!tf__hub_names_has(repo, wanted->items[k]))
                s = tf__fail(TF_ERR_FORMAT,
                             "%s: names the shard %s, which the repository does "
                             "not have",
                             file, wanted->items[k]);
        tf__free(index);
        tf__free(dir);
    }
    tf__hub_names_free(&indexes);
    return s;
}

/* tf__hub_has_fn of the repository's file list. */
static int listed(const char *file, const void *repo)
{
    return tf__hub_names_has(repo, file);
}

/* The route folders of the Router in folder dir, added to dirs: its
 * router config fetched first (the loader reads it; none: nothing added,
 * and the loader says what is missing). */
static tf_status add_route_dirs(tf__hub_http *http, const char *commit, const tf__hub_names *repo,
                                const char *dir, tf__hub_names *dirs)
{
    char *config = NULL, *path = NULL;
    tf_status s = tf__hub_router_config(dir, listed, repo, &config);
    if (s == TF_OK && config)
        s = get_file(http, commit, repo, config);
    if (s == TF_OK && config &&
        (s = tf__hub_snapshot_path(http->req, commit, config, &path)) == TF_OK)
        s = tf__hub_route_dirs(path, dir, config, dirs, NULL);
    tf__free(path);
    tf__free(config);
    return s;
}

/* The folder's files: modules.json first (it names the module folders),
 * then each Router's config (it names the route folders), then, once no
 * folder holds PyTorch's pickle instead and the model's folder
 * (tf__hub_model_dir) holds weights libtfenc reads, the safetensors indexes
 * (they name the shards), then the rest. A folder without modules.json is
 * checked before anything is fetched. */
static tf_status get_folder(tf__hub_http *http, const char *commit, const tf__hub_names *repo)
{
    tf__hub_names named = {0}, routers = {0}, dirs = {0}, wanted = {0};
    const int has_modules = tf__hub_names_has(repo, "modules.json");
    char *modules = NULL;
    tf_status s = tf__hub_check_weights(http->req, commit, "", !has_modules, listed, repo);
    if (s == TF_OK && has_modules && (s = get_file(http, commit, repo, "modules.json")) == TF_OK &&
        (s = tf__hub_snapshot_path(http->req, commit, "modules.json", &modules)) == TF_OK)
        s = tf__hub_module_dirs(modules, "modules.json", &named, NULL, &routers);
    for (size_t i = 0; s == TF_OK && i < routers.count; i++)
        s = add_route_dirs(http, commit, repo, routers.items[i], &named);
    if (s == TF_OK)
        s = tf__hub_names_add(&dirs, "");
    for (size_t i = 0; s == TF_OK && i < named.count; i++)
        if (!tf__hub_names_has(&dirs, named.items[i]))
            s = tf__hub_names_add(&dirs, named.items[i]);
    for (size_t i = 1; s == TF_OK && i < dirs.count; i++) /* the modules' ("" checked above) */
        s = tf__hub_check_weights(http->req, commit, dirs.items[i], 0, listed, repo);
    const char *model_dir = "";
    if (s == TF_OK && has_modules &&
        (s = tf__hub_model_dir(&named, listed, repo, &model_dir)) == TF_OK)
        s = tf__hub_check_weights(http->req, commit, model_dir, 1, listed, repo);
    for (size_t i = 0; s == TF_OK && i < repo->count; i++)
        if (tf__hub_wanted(repo->items[i], &dirs))
            s = tf__hub_names_add(&wanted, repo->items[i]);
    if (s == TF_OK)
        s = add_shards(http, commit, repo, &wanted);
    if (s == TF_OK)
        s = get_files(http, commit, &wanted);
    tf__free(modules);
    tf__hub_names_free(&wanted);
    tf__hub_names_free(&dirs);
    tf__hub_names_free(&routers);
    tf__hub_names_free(&named);
    return s;
}

tf_status tf__hub_fetch(const tf__hub_request *req, char *commit, int *fallback)
{
    *fallback = 0;
    tf__hub_http http;
    tf__hub_names repo = {0};
    tf_status s = tf__hub_http_open(&http, req);
    if (s == TF_OK)
        s = repo_info(&http, commit, &repo, fallback);
    if (s == TF_OK)
        s = get_folder(&http, commit, &repo);
    if (s == TF_OK)
        s = tf__hub_write_ref(req, commit);
    tf__hub_names_free(&repo);
    tf__hub_http_close(&http);
    return s;
}
