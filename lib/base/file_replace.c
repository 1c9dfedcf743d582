/* file_replace.c — replacing a file whole; see file_replace.h. */
#define _POSIX_C_SOURCE 200809L
#include "file_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"

/* A temporary file is "<target>.tmp" and this many hex digits; names are
 * tried until one does not exist yet, at most this many times. */
#define TEMP_SUFFIX ".tmp"
#define TEMP_DIGITS 16
#define TEMP_ATTEMPTS 100

/* Sets the writer's message (printf-style) and returns result. */
__attribute__((format(printf, 3, 4))) static int fail(tf__file_writer *w, tf__replace_result result,
                                                      const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(w->err, w->err_size, format, ap);
    va_end(ap);
    return (int)result;
}

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

/* digits[0..TEMP_DIGITS) := hex digits of a number this process has not
 * drawn before, mixed with the pid and the time. */
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
    for (int i = TEMP_DIGITS - 1; i >= 0; i--, x >>= 4)
        digits[i] = "0123456789abcdef"[x & 15];
}

int tf__replace_begin(tf__file_writer *w, const char *path, char *err, size_t err_size)
{
    *w = (tf__file_writer){
        .path = path, .tmp_path = NULL, .fd = -1, .err = err, .err_size = err_size};
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* a missing target is created */
        return fail(w, TF__REPLACE_IO,
                    "%s: not a regular file: it is %s; only a regular file is replaced", path,
                    tf__file_kind(st.st_mode));
    const size_t path_len = strlen(path), base = path_len + strlen(TEMP_SUFFIX);
    w->tmp_path = tf__malloc(base + TEMP_DIGITS + 1); /* "<path>.tmp" digits NUL */
    if (!w->tmp_path)
        return fail(w, TF__REPLACE_NO_MEMORY, "%s: cannot allocate a file name", path);
    memcpy(w->tmp_path, path, path_len);
    memcpy(w->tmp_path + path_len, TEMP_SUFFIX, base - path_len);
    w->tmp_path[base + TEMP_DIGITS] = '\0';
    int open_errno = EEXIST;
    for (int attempt = 0; w->fd < 0 && open_errno == EEXIST && attempt < TEMP_ATTEMPTS; attempt++) {
        draw_temp_digits(w->tmp_path + base);
        /* O_EXCL: an existing name, a link included, is never opened */
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
        open_errno = errno;
    }
    if (w->fd < 0) {
        tf__free(w->tmp_path);
        w->tmp_path = NULL;
        return fail(w, TF__REPLACE_IO, "%s: cannot create: %s", path, strerror(open_errno));
    }
    return 0;
}

int tf__replace_write(tf__file_writer *w, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        const ssize_t put = write(w->fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return fail(w, TF__REPLACE_IO, "%s: cannot write: %s", w->path,
                        put < 0 ? strerror(errno) : "no byte written");
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

void tf__replace_discard(tf__file_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp_path)
        unlink(w->tmp_path);
    tf__free(w->tmp_path);
    w->tmp_path = NULL;
    w->fd = -1;
}

/* Syncs the directory of w->path, which now holds the renamed file; its
 * name is written over w->tmp_path, which is longer. */
static int sync_directory(tf__file_writer *w)
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
        return fail(w, TF__REPLACE_IO, "%s: written, but its directory cannot be synced: %s",
                    w->path, strerror(err));
    return 0;
}

int tf__replace_commit(tf__file_writer *w)
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
        tf__replace_discard(w);
        return fail(w, TF__REPLACE_IO, "%s: %s: %s", w->path, failed, strerror(err));
    }
    return sync_directory(w);
}

int tf__file_replace(const char *path, const void *data, size_t n, char *err, size_t err_size)
{
    tf__file_writer w;
    int result = tf__replace_begin(&w, path, err, err_size);
    if (result != TF__REPLACE_OK)
        return result;
    if ((result = tf__replace_write(&w, data, n)) != TF__REPLACE_OK) {
        tf__replace_discard(&w);
        return result;
    }
    return tf__replace_commit(&w);
}
