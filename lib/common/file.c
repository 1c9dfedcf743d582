/* file.c — opening regular files to read, paths, and base/file_replace.c's writer with the
 * library's errors; see file.h. */
#define _POSIX_C_SOURCE 200809L
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"

/* TF_ERR_IO unless mode is a regular file's; `then` ends the message. */
static tf_status check_regular(const char *path, mode_t mode, const char *then)
{
    if (S_ISREG(mode))
        return TF_OK;
    return tf__fail(TF_ERR_IO, "%s: not a regular file: it is %s%s", path, tf__file_kind(mode),
                    then);
}

/* ---- Paths --------------------------------------------------------------- */

tf_status tf__format_alloc(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    *out = n >= 0 ? tf__malloc((size_t)n + 1) : NULL;
    if (!*out)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %d bytes for a name", n + 1);
    va_start(ap, fmt);
    vsnprintf(*out, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return TF_OK;
}

tf_status tf__path_join(const char *dir, const char *name, char **path)
{
    return tf__format_alloc(path, "%s%s%s", dir, name[0] ? "/" : "", name);
}

const char *tf__path_leaves(const char *rel)
{
    if (rel[0] == '/')
        return "an absolute path";
    for (const char *c = rel; *c; c += strcspn(c, "/"), c += *c == '/') /* each component */
        if (strncmp(c, "..", 2) == 0 && (c[2] == '/' || c[2] == '\0'))
            return "a \"..\" in it";
    return NULL;
}

/* The target a symbolic link at path names, allocated (tf__free it), or
 * NULL when it cannot be read. */
static char *link_target(const char *path)
{
    for (size_t size = 256;; size *= 2) { /* [size]: readlink does not say the length */
        char *buf = tf__malloc(size);
        const ssize_t n = buf ? readlink(path, buf, size) : -1;
        if (n >= 0 && (size_t)n < size) {
            buf[n] = '\0';
            return buf;
        }
        tf__free(buf);
        if (n < 0)
            return NULL;
    }
}

/* Why stat(path) failed with err: a symbolic link to nothing is named as
 * one, with its target; anything else by strerror. */
static tf_status cannot_look(const char *path, int err)
{
    struct stat st;
    if (err != ENOENT || lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return tf__fail(TF_ERR_IO, "%s: cannot open: %s", path, strerror(err));
    char *target = link_target(path);
    const tf_status s = tf__fail(TF_ERR_IO,
                                 "%s: a symbolic link to %s that does not exist (a "
                                 "cache snapshot without its blobs?)",
                                 path, target ? target : "a file");
    tf__free(target);
    return s;
}

tf_status tf__file_probe(const char *path, mode_t *mode)
{
    struct stat st;
    *mode = 0;
    if (stat(path, &st) == 0) {
        *mode = st.st_mode;
        return TF_OK;
    }
    const int err = errno;
    struct stat link;
    if (err == ENOENT && lstat(path, &link) != 0)
        return TF_OK; /* nothing there */
    return cannot_look(path, err);
}

/* ---- Reading ------------------------------------------------------------- */

tf_status tf__file_open_read(const char *path, int *fd, size_t *size)
{
    *fd = -1;
    struct stat st;
    if (stat(path, &st) != 0)
        return cannot_look(path, errno);
    tf_status s = check_regular(path, st.st_mode, ""); /* a device is never opened */
    if (s)
        return s;
    const int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0)
        return tf__fail(TF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(f, &st) != 0)
        s = tf__fail(TF_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    else
        s = check_regular(path, st.st_mode, ""); /* replaced since the stat() */
    const int flags = s == TF_OK ? fcntl(f, F_GETFL) : 0;
    if (s == TF_OK && (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0))
        s = tf__fail(TF_ERR_IO, "%s: cannot make the descriptor blocking: %s", path,
                     strerror(errno));
    if (s) {
        close(f);
        return s;
    }
    *fd = f;
    *size = (size_t)st.st_size;
    return TF_OK;
}

tf_status tf__file_read_all(const char *path, size_t max, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int fd;
    size_t size;
    tf_status s = tf__file_open_read(path, &fd, &size);
    if (s)
        return s;
    char *buf = NULL; /* [size + 1] */
    if (size > max)
        s = tf__fail(TF_ERR_FORMAT, "%s: %zu bytes, more than the %zu a file may have here", path,
                     size, max);
    else if (!(buf = tf__malloc(size + 1)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes", path, size + 1);
    size_t n = 0;
    while (s == TF_OK && n < size) {
        const ssize_t got = read(fd, buf + n, size - n);
        if (got == 0)
            break; /* the file shrank since the fstat() */
        if (got > 0)
            n += (size_t)got;
        else if (errno != EINTR)
            s = tf__fail(TF_ERR_IO, "%s: read error: %s", path, strerror(errno));
    }
    close(fd);
    if (s) {
        tf__free(buf);
        return s;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return TF_OK;
}

/* ---- Writing ------------------------------------------------------------- */

/* TF_OK for TF__REPLACE_OK, else the writer's message as the library's error. */
static tf_status replace_status(int result, const tf__file_out *f)
{
    if (result == TF__REPLACE_OK)
        return TF_OK;
    return tf__fail(result == TF__REPLACE_NO_MEMORY ? TF_ERR_OUT_OF_MEMORY : TF_ERR_IO, "%s",
                    f->why);
}

tf_status tf__file_create(tf__file_out *f, const char *path)
{
    return replace_status(tf__replace_begin(&f->writer, path, f->why, sizeof f->why), f);
}

tf_status tf__file_write(tf__file_out *f, const void *data, size_t n)
{
    return replace_status(tf__replace_write(&f->writer, data, n), f);
}

tf_status tf__file_commit(tf__file_out *f)
{
    return replace_status(tf__replace_commit(&f->writer), f);
}

void tf__file_discard(tf__file_out *f)
{
    tf__replace_discard(&f->writer);
}
