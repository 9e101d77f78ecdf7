/* address.c - see address.h.
 *
 * The acceptance rule is written out here rather than taken from libetpan's
 * mailimf_addr_spec_parse(): that parser accepts what RFC 5322 allows
 * (comments, folding white space, quoted pairs, domain literals, obsolete
 * forms), and this rule must be narrower than RFC 5322, not wider. */
#include "address.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "text.h"

/* atext of RFC 5322 section 3.2.3 without '%' and '!' */
static bool local_atext(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("#$&'*+-/=?^_`{|}~", c));
}

static bool ldh(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* the local part a[0..n): NULL or why not */
static const char *check_local(const char *a, size_t n)
{
	size_t i;

	if (!n)
		return "the local part is empty";
	if (n > RM_ADDRESS_LOCAL_MAX)
		return "the local part is longer than 64 octets";
	if (a[0] == '"') {
		if (n < 3 || a[n - 1] != '"')
			return "the quoted local part is not closed before '@'";
		for (i = 1; i + 1 < n; i++) {
			unsigned char c = (unsigned char)a[i];

			if (c < 0x20 || c >= 0x7f)
				return "a control or non-ASCII character in the local part";
			if (strchr("\"\\<>,;", c))
				return "a quote, backslash, bracket, comma or semicolon in the quoted local part";
		}
		return NULL;
	}
	if (a[0] == '.' || a[n - 1] == '.')
		return "the local part begins or ends with a dot";
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];

		if (c == '.') {
			if (a[i + 1] == '.')
				return "two dots in a row";
		} else if (c == '%' || c == '!') {
			return "a relay route ('%' or '!') in the local part";
		} else if (!local_atext(c)) {
			return c < 0x21 || c >= 0x7f ? "a blank, control or non-ASCII character" :
						       "a character not allowed in an address";
		}
	}
	for (i = 0; i + 1 < n; i++)
		if (a[i] == '=' && a[i + 1] == '?')
			return "an encoded word ('=?') in the local part";
	return NULL;
}

static const char *check_domain(const char *d)
{
	size_t n = strlen(d), label = 0, labels = 1, i;

	if (!n)
		return "the domain is empty";
	if (n > RM_ADDRESS_DOMAIN_MAX)
		return "the domain is longer than 253 octets";
	for (i = 0; i <= n; i++) {
		unsigned char c = (unsigned char)d[i];

		if (c == '.' || !c) {
			if (!label)
				return "an empty label in the domain";
			if (d[i - 1] == '-')
				return "a domain label ends with '-'";
			if (c)
				labels++;
			label = 0;
		} else if (!ldh(c)) {
			return c < 0x21 || c >= 0x7f ? "a blank, control or non-ASCII character in the domain" :
						       "a character not allowed in a domain";
		} else {
			if (!label && c == '-')
				return "a domain label begins with '-'";
			if (++label > 63)
				return "a domain label is longer than 63 octets";
		}
	}
	if (labels < 2)
		return "the domain has no dot";
	return NULL;
}

const char *rm_address_check(const char *a)
{
	const char *at;
	size_t n;

	if (!a || !*a)
		return "empty";
	n = strnlen(a, RM_ADDRESS_MAX + 1);
	if (n > RM_ADDRESS_MAX)
		return "longer than 254 octets";
	if (a[0] == '"') {
		/* the '@' after the closing quote */
		const char *q = strchr(a + 1, '"');

		at = q ? q + 1 : NULL;
		if (!at || *at != '@')
			return "the quoted local part is not closed before '@'";
	} else {
		at = strchr(a, '@');
		if (!at)
			return "no '@'";
	}
	{
		const char *why = check_local(a, (size_t)(at - a));

		if (why)
			return why;
	}
	if (strchr(at + 1, '@'))
		return "more than one '@'";
	return check_domain(at + 1);
}

bool rm_address_valid(const char *addr)
{
	return rm_address_check(addr) == NULL;
}

/* Is cp a character no display name or mailbox spec may carry as is? */
static bool control_cp(unsigned cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
	       cp == 0x2029;
}

char *rm_address_name(const char *name)
{
	struct rm_sb sb = RM_SB_INIT;
	const unsigned char *p = (const unsigned char *)name;
	size_t start, end;
	char *out;

	if (!name)
		return NULL;
	rm_sb_init(&sb);
	while (*p) {
		unsigned cp;
		size_t n = rm_utf8_decode(p, &cp);

		if (!n) {
			rm_sb_adds(&sb, "\xef\xbf\xbd"); /* U+FFFD */
			p++;
			continue;
		}
		if (control_cp(cp))
			rm_sb_addc(&sb, ' ');
		else
			rm_sb_add(&sb, p, n);
		p += n;
	}
	for (start = 0; start < sb.len && sb.buf[start] == ' '; start++)
		;
	for (end = sb.len; end > start && sb.buf[end - 1] == ' '; end--)
		;
	if (end == start) {
		rm_sb_release(&sb);
		return NULL;
	}
	if (end - start > RM_ADDRESS_NAME_MAX) {
		end = start + RM_ADDRESS_NAME_MAX - 3;
		while (end > start && ((unsigned char)sb.buf[end] & 0xc0) == 0x80)
			end--; /* do not split a character */
		out = rm_xmalloc(end - start + 4);
		memcpy(out, sb.buf + start, end - start);
		memcpy(out + (end - start), "...", 4);
	} else {
		out = rm_xstrndup(sb.buf + start, end - start);
	}
	rm_sb_release(&sb);
	return out;
}

void rm_address_free(struct rm_address *a)
{
	free(a->name);
	free(a->addr);
	a->name = a->addr = NULL;
}

int rm_address_make(struct rm_address *a, const char *name, const char *addr,
		    struct rm_error *err)
{
	const char *why = rm_address_check(addr);

	a->name = a->addr = NULL;
	if (why)
		return rm_error_set(err, RM_ERR_INPUT, "not a valid address: %s", why);
	a->addr = rm_xstrdup(addr);
	a->name = rm_address_name(name);
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* s[0..n) without blanks at either end, malloc'd */
static char *trimmed(const char *s, size_t n)
{
	while (n && blank(*s)) {
		s++;
		n--;
	}
	while (n && blank(s[n - 1]))
		n--;
	return rm_xstrndup(s, n);
}

static size_t count(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static int malformed(bool *flag, struct rm_error *err, const char *why)
{
	*flag = true;
	return rm_error_set(err, RM_ERR_INPUT, "malformed: %s", why);
}

int rm_address_parse(struct rm_address *a, const char *spec, bool *bad_spec,
		     struct rm_error *err)
{
	const unsigned char *p;
	char *name = NULL, *addr;
	const char *lt, *gt, *why;
	size_t len;
	int rc;

	a->name = a->addr = NULL;
	*bad_spec = false;
	if (!spec)
		return malformed(bad_spec, err, "empty");
	len = strnlen(spec, RM_ADDRESS_SPEC_MAX + 1);
	if (len > RM_ADDRESS_SPEC_MAX)
		return malformed(bad_spec, err, "longer than 1024 octets");
	for (p = (const unsigned char *)spec; *p;) {
		unsigned cp;
		size_t n = rm_utf8_decode(p, &cp);

		if (!n)
			return malformed(bad_spec, err, "not UTF-8");
		if (control_cp(cp) && cp != '\t')
			return malformed(bad_spec, err, "a control character or line separator");
		p += n;
	}
	lt = strchr(spec, '<');
	gt = strchr(spec, '>');
	if (lt || gt) {
		const char *end = spec + len;

		while (end > spec && blank(end[-1]))
			end--;
		if (!lt || !gt || count(spec, '<') != 1 || count(spec, '>') != 1 || gt < lt ||
		    gt + 1 != end)
			return malformed(bad_spec, err, "angle brackets are not one '<' and a final '>'");
		addr = trimmed(lt + 1, (size_t)(gt - lt - 1));
		name = trimmed(spec, (size_t)(lt - spec));
		len = strlen(name);
		if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
			/* "Name": the text between the quotes */
			memmove(name, name + 1, len - 2);
			name[len - 2] = '\0';
		}
	} else {
		const char *open = strchr(spec, '(');
		size_t alen;

		if (open || strchr(spec, ')')) {
			const char *close = strchr(spec, ')');
			const char *end = spec + len;

			while (end > spec && blank(end[-1]))
				end--;
			if (!open || !close || count(spec, '(') != 1 || count(spec, ')') != 1 ||
			    close + 1 != end || close < open)
				return malformed(bad_spec, err, "parentheses are not one final comment");
			name = trimmed(open + 1, (size_t)(close - open - 1));
			alen = (size_t)(open - spec);
		} else {
			alen = len;
		}
		addr = trimmed(spec, alen);
		/* blanks inside a bare address: text around it, not an address */
		if (addr[0] != '"' && strpbrk(addr, " \t")) {
			free(addr);
			free(name);
			return malformed(bad_spec, err, "blanks around an address without angle brackets");
		}
	}
	why = rm_address_check(addr);
	if (why) {
		rc = rm_error_set(err, RM_ERR_INPUT, "not a valid address '%.260s': %s", addr, why);
	} else {
		a->addr = addr;
		a->name = rm_address_name(name);
		addr = NULL;
		rc = 0;
	}
	free(addr);
	free(name);
	return rc;
}
