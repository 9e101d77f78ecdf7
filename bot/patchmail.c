/* patchmail.c - see patchmail.h. */
#include "patchmail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "dynlib_etpan.h"
#include "gitweb.h"
#include "strbuf.h"

char *rm_patchmail_decode_header(const char *raw, size_t len)
{
	struct rm_sb unfolded = RM_SB_INIT;
	char *out = NULL;
	size_t idx = 0, i;

	rm_sb_init(&unfolded);
	for (i = 0; i < len; i++) {
		char c = raw[i];

		if (c == '\r' || c == '\n') {
			/* unfold: the line break and the following blanks become one space */
			while (i + 1 < len && (raw[i + 1] == '\r' || raw[i + 1] == '\n' ||
					       raw[i + 1] == ' ' || raw[i + 1] == '\t'))
				i++;
			rm_sb_addc(&unfolded, ' ');
			continue;
		}
		rm_sb_addc(&unfolded, c);
	}
	/* raw 8-bit bytes are UTF-8 (cgit writes them unencoded) */
	if (mailmime_encoded_phrase_parse("utf-8", unfolded.buf, unfolded.len, &idx, "utf-8",
					  &out) != MAILIMF_NO_ERROR || !out) {
		char *copy = rm_sb_detach(&unfolded, NULL);

		rm_commit_clean(copy);
		return copy;
	}
	rm_sb_release(&unfolded);
	{
		char *copy = rm_xstrdup(out);

		free(out);
		rm_commit_clean(copy);
		/* trim */
		while (*copy == ' ')
			memmove(copy, copy + 1, strlen(copy));
		i = strlen(copy);
		while (i && copy[i - 1] == ' ')
			copy[--i] = '\0';
		return copy;
	}
}

void rm_patchmail_free(struct rm_patch_mail *p)
{
	size_t i;

	free(p->subject);
	free(p->base_commit);
	free(p->in_reply_to);
	free(p->from);
	for (i = 0; i < p->nto; i++)
		free(p->to[i]);
	for (i = 0; i < p->ncc; i++)
		free(p->cc[i]);
	free(p->to);
	free(p->cc);
	memset(p, 0, sizeof(*p));
}

/* "Name <addr>" (the name decoded) or "addr"; malloc()ed. */
static char *mailbox_text(const struct mailimf_mailbox *mb)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	if (mb->mb_display_name) {
		char *nm = rm_patchmail_decode_header(mb->mb_display_name, strlen(mb->mb_display_name));

		rm_sb_addf(&sb, "%s <%s>", nm, mb->mb_addr_spec);
		free(nm);
	} else {
		rm_sb_adds(&sb, mb->mb_addr_spec);
	}
	rm_commit_clean(sb.buf);
	return rm_sb_detach(&sb, NULL);
}

static void add_mailboxes(struct mailimf_address_list *al, char ***v, size_t *n)
{
	clistiter *it;

	for (it = al ? clist_begin(al->ad_list) : NULL; it; it = clist_next(it)) {
		struct mailimf_address *ad = clist_content(it);
		clistiter *mi;

		if (ad->ad_type == MAILIMF_ADDRESS_MAILBOX) {
			*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
			(*v)[(*n)++] = mailbox_text(ad->ad_data.ad_mailbox);
			continue;
		}
		/* a group: its members */
		for (mi = ad->ad_data.ad_group->grp_mb_list ?
				  clist_begin(ad->ad_data.ad_group->grp_mb_list->mb_list) : NULL;
		     mi; mi = clist_next(mi)) {
			struct mailimf_mailbox *mb = clist_content(mi);

			*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
			(*v)[(*n)++] = rm_xstrdup(mb->mb_addr_spec);
			rm_commit_clean((*v)[*n - 1]);
		}
	}
}

/* The first body line "base-commit: <40 hex digits>" (git format-patch
 * --base: the commit the series applies to), lowercased; NULL when none.
 * The body is read as it is: the line is plain ASCII in a text/plain patch
 * (format-patch never encodes it), and a line with anything after the
 * digits is not it. */
static char *find_base_commit(const char *body, size_t len)
{
	static const char tag[] = "base-commit: ";
	size_t i = 0, t = sizeof(tag) - 1;

	while (i < len) {
		size_t e = i;

		while (e < len && body[e] != '\n')
			e++;
		if (e - i >= t + 40 && !memcmp(body + i, tag, t)) {
			size_t end = e, k;

			if (end > i && body[end - 1] == '\r')
				end--;
			for (k = i + t; k < end && isxdigit((unsigned char)body[k]); k++)
				;
			if (k == end && end - (i + t) == 40) {
				char *sha = rm_xstrndup(body + i + t, 40);

				for (k = 0; k < 40; k++)
					if (sha[k] >= 'A' && sha[k] <= 'F')
						sha[k] = (char)(sha[k] - 'A' + 'a');
				return sha;
			}
		}
		i = e + 1;
	}
	return NULL;
}

int rm_patchmail_parse(struct rm_patch_mail *p, const char *buf, size_t len, const char *what,
			struct rm_error *err)
{
	struct mailimf_message *msg = NULL;
	size_t idx = 0, skip = 0;
	clistiter *it;

	memset(p, 0, sizeof(*p));
	if (rm_dynlib_need(RM_LIB_ETPAN, err))
		return -1;
	if (len > 5 && !strncmp(buf, "From ", 5)) {
		while (skip < len && buf[skip] != '\n')
			skip++;
		if (skip < len)
			skip++;
	}
	if (mailimf_message_parse(buf + skip, len - skip, &idx, &msg) != MAILIMF_NO_ERROR || !msg ||
	    !msg->msg_fields) {
		if (msg)
			mailimf_message_free(msg);
		return rm_error_set(err, RM_ERR_INPUT, "%s: not a mail message", what);
	}
	for (it = clist_begin(msg->msg_fields->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);

		if (fld->fld_type == MAILIMF_FIELD_SUBJECT) {
			free(p->subject);
			p->subject = rm_patchmail_decode_header(fld->fld_data.fld_subject->sbj_value,
						   strlen(fld->fld_data.fld_subject->sbj_value));
		} else if (fld->fld_type == MAILIMF_FIELD_TO) {
			add_mailboxes(fld->fld_data.fld_to->to_addr_list, &p->to, &p->nto);
		} else if (fld->fld_type == MAILIMF_FIELD_CC) {
			add_mailboxes(fld->fld_data.fld_cc->cc_addr_list, &p->cc, &p->ncc);
		} else if (fld->fld_type == MAILIMF_FIELD_FROM && !p->from) {
			struct mailimf_mailbox_list *ml = fld->fld_data.fld_from->frm_mb_list;

			if (ml && clist_begin(ml->mb_list) && clist_content(clist_begin(ml->mb_list)))
				p->from = mailbox_text(clist_content(clist_begin(ml->mb_list)));
		} else if (fld->fld_type == MAILIMF_FIELD_IN_REPLY_TO && !p->in_reply_to) {
			clist *ids = fld->fld_data.fld_in_reply_to->mid_list;

			if (ids && clist_begin(ids) && clist_content(clist_begin(ids)))
				p->in_reply_to = rm_xstrdup(clist_content(clist_begin(ids)));
		}
	}
	mailimf_message_free(msg);
	/* the body: after the first empty line */
	{
		size_t b = skip;

		while (b < len) {
			const char *nl = memchr(buf + b, '\n', len - b);

			if (!nl)
				break;
			b = (size_t)(nl - buf) + 1;
			if (b < len && (buf[b] == '\n' || (buf[b] == '\r' && b + 1 < len && buf[b + 1] == '\n'))) {
				b += buf[b] == '\r' ? 2 : 1;
				p->base_commit = find_base_commit(buf + b, len - b);
				break;
			}
		}
	}
	if (!p->subject) {
		rm_patchmail_free(p);
		return rm_error_set(err, RM_ERR_INPUT, "%s: the mail has no Subject", what);
	}
	return 0;
}

int rm_patchmail_series_number(const char *subject, unsigned *n, unsigned *total)
{
	const char *open = subject ? strchr(subject, '[') : NULL, *close, *w;
	int found = 0;

	if (!open || !(close = strchr(open, ']')))
		return 0;
	/* the last "a/b" word inside the first tag: "[PATCH v2 net-next 3/5]" */
	for (w = open + 1; w < close; w++) {
		unsigned long a, b;
		char *end;

		if (w[-1] != ' ' && w[-1] != '[')
			continue;
		if (!isdigit((unsigned char)*w))
			continue;
		a = strtoul(w, &end, 10);
		if (*end != '/' || !isdigit((unsigned char)end[1]))
			continue;
		b = strtoul(end + 1, &end, 10);
		if ((*end != ' ' && end != close) || a > b || b == 0 || b > 100000)
			continue;
		*n = (unsigned)a;
		*total = (unsigned)b;
		found = 1;
	}
	return found;
}

int rm_patchmail_lookup(struct rm_patch_mail *p, const char *base, const char *msgid,
			const struct rm_gitweb_opts *o, struct rm_error *err)
{
	struct rm_sb url = RM_SB_INIT;
	char *esc = rm_gitweb_escape(msgid), *body, *what;
	size_t len;
	long status;
	int rc;

	memset(p, 0, sizeof(*p));
	rm_sb_init(&url);
	rm_sb_addf(&url, "%s/%s/raw", base, esc);
	free(esc);
	what = rm_xstrdup(url.buf);
	if (rm_gitweb_get(rm_sb_detach(&url, NULL), o, &status, &body, &len, err)) {
		free(what);
		return -1;
	}
	if (status == 404)
		rc = 0;
	else if (status != 200)
		rc = rm_error_set(err, RM_ERR_TEMP, "%s: unexpected answer (HTTP %ld)", what, status);
	else
		rc = rm_patchmail_parse(p, body, len, what, err) ? -1 : 1;
	free(body);
	free(what);
	return rc;
}
