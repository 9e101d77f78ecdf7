/* error.c - see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

void rm_error_scrub(char *s)
{
	rm_text_scrub(s, '?');
}

int rm_error_set(struct rm_error *err, enum rm_error_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	rm_error_scrub(err->msg);
	return -1;
}

void rm_error_prefix(struct rm_error *err, const char *fmt, ...)
{
	char prefix[RM_ERROR_MSG_MAX];
	char old[RM_ERROR_MSG_MAX];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	{
		size_t pl = strnlen(prefix, sizeof(err->msg) - 1), ol;

		memcpy(err->msg, prefix, pl);
		if (pl + 2 < sizeof(err->msg)) {
			memcpy(err->msg + pl, ": ", 2);
			pl += 2;
		}
		ol = strnlen(old, sizeof(old));
		if (ol > sizeof(err->msg) - 1 - pl)
			ol = sizeof(err->msg) - 1 - pl;
		memcpy(err->msg + pl, old, ol);
		err->msg[pl + ol] = '\0';
		rm_error_scrub(err->msg);
	}
}

int rm_error_exit_code(enum rm_error_kind kind)
{
	switch (kind) {
	case RM_OK:
		return 0;
	case RM_ERR_INPUT:
	case RM_ERR_INTERNAL:
		return 1;
	case RM_ERR_USAGE:
	case RM_ERR_CONFIG:
		return 2;
	case RM_ERR_TEMP:
		return 75;
	}
	return 1;
}

void rm_error_clear(struct rm_error *err)
{
	err->kind = RM_OK;
	err->msg[0] = '\0';
}

int rm_error_logged(struct rm_error *err, enum rm_error_kind kind)
{
	err->kind = kind;
	err->msg[0] = '\0';
	return -1;
}
