/* commit.c - see commit.h. */
#include "commit.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "strbuf.h"
#include "text.h"

static void person_free(struct rm_person *p)
{
	free(p->name);
	free(p->email);
	p->name = p->email = NULL;
}

void rm_commit_free(struct rm_commit_facts *f)
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

void rm_commit_clean(char *s)
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

/* A Message-ID (without <>) from text[0..len), percent-decoded when `pct`;
 * NULL unless it looks like one: something@something, no blanks, quotes or
 * angle brackets. */
static char *msgid_text(const char *p, const char *end, bool pct)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	for (; p < end; p++) {
		if (pct && *p == '%' && end - p >= 3 && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
			rm_sb_addc(&sb, (char)(hexval(p[1]) * 16 + hexval(p[2])));
			p += 2;
		} else {
			rm_sb_addc(&sb, *p);
		}
	}
	if (!strchr(sb.buf, '@') || sb.buf[0] == '@' || strpbrk(sb.buf, " \t<>\"\r\n") ||
	    sb.len > 250) {
		rm_sb_release(&sb);
		return NULL;
	}
	return rm_sb_detach(&sb, NULL);
}

/* How surely a link names the patch's own posting: 3 patch.msgid.link (b4
 * writes it for the patch it applied), 2 lore.kernel.org/r/ and
 * lkml.kernel.org/r/ (the older form of the same), 1 any other list of lore
 * (/all/, /<list>/: a report or a discussion as often as the patch); 0 and
 * *msgid NULL when the URL names no Message-ID. */
static int link_msgid(const char *url, char **msgid)
{
	static const struct {
		const char *prefix;
		int rank; /* -1: lore, the rank depends on the list part */
	} forms[] = {
		{ "https://patch.msgid.link/", 3 }, { "http://patch.msgid.link/", 3 },
		{ "https://msgid.link/", 3 },       { "http://msgid.link/", 3 },
		{ "https://lkml.kernel.org/r/", 2 }, { "http://lkml.kernel.org/r/", 2 },
		{ "https://lore.kernel.org/", -1 },  { "http://lore.kernel.org/", -1 },
	};
	const char *p = NULL;
	size_t i;
	int rank = 0;

	*msgid = NULL;
	while (*url == ' ' || *url == '<')
		url++;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strncasecmp(url, forms[i].prefix, strlen(forms[i].prefix))) {
			p = url + strlen(forms[i].prefix);
			rank = forms[i].rank;
			break;
		}
	if (!p)
		return 0;
	if (rank < 0) {
		/* lore.kernel.org/<list or r or all>/<msgid>/... */
		const char *slash = strchr(p, '/');

		if (!slash)
			return 0;
		rank = slash - p == 1 && *p == 'r' ? 2 : 1;
		p = slash + 1;
	}
	*msgid = msgid_text(p, p + strcspn(p, "/?# \t>"), true);
	return *msgid ? rank : 0;
}

char *rm_commit_msgid_from_link(const char *url)
{
	char *m;

	link_msgid(url, &m);
	return m;
}

/* The Message-ID of the patch itself among f's trailers: a Message-Id:
 * trailer first, then the Link: of the highest rank (see link_msgid), the
 * last of equal ones (a maintainer's tools add the patch's link after the
 * author's references); never a Link: right after Reported-by: (the form a
 * report's own link had before Closes:). */
static char *patch_msgid(const struct rm_commit_facts *f)
{
	char *best = NULL;
	int best_rank = 0;
	size_t i;

	for (i = 0; i < f->ntrailers; i++) {
		const char *k = f->trailers[i].key, *v = f->trailers[i].value;
		char *m = NULL;
		int rank = 0;

		if (!strcasecmp(k, "Message-Id") || !strcasecmp(k, "Message-ID")) {
			const char *a = v + strspn(v, " <");

			m = msgid_text(a, a + strcspn(a, "> \t"), false);
			rank = m ? 4 : 0;
		} else if (!strcasecmp(k, "Link")) {
			if (i && !strcasecmp(f->trailers[i - 1].key, "Reported-by"))
				continue;
			rank = link_msgid(v, &m);
		}
		if (m && rank >= best_rank) {
			free(best);
			best = m;
			best_rank = rank;
		} else {
			free(m);
		}
	}
	return best;
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

void rm_commit_set_message(struct rm_commit_facts *f, const char *message)
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
		rm_commit_clean(f->subject);
		body = *end ? end + 2 : end;
	}
	set(&f->body, body);
	rm_utf8_repair(f->body);
	(void)nl;

	/* trailers, as `git interpret-trailers` finds them: the last paragraph,
	 * when all its lines are "Key: value" (or their indented continuations),
	 * or when at least a quarter are and one is git's own (Signed-off-by:,
	 * "(cherry picked from commit ...)"); other lines there are skipped */
	for (i = 0; i < f->ntrailers; i++) {
		free(f->trailers[i].key);
		free(f->trailers[i].value);
	}
	free(f->trailers);
	f->trailers = NULL;
	f->ntrailers = 0;
	{
		size_t blen = strlen(body), other = 0, recognised = 0;
		bool gits = false, prev_trailer = false;

		while (blen && (body[blen - 1] == '\n' || body[blen - 1] == ' ' ||
				body[blen - 1] == '\r' || body[blen - 1] == '\t'))
			blen--;
		last_para = body;
		for (p = body; p + 1 < body + blen; p++)
			if (p[0] == '\n' && (p[1] == '\n' || (p[1] == '\r' && p + 2 < body + blen &&
							       p[2] == '\n')))
				last_para = p + (p[1] == '\n' ? 2 : 3);
		for (p = last_para; p < body + blen;) {
			const char *eol = memchr(p, '\n', (size_t)(body + blen - p));
			size_t len = eol ? (size_t)(eol - p) : (size_t)(body + blen - p);
			size_t kl;

			if (len && p[len - 1] == '\r')
				len--;
			if (len && (p[0] == ' ' || p[0] == '\t') && prev_trailer) {
				p = eol ? eol + 1 : body + blen; /* continuation line */
				continue;
			}
			prev_trailer = is_trailer_line(p, len, &kl);
			if (!prev_trailer) {
				if (len >= 27 && !memcmp(p, "(cherry picked from commit ", 27)) {
					gits = true;
					recognised++;
				} else {
					other++;
				}
				p = eol ? eol + 1 : body + blen;
				continue;
			}
			if (kl == 13 && !strncasecmp(p, "Signed-off-by", 13))
				gits = true;
			recognised++;
			f->trailers = rm_xrealloc(f->trailers,
						  (f->ntrailers + 1) * sizeof(*f->trailers));
			f->trailers[f->ntrailers].key = rm_xstrndup(p, kl);
			f->trailers[f->ntrailers].value = rm_xstrndup(p + kl + 2, len - kl - 2);
			rm_commit_clean(f->trailers[f->ntrailers].value);
			f->ntrailers++;
			p = eol ? eol + 1 : body + blen;
		}
		if (other && !(gits && recognised * 3 >= other)) {
			for (i = 0; i < f->ntrailers; i++) {
				free(f->trailers[i].key);
				free(f->trailers[i].value);
			}
			f->ntrailers = 0;
		}
		if (!f->ntrailers) {
			free(f->trailers);
			f->trailers = NULL;
		}
	}
	free(f->patch_msgid);
	f->patch_msgid = patch_msgid(f);
}

void rm_commit_add_file(struct rm_commit_facts *f, const char *path, size_t len)
{
	size_t i;

	for (i = 0; i < f->nfiles; i++)
		if (strlen(f->files[i]) == len && !memcmp(f->files[i], path, len))
			return;
	f->files = rm_xrealloc(f->files, (f->nfiles + 1) * sizeof(char *));
	f->files[f->nfiles++] = rm_xstrndup(path, len);
}

/* The zone "+hhmm", "+hh:mm" or "Z" at s as seconds east of UTC; false when
 * it is none. */
static bool zone(const char *s, long long *east)
{
	int zh, zm, sign;

	while (*s == ' ')
		s++;
	if (*s == 'Z' || !strcmp(s, "UT") || !strcmp(s, "GMT") || !strcmp(s, "UTC") ||
	    !strcmp(s, "(UTC)") || !strcmp(s, "(GMT)")) {
		*east = 0;
		return true;
	}
	if (*s != '+' && *s != '-')
		return false;
	sign = *s++ == '-' ? -1 : 1;
	if (sscanf(s, "%2d:%2d", &zh, &zm) != 2 && sscanf(s, "%2d%2d", &zh, &zm) != 2)
		return false;
	if (zh > 14 || zm > 59)
		return false;
	*east = sign * (zh * 3600LL + zm * 60);
	return true;
}

static bool valid_tm(const struct tm *tm)
{
	return tm->tm_year >= 70 && tm->tm_mon >= 0 && tm->tm_mon <= 11 && tm->tm_mday >= 1 &&
	       tm->tm_mday <= 31 && tm->tm_hour <= 23 && tm->tm_min <= 59 && tm->tm_sec <= 60;
}

/* The date in s, as seconds since the epoch, in *out: 0, or -1 when no rule
 * reads it (1970-01-01 itself is a date: a failure is not told by the value). */
static int date_parse(const char *s, long long *out)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	struct tm tm;
	int n = 0;
	long long east, epoch;
	char mon[4];

	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	memset(&tm, 0, sizeof(tm));
	/* ISO 8601 / RFC 3339 and cgit's "2025-10-17 09:53:20 +0000" */
	if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) == 6 && n) {
		s += n;
		if (*s == '.')
			while (*++s >= '0' && *s <= '9')
				;
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		if (!valid_tm(&tm))
			return -1;
		while (*s == ' ')
			s++;
		if (!*s)
			return *out = (long long)timegm(&tm), 0; /* no zone: UTC, as GitHub means it */
		return zone(s, &east) ? (*out = (long long)timegm(&tm) - east, 0) : -1;
	}
	/* git's raw form "1760694800 +0000" */
	if (sscanf(s, "%lld%n", &epoch, &n) == 1 && n >= 9 && (!s[n] || s[n] == ' ') &&
	    (!s[n] || zone(s + n, &east)))
		return *out = epoch, 0;
	/* RFC 2822 (a mail's Date): "[Fri, ]17 Oct 2025 09:53:20 +0000" */
	if (strchr(s, ',') && strchr(s, ',') - s <= 4)
		s = strchr(s, ',') + 1;
	if (sscanf(s, "%2d %3s %4d %2d:%2d:%2d%n", &tm.tm_mday, mon, &tm.tm_year, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &n) == 6 && n) {
		const char *m = strlen(mon) == 3 ? strstr(months, mon) : NULL;

		if (!m || (m - months) % 3)
			return -1;
		tm.tm_mon = (int)((m - months) / 3);
		tm.tm_year -= 1900;
		if (!valid_tm(&tm) || !zone(s + n, &east))
			return -1;
		return *out = (long long)timegm(&tm) - east, 0;
	}
	return -1;
}

long long rm_commit_date(const char *s)
{
	long long t;

	return date_parse(s, &t) ? 0 : t;
}

int rm_commit_read_date(const char *value, const char *field, const char *what,
			long long *epoch, struct rm_error *err)
{
	char shown[80];

	*epoch = 0;
	if (!value || !*value)
		return 0;
	if (!date_parse(value, epoch))
		return 0;
	*epoch = 0;
	snprintf(shown, sizeof(shown), "%s", value);
	rm_error_scrub(shown);
	return rm_error_set(err, RM_ERR_INPUT,
			    "%s: field '%s' holds '%s', a date robotmail cannot read (expected"
			    " RFC 3339, 'YYYY-MM-DD hh:mm:ss +hhmm', git's raw 'epoch +hhmm' or"
			    " RFC 2822)", what, field, shown);
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void jset(json_t *o, const char *k, const char *v)
{
	if (v)
		json_object_set_new(o, k, json_string(v));
}

char *rm_commit_to_json(const struct rm_commit_facts *f)
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

int rm_commit_from_cache_json(struct rm_commit_facts *f, const char *json)
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
			rm_commit_add_file(f, p, strlen(p));
	}
	json_decref(o);
	if (!f->sha || !f->subject) {
		rm_commit_free(f);
		return -1;
	}
	return 0;
}

bool rm_commit_valid_sha(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && n <= 64 && strspn(s, "0123456789abcdefABCDEF") == n;
}
