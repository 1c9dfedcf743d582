/* dump.c — `tfenc explain --dump DIR` writes every traced tensor as .npy
 * plus an index.json; `--compare DIR` reads another implementation's .npy
 * files of the same names and reports, tensor by tensor in the order of
 * computation, how far they are from ours. */
#define _POSIX_C_SOURCE 200809L
#include "dump.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_message.h"
#include "npy.h"
#include "out_file.h"
#include "shape_text.h"

static int path_of(char *buf, size_t size, const char *dir, const char *name, const char *ext)
{
    return snprintf(buf, size, "%s/%s%s", dir, name, ext) < (int)size;
}

static cJSON *index_json(const recording *rec, const char *const *tokens, int n_tokens,
                         const char *description)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "tfenc-dump");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "description", description);
    cJSON *toks = cJSON_AddArrayToObject(root, "tokens");
    for (int t = 0; t < n_tokens; t++)
        cJSON_AddItemToArray(toks, cJSON_CreateString(tokens[t]));
    cJSON *list = cJSON_AddArrayToObject(root, "tensors");
    for (size_t i = 0; i < rec->n; i++) {
        const recorded *ev = &rec->events[i];
        cJSON *t = cJSON_CreateObject();
        char file[80];
        snprintf(file, sizeof file, "%s.npy", ev->name);
        cJSON_AddStringToObject(t, "name", ev->name);
        cJSON_AddStringToObject(t, "file", file);
        cJSON_AddStringToObject(t, "dims", ev->dim_names);
        cJSON_AddNumberToObject(t, "layer", ev->layer);
        cJSON *shape = cJSON_AddArrayToObject(t, "shape");
        for (int32_t d = 0; d < ev->rank; d++)
            cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)ev->dims[d]));
        cJSON_AddStringToObject(t, "dtype", "float32");
        cJSON_AddItemToArray(list, t);
    }
    return root;
}

/* ev as a .npy file at path, replaced whole: 0, or -1 after a message. */
static int write_npy(const char *path, const recorded *ev)
{
    out_file out;
    if (out_file_open(&out, path) != 0) {
        cli_error("explain", "%s", out.err);
        return -1;
    }
    if (npy_fwrite_f32(out.f, ev->data, ev->rank, ev->dims) != 0) {
        cli_error("explain", "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        out_file_discard(&out);
        return -1;
    }
    if (out_file_close(&out) != 0) {
        cli_error("explain", "%s", out.err);
        return -1;
    }
    return 0;
}

int dump_write(const char *dir, const recording *rec, const char *const *tokens, int n_tokens,
               const char *description)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        cli_error("explain", "%s: cannot create: %s", dir, strerror(errno));
        return -1;
    }
    char path[PATH_MAX];
    for (size_t i = 0; i < rec->n; i++) {
        const recorded *ev = &rec->events[i];
        if (!path_of(path, sizeof path, dir, ev->name, ".npy")) {
            cli_error("explain", "--dump %s: a path longer than %d bytes", dir, PATH_MAX);
            return -1;
        }
        if (write_npy(path, ev) != 0)
            return -1;
    }
    cJSON *root = index_json(rec, tokens, n_tokens, description);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    out_file out;
    int ok = 0;
    if (!text)
        snprintf(out.err, sizeof out.err, "%s/index.json: cannot write: out of memory", dir);
    else if (!path_of(path, sizeof path, dir, "index", ".json"))
        snprintf(out.err, sizeof out.err, "--dump %s: a path longer than %d bytes", dir, PATH_MAX);
    else if (out_file_open(&out, path) == 0) {
        fputs(text, out.f);
        fputc('\n', out.f);
        ok = out_file_close(&out) == 0; /* a failed write shows in its ferror */
    }
    free(text);
    if (!ok) {
        cli_error("explain", "%s", out.err);
        return -1;
    }
    printf("wrote %zu tensors (float32 .npy) and index.json to %s\n", rec->n, dir);
    return 0;
}

/* Max |ours - theirs| (equal infinities count 0, a lone NaN counts +inf)
 * and the largest |theirs| that is finite. */
static void errors(const float *ours, const float *theirs, size_t n, double *max_abs,
                   double *max_ref)
{
    *max_abs = 0, *max_ref = 0;
    for (size_t i = 0; i < n; i++) {
        const double a = ours[i], b = theirs[i];
        double e;
        if (isnan(a) || isnan(b))
            e = isnan(a) && isnan(b) ? 0 : INFINITY;
        else if (isinf(a) || isinf(b))
            e = a == b ? 0 : INFINITY;
        else
            e = fabs(a - b);
        *max_abs = e > *max_abs ? e : *max_abs;
        if (isfinite(b) && fabs(b) > *max_ref)
            *max_ref = fabs(b);
    }
}

static int same_shape(const recorded *ev, const npy_array *a)
{
    if (a->rank != ev->rank || a->dtype != 'f')
        return 0;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != ev->dims[d])
            return 0;
    return 1;
}

int dump_compare(const char *dir, const recording *rec, double tol)
{
    printf(
        "comparing with %s (tolerance %.1e on the max abs error; rel = max abs / max |theirs|)\n",
        dir, tol);
    printf("  %-28s %-18s %10s %10s\n", "tensor", "shape", "max abs", "rel");
    int compared = 0, first_bad = -1;
    for (size_t i = 0; i < rec->n; i++) {
        const recorded *ev = &rec->events[i];
        char path[PATH_MAX], err[PATH_MAX + 128];
        const shape_text shape_of = shape_text_of(ev->dims, ev->rank);
        const char *shape = shape_of.text;
        npy_array theirs = {0};
        struct stat st;
        if (!path_of(path, sizeof path, dir, ev->name, ".npy") || stat(path, &st) != 0) {
            printf("  %-28s %-18s %21s\n", ev->name, shape, "(not in the directory)");
            continue;
        }
        compared++;
        const char *verdict = "ok";
        if (npy_read(path, &theirs, err, sizeof err) != 0) {
            verdict = "UNREADABLE";
            printf("  %-28s %-18s %21s  %s: %s\n", ev->name, shape, "-", verdict, err);
        } else if (!same_shape(ev, &theirs)) {
            verdict = "SHAPE DIFFERS";
            printf("  %-28s %-18s %21s  %s\n", ev->name, shape, "-", verdict);
        } else {
            double max_abs, max_ref;
            errors(ev->data, theirs.data, ev->count, &max_abs, &max_ref);
            if (!(max_abs <= tol))
                verdict = "OVER";
            printf("  %-28s %-18s %10.2e %10.2e  %s\n", ev->name, shape, max_abs,
                   max_ref > 0 ? max_abs / max_ref : max_abs, verdict);
        }
        if (strcmp(verdict, "ok") != 0 && first_bad < 0)
            first_bad = (int)i;
        npy_free(&theirs);
    }
    if (compared == 0) {
        printf("no tensor of ours has a .npy file in %s\n", dir);
        return 1;
    }
    if (first_bad >= 0) {
        printf("first tensor over %.1e: %s\n", tol, rec->events[first_bad].name);
        return 1;
    }
    printf("all %d compared tensors within %.1e\n", compared, tol);
    return 0;
}
