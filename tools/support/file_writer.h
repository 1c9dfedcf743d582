/* file_writer.h — a file the tools write (tfenc explain --html's page,
 * tfenc serve --port-file) replaced whole: written to a new temporary file
 * beside the target and renamed over it, so that the target is never
 * half-written, never written through a link, and concurrent writers of
 * one path each replace it whole. */
#ifndef TFENC_FILE_WRITER_H
#define TFENC_FILE_WRITER_H

#include <stddef.h>

/* Replaces path with data[0..n): 0, or -1 with the target as it was, no
 * temporary file left, and why in err ("<path>: cannot create: Permission
 * denied"). An existing path that is not a regular file (a symbolic link
 * included) is refused, "<path>: not a regular file: it is a directory;
 * only a regular file is replaced". The temporary file, "<path>.tmp" and 16
 * hex digits, is created with O_CREAT | O_EXCL (a name that exists, a
 * planted link included, is never opened: another name is tried) and mode
 * 0666 less the umask, as any new file; the data and the directory are
 * synced before and after the rename. */
int file_replace(const char *path, const void *data, size_t n, char *err, size_t err_size);

#endif
