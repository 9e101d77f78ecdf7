/*
 * address.h - the one mail address type, and the strict parser that alone
 * builds it.
 *
 * Owns: `struct rm_address` (an addr-spec plus a display name that is only
 * ever text), the acceptance rule for an addr-spec, the parser of one
 * mailbox written by a person ("Name <addr>", "<addr>", "addr (Name)",
 * "addr"), and the cleaning of a display name for a header.
 *
 * Why its own module: the addresses come from untrusted commit facts
 * (a forge's author email, trailers, a patch mail's To/Cc), from the
 * configuration and from the command line; recipients.c decides who gets a
 * report, message.c writes the headers, smtp.c the envelope.  All of them
 * must apply the same rule, so the rule lives here, beside nothing else.
 *
 * The rule (RFC 5322 addr-spec, narrowed; RFC 5321 lengths):
 *   local@domain, at most 254 octets; the local part at most 64;
 *   local part: a dot-atom of printable ASCII atext without '%' and '!'
 *     (relay source routes) and without "=?" (an encoded word), or a quoted
 *     string of printable ASCII and blanks without '"', '\\', '<', '>',
 *     ',' or ';' (no quoted pairs);
 *   domain: at least two dot-separated labels of letters, digits and '-'
 *     (1 to 63 octets, no '-' at either end), at most 253 octets; no
 *     domain literals;
 *   never CR, LF, NUL, any other control character, a byte >= 0x7f,
 *   '<', '>', ',', ';', quotes or white space outside the quoted local part.
 * An address that fails is refused, never repaired into another address.
 * A display name is never parsed for an address: it is text, which a
 * header writer encodes (RFC 2047) or quotes.
 *
 * Must not: decide who gets a report, write headers, log anything.
 */
#ifndef RM_ADDRESS_H
#define RM_ADDRESS_H

#include <stdbool.h>

#include "error.h"

#define RM_ADDRESS_MAX 254       /* octets of an addr-spec (RFC 5321 path minus <>) */
#define RM_ADDRESS_LOCAL_MAX 64  /* octets of the local part */
#define RM_ADDRESS_DOMAIN_MAX 253
#define RM_ADDRESS_NAME_MAX 128  /* octets of a display name kept for a header */
#define RM_ADDRESS_SPEC_MAX 1024 /* octets of a whole mailbox spec to parse */

struct rm_address {
	char *name; /* display name, UTF-8 text, may be NULL; never an address */
	char *addr; /* local@domain, passed rm_address_check() */
};

/* NULL when addr passes the rule above, else why not (a static string such
 * as "the domain has no dot"). */
const char *rm_address_check(const char *addr);

/* rm_address_check(addr) == NULL. */
bool rm_address_valid(const char *addr);

/* Fill *a from a display name (any text or NULL; cleaned with
 * rm_address_name()) and an address that must pass the rule.  On success
 * *a owns two malloc'd strings (free with rm_address_free()); on failure
 * *a is zeroed and err (RM_ERR_INPUT) says "not a valid address: <why>". */
int rm_address_make(struct rm_address *a, const char *name, const char *addr,
		    struct rm_error *err);

/* Parse one mailbox as people write them: "Name <addr>", "\"Name\" <addr>",
 * "<addr>", "addr (Name)" or "addr", with blanks around.  Strict: the spec
 * holds no control character (C0, DEL, C1, U+2028, U+2029), at most one '<'
 * and one '>' with the '>' last, at most one comment; nothing is guessed.
 * On success fills *a (see rm_address_make).  On failure *a is zeroed,
 * *malformed says whether the spec itself was malformed (true) or only the
 * address in it failed the rule (false), and err (RM_ERR_INPUT) says why. */
int rm_address_parse(struct rm_address *a, const char *spec, bool *malformed,
		     struct rm_error *err);

/* A display name fit for a header: control characters (C0, DEL, C1 and
 * the line and paragraph separators U+2028/U+2029) become spaces, invalid
 * UTF-8 becomes U+FFFD, blanks at the ends go, and a name longer than
 * RM_ADDRESS_NAME_MAX octets is cut at a character boundary and ends in
 * "...".  NULL (or an empty result) gives NULL.  The caller frees it. */
char *rm_address_name(const char *name);

/* Free a's strings and zero it. */
void rm_address_free(struct rm_address *a);

#endif
