/* cgit.c - see cgit.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "cgit.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dynlib_etpan.h"
#include "gitweb.h"
#include "patchmail.h"
#include "strbuf.h"

static void set(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? rm_xstrdup(v) : NULL;
}

static void format_date(struct mailimf_date_time *d, char **out)
{
	char buf[64];
	int z = d->dt_zone;

	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", d->dt_year,
		 d->dt_month, d->dt_day, d->dt_hour, d->dt_min, d->dt_sec, z < 0 ? '-' : '+',
		 abs(z) / 100, abs(z) % 100);
	set(out, buf);
}

int rm_cgit_parse_patch(struct rm_commit_facts *f, const char *buf, size_t len, const char *what,
			struct rm_error *err)
{
	struct mailimf_message *msg = NULL;
	size_t idx = 0, skip = 0;
	clistiter *it;
	const char *body, *cut;
	size_t blen;
	struct rm_sb message = RM_SB_INIT;

	memset(f, 0, sizeof(*f));
	if (rm_dynlib_need(RM_LIB_ETPAN, err))
		return -1;
	/* "From <40-hex> Mon Sep 17 00:00:00 2001": libetpan would take the
	 * whole text as a body, so the mbox separator is read here */
	if (len < 46 || strncmp(buf, "From ", 5))
		return rm_error_set(err, RM_ERR_INPUT,
				    "%s: expected a patch starting with 'From <sha>'", what);
	for (skip = 5; skip < len && isxdigit((unsigned char)buf[skip]); skip++)
		;
	if (skip - 5 < 40 || skip - 5 > 64)
		return rm_error_set(err, RM_ERR_INPUT, "%s: expected a full sha after 'From '", what);
	f->sha = rm_xstrndup(buf + 5, skip - 5);
	for (char *s = f->sha; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	while (skip < len && buf[skip] != '\n')
		skip++;
	if (skip < len)
		skip++;
	if (mailimf_message_parse(buf + skip, len - skip, &idx, &msg) != MAILIMF_NO_ERROR ||
	    !msg || !msg->msg_fields) {
		if (msg)
			mailimf_message_free(msg);
		rm_commit_free(f);
		return rm_error_set(err, RM_ERR_INPUT, "%s: cannot parse the patch headers", what);
	}
	for (it = clist_begin(msg->msg_fields->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);

		if (fld->fld_type == MAILIMF_FIELD_FROM && fld->fld_data.fld_from->frm_mb_list) {
			clistiter *mi = clist_begin(fld->fld_data.fld_from->frm_mb_list->mb_list);
			struct mailimf_mailbox *mb = mi ? clist_content(mi) : NULL;

			if (mb) {
				if (mb->mb_display_name) {
					free(f->author.name); /* a repeated From: keeps the last */
					f->author.name = rm_patchmail_decode_header(mb->mb_display_name,
								       strlen(mb->mb_display_name));
				}
				if (mb->mb_addr_spec) {
					set(&f->author.email, mb->mb_addr_spec);
					rm_commit_clean(f->author.email);
				}
			}
		} else if (fld->fld_type == MAILIMF_FIELD_SUBJECT) {
			const char *v = fld->fld_data.fld_subject->sbj_value;

			free(f->subject);
			f->subject = rm_patchmail_decode_header(v, strlen(v));
		} else if (fld->fld_type == MAILIMF_FIELD_ORIG_DATE &&
			   fld->fld_data.fld_orig_date->dt_date_time) {
			format_date(fld->fld_data.fld_orig_date->dt_date_time, &f->date);
		}
	}
	if (!f->subject) {
		mailimf_message_free(msg);
		rm_commit_free(f);
		return rm_error_set(err, RM_ERR_INPUT, "%s: the patch has no Subject header", what);
	}
	body = msg->msg_body ? msg->msg_body->bd_text : "";
	blen = msg->msg_body ? msg->msg_body->bd_size : 0;
	/* the message ends at the "---" line before the diffstat: the last one
	 * before the first "diff --git" (a message may hold "---" lines of its
	 * own), or at that diff line when there is no "---" */
	cut = NULL;
	{
		const char *p = body;

		while (p < body + blen) {
			const char *eol = memchr(p, '\n', (size_t)(body + blen - p));
			size_t l = eol ? (size_t)(eol - p) : (size_t)(body + blen - p);

			if ((l == 3 || (l == 4 && p[3] == '\r')) && !strncmp(p, "---", 3))
				cut = p;
			if (l >= 11 && !memcmp(p, "diff --git ", 11)) {
				if (!cut)
					cut = p;
				break;
			}
			p = eol ? eol + 1 : body + blen;
		}
	}
	rm_sb_init(&message);
	rm_sb_adds(&message, f->subject);
	rm_sb_adds(&message, "\n\n");
	rm_sb_add(&message, body, cut ? (size_t)(cut - body) : blen);
	{
		char *subject = rm_xstrdup(f->subject);

		rm_commit_set_message(f, message.buf);
		/* keep the decoded header subject (the body's copy is unfolded too) */
		free(f->subject);
		f->subject = subject;
	}
	rm_sb_release(&message);
	/* changed files: "diff --git a/X b/Y" */
	{
		const char *p = body;

		while (p < body + blen) {
			const char *eol = memchr(p, '\n', (size_t)(body + blen - p));
			size_t l = eol ? (size_t)(eol - p) : (size_t)(body + blen - p);

			if (l > 11 && !strncmp(p, "diff --git ", 11)) {
				const char *b = NULL, *q;

				for (q = p + 11; q + 3 <= p + l; q++)
					if (!strncmp(q, " b/", 3))
						b = q + 3;
				if (b && b < p + l)
					rm_commit_add_file(f, b, (size_t)(p + l - b));
			}
			p = eol ? eol + 1 : body + blen;
		}
	}
	mailimf_message_free(msg);
	return 0;
}

/* cgit's /commit/?id= page: committer, parent, and for a merge (whose
 * /patch/ shows another commit) the subject and message too. */
static char *html_text(const char *s, size_t len)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = { { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' },
		     { "&#39;", '\'' }, { "&apos;", '\'' } };
	struct rm_sb sb = RM_SB_INIT;
	size_t i, k;
	int in_tag = 0;

	rm_sb_init(&sb);
	for (i = 0; i < len; i++) {
		if (s[i] == '<') {
			in_tag = 1;
			continue;
		}
		if (in_tag) {
			if (s[i] == '>')
				in_tag = 0;
			continue;
		}
		if (s[i] == '&') {
			for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++)
				if (!strncmp(s + i, ents[k].ent, strlen(ents[k].ent)))
					break;
			if (k < sizeof(ents) / sizeof(ents[0])) {
				rm_sb_addc(&sb, ents[k].c);
				i += strlen(ents[k].ent) - 1;
				continue;
			}
		}
		rm_sb_addc(&sb, s[i]);
	}
	return rm_sb_detach(&sb, NULL);
}

/* The text of the first match of `re`'s group 1 in buf, or NULL. */
static char *html_find(const char *buf, size_t len, const char *re_text)
{
	pcre2_code *re;
	pcre2_match_data *md;
	int ec;
	PCRE2_SIZE eo;
	char *out = NULL;

	re = pcre2_compile((PCRE2_SPTR)re_text, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL, &ec, &eo, NULL);
	if (!re)
		return NULL;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	if (pcre2_match(re, (PCRE2_SPTR)buf, len, 0, 0, md, NULL) >= 2) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		out = html_text(buf + ov[2], ov[3] - ov[2]);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return out;
}

static void person_from_text(struct rm_person *p, char *text)
{
	/* "Name <email>" */
	char *lt = text ? strrchr(text, '<') : NULL;

	if (!text)
		return;
	if (lt && strchr(lt, '>')) {
		char *gt = strchr(lt, '>');
		size_t nl = (size_t)(lt - text);

		while (nl && text[nl - 1] == ' ')
			nl--;
		free(p->name);
		free(p->email);
		p->name = rm_xstrndup(text, nl);
		p->email = rm_xstrndup(lt + 1, (size_t)(gt - lt - 1));
		rm_commit_clean(p->name);
		rm_commit_clean(p->email);
	}
	free(text);
}

/* Merge facts from a cgit commit page into f.  With `full`, the subject,
 * message and author come from the page too (a merge). */
int rm_cgit_parse_page(struct rm_commit_facts *f, const char *buf, size_t len, bool full,
		       const char *what, struct rm_error *err)
{
	char *sha = html_find(buf, len, "<th>commit</th><td[^>]*><a [^>]*>([0-9a-f]{40})</a>");
	char *parent = html_find(buf, len, "<th>parent</th><td[^>]*><a [^>]*>([0-9a-f]{40})</a>");

	if (!sha) {
		free(parent);
		return rm_error_set(err, RM_ERR_INPUT, "%s: expected a cgit commit page", what);
	}
	if (!f->sha)
		f->sha = sha;
	else
		free(sha);
	if (parent) {
		free(f->parent);
		f->parent = parent;
	}
	person_from_text(&f->committer, html_find(buf, len, "<th>committer</th><td>(.*?)</td>"));
	{
		char *cd = html_find(buf, len, "<th>committer</th><td>.*?</td><td class='right'>([^<]*)</td>");
		int rc = rm_commit_read_date(cd, "committer date", what, &f->commit_time, err);

		free(cd);
		if (rc)
			return -1;
	}
	if (full) {
		char *subject = html_find(buf, len, "<div class='commit-subject'>([^<]*)");
		char *msg = html_find(buf, len, "<div class='commit-msg'>(.*?)</div>");
		struct rm_sb m = RM_SB_INIT;

		char *ad = html_find(buf, len, "<th>author</th><td>.*?</td><td class='right'>([^<]*)</td>");

		person_from_text(&f->author, html_find(buf, len, "<th>author</th><td>(.*?)</td>"));
		if (ad) {
			/* "2025-10-17 09:53:20 +0000" -> the RFC 3339 form of the patch's Date;
			 * old cgit's zoneless or "(UTC)" forms -> UTC; any other fails */
			int y, mo, d, h, mi, se, zh, zm;
			char sign, iso[64];
			long long epoch;

			if (rm_commit_read_date(ad, "author date", what, &epoch, err)) {
				free(ad);
				free(subject);
				free(msg);
				return -1;
			}
			if (sscanf(ad, "%4d-%2d-%2d %2d:%2d:%2d %c%2d%2d", &y, &mo, &d, &h, &mi, &se, &sign,
				   &zh, &zm) == 9 && (sign == '+' || sign == '-')) {
				snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", y, mo,
					 d, h, mi, se, sign, zh, zm);
				set(&f->date, iso);
			} else if (epoch) {
				time_t t = (time_t)epoch;
				struct tm tm;

				if (gmtime_r(&t, &tm) &&
				    strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S+00:00", &tm))
					set(&f->date, iso);
			}
			free(ad);
		}
		if (!subject) {
			free(msg);
			return rm_error_set(err, RM_ERR_INPUT, "%s: the commit page has no subject",
					    what);
		}
		rm_sb_init(&m);
		rm_sb_adds(&m, subject);
		rm_sb_adds(&m, "\n\n");
		if (msg)
			rm_sb_adds(&m, msg);
		rm_commit_set_message(f, m.buf);
		rm_sb_release(&m);
		free(subject);
		free(msg);
	}
	return 0;
}


char *rm_cgit_search_result(const char *body, size_t len, const char *subject)
{
	/* rows: <a href='/REPO/commit/?id=SHA'>SUBJECT</a> (subjects are HTML-escaped;
	 * compare the plain ones and take the first exact match) */
	char *found = NULL;
	pcre2_code *re;
	pcre2_match_data *md;
	int ec;
	PCRE2_SIZE eo, off = 0;

	re = pcre2_compile((PCRE2_SPTR) "/commit/\\?id=([0-9a-f]{40})'>([^<]*)</a>",
			   PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	if (!re)
		return NULL;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	while (!found && pcre2_match(re, (PCRE2_SPTR)body, len, off, 0, md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		if (ov[5] - ov[4] == strlen(subject) && !memcmp(body + ov[4], subject, ov[5] - ov[4]))
			found = rm_xstrndup(body + ov[2], ov[3] - ov[2]);
		off = ov[1];
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return found;
}

enum rm_gitweb_keep rm_cgit_page_keep(const char *kept, size_t kept_len, const char *line,
				      size_t len)
{
	static const char *const marks[] = { "class='diffstat-header'", "<table summary='diff" };
	size_t i, k;

	(void)kept;
	(void)kept_len;
	/* the commit info and message come first (the message's end may share
	 * the line); the diffstat and the diff (all of a huge commit, as HTML)
	 * are not needed */
	for (k = 0; k < sizeof(marks) / sizeof(marks[0]); k++)
		for (i = 0; i + strlen(marks[k]) <= len; i++)
			if (!memcmp(line + i, marks[k], strlen(marks[k])))
				return RM_GITWEB_STOP;
	return RM_GITWEB_KEEP;
}

enum rm_gitweb_keep rm_cgit_patch_keep(const char *kept, size_t kept_len, const char *line,
				       size_t len)
{
	size_t i = kept_len;

	if (len >= 11 && !memcmp(line, "diff --git ", 11))
		return RM_GITWEB_KEEP;
	/* past the first diff line only diff lines were kept: is the last one? */
	if (i && kept[i - 1] == '\n')
		i--;
	while (i && kept[i - 1] != '\n')
		i--;
	return kept_len - i >= 11 && !memcmp(kept + i, "diff --git ", 11) ? RM_GITWEB_DROP :
									    RM_GITWEB_KEEP;
}

bool rm_cgit_empty_patch(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' '))
		i++;
	return i + 3 <= len && buf[i] == '-' && buf[i + 1] == '-' &&
	       (buf[i + 2] == ' ' || buf[i + 2] == '\n' || buf[i + 2] == '\r');
}

char *rm_cgit_patch_url(const char *api, const char *sha)
{
	struct rm_sb u = RM_SB_INIT;

	rm_sb_init(&u);
	rm_sb_addf(&u, "%s/patch/?id=%s", api, sha);
	return rm_sb_detach(&u, NULL);
}

char *rm_cgit_page_url(const char *api, const char *sha)
{
	struct rm_sb u = RM_SB_INIT;

	/* path=.git limits the page's diff to a path no tree can hold: cgit
	 * then spends no time diffing a huge commit (the facts robotmail reads
	 * on the page come before the diff) */
	rm_sb_init(&u);
	rm_sb_addf(&u, "%s/commit/?id=%s&path=.git", api, sha);
	return rm_sb_detach(&u, NULL);
}

char *rm_cgit_search_url(const char *api, const char *subject)
{
	/* cgit greps the whole message with a regex: escape it */
	struct rm_sb esc = RM_SB_INIT, u = RM_SB_INIT;
	const char *c;
	char *q;

	rm_sb_init(&esc);
	for (c = subject; *c; c++) {
		if (strchr("\\^$.|?*+()[]{}", *c))
			rm_sb_addc(&esc, '\\');
		rm_sb_addc(&esc, *c);
	}
	q = rm_gitweb_escape(esc.buf);
	rm_sb_release(&esc);
	rm_sb_init(&u);
	rm_sb_addf(&u, "%s/log/?qt=grep&q=%s", api, q);
	free(q);
	return rm_sb_detach(&u, NULL);
}
