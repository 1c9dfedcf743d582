/* file.h — every file the library reads or writes goes through these.
 *
 * Reading opens only a regular file, and never blocks on a FIFO or a device:
 * the path is checked with stat() (so a device is never opened), opened
 * with O_NONBLOCK, checked again with fstat() on the descriptor (a FIFO
 * swapped in between does not block), and the flag cleared.
 *
 * Writing goes through base/file_replace.h: a new temporary file beside the
 * target, renamed over it. */
#ifndef TF_FILE_H
#define TF_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "file_replace.h"
#include "tfenc.h"

/* ---- Paths -----------------------------------------------------------------
 * A path is never cut: each is allocated as long as it is. */

/* printf's text of fmt, allocated into *out (tf__free it); TF_ERR_OUT_OF_MEMORY
 * when it cannot be, *out NULL. */
tf_status tf__format_alloc(char **out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "<dir>/<name>" (dir alone when name is ""), allocated into *path as
 * tf__format_alloc's. */
tf_status tf__path_join(const char *dir, const char *name, char **path);

/* Why rel, a path a file of a folder gives for another file of it
 * (modules.json's), may lead out of the folder: "an absolute path" or
 * "a \"..\" in it"; NULL when it cannot (it is read as written: a symbolic
 * link on the way, as a Hugging Face cache snapshot's files are, is
 * followed wherever it leads). */
const char *tf__path_leaves(const char *rel);

/* What is at path, following symbolic links: *mode its stat() mode, or 0
 * when nothing is there. A symbolic link to nothing (a cache snapshot
 * copied without its blobs is a folder of them) is TF_ERR_IO "<path>: a
 * symbolic link to <target> that does not exist (a cache snapshot without
 * its blobs?)", a path that cannot be looked at (no permission, a loop of
 * links, a file on the way) TF_ERR_IO "<path>: cannot open: <reason>": a
 * file is absent only when nothing at all is there. */
tf_status tf__file_probe(const char *path, mode_t *mode);

/* ---- Reading ------------------------------------------------------------- */

/* Opens path for reading if it is a regular file (following symbolic
 * links): *fd is a blocking O_CLOEXEC descriptor, *size the file's size.
 * Otherwise TF_ERR_IO, "<path>: cannot open: <reason>", "<path>: a
 * symbolic link to <target> that does not exist ..." (tf__file_probe's) or
 * "<path>: not a regular file: it is a FIFO" (a directory, a character
 * device, ...), and *fd is -1. */
tf_status tf__file_open_read(const char *path, int *fd, size_t *size);

/* The whole regular file at path, NUL-terminated in *text (tf__free it), its
 * length in *len. A file larger than max bytes is TF_ERR_FORMAT. */
tf_status tf__file_read_all(const char *path, size_t max, char **text, size_t *len);

/* A file being written as base/file_replace.h writes one (a temporary file
 * renamed over the target), its failures as the library's errors:
 * TF_ERR_IO (the file system refused, or the target is not a regular
 * file: "<path>: not a regular file: it is a directory; only a regular file
 * is replaced") or TF_ERR_OUT_OF_MEMORY. */
typedef struct tf__file_out {
    tf__file_writer writer;
    char why[1024]; /* the writer's message: a path and a reason */
} tf__file_out;

/* Starts writing path (tf__replace_begin). */
tf_status tf__file_create(tf__file_out *f, const char *path);

/* Appends n bytes (tf__replace_write); on failure f must still be
 * discarded. */
tf_status tf__file_write(tf__file_out *f, const void *data, size_t n);

/* Syncs, renames over the target, syncs the directory (tf__replace_commit):
 * f is finished either way. */
tf_status tf__file_commit(tf__file_out *f);

/* Closes and removes the temporary file; the target is left as it was. */
void tf__file_discard(tf__file_out *f);

#endif
