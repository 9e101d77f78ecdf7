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
 * Threading lives here too, in one place: the thread's first mail read
 * from the store (rm_message_thread_first), and a report's mail's
 * In-Reply-To, References (a list) and subject.
 *
 * Must not: talk to the network, choose recipients or words, write the store.
 */
#ifndef RM_MESSAGE_H
#define RM_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "address.h"
#include "error.h"
#include "store.h"

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
	const char *list_unsubscribe;  /* List-Unsubscribe: <mailto:THIS?subject=unsubscribe>
					* (an address `robotmail listen` reads), or NULL */
	bool auto_replied;             /* Auto-Submitted: auto-replied (listen's
					* answer to a mail) instead of auto-generated */
	const char *body;              /* LF line ends */
};

/* Build the message in wire form (CRLF line ends) into a malloc'd buffer the
 * caller frees.  Fails (err names the field) on an invalid address,
 * Message-ID or a body line longer than 998 octets. */
int rm_message_build(const struct rm_message_in *in, char **out, size_t *len,
		     struct rm_error *err);

/* Where a report's mail goes in a conversation. */
struct rm_thread {
	char *in_reply_to;   /* without <>; NULL: the mail starts a thread */
	char **refs;         /* the chain, oldest first, without <>: kept with the
			      * message so that follow-ups extend it */
	size_t nrefs;
	bool send_refs;      /* References: is sent (follow-ups; a reply to a
			      * patch mail has In-Reply-To only, as LKP's do) */
	char *subject;       /* the mail's Subject */
	char *first_id;      /* the earlier report this one follows up, or NULL */
};

/* The first mail of a thread, as the store keeps it. */
struct rm_thread_first {
	char *message_id; /* without <> */
	char *subject;    /* its Subject */
	char *refs;       /* its chain, one Message-ID per line, or NULL */
};

/* Read the first mail stored under `thread_key` from the store (may be
 * NULL: none).  Returns 1 with *f filled (free with
 * rm_message_thread_first_free()), 0 none, -1 (err set) when the store failed. */
int rm_message_thread_first(struct rm_store *ob, const char *thread_key,
			    struct rm_thread_first *f, struct rm_error *err);
void rm_message_thread_first_free(struct rm_thread_first *f);

/* The thread of a report's mail: with a first mail `first` (may be NULL)
 * other than `message_id`, the mail follows it up: In-Reply-To that mail,
 * References its chain plus its id, Subject "Re: " and its subject ("Re: "
 * once).  Else, with `patch_msgid`, it replies to that patch mail:
 * In-Reply-To it (no References), Subject "Re: " + `subject`.  Else a new
 * thread with `subject`.  The caller frees *t with rm_message_thread_free(). */
void rm_message_thread(const struct rm_thread_first *first, const char *message_id,
		       const char *patch_msgid, const char *subject, struct rm_thread *t);
void rm_message_thread_free(struct rm_thread *t);
/* The chain as the store keeps it, one Message-ID per line; NULL when empty.
 * Caller frees. */
char *rm_message_thread_refs_text(const struct rm_thread *t);

/* RFC 2047 Q-encoding of UTF-8 text in words of at most 75 characters that
 * never split a character; ASCII text without specials comes back as is.
 * Caller frees. */
char *rm_message_rfc2047_encode(const char *utf8);

/* The Date header value for t in a zone: "Wed, 10 Dec 2025 14:15:49 +0800". */
void rm_message_format_date(time_t t, long zone_seconds, char *buf, size_t len);

/* CRLF to LF (for --dry-run output and mbox files); in place, returns the
 * new length. */
size_t rm_message_crlf_to_lf(char *buf, size_t len);

#endif
