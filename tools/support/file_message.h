/* file_message.h — the tool writes files with the library's own writer,
 * lib/common/file.c (a temporary file beside the target, renamed over it:
 * never half-written), compiled into the tool. That writer reports through
 * tf_fail (common/error.h), which libtfenc.so keeps hidden; file_message.c
 * is the tool's tf_fail, and this its message. */
#ifndef TFENC_FILE_MESSAGE_H
#define TFENC_FILE_MESSAGE_H

/* The message of this thread's last failed file operation ("<path>: cannot
 * create: Permission denied"). */
const char *file_message(void);

#endif
