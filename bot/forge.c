/* forge.c - see forge.h. */
#include "forge.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonload.h"
#include "strbuf.h"

static void set(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? rm_xstrdup(v) : NULL;
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* An email member; one holding a NUL byte ("\u0000") reads as empty, never
 * as its text up to the NUL: cut there, "a@example.org\u0000b" would turn
 * into another, valid, address. */
static const char *jaddr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_string(v))
		return NULL;
	return strlen(json_string_value(v)) == json_string_length(v) ? json_string_value(v) : "";
}

static void set_clean(char **dst, const char *v)
{
	set(dst, v);
	rm_commit_clean(*dst);
}

int rm_forge_parse_commit(struct rm_commit_facts *f, enum rm_provider p, const char *buf,
		       size_t len, const char *what, struct rm_error *err)
{
	json_t *j = rm_json_load(what, buf, len, NULL, err);
	const char *message = NULL;
	const char *adate_field, *cdate_field, *adate, *cdate;
	long long unused;

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
		set_clean(&f->author.email, jaddr(j, "author_email"));
		set_clean(&f->committer.name, jstr(j, "committer_name"));
		set_clean(&f->committer.email, jaddr(j, "committer_email"));
		adate_field = "authored_date";
		adate = jstr(j, adate_field);
		cdate_field = "committed_date";
		cdate = jstr(j, cdate_field);
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
		set_clean(&f->author.email, jaddr(a, "email"));
		adate_field = "commit.author.date";
		adate = jstr(a, "date");
		set_clean(&f->committer.name, jstr(m, "name"));
		set_clean(&f->committer.email, jaddr(m, "email"));
		cdate_field = "commit.committer.date";
		cdate = jstr(m, "date");
		if (json_is_array(parents) && json_array_size(parents))
			set(&f->parent, jstr(json_array_get(parents, 0), "sha"));
		for (i = 0; json_is_array(files) && i < json_array_size(files); i++) {
			const char *fn = jstr(json_array_get(files, i), "filename");

			if (fn)
				rm_commit_add_file(f, fn, strlen(fn));
		}
	}
	if (!f->sha || !message || strspn(f->sha, "0123456789abcdefABCDEF") != strlen(f->sha) ||
	    strlen(f->sha) < 40) {
		json_decref(j);
		rm_commit_free(f);
		return rm_error_set(err, RM_ERR_INPUT,
				    "%s: expected a commit object with a full sha and a message", what);
	}
	/* a date no form reads fails the answer (naming the field), never a wrong date */
	if (rm_commit_read_date(adate, adate_field, what, &unused, err) ||
	    rm_commit_read_date(cdate, cdate_field, what, &f->commit_time, err)) {
		json_decref(j);
		rm_commit_free(f);
		return -1;
	}
	set_clean(&f->date, adate);
	rm_commit_set_message(f, message);
	json_decref(j);
	return 0;
}


/* A hand-written byte scanner rather than a streaming JSON library (yajl
 * and json-c's tokener would be a second JSON dependency beside jansson):
 * it only needs to know strings, escapes and ':'; jansson then parses what
 * it kept and judges its syntax. */
void rm_forge_skim(void *ctx, const char *data, size_t len, struct rm_sb *out)
{
	struct rm_forge_skim *k = ctx;
	size_t i, start = 0;

	if (!data) {
		memset(k, 0, sizeof(*k));
		return;
	}
	for (i = 0; i < len; i++) {
		char ch = data[i];

		if (k->mode == 2) {
			/* a dropped value: find its end, keep nothing of it */
			if (k->esc)
				k->esc = false;
			else if (ch == '\\')
				k->esc = true;
			else if (ch == '"') {
				k->mode = 0;
				start = i; /* keep the closing quote */
			}
			continue;
		}
		if (k->mode == 1) {
			if (k->esc)
				k->esc = false;
			else if (ch == '\\')
				k->esc = true;
			else if (ch == '"') {
				k->mode = 0;
				k->was_string = true;
				continue;
			}
			if (k->keylen < sizeof(k->key))
				k->key[k->keylen] = ch;
			k->keylen++;
			continue;
		}
		if (ch == '"') {
			if (k->drop_next) {
				/* keep up to the opening quote, drop the value */
				rm_sb_add(out, data + start, i + 1 - start);
				start = len; /* set again at the closing quote */
				k->mode = 2;
			} else {
				k->mode = 1;
				k->keylen = 0;
			}
			k->drop_next = k->was_string = false;
		} else if (ch == ':') {
			k->drop_next = k->was_string &&
				       ((k->keylen == 5 && !memcmp(k->key, "patch", 5)) ||
					(k->keylen == 4 && !memcmp(k->key, "diff", 4)));
			k->was_string = false;
		} else if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
			k->drop_next = k->was_string = false;
		}
	}
	if (k->mode != 2 && start < len)
		rm_sb_add(out, data + start, len - start);
}

char *rm_forge_search_result(enum rm_provider p, const char *body, size_t len,
			     const char *subject)
{
	char *found = NULL;
	json_error_t je;
	json_t *j = json_loadb(body, len, 0, &je);
	json_t *items = p == RM_PROVIDER_GITHUB ? json_object_get(j, "items") : j;
	size_t i;

	for (i = 0; !found && json_is_array(items) && i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);
		const char *msg = p == RM_PROVIDER_GITHUB ? jstr(json_object_get(it, "commit"), "message") :
							    jstr(it, "title");
		const char *sha = jstr(it, p == RM_PROVIDER_GITHUB ? "sha" : "id");
		size_t sl = strlen(subject);

		if (msg && sha && !strncmp(msg, subject, sl) && (msg[sl] == '\0' || msg[sl] == '\n') &&
		    rm_commit_valid_sha(sha))
			found = rm_xstrdup(sha);
	}
	json_decref(j);
	return found;
}

char *rm_forge_commit_url(enum rm_provider p, const char *api, const char *sha)
{
	struct rm_sb u = RM_SB_INIT;

	rm_sb_init(&u);
	switch (p) {
	case RM_PROVIDER_GITHUB:
		rm_sb_addf(&u, "%s/commits/%s", api, sha);
		break;
	case RM_PROVIDER_GITEA:
		rm_sb_addf(&u, "%s/git/commits/%s", api, sha);
		break;
	case RM_PROVIDER_GITLAB:
		rm_sb_addf(&u, "%s/repository/commits/%s", api, sha);
		break;
	default:
		rm_sb_release(&u);
		return NULL;
	}
	return rm_sb_detach(&u, NULL);
}

char *rm_forge_ancestry_url(enum rm_provider p, const char *api, const char *ancestor,
			    const char *commit)
{
	if (p == RM_PROVIDER_GITHUB)
		return rm_xstrfmt("%s/compare/%s...%s", api, ancestor, commit);
	if (p == RM_PROVIDER_GITLAB) /* refs[]= percent-encoded */
		return rm_xstrfmt("%s/repository/merge_base?refs%%5B%%5D=%s&refs%%5B%%5D=%s", api,
				  ancestor, commit);
	/* Gitea's compare has no status, only the commits head has that base
	 * has not (git log base..head); asked the other way round, none means
	 * `ancestor` is in `commit`'s history */
	if (p == RM_PROVIDER_GITEA)
		return rm_xstrfmt("%s/compare/%s...%s", api, commit, ancestor);
	return NULL;
}

int rm_forge_ancestry(enum rm_provider p, const char *body, size_t len, const char *ancestor,
		      char *why, size_t n)
{
	json_error_t je;
	json_t *j = json_loadb(body, len, 0, &je);
	const char *v = jstr(j, p == RM_PROVIDER_GITHUB ? "status" : "id");
	int rc = -1;

	if (p == RM_PROVIDER_GITEA) {
		json_t *t = json_is_object(j) ? json_object_get(j, "total_commits") : NULL;

		if (!json_is_integer(t) || json_integer_value(t) < 0)
			snprintf(why, n, "the answer has no \"total_commits\" count");
		else
			rc = json_integer_value(t) == 0;
		json_decref(j);
		return rc;
	}
	if (!v)
		snprintf(why, n, "the answer has no \"%s\"", p == RM_PROVIDER_GITHUB ? "status" : "id");
	else if (p == RM_PROVIDER_GITLAB)
		rc = rm_commit_valid_sha(v) && !strncasecmp(v, ancestor, strlen(ancestor));
	else if (!strcmp(v, "ahead") || !strcmp(v, "identical"))
		rc = 1;
	else if (!strcmp(v, "behind") || !strcmp(v, "diverged"))
		rc = 0;
	else
		snprintf(why, n, "unknown compare status '%.40s'", v);
	json_decref(j);
	return rc;
}

char *rm_forge_search_url(enum rm_provider p, const char *api, const char *subject)
{
	struct rm_sb u = RM_SB_INIT;
	char *q;

	if (p != RM_PROVIDER_GITHUB && p != RM_PROVIDER_GITLAB)
		return NULL;
	q = rm_gitweb_escape(subject);
	rm_sb_init(&u);
	if (p == RM_PROVIDER_GITLAB) {
		rm_sb_addf(&u, "%s/search?scope=commits&search=%s", api, q);
	} else {
		/* https://api.github.com/repos/OWNER/REPO -> /search/commits?q=repo:OWNER/REPO+... */
		const char *rp = strstr(api, "/repos/");

		if (!rp) {
			free(q);
			rm_sb_release(&u);
			return NULL;
		}
		rm_sb_add(&u, api, (size_t)(rp - api));
		rm_sb_addf(&u, "/search/commits?q=repo:%s+%s", rp + 7, q);
	}
	free(q);
	return rm_sb_detach(&u, NULL);
}

void rm_forge_headers(enum rm_provider p, const char *hdr[RM_GITWEB_MAX_HEADERS + 1])
{
	size_t n = 0;

	if (p == RM_PROVIDER_GITHUB) {
		hdr[n++] = "Accept: application/vnd.github+json";
		hdr[n++] = "X-GitHub-Api-Version: 2022-11-28";
	}
	hdr[n] = NULL;
}

enum rm_gitweb_auth rm_forge_auth(enum rm_provider p)
{
	if (p == RM_PROVIDER_GITLAB)
		return RM_GITWEB_AUTH_GITLAB;
	if (p == RM_PROVIDER_GITEA)
		return RM_GITWEB_AUTH_TOKEN;
	return RM_GITWEB_AUTH_BEARER;
}

char *rm_forge_gitlab_diff_url(const char *api, const char *sha, unsigned page)
{
	struct rm_sb u = RM_SB_INIT;

	rm_sb_init(&u);
	rm_sb_addf(&u, "%s/repository/commits/%s/diff?per_page=%d&page=%u", api, sha,
		   RM_FORGE_DIFF_PAGE, page);
	return rm_sb_detach(&u, NULL);
}

int rm_forge_gitlab_diff(struct rm_commit_facts *f, const char *buf, size_t len, const char *what,
			 size_t *entries, struct rm_error *err)
{
	json_t *j = rm_json_load(what, buf, len, NULL, err);
	size_t i;

	*entries = 0;
	if (!j)
		return -1;
	if (!json_is_array(j)) {
		json_decref(j);
		return rm_error_set(err, RM_ERR_INPUT, "%s: expected a JSON array of changes", what);
	}
	for (i = 0; i < json_array_size(j); i++) {
		json_t *d = json_array_get(j, i);
		const char *np = jstr(d, "new_path"), *op = jstr(d, "old_path");

		if (np)
			rm_commit_add_file(f, np, strlen(np));
		if (op && (!np || strcmp(op, np)))
			rm_commit_add_file(f, op, strlen(op));
	}
	*entries = json_array_size(j);
	json_decref(j);
	return 0;
}

/* The first `n` '/'-separated segments of s (from its start), length. */
static size_t segments(const char *s, int n)
{
	size_t i = 0;

	while (s[i] && n > 0) {
		i++;
		i += strcspn(s + i, "/?#");
		if (s[i] != '/')
			break;
		n--;
	}
	return i;
}

int rm_forge_check_repo(enum rm_provider p, const char *api, const char *buf, size_t len,
			char *why, size_t whylen)
{
	json_error_t je;
	json_t *j;
	const char *u, *want, *got;
	size_t wl, gl;
	char *decoded = NULL;
	int rc = 0;

	if (p == RM_PROVIDER_GITLAB) {
		/* .../projects/GROUP%2FPROJECT vs web_url https://host/GROUP/PROJECT/-/commit/SHA */
		const char *pp = strstr(api, "/projects/");

		if (!pp || !strstr(pp, "%2F"))
			return 0;
		decoded = rm_gitweb_unescape(pp + 9);
		want = decoded;
	} else {
		want = strstr(api, "/repos/");
		if (!want)
			return 0;
	}
	j = json_loadb(buf, len, 0, &je);
	u = jstr(j, p == RM_PROVIDER_GITLAB ? "web_url" : "url");
	if (!u) {
		json_decref(j);
		free(decoded);
		return 0;
	}
	if (p == RM_PROVIDER_GITLAB) {
		/* the path of web_url up to "/-/" */
		const char *host = strstr(u, "://");
		const char *dash;

		got = host ? strchr(host + 3, '/') : NULL;
		dash = got ? strstr(got, "/-/") : NULL;
		gl = got && dash ? (size_t)(dash - got) : 0;
		wl = strlen(want);
	} else {
		got = strstr(u, "/repos/");
		wl = segments(want, 3); /* "/repos/OWNER/REPO" */
		gl = got ? segments(got, 3) : 0;
	}
	if (got && (gl != wl || strncasecmp(got, want, wl))) {
		snprintf(why, whylen, "%.*s", (int)gl, got);
		rc = -1;
	}
	json_decref(j);
	free(decoded);
	return rc;
}
