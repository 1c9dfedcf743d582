/* file_replace.h — a file replaced whole: written to a new temporary file
 * beside the target and renamed over it, so that the target is never
 * half-written, never written through a link, and concurrent writers of one
 * path each replace it whole. The library's files (a saved checkpoint, the
 * Hub cache's) and the tools' (tfenc explain --html's page, tfenc serve
 * --port-file) are written with it. Failures put their message in the
 * caller's buffer (err, err_size bytes, cut to fit). */
#ifndef TF_FILE_REPLACE_H
#define TF_FILE_REPLACE_H

#include <stddef.h>
#include <sys/types.h>

typedef enum tf__replace_result {
    TF__REPLACE_OK = 0,
    TF__REPLACE_IO = -1,       /* the file system refused: the message says what and why */
    TF__REPLACE_NO_MEMORY = -2 /* the temporary file's name could not be allocated */
} tf__replace_result;

/* What a stat() mode says a file is, for messages: "a regular file",
 * "a FIFO", "a directory", "a character device", ... */
const char *tf__file_kind(mode_t mode);

/* A file being written: a temporary file in the target's directory until
 * tf__replace_commit renames it over the target. */
typedef struct tf__file_writer {
    const char *path; /* the target (not copied: it must outlive the writer) */
    char *tmp_path;   /* "<path>.tmp" and 16 hex digits */
    int fd;
    char *err; /* where a failure's message goes */
    size_t err_size;
} tf__file_writer;

/* Starts writing path. An existing path that is not a regular file (a
 * symbolic link included) is refused, "<path>: not a regular file: it is a
 * directory; only a regular file is replaced". The temporary file is
 * created with O_CREAT | O_EXCL (a name that exists, a planted link
 * included, is never opened: another name is tried) and mode 0666 less the
 * umask, as any new file. */
int tf__replace_begin(tf__file_writer *w, const char *path, char *err, size_t err_size);

/* Appends n bytes; every write is checked, short writes are continued. On
 * failure the writer must still be discarded. */
int tf__replace_write(tf__file_writer *w, const void *data, size_t n);

/* Flushes the data to the disk (fsync), renames the temporary file over the
 * target and syncs the directory. Before the rename, a failure removes the
 * temporary file and leaves the target as it was; the writer is finished
 * either way. */
int tf__replace_commit(tf__file_writer *w);

/* Closes and removes the temporary file; the target is left as it was. */
void tf__replace_discard(tf__file_writer *w);

/* Replaces path with data[0..n) by the steps above: TF__REPLACE_OK, or a
 * failure with the target as it was and no temporary file left
 * ("<path>: cannot create: Permission denied"). */
int tf__file_replace(const char *path, const void *data, size_t n, char *err, size_t err_size);

#endif
