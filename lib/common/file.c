/* file.c — opening regular files to read, replacing files whole; see file.h. */
#define _POSIX_C_SOURCE 200809L
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"

/* A temporary file is "<target>.tmp" and this many hex digits; names are
 * tried until one does not exist yet, at most this many times. */
#define TF_FILE_TEMP_SUFFIX ".tmp"
#define TF_FILE_TEMP_DIGITS 16
#define TF_FILE_TEMP_ATTEMPTS 100

const char *tf__file_kind(mode_t mode)
{
    return S_ISREG(mode) ? "a regular file"
        : S_ISDIR(mode)  ? "a directory"
        : S_ISFIFO(mode) ? "a FIFO"
        : S_ISCHR(mode)  ? "a character device"
        : S_ISBLK(mode)  ? "a block device"
        : S_ISLNK(mode)  ? "a symbolic link"
        : S_ISSOCK(mode) ? "a socket"
                         : "a file of unknown type";
}

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

/* digits[0..TF_FILE_TEMP_DIGITS) := hex digits of a number this process
 * has not drawn before, mixed with the pid and the time. */
static void draw_temp_digits(char *digits)
{
    static atomic_uint_fast64_t drawn;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t x = (uint64_t)atomic_fetch_add(&drawn, 1) ^ (uint64_t)getpid() << 40 ^
        (uint64_t)now.tv_nsec << 20 ^ (uint64_t)now.tv_sec;
    x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull; /* splitmix64's finaliser, a bijection */
    x = (x ^ x >> 27) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    for (int i = TF_FILE_TEMP_DIGITS - 1; i >= 0; i--, x >>= 4)
        digits[i] = "0123456789abcdef"[x & 15];
}

tf_status tf__file_create(tf__file_writer *w, const char *path)
{
    *w = (tf__file_writer){.path = path, .tmp_path = NULL, .fd = -1};
    struct stat st;
    if (lstat(path, &st) == 0) { /* a missing target is created */
        tf_status s = check_regular(path, st.st_mode, "; only a regular file is replaced");
        if (s)
            return s;
    }
    const size_t path_len = strlen(path), base = path_len + strlen(TF_FILE_TEMP_SUFFIX);
    w->tmp_path = tf__malloc(base + TF_FILE_TEMP_DIGITS + 1); /* "<path>.tmp" digits NUL */
    if (!w->tmp_path)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate a file name", path);
    memcpy(w->tmp_path, path, path_len);
    memcpy(w->tmp_path + path_len, TF_FILE_TEMP_SUFFIX, base - path_len);
    w->tmp_path[base + TF_FILE_TEMP_DIGITS] = '\0';
    int err = EEXIST;
    for (int attempt = 0; w->fd < 0 && err == EEXIST && attempt < TF_FILE_TEMP_ATTEMPTS;
         attempt++) {
        draw_temp_digits(w->tmp_path + base);
        /* O_EXCL: an existing name, a link included, is never opened */
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
        err = errno;
    }
    if (w->fd < 0) {
        tf__free(w->tmp_path);
        w->tmp_path = NULL;
        return tf__fail(TF_ERR_IO, "%s: cannot create: %s", path, strerror(err));
    }
    return TF_OK;
}

tf_status tf__file_write(tf__file_writer *w, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        const ssize_t put = write(w->fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return tf__fail(TF_ERR_IO, "%s: cannot write: %s", w->path,
                            put < 0 ? strerror(errno) : "no byte written");
        p += put;
        n -= (size_t)put;
    }
    return TF_OK;
}

/* Syncs the directory of w->path, which now holds the renamed file; its
 * name is written over w->tmp_path, which is longer. */
static tf_status sync_directory(tf__file_writer *w)
{
    const char *slash = strrchr(w->path, '/');
    const size_t len = !slash || slash == w->path ? 1 : (size_t)(slash - w->path);
    memcpy(w->tmp_path, slash ? w->path : ".", len); /* "dir", "/" or "." */
    w->tmp_path[len] = '\0';
    const int fd = open(w->tmp_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int ok = fd >= 0 && (fsync(fd) == 0 || errno == EINVAL); /* EINVAL: cannot sync */
    const int err = errno;
    if (fd >= 0)
        close(fd);
    tf__free(w->tmp_path);
    w->tmp_path = NULL;
    if (!ok)
        return tf__fail(TF_ERR_IO, "%s: written, but its directory cannot be synced: %s", w->path,
                        strerror(err));
    return TF_OK;
}

tf_status tf__file_commit(tf__file_writer *w)
{
    const char *failed = fsync(w->fd) != 0 ? "cannot sync" : NULL;
    int err = errno;
    if (close(w->fd) != 0 && !failed) {
        failed = "cannot write";
        err = errno;
    }
    w->fd = -1;
    if (!failed && rename(w->tmp_path, w->path) != 0) {
        failed = "cannot replace";
        err = errno;
    }
    if (failed) {
        tf__file_discard(w);
        return tf__fail(TF_ERR_IO, "%s: %s: %s", w->path, failed, strerror(err));
    }
    return sync_directory(w);
}

void tf__file_discard(tf__file_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp_path)
        unlink(w->tmp_path);
    tf__free(w->tmp_path);
    w->tmp_path = NULL;
    w->fd = -1;
}
