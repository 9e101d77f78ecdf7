/*
 * patchmail.h - the original mail of a patch, from a public-inbox archive.
 *
 * Owns: asking a public-inbox (lore) for <base>/<Message-ID>/raw, parsing the
 * mail into what a report needs (its raw [PATCH] subject, its sender, To and
 * Cc, In-Reply-To (a series' cover letter), the
 * `base-commit:` line `git format-patch --base` writes into the body),
 * and decoding mail header text (RFC 2047 words, raw UTF-8, folding) for
 * the providers that read mail-form answers (cgit's patches).
 *
 * Must not: set curl options or credentials (gitweb.c does), choose which
 * Message-ID is the patch's (commit.c does), decide recipients.
 */
#ifndef RM_PATCHMAIL_H
#define RM_PATCHMAIL_H

#include <stddef.h>

#include "error.h"

struct rm_gitweb_opts;

struct rm_patch_mail {
	char *subject;   /* raw, e.g. "[PATCH v2 1/3] mm: ..." (decoded, one line) */
	char **to, **cc; /* "Name <addr>" or "addr" */
	size_t nto, ncc;
	char *base_commit; /* the body's "base-commit: <sha40>" (lowercase), or NULL */
	char *in_reply_to; /* the first Message-ID of In-Reply-To (no <>), or NULL */
	char *from;        /* the sender, "Name <addr>" or "addr", or NULL */
};

void rm_patchmail_free(struct rm_patch_mail *p);

/* Parse a raw mail (an optional mbox "From " line first).  0, or -1 with err
 * naming `what` (p is then empty). */
int rm_patchmail_parse(struct rm_patch_mail *p, const char *buf, size_t len, const char *what,
		       struct rm_error *err);

/* GET <base>/<msgid>/raw.  Returns 1 found, 0 not in the archive (404), -1
 * failed (err names the URL). */
int rm_patchmail_lookup(struct rm_patch_mail *p, const char *base, const char *msgid,
			const struct rm_gitweb_opts *o, struct rm_error *err);

/* The "n/N" of a series subject ("[PATCH v2 3/5] ..." -> 3 and 5): 1 and
 * *n, *total set, or 0 when the first [...] tag has none. */
int rm_patchmail_series_number(const char *subject, unsigned *n, unsigned *total);

/* A header's text (len bytes, raw as in the mail) unfolded, decoded to UTF-8
 * and cleaned of control characters; malloc()ed. */
char *rm_patchmail_decode_header(const char *raw, size_t len);

#endif
