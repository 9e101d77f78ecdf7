/*
 * fileutil.h - reading whole files, safely bounded.
 *
 * Owns: open/read/close of one regular file into memory with a size cap,
 * writing one whole file, and creating a directory with its parents.
 * Must not: interpret contents.
 */
#ifndef RM_FILEUTIL_H
#define RM_FILEUTIL_H

#include <stddef.h>

#include "error.h"

/* Read the regular file `path` (symlinks are followed; directories, devices
 * and FIFOs are refused) into a malloc'd, NUL-terminated buffer the caller
 * frees.  Files larger than `max` bytes are refused with an error naming the
 * file and the limit. */
int rm_read_file(const char *path, size_t max, char **buf, size_t *len, struct rm_error *err);

/* rm_read_file for a descriptor the caller opened (and still owns: it is
 * not closed): fstat'ed, refused unless a regular file of at most `max`
 * bytes, read from its current offset.  `name` is the file's name in error
 * messages.  *buf is malloc'd and NUL-terminated; the caller frees it. */
int rm_read_fd(int fd, const char *name, size_t max, char **buf, size_t *len,
	       struct rm_error *err);

/* Write len bytes of data to `path` (created or truncated, mode 0666 less
 * the umask).  The file is closed whatever happens.  0, or -1 with errno
 * set when opening, writing or closing failed. */
int rm_write_file(const char *path, const char *data, size_t len);

/* Create the directory `dir` and any missing parents (mkdir -p; new ones
 * get mode 0777 less the umask).  An existing directory is fine.  0, or -1
 * with errno set (ENOTDIR when `dir` or a parent exists but is not a
 * directory). */
int rm_mkdir_p(const char *dir);

/* Join two path pieces with one '/'; caller frees. */
char *rm_path_join(const char *a, const char *b);

#endif
