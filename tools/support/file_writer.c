/* file_writer.c — replacing a file whole; see file_writer.h. */
#define _POSIX_C_SOURCE 200809L
#include "file_writer.h"

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

/* A file being written: a temporary file in the target's directory until
 * commit renames it over the target. */
typedef struct file_writer {
    const char *path; /* the target */
    char *tmp_path;   /* "<path>.tmp" and TEMP_DIGITS hex digits (malloc'ed) */
    int fd;
    char *err; /* where a failure's message goes */
    size_t err_size;
} file_writer;

/* A temporary file is "<target>.tmp" and this many hex digits; names are
 * tried until one does not exist yet, at most this many times. */
#define TEMP_SUFFIX ".tmp"
#define TEMP_DIGITS 16
#define TEMP_ATTEMPTS 100

/* Sets the writer's message (printf-style) and returns -1. */
__attribute__((format(printf, 2, 3))) static int fail(file_writer *w, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(w->err, w->err_size, format, ap);
    va_end(ap);
    return -1;
}

/* What a stat() mode says a file is, for messages. */
static const char *file_kind(mode_t mode)
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

/* Starts writing w->path: its temporary file open. */
static int create(file_writer *w)
{
    const char *path = w->path;
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* a missing target is created */
        return fail(w, "%s: not a regular file: it is %s; only a regular file is replaced", path,
                    file_kind(st.st_mode));
    const size_t path_len = strlen(path), base = path_len + strlen(TEMP_SUFFIX);
    w->tmp_path = malloc(base + TEMP_DIGITS + 1); /* "<path>.tmp" digits NUL */
    if (!w->tmp_path)
        return fail(w, "%s: cannot allocate a file name", path);
    memcpy(w->tmp_path, path, path_len);
    memcpy(w->tmp_path + path_len, TEMP_SUFFIX, base - path_len);
    w->tmp_path[base + TEMP_DIGITS] = '\0';
    int err = EEXIST;
    for (int attempt = 0; w->fd < 0 && err == EEXIST && attempt < TEMP_ATTEMPTS; attempt++) {
        draw_temp_digits(w->tmp_path + base);
        /* O_EXCL: an existing name, a link included, is never opened */
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
        err = errno;
    }
    if (w->fd < 0) {
        free(w->tmp_path);
        w->tmp_path = NULL;
        return fail(w, "%s: cannot create: %s", path, strerror(err));
    }
    return 0;
}

/* Appends n bytes; short writes are continued. */
static int write_all(file_writer *w, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        const ssize_t put = write(w->fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return fail(w, "%s: cannot write: %s", w->path,
                        put < 0 ? strerror(errno) : "no byte written");
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

/* Closes and removes the temporary file. */
static void discard(file_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp_path)
        unlink(w->tmp_path);
    free(w->tmp_path);
    w->tmp_path = NULL;
    w->fd = -1;
}

/* Syncs the directory of w->path, which now holds the renamed file; its
 * name is written over w->tmp_path, which is longer. */
static int sync_directory(file_writer *w)
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
    free(w->tmp_path);
    w->tmp_path = NULL;
    if (!ok)
        return fail(w, "%s: written, but its directory cannot be synced: %s", w->path,
                    strerror(err));
    return 0;
}

/* Syncs the data, renames the temporary file over the target and syncs the
 * directory; before the rename, a failure removes the temporary file. */
static int commit(file_writer *w)
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
        discard(w);
        return fail(w, "%s: %s: %s", w->path, failed, strerror(err));
    }
    return sync_directory(w);
}

int file_replace(const char *path, const void *data, size_t n, char *err, size_t err_size)
{
    file_writer w = {.path = path, .tmp_path = NULL, .fd = -1, .err = err, .err_size = err_size};
    if (create(&w) != 0)
        return -1;
    if (write_all(&w, data, n) != 0) {
        discard(&w);
        return -1;
    }
    return commit(&w);
}
