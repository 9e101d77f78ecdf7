/* message.c - see message.h. */
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynlib_etpan.h"
#include "strbuf.h"
#include "text.h"

#define MAX_LINE 998

/* A word longer than this cannot be folded by the header writer, so the
 * text is encoded (encoded words can be split anywhere between characters):
 * a header line then stays far below 998 octets whatever the input. */
#define MAX_PLAIN_WORD 200

static bool needs_encoding(const char *s)
{
	size_t word = 0;

	for (; *s; s++) {
		if ((unsigned char)*s >= 0x80 || strchr("=?", *s))
			return true;
		word = *s == ' ' ? 0 : word + 1;
		if (word > MAX_PLAIN_WORD)
			return true;
	}
	return false;
}

/* length of the UTF-8 sequence starting at s (1 for invalid bytes) */
static size_t utf8_len(const unsigned char *s)
{
	unsigned cp;
	size_t n = rm_utf8_decode(s, &cp);

	return n ? n : 1;
}

char *rm_message_rfc2047_encode(const char *utf8)
{
	static const char prefix[] = "=?UTF-8?Q?";
	struct rm_sb out = RM_SB_INIT, word = RM_SB_INIT;
	const unsigned char *s = (const unsigned char *)utf8;

	rm_sb_init(&out);
	if (!needs_encoding(utf8)) {
		rm_sb_adds(&out, utf8);
		return rm_sb_detach(&out, NULL);
	}
	rm_sb_init(&word);
	while (*s) {
		size_t n = utf8_len(s), i;
		char enc[16];
		size_t elen = 0;

		for (i = 0; i < n; i++) {
			unsigned char c = s[i];

			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			    strchr("!*+-/", c))
				enc[elen++] = (char)c;
			else if (c == ' ')
				enc[elen++] = '_';
			else
				elen += (size_t)snprintf(enc + elen, sizeof(enc) - elen, "=%02X", c);
		}
		/* a word is at most 75 characters: prefix + text + "?=" */
		if (word.len && sizeof(prefix) - 1 + word.len + elen + 2 > 75) {
			if (out.len)
				rm_sb_addc(&out, ' ');
			rm_sb_adds(&out, prefix);
			rm_sb_add(&out, word.buf, word.len);
			rm_sb_adds(&out, "?=");
			rm_sb_reset(&word);
		}
		rm_sb_add(&word, enc, elen);
		s += n;
	}
	if (word.len) {
		if (out.len)
			rm_sb_addc(&out, ' ');
		rm_sb_adds(&out, prefix);
		rm_sb_add(&out, word.buf, word.len);
		rm_sb_adds(&out, "?=");
	}
	rm_sb_release(&word);
	return rm_sb_detach(&out, NULL);
}

/* Control characters (CR, LF, NUL, TAB, ESC ..., the C1 controls such as
 * NEL, and the separators U+2028/U+2029) become spaces; runs of spaces are
 * kept; bytes that are not UTF-8 become '?'.  Caller frees. */
static char *header_text(const char *s)
{
	struct rm_sb sb = RM_SB_INIT;
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	rm_sb_init(&sb);
	while (*p) {
		unsigned cp;
		size_t n = rm_utf8_decode(p, &cp);

		if (!n) {
			rm_sb_addc(&sb, '?');
			p++;
			continue;
		}
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
		    cp == 0x2029)
			rm_sb_addc(&sb, ' ');
		else
			rm_sb_add(&sb, p, n);
		p += n;
	}
	return rm_sb_detach(&sb, NULL);
}

void rm_message_format_date(time_t t, long zone, char *buf, size_t len)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mons[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t local = t + zone;
	struct tm tm;
	long z = labs(zone);

	gmtime_r(&local, &tm);
	snprintf(buf, len, "%s, %d %s %d %02d:%02d:%02d %c%02ld%02ld", days[tm.tm_wday], tm.tm_mday,
		 mons[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 zone < 0 ? '-' : '+', z / 3600, (z % 3600) / 60);
}

size_t rm_message_crlf_to_lf(char *buf, size_t len)
{
	size_t i, j = 0;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		buf[j++] = buf[i];
	}
	if (j < len)
		buf[j] = '\0';
	return j;
}

static bool valid_msgid(const char *m)
{
	const char *p;

	if (!m || !*m || strlen(m) > 250 || !strchr(m, '@'))
		return false;
	for (p = m; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f || strchr("<>\"", *p))
			return false;
	return true;
}

static int add_addresses(struct mailimf_address_list **list, const struct rm_address *a,
			 size_t n, const char *field, struct rm_error *err)
{
	size_t i;

	*list = NULL;
	if (!n)
		return 0;
	*list = mailimf_address_list_new_empty();
	for (i = 0; i < n; i++) {
		char *name = NULL, *clean;
		const char *why = rm_address_check(a[i].addr);

		/* the recipients were built by the strict parser; checked again
		 * here because this is the last step before the wire */
		if (why)
			return rm_error_set(err, RM_ERR_INPUT, "%s: invalid address '%.100s': %s", field,
					    a[i].addr ? a[i].addr : "(none)", why);
		clean = rm_address_name(a[i].name);
		if (clean) {
			name = rm_message_rfc2047_encode(clean);
			free(clean);
		}
		mailimf_address_list_add_mb(*list, name, strdup(a[i].addr));
	}
	return 0;
}

static clist *id_list(const char *const *ids, size_t n)
{
	clist *l = clist_new();
	size_t i;

	for (i = 0; i < n; i++)
		clist_append(l, strdup(ids[i]));
	return l;
}

enum body_charset { BODY_ASCII, BODY_LATIN1, BODY_UTF8 };

/* The narrowest charset that holds the (UTF-8) body: plain ASCII, else
 * ISO-8859-1 when every character is in U+0080..U+00FF (two-byte sequences
 * led by C2 or C3), else UTF-8 (also for a body that is not valid UTF-8). */
static enum body_charset body_charset(const char *body)
{
	const unsigned char *p = (const unsigned char *)body;
	enum body_charset cs = BODY_ASCII;

	while (*p) {
		unsigned cp;
		size_t n = rm_utf8_decode(p, &cp);

		if (n == 1) {
			p++;
		} else if (n == 2 && cp <= 0xff) {
			cs = BODY_LATIN1;
			p += 2;
		} else {
			return BODY_UTF8;
		}
	}
	return cs;
}

int rm_message_build(const struct rm_message_in *in, char **out, size_t *outlen,
		     struct rm_error *err)
{
	struct mailimf_address_list *to = NULL, *cc = NULL;
	struct mailimf_mailbox_list *from;
	struct mailimf_fields *f;
	struct mailimf_date_time *dt;
	clist *irt = NULL, *refs = NULL;
	MMAPString *hdr;
	struct rm_sb msg = RM_SB_INIT;
	char *subject, *clean;
	const char *p;
	int col = 0;
	size_t i;
	struct tm tm;
	time_t local;
	/* "auto" (LKP's way): us-ascii, else iso-8859-1 (the body is written in
	 * it: "±" is the byte B1), else utf-8; any other name is declared as is
	 * over the UTF-8 body */
	bool autocs = !in->charset || !strcmp(in->charset, "auto");
	enum body_charset cs = autocs ? body_charset(in->body) : BODY_UTF8;

	if (cs == BODY_ASCII && in->latin1_floor)
		cs = BODY_LATIN1; /* ASCII is ISO-8859-1 as it stands */
	*out = NULL;
	if (rm_dynlib_need(RM_LIB_ETPAN, err))
		return -1;
	if (!rm_address_valid(in->from_addr))
		return rm_error_set(err, RM_ERR_CONFIG, "From: invalid address '%.100s'",
				    in->from_addr ? in->from_addr : "(none)");
	if (!valid_msgid(in->message_id))
		return rm_error_set(err, RM_ERR_INPUT, "Message-ID: invalid '%.100s'",
				    in->message_id ? in->message_id : "(none)");
	if (in->in_reply_to && !valid_msgid(in->in_reply_to))
		return rm_error_set(err, RM_ERR_INPUT, "In-Reply-To: invalid '%.100s'", in->in_reply_to);
	for (i = 0; i < in->nreferences; i++)
		if (!valid_msgid(in->references[i]))
			return rm_error_set(err, RM_ERR_INPUT, "References: invalid '%.100s'",
					    in->references[i]);
	if (!in->nto && !in->ncc)
		return rm_error_set(err, RM_ERR_INPUT, "the message has no recipient");
	/* body lines: at most 998 octets, never silently cut */
	for (p = in->body, i = 1; *p; i++) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l > MAX_LINE)
			return rm_error_set(err, RM_ERR_INPUT,
					    "body line %zu is %zu octets long; at most %d are allowed",
					    i, l, MAX_LINE);
		p += l + (nl ? 1 : 0);
	}
	if (add_addresses(&to, in->to, in->nto, "To", err) ||
	    add_addresses(&cc, in->cc, in->ncc, "Cc", err)) {
		if (to)
			mailimf_address_list_free(to);
		if (cc)
			mailimf_address_list_free(cc);
		return -1;
	}
	from = mailimf_mailbox_list_new_empty();
	{
		char *name = NULL;

		clean = rm_address_name(in->from_name);
		if (clean) {
			name = rm_message_rfc2047_encode(clean);
			free(clean);
		}
		mailimf_mailbox_list_add_mb(from, name, strdup(in->from_addr));
	}
	local = in->date + in->zone_seconds;
	gmtime_r(&local, &tm);
	/* libetpan takes the zone as +HHMM in an int; computed here so that
	 * half-hour zones are right (its own date helper gets them wrong) */
	dt = mailimf_date_time_new(tm.tm_mday, tm.tm_mon + 1, tm.tm_year + 1900, tm.tm_hour,
				   tm.tm_min, tm.tm_sec,
				   (int)((in->zone_seconds < 0 ? -1 : 1) *
					 ((labs(in->zone_seconds) / 3600) * 100 +
					  (labs(in->zone_seconds) % 3600) / 60)));
	if (in->in_reply_to)
		irt = id_list(&in->in_reply_to, 1);
	if (in->nreferences)
		refs = id_list(in->references, in->nreferences);
	clean = header_text(in->subject);
	subject = rm_message_rfc2047_encode(clean);
	free(clean);
	f = mailimf_fields_new_with_data_all(dt, from, NULL, NULL, to, cc, NULL,
					     strdup(in->message_id), irt, refs, subject);
	{
		/* in the order LKP's mails carry them */
		char ct[96];

		if (!autocs)
			snprintf(ct, sizeof(ct), "text/plain; charset=%s", in->charset);
		else
			snprintf(ct, sizeof(ct), "text/plain; charset=\"%s\"",
				 cs == BODY_ASCII ? "us-ascii" : cs == BODY_LATIN1 ? "iso-8859-1" : "utf-8");
		mailimf_fields_add(f, mailimf_field_new_custom(strdup("Content-Type"), strdup(ct)));
	}
	mailimf_fields_add(f, mailimf_field_new_custom(strdup("Content-Disposition"), strdup("inline")));
	if (cs != BODY_ASCII) /* 7bit, the default, goes unsaid */
		mailimf_fields_add(f, mailimf_field_new_custom(strdup("Content-Transfer-Encoding"),
							       strdup("8bit")));
	mailimf_fields_add(f, mailimf_field_new_custom(strdup("MIME-Version"), strdup("1.0")));
	mailimf_fields_add(f, mailimf_field_new_custom(strdup("Auto-Submitted"),
						       strdup(in->auto_replied ? "auto-replied" : "auto-generated")));
	mailimf_fields_add(f, mailimf_field_new_custom(strdup("X-Auto-Response-Suppress"), strdup("All")));
	mailimf_fields_add(f, mailimf_field_new_custom(strdup("Precedence"), strdup("bulk")));
	if (in->report_key)
		mailimf_fields_add(f, mailimf_field_new_custom(strdup("X-Robotmail-Report"),
							       header_text(in->report_key)));
	if (in->list_unsubscribe)
		mailimf_fields_add(f, mailimf_field_new_custom(
					      strdup("List-Unsubscribe"),
					      rm_xstrfmt("<mailto:%s?subject=unsubscribe>",
							 in->list_unsubscribe)));
	hdr = mmap_string_new("");
	if (mailimf_fields_write_mem(hdr, &col, f) != MAILIMF_NO_ERROR) {
		mmap_string_free(hdr);
		mailimf_fields_free(f);
		return rm_error_set(err, RM_ERR_INTERNAL, "cannot write the message headers");
	}
	rm_sb_init(&msg);
	rm_sb_add(&msg, hdr->str, hdr->len);
	mmap_string_free(hdr);
	mailimf_fields_free(f);
	rm_sb_adds(&msg, "\r\n");
	/* the body in wire form */
	for (p = in->body; *p; p++) {
		if (*p == '\r')
			continue; /* a lone CR never reaches the wire */
		if (*p == '\n') {
			rm_sb_adds(&msg, "\r\n");
		} else if (cs == BODY_LATIN1 && (unsigned char)*p >= 0x80) {
			/* U+0080..U+00FF: one ISO-8859-1 byte (body_charset checked
			 * that every sequence is one of these) */
			unsigned cp;

			p += rm_utf8_decode((const unsigned char *)p, &cp) - 1;
			rm_sb_addc(&msg, (char)cp);
		} else {
			rm_sb_addc(&msg, *p);
		}
	}
	if (msg.len < 2 || memcmp(msg.buf + msg.len - 2, "\r\n", 2))
		rm_sb_adds(&msg, "\r\n");
	*out = rm_sb_detach(&msg, outlen);
	return 0;
}

/* ---- threading */

static void add_ref(struct rm_thread *t, const char *id, size_t len)
{
	size_t i;

	for (i = 0; i < t->nrefs; i++)
		if (strlen(t->refs[i]) == len && !strncmp(t->refs[i], id, len))
			return; /* each id once */
	t->refs = rm_xrealloc(t->refs, (t->nrefs + 1) * sizeof(char *));
	t->refs[t->nrefs++] = rm_xstrndup(id, len);
}

static char *re_subject(const char *s)
{
	struct rm_sb sb = RM_SB_INIT;

	/* a stable subject: "Re: " once, whatever the first one was */
	while (s && !strncmp(s, "Re: ", 4))
		s += 4;
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "Re: %s", s ? s : "");
	return rm_sb_detach(&sb, NULL);
}

int rm_message_thread_first(struct rm_store *ob, const char *thread_key,
			    struct rm_thread_first *f, struct rm_error *err)
{
	memset(f, 0, sizeof(*f));
	if (!ob || !thread_key)
		return 0;
	return rm_store_thread_first(ob, thread_key, &f->message_id, &f->subject, &f->refs, err);
}

void rm_message_thread_first_free(struct rm_thread_first *f)
{
	free(f->message_id);
	free(f->subject);
	free(f->refs);
	memset(f, 0, sizeof(*f));
}

void rm_message_thread(const struct rm_thread_first *first, const char *message_id,
		       const char *patch_msgid, const char *subject, struct rm_thread *t)
{
	memset(t, 0, sizeof(*t));
	if (first && first->message_id && (!message_id || strcmp(first->message_id, message_id))) {
		const char *p = first->refs;

		while (p && *p) {
			size_t l = strcspn(p, "\n");

			if (l)
				add_ref(t, p, l);
			p += l + (p[l] ? 1 : 0);
		}
		add_ref(t, first->message_id, strlen(first->message_id));
		t->in_reply_to = rm_xstrdup(first->message_id);
		t->first_id = rm_xstrdup(first->message_id);
		t->send_refs = true;
		t->subject = re_subject(first->subject ? first->subject : subject);
	} else if (patch_msgid) {
		add_ref(t, patch_msgid, strlen(patch_msgid));
		t->in_reply_to = rm_xstrdup(patch_msgid);
		t->subject = re_subject(subject);
	} else {
		t->subject = rm_xstrdup(subject ? subject : "");
	}
}

void rm_message_thread_free(struct rm_thread *t)
{
	size_t i;

	for (i = 0; i < t->nrefs; i++)
		free(t->refs[i]);
	free(t->refs);
	free(t->in_reply_to);
	free(t->subject);
	free(t->first_id);
	memset(t, 0, sizeof(*t));
}

char *rm_message_thread_refs_text(const struct rm_thread *t)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	if (!t->nrefs)
		return NULL;
	rm_sb_init(&sb);
	for (i = 0; i < t->nrefs; i++)
		rm_sb_addf(&sb, "%s%s", i ? "\n" : "", t->refs[i]);
	return rm_sb_detach(&sb, NULL);
}
