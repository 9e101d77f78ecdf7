/* gitweb.c - see gitweb.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "gitweb.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libetpan/libetpan.h>
#include <pcre2.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileutil.h"
#include "jsonload.h"
#include "strbuf.h"
#include "text.h"

extern char **environ;

#define GITWEB_MAX_BODY (16u << 20)  /* a commit page larger than this is refused */
#define GITWEB_MAX_RATE_WAITS 3

/* ================================================================ facts */

static void person_free(struct rm_person *p)
{
	free(p->name);
	free(p->email);
	p->name = p->email = NULL;
}

void rm_facts_free(struct rm_commit_facts *f)
{
	size_t i;

	free(f->sha);
	free(f->subject);
	free(f->body);
	person_free(&f->author);
	person_free(&f->committer);
	free(f->date);
	for (i = 0; i < f->ntrailers; i++) {
		free(f->trailers[i].key);
		free(f->trailers[i].value);
	}
	free(f->trailers);
	free(f->patch_msgid);
	free(f->parent);
	for (i = 0; i < f->nfiles; i++)
		free(f->files[i]);
	free(f->files);
	free(f->upstream_sha);
	memset(f, 0, sizeof(*f));
}

static void set(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? rm_xstrdup(v) : NULL;
}

/* Replace control characters (CR, LF, tabs, ESC ...) by spaces: a commit
 * subject or name must never carry one into a header or a table. */
static void sanitize_line(char *s)
{
	rm_utf8_repair(s);
	rm_text_scrub(s, ' ');
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *rm_msgid_from_link(const char *url)
{
	static const char *const hosts[] = { "https://lore.kernel.org/", "http://lore.kernel.org/",
					     "https://patch.msgid.link/", "https://msgid.link/" };
	const char *p = NULL, *end;
	struct rm_sb sb = RM_SB_INIT;
	size_t i;
	bool lore = false;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
		if (!strncmp(url, hosts[i], strlen(hosts[i]))) {
			p = url + strlen(hosts[i]);
			lore = i < 2;
			break;
		}
	if (!p)
		return NULL;
	if (lore) {
		/* lore.kernel.org/<list or r or all>/<msgid>/... */
		p = strchr(p, '/');
		if (!p)
			return NULL;
		p++;
	}
	end = p + strcspn(p, "/?# \t>");
	rm_sb_init(&sb);
	for (; p < end; p++) {
		if (*p == '%' && p + 2 < end + 0 + 1 && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
			rm_sb_addc(&sb, (char)(hexval(p[1]) * 16 + hexval(p[2])));
			p += 2;
		} else {
			rm_sb_addc(&sb, *p);
		}
	}
	/* a Message-ID: something@something, no spaces or angle brackets */
	if (!strchr(sb.buf, '@') || sb.buf[0] == '@' || strpbrk(sb.buf, " \t<>\"\r\n") ||
	    sb.len > 250) {
		rm_sb_release(&sb);
		return NULL;
	}
	return rm_sb_detach(&sb, NULL);
}

static bool is_trailer_line(const char *s, size_t len, size_t *keylen)
{
	size_t i = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '-'))
		i++;
	if (i == 0 || i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return false;
	*keylen = i;
	return true;
}

void rm_facts_set_message(struct rm_commit_facts *f, const char *message)
{
	const char *nl = strchr(message, '\n');
	const char *body = nl ? nl + 1 : "";
	const char *last_para, *p;
	size_t i;

	/* the subject may be folded over several lines up to the first blank */
	{
		const char *end = strstr(message, "\n\n");
		struct rm_sb sb = RM_SB_INIT;

		if (!end)
			end = message + strlen(message);
		rm_sb_init(&sb);
		for (p = message; p < end; p++) {
			if (*p == '\n' || *p == '\r') {
				if (sb.len && sb.buf[sb.len - 1] != ' ')
					rm_sb_addc(&sb, ' ');
				continue;
			}
			rm_sb_addc(&sb, *p);
		}
		while (sb.len && sb.buf[sb.len - 1] == ' ')
			sb.buf[--sb.len] = '\0';
		free(f->subject);
		f->subject = rm_sb_detach(&sb, NULL);
		sanitize_line(f->subject);
		body = *end ? end + 2 : end;
	}
	set(&f->body, body);
	rm_utf8_repair(f->body);
	(void)nl;

	/* trailers: the last paragraph, when all its lines are "Key: value" */
	for (i = 0; i < f->ntrailers; i++) {
		free(f->trailers[i].key);
		free(f->trailers[i].value);
	}
	free(f->trailers);
	f->trailers = NULL;
	f->ntrailers = 0;
	{
		size_t blen = strlen(body);

		while (blen && (body[blen - 1] == '\n' || body[blen - 1] == ' ' ||
				body[blen - 1] == '\r'))
			blen--;
		last_para = body;
		for (p = body; p + 1 < body + blen; p++)
			if (p[0] == '\n' && p[1] == '\n')
				last_para = p + 2;
		for (p = last_para; p < body + blen;) {
			const char *eol = memchr(p, '\n', (size_t)(body + blen - p));
			size_t len = eol ? (size_t)(eol - p) : (size_t)(body + blen - p);
			size_t kl;

			if (len && p[len - 1] == '\r')
				len--;
			if (len && (p[0] == ' ' || p[0] == '\t') && f->ntrailers) {
				p = eol ? eol + 1 : body + blen; /* continuation line */
				continue;
			}
			if (!is_trailer_line(p, len, &kl)) {
				for (i = 0; i < f->ntrailers; i++) {
					free(f->trailers[i].key);
					free(f->trailers[i].value);
				}
				f->ntrailers = 0;
				break;
			}
			f->trailers = rm_xrealloc(f->trailers,
						  (f->ntrailers + 1) * sizeof(*f->trailers));
			f->trailers[f->ntrailers].key = rm_xstrndup(p, kl);
			f->trailers[f->ntrailers].value = rm_xstrndup(p + kl + 2, len - kl - 2);
			sanitize_line(f->trailers[f->ntrailers].value);
			f->ntrailers++;
			p = eol ? eol + 1 : body + blen;
		}
		if (!f->ntrailers) {
			free(f->trailers);
			f->trailers = NULL;
		}
	}
	free(f->patch_msgid);
	f->patch_msgid = NULL;
	for (i = 0; i < f->ntrailers && !f->patch_msgid; i++)
		if (!strcasecmp(f->trailers[i].key, "Link"))
			f->patch_msgid = rm_msgid_from_link(f->trailers[i].value);
}

static void add_file(struct rm_commit_facts *f, const char *path, size_t len)
{
	size_t i;

	for (i = 0; i < f->nfiles; i++)
		if (strlen(f->files[i]) == len && !memcmp(f->files[i], path, len))
			return;
	f->files = rm_xrealloc(f->files, (f->nfiles + 1) * sizeof(char *));
	f->files[f->nfiles++] = rm_xstrndup(path, len);
}

/* ================================================================ cgit */

static char *decode_header(const char *raw, size_t len)
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

		sanitize_line(copy);
		return copy;
	}
	rm_sb_release(&unfolded);
	{
		char *copy = rm_xstrdup(out);

		free(out);
		sanitize_line(copy);
		/* trim */
		while (*copy == ' ')
			memmove(copy, copy + 1, strlen(copy));
		i = strlen(copy);
		while (i && copy[i - 1] == ' ')
			copy[--i] = '\0';
		return copy;
	}
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

int rm_facts_from_cgit_patch(struct rm_commit_facts *f, const char *buf, size_t len,
			     const char *what, struct rm_error *err)
{
	struct mailimf_message *msg = NULL;
	size_t idx = 0, skip = 0;
	clistiter *it;
	const char *body, *cut;
	size_t blen;
	struct rm_sb message = RM_SB_INIT;

	memset(f, 0, sizeof(*f));
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
		rm_facts_free(f);
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
					f->author.name = decode_header(mb->mb_display_name,
								       strlen(mb->mb_display_name));
				}
				if (mb->mb_addr_spec) {
					set(&f->author.email, mb->mb_addr_spec);
					sanitize_line(f->author.email);
				}
			}
		} else if (fld->fld_type == MAILIMF_FIELD_SUBJECT) {
			const char *v = fld->fld_data.fld_subject->sbj_value;

			free(f->subject);
			f->subject = decode_header(v, strlen(v));
		} else if (fld->fld_type == MAILIMF_FIELD_ORIG_DATE &&
			   fld->fld_data.fld_orig_date->dt_date_time) {
			format_date(fld->fld_data.fld_orig_date->dt_date_time, &f->date);
		}
	}
	if (!f->subject) {
		mailimf_message_free(msg);
		rm_facts_free(f);
		return rm_error_set(err, RM_ERR_INPUT, "%s: the patch has no Subject header", what);
	}
	body = msg->msg_body ? msg->msg_body->bd_text : "";
	blen = msg->msg_body ? msg->msg_body->bd_size : 0;
	/* the message ends at the "---" line before the diffstat */
	cut = NULL;
	{
		const char *p = body;

		while (p < body + blen) {
			const char *eol = memchr(p, '\n', (size_t)(body + blen - p));
			size_t l = eol ? (size_t)(eol - p) : (size_t)(body + blen - p);

			if ((l == 3 || (l == 4 && p[3] == '\r')) && !strncmp(p, "---", 3)) {
				cut = p;
				break;
			}
			if (l >= 11 && !memcmp(p, "diff --git ", 11)) {
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

		rm_facts_set_message(f, message.buf);
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
					add_file(f, b, (size_t)(p + l - b));
			}
			p = eol ? eol + 1 : body + blen;
		}
	}
	mailimf_message_free(msg);
	return 0;
}

/* Epoch seconds of a git date as providers print it: "2025-10-17 09:53:20
 * +0000" (cgit), "2025-10-17T09:53:20Z" or "...T09:53:20+02:00" (git %cI,
 * GitHub, Gitea), with optional fractions (GitLab).  0 when it is none. */
static long long git_date(const char *s)
{
	struct tm tm;
	int sign, zh, zm, n = 0;
	long long t;

	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || !n)
		return 0;
	s += n;
	if (*s == '.')
		while (*++s >= '0' && *s <= '9')
			;
	while (*s == ' ')
		s++;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return 0;
	t = (long long)timegm(&tm);
	if (*s == 'Z' || !*s)
		return t;
	if (*s != '+' && *s != '-')
		return 0;
	sign = *s++ == '-' ? -1 : 1;
	if (sscanf(s, "%2d:%2d", &zh, &zm) != 2 && sscanf(s, "%2d%2d", &zh, &zm) != 2)
		return 0;
	if (zh > 14 || zm > 59)
		return 0;
	return t - sign * (zh * 3600LL + zm * 60);
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
		sanitize_line(p->name);
		sanitize_line(p->email);
	}
	free(text);
}

/* Merge facts from a cgit commit page into f.  With `full`, the subject,
 * message and author come from the page too (a merge). */
static int facts_from_cgit_page(struct rm_commit_facts *f, const char *buf, size_t len,
				bool full, const char *what, struct rm_error *err)
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

		f->commit_time = git_date(cd);
		free(cd);
	}
	if (full) {
		char *subject = html_find(buf, len, "<div class='commit-subject'>([^<]*)");
		char *msg = html_find(buf, len, "<div class='commit-msg'>(.*?)</div>");
		struct rm_sb m = RM_SB_INIT;

		person_from_text(&f->author, html_find(buf, len, "<th>author</th><td>(.*?)</td>"));
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
		rm_facts_set_message(f, m.buf);
		rm_sb_release(&m);
		free(subject);
		free(msg);
	}
	return 0;
}

/* ================================================================ JSON */

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void set_clean(char **dst, const char *v)
{
	set(dst, v);
	sanitize_line(*dst);
}

int rm_facts_from_json(struct rm_commit_facts *f, enum rm_provider p, const char *buf,
		       size_t len, const char *what, struct rm_error *err)
{
	json_t *j = rm_json_load(what, buf, len, NULL, err);
	const char *message = NULL;

	memset(f, 0, sizeof(*f));
	if (!j)
		return -1;
	if (!json_is_object(j)) {
		json_decref(j);
		return rm_error_set(err, RM_ERR_INPUT, "%s: expected a JSON object", what);
	}
	if (p == RM_PROVIDER_GITLAB) {
		json_t *parents = json_object_get(j, "parent_ids");

		set(&f->sha, jstr(j, "id"));
		message = jstr(j, "message");
		set_clean(&f->author.name, jstr(j, "author_name"));
		set_clean(&f->author.email, jstr(j, "author_email"));
		set_clean(&f->committer.name, jstr(j, "committer_name"));
		set_clean(&f->committer.email, jstr(j, "committer_email"));
		set_clean(&f->date, jstr(j, "authored_date"));
		f->commit_time = git_date(jstr(j, "committed_date"));
		if (json_is_array(parents) && json_is_string(json_array_get(parents, 0)))
			set(&f->parent, json_string_value(json_array_get(parents, 0)));
	} else {
		/* GitHub and Gitea/Forgejo share this layout */
		json_t *c = json_object_get(j, "commit");
		json_t *a = json_object_get(c, "author");
		json_t *m = json_object_get(c, "committer");
		json_t *parents = json_object_get(j, "parents");
		json_t *files = json_object_get(j, "files");
		size_t i;

		set(&f->sha, jstr(j, "sha"));
		message = jstr(c, "message");
		set_clean(&f->author.name, jstr(a, "name"));
		set_clean(&f->author.email, jstr(a, "email"));
		set_clean(&f->date, jstr(a, "date"));
		set_clean(&f->committer.name, jstr(m, "name"));
		set_clean(&f->committer.email, jstr(m, "email"));
		f->commit_time = git_date(jstr(m, "date"));
		if (json_is_array(parents) && json_array_size(parents))
			set(&f->parent, jstr(json_array_get(parents, 0), "sha"));
		for (i = 0; json_is_array(files) && i < json_array_size(files); i++) {
			const char *fn = jstr(json_array_get(files, i), "filename");

			if (fn)
				add_file(f, fn, strlen(fn));
		}
	}
	if (!f->sha || !message || strspn(f->sha, "0123456789abcdefABCDEF") != strlen(f->sha) ||
	    strlen(f->sha) < 40) {
		json_decref(j);
		rm_facts_free(f);
		return rm_error_set(err, RM_ERR_INPUT,
				    "%s: expected a commit object with a full sha and a message", what);
	}
	rm_facts_set_message(f, message);
	json_decref(j);
	return 0;
}

/* ================================================================ cache JSON */

static void jset(json_t *o, const char *k, const char *v)
{
	if (v)
		json_object_set_new(o, k, json_string(v));
}

char *rm_facts_to_json(const struct rm_commit_facts *f)
{
	json_t *o = json_object(), *tr = json_array(), *files = json_array();
	char *s;
	size_t i;

	jset(o, "sha", f->sha);
	jset(o, "subject", f->subject);
	jset(o, "body", f->body);
	jset(o, "author_name", f->author.name);
	jset(o, "author_email", f->author.email);
	jset(o, "committer_name", f->committer.name);
	jset(o, "committer_email", f->committer.email);
	jset(o, "date", f->date);
	if (f->commit_time)
		json_object_set_new(o, "commit_time", json_integer((json_int_t)f->commit_time));
	jset(o, "patch_msgid", f->patch_msgid);
	jset(o, "parent", f->parent);
	jset(o, "upstream_sha", f->upstream_sha);
	for (i = 0; i < f->ntrailers; i++) {
		json_t *t = json_array();

		json_array_append_new(t, json_string(f->trailers[i].key));
		json_array_append_new(t, json_string(f->trailers[i].value));
		json_array_append_new(tr, t);
	}
	json_object_set_new(o, "trailers", tr);
	for (i = 0; i < f->nfiles; i++)
		json_array_append_new(files, json_string(f->files[i]));
	json_object_set_new(o, "files", files);
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

int rm_facts_from_cache_json(struct rm_commit_facts *f, const char *json)
{
	json_error_t je;
	json_t *o = json_loads(json, 0, &je), *tr, *files;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	set(&f->sha, jstr(o, "sha"));
	set(&f->subject, jstr(o, "subject"));
	set(&f->body, jstr(o, "body"));
	set(&f->author.name, jstr(o, "author_name"));
	set(&f->author.email, jstr(o, "author_email"));
	set(&f->committer.name, jstr(o, "committer_name"));
	set(&f->committer.email, jstr(o, "committer_email"));
	set(&f->date, jstr(o, "date"));
	if (json_is_integer(json_object_get(o, "commit_time")))
		f->commit_time = (long long)json_integer_value(json_object_get(o, "commit_time"));
	set(&f->patch_msgid, jstr(o, "patch_msgid"));
	set(&f->parent, jstr(o, "parent"));
	set(&f->upstream_sha, jstr(o, "upstream_sha"));
	tr = json_object_get(o, "trailers");
	for (i = 0; json_is_array(tr) && i < json_array_size(tr); i++) {
		json_t *t = json_array_get(tr, i);
		const char *k = json_string_value(json_array_get(t, 0));
		const char *v = json_string_value(json_array_get(t, 1));

		if (!k || !v)
			continue;
		f->trailers = rm_xrealloc(f->trailers, (f->ntrailers + 1) * sizeof(*f->trailers));
		f->trailers[f->ntrailers].key = rm_xstrdup(k);
		f->trailers[f->ntrailers].value = rm_xstrdup(v);
		f->ntrailers++;
	}
	files = json_object_get(o, "files");
	for (i = 0; json_is_array(files) && i < json_array_size(files); i++) {
		const char *p = json_string_value(json_array_get(files, i));

		if (p)
			add_file(f, p, strlen(p));
	}
	json_decref(o);
	if (!f->sha || !f->subject) {
		rm_facts_free(f);
		return -1;
	}
	return 0;
}

/* ================================================================ lookups */

void rm_gitweb_opts_from_config(struct rm_gitweb_opts *o, const struct rm_config *c)
{
	o->connect_timeout = c->connect_timeout;
	o->timeout = c->timeout;
	o->retries = c->retries;
	o->concurrency = c->concurrency;
	o->max_wait = c->max_wait;
	o->backoff_ms = 500;
}

bool rm_gitweb_valid_sha(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && n <= 64 && strspn(s, "0123456789abcdefABCDEF") == n;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void failf(struct rm_gitweb_req *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void failf(struct rm_gitweb_req *r, const char *fmt, ...)
{
	va_list ap;

	r->status = RM_GITWEB_FAILED;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

/* ---- local-git: `git -C DIR show` without a shell */

static int run_git(const char *dir, char *const argv_tail[], struct rm_sb *out, int *status)
{
	char *argv[16];
	int pipefd[2], n = 0, i;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char buf[8192];

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)dir;
	for (i = 0; argv_tail[i] && n < 15; i++)
		argv[n++] = argv_tail[i];
	argv[n] = NULL;
	if (pipe(pipefd))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	for (;;) {
		ssize_t got = read(pipefd[0], buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (out->len + (size_t)got > GITWEB_MAX_BODY)
			continue; /* drain, but keep no more */
		rm_sb_add(out, buf, (size_t)got);
	}
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static void lookup_local(struct rm_gitweb_req *r)
{
	char fmt[] = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B";
	char *show[] = { "show", "-s", fmt, "--no-color", (char *)r->sha, "--", NULL };
	char *names[] = { "show", "--name-only", "--format=", "--no-color", (char *)r->sha,
			  "--", NULL };
	struct rm_sb out = RM_SB_INIT;
	const char *field[9];
	int status = 0, i;
	char *p;

	rm_sb_init(&out);
	r->requests++;
	{
		/* a missing clone is a failure to retry, never an "unknown commit" */
		char *dotgit = rm_path_join(r->tree->api, ".git"), *head = rm_path_join(r->tree->api, "HEAD");
		bool repo = !access(dotgit, F_OK) || !access(head, F_OK);

		free(dotgit);
		free(head);
		if (!repo) {
			failf(r, "local clone '%s' is missing or not a git repository", r->tree->api);
			rm_sb_release(&out);
			return;
		}
	}
	if (run_git(r->tree->api, show, &out, &status)) {
		failf(r, "cannot run git in '%s'", r->tree->api);
		rm_sb_release(&out);
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		/* git exits 128 for an unknown revision */
		r->status = RM_GITWEB_UNKNOWN;
		rm_sb_release(&out);
		return;
	}
	p = out.buf;
	for (i = 0; i < 9; i++) {
		field[i] = p;
		if (i < 8) {
			char *z = memchr(p, '\0', out.len - (size_t)(p - out.buf));

			if (!z) {
				failf(r, "unexpected output from git show in '%s'", r->tree->api);
				rm_sb_release(&out);
				return;
			}
			p = z + 1;
		}
	}
	memset(&r->facts, 0, sizeof(r->facts));
	set(&r->facts.sha, field[0]);
	if (*field[1]) {
		r->facts.parent = rm_xstrndup(field[1], strcspn(field[1], " \n"));
	}
	set_clean(&r->facts.author.name, field[2]);
	set_clean(&r->facts.author.email, field[3]);
	set_clean(&r->facts.date, field[4]);
	set_clean(&r->facts.committer.name, field[5]);
	set_clean(&r->facts.committer.email, field[6]);
	r->facts.commit_time = git_date(field[7]);
	rm_facts_set_message(&r->facts, field[8]);
	rm_sb_reset(&out);
	if (!run_git(r->tree->api, names, &out, &status) && WIFEXITED(status) &&
	    !WEXITSTATUS(status)) {
		const char *q = out.buf;

		while (*q) {
			size_t l = strcspn(q, "\n");

			if (l)
				add_file(&r->facts, q, l);
			q += l;
			if (*q)
				q++;
		}
	}
	rm_sb_release(&out);
	r->status = RM_GITWEB_FOUND;
}

/* ---- HTTP */

enum stage { STAGE_COMMIT, STAGE_CGIT_PAGE, STAGE_SEARCH, STAGE_DONE };

struct xfer {
	struct rm_gitweb_req *req;
	CURL *easy;
	struct curl_slist *headers;
	char *url;
	struct rm_sb body;
	bool too_big;
	long retry_after;      /* seconds, from Retry-After */
	long long rate_reset;  /* epoch seconds, from X-RateLimit-Reset */
	bool rate_exhausted;   /* X-RateLimit-Remaining: 0 */
	enum stage stage;
	long attempts;         /* failed attempts of the current URL */
	long rate_waits;
	long long start_at;    /* monotonic ms: not before */
	char *page_sha;        /* the commit a cgit page stage is about */
	bool page_full;        /* the patch showed another commit (a merge) */
	bool running;
	char *token;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	size_t n = size * nmemb;

	if (x->body.len + n > GITWEB_MAX_BODY) {
		x->too_big = true;
		return 0; /* abort the transfer */
	}
	rm_sb_add(&x->body, data, n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	size_t n = size * nmemb;
	char line[256];
	size_t l = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

	memcpy(line, data, l);
	line[l] = '\0';
	if (!strncasecmp(line, "Retry-After:", 12))
		x->retry_after = strtol(line + 12, NULL, 10);
	else if (!strncasecmp(line, "X-RateLimit-Reset:", 18))
		x->rate_reset = strtoll(line + 18, NULL, 10);
	else if (!strncasecmp(line, "RateLimit-Reset:", 16))
		x->retry_after = strtol(line + 16, NULL, 10);
	else if (!strncasecmp(line, "X-RateLimit-Remaining:", 22))
		x->rate_exhausted = strtol(line + 22, NULL, 10) == 0;
	return n;
}

static char *read_token(const struct rm_tree_cfg *t)
{
	if (t->token_env && getenv(t->token_env) && *getenv(t->token_env))
		return rm_xstrdup(getenv(t->token_env));
	if (t->token_file) {
		char *buf;
		size_t len;
		struct rm_error e;

		if (!rm_read_file(t->token_file, 4096, &buf, &len, &e)) {
			buf[strcspn(buf, "\r\n")] = '\0';
			return buf;
		}
	}
	return NULL;
}

static char *url_escape(CURL *c, const char *s)
{
	char *e = curl_easy_escape(c, s, 0);
	char *r = rm_xstrdup(e ? e : "");

	curl_free(e);
	return r;
}

/* The URL for the current stage, or NULL when the stage is not supported. */
static char *build_url(struct xfer *x)
{
	const struct rm_tree_cfg *t = x->req->tree;
	struct rm_sb u = RM_SB_INIT;
	const char *sha = x->req->sha;

	rm_sb_init(&u);
	if (x->stage == STAGE_CGIT_PAGE) {
		rm_sb_addf(&u, "%s/commit/?id=%s", t->api, x->page_sha ? x->page_sha : sha);
	} else if (x->stage == STAGE_COMMIT) {
		switch (t->provider) {
		case RM_PROVIDER_CGIT:
			rm_sb_addf(&u, "%s/patch/?id=%s", t->api, sha);
			break;
		case RM_PROVIDER_GITHUB:
			rm_sb_addf(&u, "%s/commits/%s", t->api, sha);
			break;
		case RM_PROVIDER_GITEA:
			rm_sb_addf(&u, "%s/git/commits/%s", t->api, sha);
			break;
		case RM_PROVIDER_GITLAB:
			rm_sb_addf(&u, "%s/repository/commits/%s", t->api, sha);
			break;
		default:
			rm_sb_release(&u);
			return NULL;
		}
	} else {
		char *q;

		if (!x->req->subject) {
			rm_sb_release(&u);
			return NULL;
		}
		if (t->provider == RM_PROVIDER_CGIT) {
			/* cgit greps the whole message with a regex: escape it */
			struct rm_sb esc = RM_SB_INIT;
			const char *c;

			rm_sb_init(&esc);
			for (c = x->req->subject; *c; c++) {
				if (strchr("\\^$.|?*+()[]{}", *c))
					rm_sb_addc(&esc, '\\');
				rm_sb_addc(&esc, *c);
			}
			q = url_escape(x->easy, esc.buf);
			rm_sb_release(&esc);
		} else {
			q = url_escape(x->easy, x->req->subject);
		}
		switch (t->provider) {
		case RM_PROVIDER_CGIT:
			rm_sb_addf(&u, "%s/log/?qt=grep&q=%s", t->api, q);
			break;
		case RM_PROVIDER_GITLAB:
			rm_sb_addf(&u, "%s/search?scope=commits&search=%s", t->api, q);
			break;
		case RM_PROVIDER_GITHUB: {
			/* https://api.github.com/repos/OWNER/REPO -> /search/commits?q=repo:OWNER/REPO+... */
			const char *rp = strstr(t->api, "/repos/");

			if (!rp) {
				free(q);
				rm_sb_release(&u);
				return NULL;
			}
			rm_sb_add(&u, t->api, (size_t)(rp - t->api));
			rm_sb_addf(&u, "/search/commits?q=repo:%s+%s", rp + 7, q);
			break;
		}
		default:
			free(q);
			rm_sb_release(&u);
			return NULL;
		}
		free(q);
	}
	return rm_sb_detach(&u, NULL);
}

static void xfer_setup(struct xfer *x, const struct rm_gitweb_opts *o)
{
	const struct rm_tree_cfg *t = x->req->tree;

	curl_easy_reset(x->easy);
	rm_sb_reset(&x->body);
	x->too_big = false;
	x->retry_after = 0;
	x->rate_reset = 0;
	x->rate_exhausted = false;
	curl_slist_free_all(x->headers);
	x->headers = NULL;
	if (t->provider == RM_PROVIDER_GITHUB) {
		x->headers = curl_slist_append(x->headers, "Accept: application/vnd.github+json");
		x->headers = curl_slist_append(x->headers, "X-GitHub-Api-Version: 2022-11-28");
	}
	if (x->token) {
		struct rm_sb h = RM_SB_INIT;

		rm_sb_init(&h);
		if (t->provider == RM_PROVIDER_GITLAB)
			rm_sb_addf(&h, "PRIVATE-TOKEN: %s", x->token);
		else if (t->provider == RM_PROVIDER_GITEA)
			rm_sb_addf(&h, "Authorization: token %s", x->token);
		else
			rm_sb_addf(&h, "Authorization: Bearer %s", x->token);
		x->headers = curl_slist_append(x->headers, h.buf);
		rm_sb_release(&h);
	}
	curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT, o->connect_timeout);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT, o->timeout);
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->easy, CURLOPT_USERAGENT, "robotmail/1");
	curl_easy_setopt(x->easy, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(x->easy, CURLOPT_MAXREDIRS, 3L);
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
}

/* Find the sha of a commit whose subject is exactly `subject` in a search
 * answer: cgit's log HTML, GitHub's or GitLab's JSON. */
static char *search_result_sha(enum rm_provider p, const char *body, size_t len,
			       const char *subject)
{
	char *found = NULL;

	if (p == RM_PROVIDER_CGIT) {
		/* rows: <a href='/REPO/commit/?id=SHA'>SUBJECT</a> (subjects are HTML-escaped;
		 * compare the plain ones and take the first exact match) */
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

			if (ov[5] - ov[4] == strlen(subject) &&
			    !memcmp(body + ov[4], subject, ov[5] - ov[4]))
				found = rm_xstrndup(body + ov[2], ov[3] - ov[2]);
			off = ov[1];
		}
		pcre2_match_data_free(md);
		pcre2_code_free(re);
		return found;
	}
	{
		json_error_t je;
		json_t *j = json_loadb(body, len, 0, &je);
		json_t *items = p == RM_PROVIDER_GITHUB ? json_object_get(j, "items") : j;
		size_t i;

		for (i = 0; !found && json_is_array(items) && i < json_array_size(items); i++) {
			json_t *it = json_array_get(items, i);
			const char *msg = p == RM_PROVIDER_GITHUB ?
						  jstr(json_object_get(it, "commit"), "message") :
						  jstr(it, "title");
			const char *sha = jstr(it, p == RM_PROVIDER_GITHUB ? "sha" : "id");
			size_t sl = strlen(subject);

			if (msg && sha && !strncmp(msg, subject, sl) &&
			    (msg[sl] == '\0' || msg[sl] == '\n') && rm_gitweb_valid_sha(sha))
				found = rm_xstrdup(sha);
		}
		json_decref(j);
	}
	return found;
}

/* Classify a finished transfer; returns true when the lookup is settled. */
static bool finish(struct xfer *x, CURLcode cc, const struct rm_gitweb_opts *o)
{
	struct rm_gitweb_req *r = x->req;
	long code = 0;
	long long now = now_ms();

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	r->requests++;
	if (cc == CURLE_OK && code == 200) {
		struct rm_error e;

		if (x->stage == STAGE_SEARCH) {
			char *sha = search_result_sha(r->tree->provider, x->body.buf, x->body.len,
						      r->subject);

			if (!sha) {
				r->status = RM_GITWEB_UNKNOWN;
				return true;
			}
			/* fetch the matched commit by its upstream sha */
			free(r->facts.upstream_sha);
			r->facts.upstream_sha = sha;
			x->stage = STAGE_COMMIT;
			free(x->url);
			{
				const char *orig = r->sha;

				r->sha = sha;
				x->url = build_url(x);
				r->sha = orig;
			}
			x->attempts = 0;
			x->start_at = now;
			return false;
		}
		if (x->stage == STAGE_CGIT_PAGE) {
			if (facts_from_cgit_page(&r->facts, x->body.buf, x->body.len, x->page_full,
						 x->url, &e)) {
				failf(r, "malformed response: %s", e.msg);
				return true;
			}
			r->status = RM_GITWEB_FOUND;
			return true;
		}
		{
			char *upstream = r->facts.upstream_sha;
			const char *want = upstream ? upstream : r->sha;
			int rc;

			r->facts.upstream_sha = NULL;
			if (r->tree->provider == RM_PROVIDER_CGIT)
				rc = rm_facts_from_cgit_patch(&r->facts, x->body.buf, x->body.len,
							      x->url, &e);
			else
				rc = rm_facts_from_json(&r->facts, r->tree->provider, x->body.buf,
							x->body.len, x->url, &e);
			if (rc) {
				free(upstream);
				failf(r, "malformed response: %s", e.msg);
				return true;
			}
			r->facts.upstream_sha = upstream;
			if (r->tree->provider == RM_PROVIDER_CGIT) {
				/* committer and parent are on the commit page; a merge's
				 * /patch/ shows another commit, so take all from the page */
				x->page_full = strncasecmp(r->facts.sha, want, strlen(want)) != 0;
				if (x->page_full) {
					char *keep = r->facts.upstream_sha;

					r->facts.upstream_sha = NULL;
					rm_facts_free(&r->facts);
					r->facts.upstream_sha = keep;
				}
				free(x->page_sha);
				x->page_sha = rm_xstrdup(want);
				x->stage = STAGE_CGIT_PAGE;
				free(x->url);
				x->url = build_url(x);
				x->attempts = 0;
				x->start_at = now;
				return false;
			}
		}
		r->status = RM_GITWEB_FOUND;
		return true;
	}
	if (cc == CURLE_OK && (code == 404 || code == 422)) {
		/* unknown upstream: try the subject when the provider can search */
		if (x->stage == STAGE_COMMIT && r->subject && !r->facts.upstream_sha) {
			x->stage = STAGE_SEARCH;
			free(x->url);
			x->url = build_url(x);
			if (x->url) {
				x->attempts = 0;
				x->start_at = now;
				return false;
			}
		}
		r->status = RM_GITWEB_UNKNOWN;
		return true;
	}
	if (cc == CURLE_OK && (code == 429 || (code == 403 && (x->rate_exhausted || x->retry_after)))) {
		long long wait_s = x->retry_after;

		if (!wait_s && x->rate_reset)
			wait_s = x->rate_reset - (long long)time(NULL);
		if (wait_s < 1)
			wait_s = 1;
		if (wait_s > o->max_wait || ++x->rate_waits > GITWEB_MAX_RATE_WAITS) {
			failf(r, "%s: rate limited (HTTP %ld); retry in %lld s", x->url, code, wait_s);
			return true;
		}
		x->start_at = now + wait_s * 1000;
		return false;
	}
	if (x->too_big) {
		failf(r, "%s: response larger than %u bytes", x->url, GITWEB_MAX_BODY);
		return true;
	}
	if (cc != CURLE_OK || code >= 500) {
		if (x->attempts++ < o->retries) {
			x->start_at = now + o->backoff_ms * (1LL << (x->attempts - 1));
			return false;
		}
		if (cc != CURLE_OK)
			failf(r, "%s: %s (after %ld attempts)", x->url, curl_easy_strerror(cc),
			      x->attempts);
		else
			failf(r, "%s: HTTP %ld (after %ld attempts)", x->url, code, x->attempts);
		return true;
	}
	if (x->stage == STAGE_SEARCH) {
		/* the commit itself was unknown; a search the provider refuses
		 * leaves it unknown */
		r->status = RM_GITWEB_UNKNOWN;
		return true;
	}
	failf(r, "%s: unexpected HTTP %ld", x->url, code);
	return true;
}

static void cache_store(const struct rm_commit_cache *cache, struct rm_gitweb_req *r)
{
	if (!cache || !cache->put || r->status == RM_GITWEB_FAILED)
		return;
	if (r->status == RM_GITWEB_FOUND) {
		char *json = rm_facts_to_json(&r->facts);

		cache->put(cache->ctx, r->tree->name, r->sha, true, json);
		/* also under the full sha, so abbreviated and full lookups share */
		if (r->facts.sha && strcmp(r->facts.sha, r->sha) && !r->facts.upstream_sha)
			cache->put(cache->ctx, r->tree->name, r->facts.sha, true, json);
		free(json);
	} else {
		cache->put(cache->ctx, r->tree->name, r->sha, false, NULL);
	}
}

static bool cache_lookup(const struct rm_commit_cache *cache, struct rm_gitweb_req *r)
{
	char *json = NULL;
	bool found = false;

	if (!cache || !cache->get || cache->get(cache->ctx, r->tree->name, r->sha, &json, &found) != 1)
		return false;
	if (found) {
		if (!json || rm_facts_from_cache_json(&r->facts, json)) {
			free(json);
			return false; /* a damaged entry: look it up again */
		}
		r->status = RM_GITWEB_FOUND;
	} else {
		r->status = RM_GITWEB_UNKNOWN;
	}
	free(json);
	r->from_cache = true;
	return true;
}

int rm_gitweb_lookup(struct rm_gitweb_req *reqs, size_t n, const struct rm_gitweb_opts *o,
		     const struct rm_commit_cache *cache, struct rm_error *err)
{
	struct xfer *xs = rm_xcalloc(n + 1, sizeof(*xs));
	CURLM *multi = NULL;
	size_t i, pending = 0, running = 0;

	for (i = 0; i < n; i++) {
		struct rm_gitweb_req *r = &reqs[i];

		memset(&r->facts, 0, sizeof(r->facts));
		r->error[0] = '\0';
		r->requests = 0;
		r->from_cache = false;
		r->status = RM_GITWEB_FAILED;
		if (!r->tree || r->tree->provider == RM_PROVIDER_NONE) {
			failf(r, "tree '%s' has no git web API configured",
			      r->tree ? r->tree->name : "?");
			continue;
		}
		if (!rm_gitweb_valid_sha(r->sha)) {
			failf(r, "'%.80s' is not a commit sha", r->sha);
			continue;
		}
		if (cache_lookup(cache, r))
			continue;
		if (r->tree->provider == RM_PROVIDER_LOCAL_GIT) {
			lookup_local(r);
			cache_store(cache, r);
			continue;
		}
		if (!multi) {
			multi = curl_multi_init();
			if (!multi) {
				free(xs);
				return rm_error_set(err, RM_ERR_INTERNAL, "cannot initialise libcurl");
			}
		}
		xs[i].req = r;
		xs[i].easy = curl_easy_init();
		rm_sb_init(&xs[i].body);
		xs[i].stage = STAGE_COMMIT;
		xs[i].token = read_token(r->tree);
		xs[i].url = build_url(&xs[i]);
		xs[i].start_at = 0;
		pending++;
	}
	while (pending) {
		long long now = now_ms(), next = now + 1000;
		int still, msgs;
		CURLMsg *m;

		for (i = 0; i < n && running < (size_t)o->concurrency; i++) {
			struct xfer *x = &xs[i];

			if (!x->req || x->running || x->stage == STAGE_DONE)
				continue;
			if (x->start_at > now) {
				if (x->start_at < next)
					next = x->start_at;
				continue;
			}
			xfer_setup(x, o);
			curl_multi_add_handle(multi, x->easy);
			x->running = true;
			running++;
		}
		curl_multi_perform(multi, &still);
		while ((m = curl_multi_info_read(multi, &msgs))) {
			struct xfer *x = NULL;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			curl_multi_remove_handle(multi, m->easy_handle);
			x->running = false;
			running--;
			if (finish(x, m->data.result, o)) {
				x->stage = STAGE_DONE;
				cache_store(cache, x->req);
				pending--;
			}
		}
		if (pending) {
			long long wait = next - now_ms();
			bool ready = false;

			/* a transfer that may start now (a finished one freed its
			 * slot, or moved to its next stage) must not wait for a poll */
			for (i = 0; i < n && !ready; i++)
				ready = xs[i].req && !xs[i].running && xs[i].stage != STAGE_DONE &&
					xs[i].start_at <= now_ms();
			if (ready && running < (size_t)o->concurrency)
				continue;
			if (running && wait > 200)
				wait = 200;
			if (wait < 1)
				wait = 1;
			curl_multi_poll(multi, NULL, 0, (int)wait, NULL);
		}
	}
	for (i = 0; i < n; i++) {
		if (!xs[i].req)
			continue;
		curl_easy_cleanup(xs[i].easy);
		curl_slist_free_all(xs[i].headers);
		free(xs[i].url);
		free(xs[i].page_sha);
		rm_sb_release(&xs[i].body);
		if (xs[i].token) {
			memset(xs[i].token, 0, strlen(xs[i].token));
			free(xs[i].token);
		}
	}
	if (multi)
		curl_multi_cleanup(multi);
	free(xs);
	return 0;
}

int rm_gitweb_ping(const char *url, const struct rm_gitweb_opts *o, char *why, size_t len)
{
	CURL *c = curl_easy_init();
	CURLcode cc;
	long code = 0;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->connect_timeout);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, o->timeout);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	if (cc != CURLE_OK) {
		snprintf(why, len, "%s: %s", url, curl_easy_strerror(cc));
		return -1;
	}
	snprintf(why, len, "%s: HTTP %ld", url, code);
	return code > 0 && code < 500 ? 0 : -1;
}

/* ================================================================ patch mails */

void rm_patch_mail_free(struct rm_patch_mail *p)
{
	size_t i;

	free(p->subject);
	for (i = 0; i < p->nto; i++)
		free(p->to[i]);
	for (i = 0; i < p->ncc; i++)
		free(p->cc[i]);
	free(p->to);
	free(p->cc);
	memset(p, 0, sizeof(*p));
}

static void add_mailboxes(struct mailimf_address_list *al, char ***v, size_t *n)
{
	clistiter *it;

	for (it = al ? clist_begin(al->ad_list) : NULL; it; it = clist_next(it)) {
		struct mailimf_address *ad = clist_content(it);
		clistiter *mi;

		if (ad->ad_type == MAILIMF_ADDRESS_MAILBOX) {
			struct mailimf_mailbox *mb = ad->ad_data.ad_mailbox;
			struct rm_sb sb = RM_SB_INIT;

			rm_sb_init(&sb);
			if (mb->mb_display_name) {
				char *nm = decode_header(mb->mb_display_name, strlen(mb->mb_display_name));

				rm_sb_addf(&sb, "%s <%s>", nm, mb->mb_addr_spec);
				free(nm);
			} else {
				rm_sb_adds(&sb, mb->mb_addr_spec);
			}
			sanitize_line(sb.buf);
			*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
			(*v)[(*n)++] = rm_sb_detach(&sb, NULL);
			continue;
		}
		/* a group: its members */
		for (mi = ad->ad_data.ad_group->grp_mb_list ?
				  clist_begin(ad->ad_data.ad_group->grp_mb_list->mb_list) : NULL;
		     mi; mi = clist_next(mi)) {
			struct mailimf_mailbox *mb = clist_content(mi);

			*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
			(*v)[(*n)++] = rm_xstrdup(mb->mb_addr_spec);
			sanitize_line((*v)[*n - 1]);
		}
	}
}

int rm_patch_mail_parse(struct rm_patch_mail *p, const char *buf, size_t len, const char *what,
			struct rm_error *err)
{
	struct mailimf_message *msg = NULL;
	size_t idx = 0, skip = 0;
	clistiter *it;

	memset(p, 0, sizeof(*p));
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
			p->subject = decode_header(fld->fld_data.fld_subject->sbj_value,
						   strlen(fld->fld_data.fld_subject->sbj_value));
		} else if (fld->fld_type == MAILIMF_FIELD_TO) {
			add_mailboxes(fld->fld_data.fld_to->to_addr_list, &p->to, &p->nto);
		} else if (fld->fld_type == MAILIMF_FIELD_CC) {
			add_mailboxes(fld->fld_data.fld_cc->cc_addr_list, &p->cc, &p->ncc);
		}
	}
	mailimf_message_free(msg);
	if (!p->subject) {
		rm_patch_mail_free(p);
		return rm_error_set(err, RM_ERR_INPUT, "%s: the mail has no Subject", what);
	}
	return 0;
}

int rm_patch_mail_lookup(struct rm_patch_mail *p, const char *base, const char *msgid,
			 const struct rm_gitweb_opts *o, struct rm_error *err)
{
	CURL *c = curl_easy_init();
	struct xfer x;
	struct rm_sb url = RM_SB_INIT;
	char *esc;
	CURLcode cc;
	long code = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	memset(&x, 0, sizeof(x));
	rm_sb_init(&x.body);
	esc = url_escape(c, msgid);
	rm_sb_init(&url);
	rm_sb_addf(&url, "%s/%s/raw", base, esc);
	free(esc);
	curl_easy_setopt(c, CURLOPT_URL, url.buf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->connect_timeout);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, o->timeout);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "robotmail/1");
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	if (cc == CURLE_OK && code == 404) {
		rc = 0;
	} else if (cc != CURLE_OK || code != 200) {
		rc = rm_error_set(err, RM_ERR_TEMP, "%s: %s (HTTP %ld)", url.buf,
				  cc == CURLE_OK ? "unexpected answer" : curl_easy_strerror(cc), code);
	} else {
		rc = rm_patch_mail_parse(p, x.body.buf, x.body.len, url.buf, err) ? -1 : 1;
	}
	rm_sb_release(&x.body);
	rm_sb_release(&url);
	return rc;
}
