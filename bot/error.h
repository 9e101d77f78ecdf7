/*
 * error.h - how robotmail reports failure: one struct, filled deep, printed once.
 *
 * Owns: `struct rm_error`, the error categories and the exit codes they map to.
 * Must not: print anything.  Only main.c prints an error, once, at the top.
 *
 * A function that can fail takes a `struct rm_error *err` as its last argument
 * and returns -1 (or NULL) after calling rm_error_set(); on success it leaves
 * `err` untouched.  The message names the file, line or field at fault, in
 * the git style: no capital first letter, no final full stop, the subject in
 * single quotes, e.g. "'a/job.yaml' line 3: expected a mapping".
 *
 * Exit codes (documented in the README and the man page):
 *   0  ok
 *   1  some input was bad or some report failed (RM_ERR_INPUT, RM_ERR_INTERNAL)
 *   2  usage or configuration error (RM_ERR_USAGE, RM_ERR_CONFIG)
 *   75 temporary failure, retry later (RM_ERR_TEMP; EX_TEMPFAIL)
 */
#ifndef RM_ERROR_H
#define RM_ERROR_H

#include <stddef.h>

enum rm_error_kind {
	RM_OK = 0,
	RM_ERR_INPUT,    /* a bad archive, file or value: exit 1 */
	RM_ERR_USAGE,    /* bad command line: exit 2 */
	RM_ERR_CONFIG,   /* bad configuration or rule file: exit 2 */
	RM_ERR_TEMP,     /* try again later: exit 75 */
	RM_ERR_INTERNAL, /* out of memory, I/O failure: exit 1 */
};

#define RM_ERROR_MSG_MAX 1024

struct rm_error {
	enum rm_error_kind kind;
	char msg[RM_ERROR_MSG_MAX];
};

/* Record an error; always returns -1 so callers can `return rm_error_set(...)`.
 * Control characters in the message (a member path or a name from a hostile
 * archive) become '?', so one error stays one log line. */
int rm_error_set(struct rm_error *err, enum rm_error_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A failure already logged line by line as it happened (e.g. "2 archives
 * failed", each named on stderr): sets the kind that decides the exit code
 * with an empty message, which main.c does not print again.  Returns -1. */
int rm_error_logged(struct rm_error *err, enum rm_error_kind kind);

/* Prefix the existing message with "<prefix>: " (for adding context on the way up). */
void rm_error_prefix(struct rm_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Turn every control character (C0 and DEL) of s into '?', in place; what
 * errors and warnings do to text they quote (rm_text_scrub, text.h). */
void rm_error_scrub(char *s);

/* The process exit code for an error kind. */
int rm_error_exit_code(enum rm_error_kind kind);

/* Clear to "no error". */
void rm_error_clear(struct rm_error *err);

#endif
