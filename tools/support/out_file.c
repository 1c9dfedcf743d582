/* out_file.c — a tool's output file replaced whole; see out_file.h. */
#define _POSIX_C_SOURCE 200809L
#include "out_file.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int out_file_open(out_file *o, const char *path)
{
    *o = (out_file){.f = stdout, .path = path};
    if (!path)
        return 0;
    if (tf__replace_begin(&o->writer, path, o->err, sizeof o->err) != TF__REPLACE_OK)
        return -1;
    /* stdio over a second descriptor: fclose flushes and closes it, the
     * writer's own one is synced and closed by tf__replace_commit */
    const int fd = dup(o->writer.fd);
    o->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!o->f) {
        snprintf(o->err, sizeof o->err, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        tf__replace_discard(&o->writer);
        return -1;
    }
    return 0;
}

int out_file_close(out_file *o)
{
    const char *where = o->path ? o->path : "standard output";
    errno = 0;
    int ok = fflush(o->f) == 0 && !ferror(o->f);
    const int err = errno ? errno : EIO;
    if (!o->path) {
        if (!ok)
            snprintf(o->err, sizeof o->err, "%s: cannot write: %s", where, strerror(err));
        return ok ? 0 : -1;
    }
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    if (!ok) {
        snprintf(o->err, sizeof o->err, "%s: cannot write: %s", where, strerror(err));
        tf__replace_discard(&o->writer);
        return -1;
    }
    return tf__replace_commit(&o->writer) == TF__REPLACE_OK ? 0 : -1;
}

void out_file_discard(out_file *o)
{
    if (!o->path) {
        fflush(o->f);
        return;
    }
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    tf__replace_discard(&o->writer);
}
