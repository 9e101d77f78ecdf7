/*
 * message.h - a real RFC 5322 message from a rendered report.
 *
 * Owns: the header fields (From, To, Cc, Subject, Date with a correct
 * offset even for half-hour zones, Message-ID, In-Reply-To, References,
 * Content-Type (the body's charset), Content-Transfer-Encoding,
 * MIME-Version, the bot headers
 * Auto-Submitted, X-Auto-Response-Suppress, Precedence and X-Robotmail-Report),
 * built with libetpan's header structures and written by its writer, which
 * folds long lines; RFC 2047 encoding of non-ASCII display names and
 * subjects (our own encoder: libetpan only decodes; text with a word longer
 * than 200 octets is encoded too, so that it folds); and the body in wire
 * form (CRLF, lines of at most 998 octets, checked, never cut).  Every
 * address is checked again by the rule of address.h just before it is
 * written.  CR, LF, NEL, U+2028/U+2029 and other control characters never
 * reach a header: they are refused in addresses and turned into spaces in
 * names and subjects.
 *
 * Must not: talk to the network, choose recipients or words.
 */
#ifndef RM_MESSAGE_H
#define RM_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "address.h"
#include "error.h"

struct rm_message_in {
	const char *from_name, *from_addr;
	const struct rm_address *to;
	size_t nto;
	const struct rm_address *cc;
	size_t ncc;
	const char *subject;           /* UTF-8 */
	const char *message_id;        /* without <> */
	const char *in_reply_to;       /* without <>, or NULL */
	const char *const *references; /* without <> */
	size_t nreferences;
	time_t date;
	long zone_seconds;             /* east of UTC, e.g. 19800 for +0530 */
	const char *charset;           /* "auto" or NULL: us-ascii, iso-8859-1 or
					* utf-8, the narrowest that holds the
					* body (LKP's choice: perf reports are
					* iso-8859-1, functional ones us-ascii);
					* else that name over the UTF-8 body */
	bool latin1_floor;             /* with "auto": iso-8859-1 even for an
					* ASCII body (LKP's perf reports are,
					* for their "±") */
	const char *report_key;        /* X-Robotmail-Report, or NULL */
	const char *body;              /* LF line ends */
};

/* Build the message in wire form (CRLF line ends) into a malloc'd buffer the
 * caller frees.  Fails (err names the field) on an invalid address,
 * Message-ID or a body line longer than 998 octets. */
int rm_message_build(const struct rm_message_in *in, char **out, size_t *len,
		     struct rm_error *err);

/* RFC 2047 Q-encoding of UTF-8 text in words of at most 75 characters that
 * never split a character; ASCII text without specials comes back as is.
 * Caller frees. */
char *rm_rfc2047_encode(const char *utf8);

/* The Date header value for t in a zone: "Wed, 10 Dec 2025 14:15:49 +0800". */
void rm_format_date(time_t t, long zone_seconds, char *buf, size_t len);

/* CRLF to LF (for --dry-run output and mbox files); in place, returns the
 * new length. */
size_t rm_crlf_to_lf(char *buf, size_t len);

#endif
