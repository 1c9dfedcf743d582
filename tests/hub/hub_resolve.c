/* hub_resolve.c — tf_hub_resolve from the command line, for the hub tests
 * (tests/hub/test_hub.py): a pure client of tfenc.h.
 *
 *   hub_resolve REPO_ID [--revision R] [--cache-dir D] [--endpoint URL]
 *               [--token T] [--local-files-only] [--progress]
 *               [--cancel-after BYTES] [--size N] [--load]
 *
 * Prints the folder (then, with --load, "kind=<kind> dim=<n>" of the
 * pipeline loaded from it); on failure "<TF_ERR_...>: <message>" on stderr
 * (then "needed=<length>" when the call set one) and exit status 1.
 * --progress prints each progress call on stderr as "progress file=...
 * index=i count=n file_bytes=.. file_size=.. bytes=.. total=.. waiting=w";
 * --cancel-after stops once bytes passes BYTES. A successful call that
 * changes tf_last_error is exit status 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfenc.h"

typedef struct progress_state {
    int print;
    long long cancel_after; /* -1: never */
} progress_state;

static int32_t on_progress(const tf_hub_progress *p, void *user)
{
    const progress_state *state = user;
    if (state->print)
        fprintf(stderr,
                "progress file=%s index=%d count=%d file_bytes=%lld file_size=%lld bytes=%lld "
                "total=%lld waiting=%d\n",
                p->file, (int)p->file_index, (int)p->file_count, (long long)p->file_bytes,
                (long long)p->file_size, (long long)p->bytes, (long long)p->total_bytes,
                (int)p->waiting);
    return state->cancel_after >= 0 && p->bytes > state->cancel_after;
}

static int fail(tf_status s)
{
    fprintf(stderr, "%s: %s\n", tf_status_name(s), tf_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hub_resolve REPO_ID [options]\n");
        return 2;
    }
    tf_hub_options opts;
    tf_hub_options_init(&opts);
    progress_state state = {0, -1};
    size_t size = 4096;
    int load = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--revision") == 0 && v)
            opts.revision = v, i++;
        else if (strcmp(a, "--cache-dir") == 0 && v)
            opts.cache_dir = v, i++;
        else if (strcmp(a, "--endpoint") == 0 && v)
            opts.endpoint = v, i++;
        else if (strcmp(a, "--token") == 0 && v)
            opts.token = v, i++;
        else if (strcmp(a, "--local-files-only") == 0)
            opts.local_files_only = 1;
        else if (strcmp(a, "--progress") == 0)
            state.print = 1;
        else if (strcmp(a, "--cancel-after") == 0 && v)
            state.cancel_after = atoll(v), i++;
        else if (strcmp(a, "--size") == 0 && v)
            size = (size_t)atoll(v), i++;
        else if (strcmp(a, "--load") == 0)
            load = 1;
        else {
            fprintf(stderr, "hub_resolve: unknown argument %s\n", a);
            return 2;
        }
    }
    opts.progress = on_progress;
    opts.progress_user_data = &state;
    char *dir = malloc(size ? size : 1);
    size_t len = 0;
    /* A message a successful call must leave as it is (tfenc.h, tf_last_error). */
    tf_hub_resolve(NULL, NULL, NULL, 0, NULL);
    char sentinel[64];
    snprintf(sentinel, sizeof sentinel, "%s", tf_last_error());
    tf_status s = tf_hub_resolve(argv[1], &opts, size ? dir : NULL, size, &len);
    if (s == TF_OK && strcmp(tf_last_error(), sentinel) != 0) {
        fprintf(stderr, "tf_last_error changed by a successful call: %s\n", tf_last_error());
        free(dir);
        return 3;
    }
    if (s) {
        fail(s);
        if (len) /* a dir too small: the length it needs */
            fprintf(stderr, "needed=%zu\n", len);
        free(dir);
        return 1;
    }
    printf("%s\n", dir);
    tf_pipeline *p = NULL;
    if (load && (s = tf_pipeline_load(dir, NULL, &p)) == TF_OK)
        printf("kind=%s dim=%d\n", tf_pipeline_kind_name(tf_pipeline_kind_of(p)),
               (int)tf_pipeline_dim(p));
    tf_pipeline_destroy(p);
    free(dir);
    return s ? fail(s) : 0;
}
