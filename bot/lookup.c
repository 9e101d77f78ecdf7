/* lookup.c - see lookup.h. */
#include "lookup.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cgit.h"
#include "forge.h"
#include "localgit.h"
#include "strbuf.h"

static void failf(struct rm_lookup_req *r, enum rm_error_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void failf(struct rm_lookup_req *r, enum rm_error_kind kind, const char *fmt, ...)
{
	va_list ap;

	r->status = RM_LOOKUP_FAILED;
	r->error_kind = kind;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

/* ---- one lookup over HTTP: a conversation with the tree's provider */

enum stage { STAGE_COMMIT, STAGE_CGIT_PAGE, STAGE_SEARCH, STAGE_GITLAB_DIFF };

struct conv {
	struct rm_lookup_req *req;
	struct rm_gitweb_cred cred;
	enum stage stage;
	bool page_full;        /* the patch showed another commit (a merge) */
	unsigned diff_page;    /* GitLab: the diff page asked for */
	bool malformed;        /* the failure is an answer that does not parse */
	struct rm_forge_skim skim; /* JSON forges: the answer without its diffs */
};

/* A 200 answer that does not parse: counted (see RM_LOOKUP_MALFORMED_MAX). */
static void set_malformed(struct conv *c, const char *why)
{
	c->malformed = true;
	failf(c->req, RM_ERR_TEMP, "malformed response: %s", why);
}

static char *commit_url(const struct conv *c, const char *sha)
{
	const struct rm_tree_cfg *t = c->req->tree;

	if (t->provider == RM_PROVIDER_CGIT)
		return rm_cgit_patch_url(t->api, sha);
	return rm_forge_commit_url(t->provider, t->api, sha);
}

/* The facts are about the commit asked for (the sha, or the one the search
 * matched), or the lookup fails naming the server: a proxy or a forge that
 * answers for another commit must not put its facts in a report. */
static void settle_found(struct conv *c)
{
	struct rm_lookup_req *r = c->req;
	const char *want = r->facts.upstream_sha ? r->facts.upstream_sha : r->sha;

	if (!r->facts.sha || strncasecmp(r->facts.sha, want, strlen(want))) {
		failf(r, RM_ERR_TEMP, "%s answered for commit %.64s, not %s", r->tree->api,
		      r->facts.sha ? r->facts.sha : "(none)", want);
		return;
	}
	r->status = RM_LOOKUP_FOUND;
}

static bool ask(struct conv *c, char *url, struct rm_gitweb_call *next)
{
	next->url = url;
	rm_forge_headers(c->req->tree->provider, next->headers);
	if (c->req->tree->provider == RM_PROVIDER_CGIT && c->stage == STAGE_COMMIT)
		next->keep = rm_cgit_patch_keep; /* headers, message, file list: not the diff */
	else if (c->req->tree->provider == RM_PROVIDER_CGIT && c->stage == STAGE_CGIT_PAGE)
		next->keep = rm_cgit_page_keep;  /* up to the diffstat */
	else if (c->stage == STAGE_COMMIT || c->stage == STAGE_GITLAB_DIFF) {
		next->filter = rm_forge_skim;    /* headers and file list: not the patches */
		next->filter_ctx = &c->skim;
	}
	return true;
}

/* Does a Content-Type name JSON ("application/json", "...+json; ...")? */
static bool is_json(const char *ct)
{
	size_t i;

	for (i = 0; ct && ct[i] && ct[i] != ';'; i++)
		if (!strncasecmp(ct + i, "json", 4))
			return true;
	return false;
}

/* A commit answer (200): parse it; for cgit go on to the commit page. */
static bool got_commit(struct conv *c, const struct rm_gitweb_answer *a, struct rm_gitweb_call *next)
{
	struct rm_lookup_req *r = c->req;
	char *upstream = r->facts.upstream_sha;
	const char *want = upstream ? upstream : r->sha;
	struct rm_error e;
	int rc;

	r->facts.upstream_sha = NULL;
	if (r->tree->provider == RM_PROVIDER_CGIT)
		rc = rm_cgit_parse_patch(&r->facts, a->body, a->len, a->url, &e);
	else
		rc = rm_forge_parse_commit(&r->facts, r->tree->provider, a->body, a->len, a->url, &e);
	if (rc && r->tree->provider == RM_PROVIDER_CGIT && rm_cgit_empty_patch(a->body, a->len)) {
		/* an empty commit: valid, and described by its page alone */
		r->facts.upstream_sha = upstream;
		c->page_full = true;
		c->stage = STAGE_CGIT_PAGE;
		return ask(c, rm_cgit_page_url(r->tree->api, want), next);
	}
	if (rc && r->tree->provider != RM_PROVIDER_CGIT && !is_json(a->content_type)) {
		/* not the API's answer at all (a proxy's or a login page): that
		 * may change, so it is no malformed commit */
		char ct[128];

		free(upstream);
		snprintf(ct, sizeof(ct), "%s", a->content_type ? a->content_type : "");
		rm_error_scrub(ct);
		failf(r, RM_ERR_TEMP, "%s: HTTP 200 with Content-Type '%s', not JSON (a proxy or a "
		      "login page in the way?)", a->url, ct);
		return false;
	}
	if (rc) {
		free(upstream);
		set_malformed(c, e.msg);
		return false;
	}
	r->facts.upstream_sha = upstream;
	if (r->tree->provider != RM_PROVIDER_CGIT) {
		char other[256];

		if (rm_forge_check_repo(r->tree->provider, r->tree->api, a->body, a->len, other,
					sizeof(other))) {
			/* a moved repository or a confused proxy: the api: line needs a look */
			rm_error_scrub(other);
			failf(r, RM_ERR_CONFIG, "%s answered for repository '%s', not the one of tree "
			      "'%s' (%s); moved? check its api", a->url, other, r->tree->name, r->tree->api);
			return false;
		}
	}
	if (r->tree->provider == RM_PROVIDER_GITLAB) {
		/* its changed files are on another endpoint, paginated */
		settle_found(c);
		if (r->status != RM_LOOKUP_FOUND)
			return false;
		r->status = RM_LOOKUP_FAILED;
		c->stage = STAGE_GITLAB_DIFF;
		c->diff_page = 1;
		return ask(c, rm_forge_gitlab_diff_url(r->tree->api, r->facts.sha, 1), next);
	}
	if (r->tree->provider != RM_PROVIDER_CGIT) {
		settle_found(c);
		return false;
	}
	/* committer and parent are on the commit page; a merge's /patch/
	 * shows another commit, so take all from the page */
	c->page_full = strncasecmp(r->facts.sha, want, strlen(want)) != 0;
	if (c->page_full) {
		char *keep = r->facts.upstream_sha;

		r->facts.upstream_sha = NULL;
		rm_commit_free(&r->facts);
		r->facts.upstream_sha = keep;
	}
	c->stage = STAGE_CGIT_PAGE;
	return ask(c, rm_cgit_page_url(r->tree->api, want), next);
}

static bool step(void *ctx, const struct rm_gitweb_answer *a, struct rm_gitweb_call *next)
{
	struct conv *c = ctx;
	struct rm_lookup_req *r = c->req;
	const struct rm_tree_cfg *t = r->tree;

	if (!a) {
		c->stage = STAGE_COMMIT;
		return ask(c, commit_url(c, r->sha), next);
	}
	if (a->status == 200) {
		struct rm_error e;
		char *sha;

		switch (c->stage) {
		case STAGE_SEARCH:
			sha = t->provider == RM_PROVIDER_CGIT ?
				      rm_cgit_search_result(a->body, a->len, r->subject) :
				      rm_forge_search_result(t->provider, a->body, a->len, r->subject);
			if (!sha) {
				r->status = RM_LOOKUP_UNKNOWN;
				return false;
			}
			/* fetch the matched commit by its upstream sha */
			free(r->facts.upstream_sha);
			r->facts.upstream_sha = sha;
			c->stage = STAGE_COMMIT;
			return ask(c, commit_url(c, sha), next);
		case STAGE_CGIT_PAGE:
			if (rm_cgit_parse_page(&r->facts, a->body, a->len, c->page_full, a->url, &e)) {
				set_malformed(c, e.msg);
				return false;
			}
			settle_found(c);
			return false;
		case STAGE_COMMIT:
			return got_commit(c, a, next);
		case STAGE_GITLAB_DIFF: {
			size_t n;

			if (rm_forge_gitlab_diff(&r->facts, a->body, a->len, a->url, &n, &e)) {
				set_malformed(c, e.msg);
				return false;
			}
			if (n >= RM_FORGE_DIFF_PAGE && c->diff_page < RM_FORGE_DIFF_MAX_PAGES)
				return ask(c, rm_forge_gitlab_diff_url(t->api, r->facts.sha, ++c->diff_page),
					   next);
			r->status = RM_LOOKUP_FOUND;
			return false;
		}
		}
	}
	if (c->stage == STAGE_GITLAB_DIFF && a->status != 401 && a->status != 403) {
		failf(r, RM_ERR_TEMP, "%s: HTTP %ld for the commit's changed files", a->url, a->status);
		return false;
	}
	if (a->status == 404 || a->status == 422) {
		/* unknown upstream: try the subject when the provider can search */
		if (c->stage == STAGE_COMMIT && r->subject && !r->facts.upstream_sha) {
			char *url = t->provider == RM_PROVIDER_CGIT ?
					    rm_cgit_search_url(t->api, r->subject) :
					    rm_forge_search_url(t->provider, t->api, r->subject);

			if (url) {
				c->stage = STAGE_SEARCH;
				return ask(c, url, next);
			}
		}
		r->status = RM_LOOKUP_UNKNOWN;
		return false;
	}
	if (a->status == 401 || a->status == 403) {
		/* not a rate limit (gitweb.c waits those out): the credentials */
		if (t->token_env || t->token_file)
			failf(r, RM_ERR_CONFIG,
			      "%s: HTTP %ld: the API refuses the token of tree '%s' (%s %s); "
			      "check that it is valid and may read the repository",
			      a->url, a->status, t->name, t->token_env ? "token_env" : "token_file",
			      t->token_env ? t->token_env : t->token_file);
		else
			failf(r, RM_ERR_CONFIG,
			      "%s: HTTP %ld: the API wants credentials; give tree '%s' a token_file "
			      "or token_env", a->url, a->status, t->name);
		return false;
	}
	if (c->stage == STAGE_SEARCH) {
		/* the commit itself was unknown; a search the provider refuses
		 * leaves it unknown */
		r->status = RM_LOOKUP_UNKNOWN;
		return false;
	}
	failf(r, RM_ERR_TEMP, "%s: unexpected HTTP %ld", a->url, a->status);
	return false;
}

static void fail(void *ctx, enum rm_gitweb_fail_kind kind, const char *why)
{
	struct conv *c = ctx;

	if (kind == RM_GITWEB_TOO_BIG)
		/* what robotmail needs of a commit (headers, message, file list)
		 * will not shrink: the commit fails for good, named */
		failf(c->req, RM_ERR_INPUT, "%s (the commit's headers, message and file list "
		      "alone; the diff is not read)", why);
	else
		failf(c->req, kind == RM_GITWEB_CONFIG ? RM_ERR_CONFIG : RM_ERR_TEMP, "%s", why);
}

/* ---- the cache */

static void when(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* What a malformed-answer record means for the lookup: a temporary failure
 * until it has been seen RM_LOOKUP_MALFORMED_MAX times in a row, then a
 * permanent one naming the reason. */
static void malformed_verdict(struct rm_lookup_req *r)
{
	const struct rm_commit_miss *m = &r->miss;
	char first[32], next[32];

	when(m->first_at, first, sizeof(first));
	when(m->next_at, next, sizeof(next));
	if (m->attempts >= RM_LOOKUP_MALFORMED_MAX)
		failf(r, RM_ERR_INPUT, "the git web API of tree '%s' gave an answer that does not "
		      "parse %u times in a row since %s: %s", r->tree->name, m->attempts, first,
		      m->failure);
	else
		failf(r, RM_ERR_TEMP, "malformed response: %s (%u of %d before the commit fails; "
		      "asked again after %s)", m->failure, m->attempts, RM_LOOKUP_MALFORMED_MAX, next);
}

/* Count an ask that gave no facts (failure "" a miss, else the malformed
 * answer) into r->miss, set its next ask, and keep it when the cache can. */
static void count_failure(const struct rm_commit_cache *cache, struct rm_lookup_req *r,
			  const char *failure)
{
	struct rm_commit_miss *m = &r->miss;
	long long now = (long long)time(NULL), wait = RM_LOOKUP_FIRST_WAIT;
	long cap = cache ? cache->miss_cap : 0;
	unsigned i;

	if (!m->attempts || !*m->failure != !*failure) {
		m->attempts = 0; /* a new kind of failure starts its own count */
		m->first_at = now;
	}
	m->attempts++;
	m->last_at = now;
	for (i = 1; i < m->attempts && wait < cap; i++)
		wait *= 2;
	if (wait > cap)
		wait = cap;
	m->next_at = now + wait;
	snprintf(m->failure, sizeof(m->failure), "%s", failure);
	if (cache && cache->miss_put)
		cache->miss_put(cache->ctx, r->tree->name, r->sha, m);
	else if (cache && cache->put && !cache->miss_get && !*failure)
		cache->put(cache->ctx, r->tree->name, r->sha, false, NULL);
}

static void cache_store(const struct rm_commit_cache *cache, struct rm_lookup_req *r,
			bool malformed_answer)
{
	if (r->from_cache)
		return;
	if (r->status == RM_LOOKUP_FAILED) {
		if (malformed_answer) {
			count_failure(cache, r, r->error + (strncmp(r->error, "malformed response: ", 20) ?
								    0 : 20));
			malformed_verdict(r);
		}
		return;
	}
	if (r->status == RM_LOOKUP_UNKNOWN) {
		count_failure(cache, r, "");
		return;
	}
	if (!cache || !cache->put)
		return;
	{
		char *json = rm_commit_to_json(&r->facts);

		cache->put(cache->ctx, r->tree->name, r->sha, true, json);
		/* also under the full sha, so abbreviated and full lookups share */
		if (r->facts.sha && strcmp(r->facts.sha, r->sha) && !r->facts.upstream_sha)
			cache->put(cache->ctx, r->tree->name, r->facts.sha, true, json);
		free(json);
	}
}

/* A found commit, or a miss (or malformed answer) whose next ask is not due:
 * answered from the cache (true).  Else false, with r->miss holding the
 * asks so far. */
static bool cache_lookup(const struct rm_commit_cache *cache, struct rm_lookup_req *r)
{
	char *json = NULL;
	bool found = false;
	int got;

	if (!cache || !cache->get)
		return false;
	got = cache->get(cache->ctx, r->tree->name, r->sha, &json, &found);
	if (got == 1 && found) {
		int bad = !json || rm_commit_from_cache_json(&r->facts, json);

		free(json);
		if (bad)
			return false; /* a damaged entry: look it up again */
		r->status = RM_LOOKUP_FOUND;
		r->from_cache = true;
		return true;
	}
	free(json);
	if (cache->miss_get) {
		long long now = (long long)time(NULL);

		int mg = cache->miss_get(cache->ctx, r->tree->name, r->sha, &r->miss);

		if (mg == 1) {
			if (r->miss.next_at <= now ||
			    (r->fresh_after && r->miss.last_at < r->fresh_after))
				return false; /* due: ask again */
			r->from_cache = true;
			if (*r->miss.failure)
				malformed_verdict(r);
			else
				r->status = RM_LOOKUP_UNKNOWN;
			return true;
		}
		memset(&r->miss, 0, sizeof(r->miss));
		if (mg == 0)
			return false;
		/* unreadable (a read-only store from before the miss records):
		 * a miss as get says, uncounted */
	}
	if (got != 1)
		return false;
	r->status = RM_LOOKUP_UNKNOWN;
	r->from_cache = true;
	return true;
}

static void lookup_local(struct rm_lookup_req *r)
{
	struct rm_error e;
	int got = rm_localgit_lookup(r->tree->api, r->sha, &r->facts, &r->requests, &e);

	if (got < 0)
		failf(r, e.kind, "%s", e.msg);
	else
		r->status = got ? RM_LOOKUP_FOUND : RM_LOOKUP_UNKNOWN;
}

int rm_lookup_run(struct rm_lookup_req *reqs, size_t n, const struct rm_gitweb_opts *o,
		  const struct rm_commit_cache *cache, struct rm_error *err)
{
	struct conv *convs = rm_xcalloc(n + 1, sizeof(*convs));
	struct rm_gitweb_job *jobs = rm_xcalloc(n + 1, sizeof(*jobs));
	size_t i, njobs = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		struct rm_lookup_req *r = &reqs[i];
		struct conv *c;

		memset(&r->facts, 0, sizeof(r->facts));
		memset(&r->miss, 0, sizeof(r->miss));
		r->error[0] = '\0';
		r->requests = 0;
		r->from_cache = false;
		r->status = RM_LOOKUP_FAILED;
		r->error_kind = RM_ERR_TEMP;
		if (!r->tree || r->tree->provider == RM_PROVIDER_NONE) {
			failf(r, RM_ERR_TEMP, "tree '%s' has no git web API configured",
			      r->tree ? r->tree->name : "?");
			continue;
		}
		if (!rm_commit_valid_sha(r->sha)) {
			failf(r, RM_ERR_TEMP, "'%.80s' is not a commit sha", r->sha);
			continue;
		}
		if (cache_lookup(cache, r))
			continue;
		if (r->tree->provider == RM_PROVIDER_LOCAL_GIT) {
			lookup_local(r);
			cache_store(cache, r, false);
			continue;
		}
		c = &convs[njobs];
		c->req = r;
		c->cred.base = r->tree->api;
		c->cred.token_env = r->tree->token_env;
		c->cred.token_file = r->tree->token_file;
		c->cred.auth = rm_forge_auth(r->tree->provider);
		jobs[njobs].ctx = c;
		jobs[njobs].cred = &c->cred;
		jobs[njobs].step = step;
		jobs[njobs].fail = fail;
		njobs++;
	}
	if (njobs && rm_gitweb_run(jobs, njobs, o, err))
		rc = -1;
	for (i = 0; i < njobs && !rc; i++) {
		convs[i].req->requests += jobs[i].requests;
		cache_store(cache, convs[i].req, convs[i].malformed);
	}
	free(jobs);
	free(convs);
	return rc;
}

void rm_lookup_format(const struct rm_lookup_req *r, struct rm_sb *out)
{
	const struct rm_commit_facts *f = &r->facts;
	size_t i;

	rm_sb_addf(out, "sha: %s\n", f->sha ? f->sha : "");
	if (f->upstream_sha)
		rm_sb_addf(out, "matched-by-subject: %s\n", f->upstream_sha);
	rm_sb_addf(out, "subject: %s\n", f->subject ? f->subject : "");
	rm_sb_addf(out, "author: %s <%s>\n", f->author.name ? f->author.name : "",
		   f->author.email ? f->author.email : "");
	if (f->committer.name || f->committer.email)
		rm_sb_addf(out, "committer: %s <%s>\n", f->committer.name ? f->committer.name : "",
			   f->committer.email ? f->committer.email : "");
	if (f->date)
		rm_sb_addf(out, "date: %s\n", f->date);
	if (f->commit_time) {
		char stamp[32];
		struct tm tm;
		time_t t = (time_t)f->commit_time;

		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
		rm_sb_addf(out, "committed: %s\n", stamp);
	}
	if (f->parent)
		rm_sb_addf(out, "parent: %s\n", f->parent);
	if (f->patch_msgid)
		rm_sb_addf(out, "patch-message-id: <%s>\n", f->patch_msgid);
	for (i = 0; i < f->ntrailers; i++)
		rm_sb_addf(out, "trailer: %s: %s\n", f->trailers[i].key, f->trailers[i].value);
	for (i = 0; i < f->nfiles; i++)
		rm_sb_addf(out, "file: %s\n", f->files[i]);
	rm_sb_addf(out, "source: %s (%u request%s)\n", r->from_cache ? "cache" : "network", r->requests,
		   r->requests == 1 ? "" : "s");
}

/* ---- ancestry over HTTP: one request */

struct anc {
	const struct rm_tree_cfg *tree;
	const char *ancestor;
	char *url;        /* the first request's, until the engine takes it */
	long status;
	char *body;
	size_t len;
	char why[512];    /* the engine gave up: why */
};

static bool anc_step(void *ctx, const struct rm_gitweb_answer *a, struct rm_gitweb_call *next)
{
	struct anc *c = ctx;

	if (a) {
		c->status = a->status;
		c->body = rm_xmalloc(a->len + 1);
		memcpy(c->body, a->body, a->len);
		c->body[a->len] = '\0';
		c->len = a->len;
		return false;
	}
	next->url = c->url;
	c->url = NULL;
	rm_forge_headers(c->tree->provider, next->headers);
	return true;
}

static void anc_fail(void *ctx, enum rm_gitweb_fail_kind kind, const char *why)
{
	struct anc *c = ctx;

	(void)kind;
	snprintf(c->why, sizeof(c->why), "%s", why);
}

int rm_lookup_is_ancestor(const struct rm_tree_cfg *tree, const struct rm_gitweb_opts *o,
			  const char *ancestor, const char *commit, struct rm_error *err)
{
	struct rm_gitweb_cred cred;
	struct rm_gitweb_job job;
	struct anc c;
	char why[256];
	int rc;

	if (!rm_commit_valid_sha(ancestor) || !rm_commit_valid_sha(commit))
		return rm_error_set(err, RM_ERR_INPUT, "'%s' or '%s' is no commit sha", ancestor,
				    commit);
	if (tree->provider == RM_PROVIDER_LOCAL_GIT)
		return rm_localgit_is_ancestor(tree->api, ancestor, commit, err);
	memset(&c, 0, sizeof(c));
	c.tree = tree;
	c.ancestor = ancestor;
	c.url = rm_forge_ancestry_url(tree->provider, tree->api, ancestor, commit);
	if (!c.url)
		return rm_error_set(err, RM_ERR_CONFIG, "tree %s's provider %s tells no ancestry",
				    tree->name, rm_config_provider_name(tree->provider));
	cred.base = tree->api;
	cred.token_env = tree->token_env;
	cred.token_file = tree->token_file;
	cred.auth = rm_forge_auth(tree->provider);
	memset(&job, 0, sizeof(job));
	job.ctx = &c;
	job.cred = &cred;
	job.step = anc_step;
	job.fail = anc_fail;
	if (rm_gitweb_run(&job, 1, o, err)) {
		free(c.url);
		free(c.body);
		return -1;
	}
	if (c.why[0])
		rc = rm_error_set(err, RM_ERR_TEMP, "%s", c.why);
	else if (c.status != 200)
		rc = rm_error_set(err, RM_ERR_TEMP, "tree %s: HTTP %ld asking whether %s contains %s",
				  tree->name, c.status, commit, ancestor);
	else if ((rc = rm_forge_ancestry(tree->provider, c.body, c.len, ancestor, why,
					 sizeof(why))) < 0)
		rc = rm_error_set(err, RM_ERR_TEMP, "tree %s: asking whether %s contains %s: %s",
				  tree->name, commit, ancestor, why);
	free(c.url);
	free(c.body);
	return rc;
}
