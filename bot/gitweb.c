/* gitweb.c - see gitweb.h. */
#include "gitweb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dynlib_curl.h"
#include "fileutil.h"
#include "strbuf.h"

#define GITWEB_MAX_RATE_WAITS 3

void rm_gitweb_opts_from_config(struct rm_gitweb_opts *o, const struct rm_config *c)
{
	o->connect_timeout = c->connect_timeout;
	o->timeout = c->timeout;
	o->retries = c->retries;
	o->concurrency = c->concurrency;
	o->max_wait = c->max_wait;
	o->backoff_ms = 500;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *rm_gitweb_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *r = rm_xstrdup(e ? e : "");

	curl_free(e);
	return r;
}

char *rm_gitweb_unescape(const char *s)
{
	char *e = curl_easy_unescape(NULL, s, 0, NULL);
	char *r = rm_xstrdup(e ? e : "");

	curl_free(e);
	return r;
}

/* ---- origins and credentials */

/* "scheme://host:port" of a URL (lower case, the port made explicit), or
 * NULL when it is no absolute http(s) URL.  malloc()ed. */
static char *origin_of(const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;

	if (u && !curl_url_set(u, CURLUPART_URL, url, 0) &&
	    !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	    !curl_url_get(u, CURLUPART_HOST, &host, 0) &&
	    !curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) {
		struct rm_sb sb = RM_SB_INIT;
		char *c;

		rm_sb_init(&sb);
		rm_sb_addf(&sb, "%s://%s:%s", scheme, host, port);
		for (c = sb.buf; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		out = rm_sb_detach(&sb, NULL);
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

bool rm_gitweb_same_origin(const char *a, const char *b)
{
	char *oa = origin_of(a), *ob = origin_of(b);
	bool same = oa && ob && !strcmp(oa, ob);

	free(oa);
	free(ob);
	return same;
}

/* The token of cred: 0 with *token (malloc()ed, NULL when none is
 * configured), -1 with why when the configured file cannot be read. */
static int read_token(const struct rm_gitweb_cred *c, char **token, char *why, size_t len)
{
	*token = NULL;
	if (!c)
		return 0;
	if (c->token_env && getenv(c->token_env) && *getenv(c->token_env)) {
		*token = rm_xstrdup(getenv(c->token_env));
		return 0;
	}
	if (c->token_file) {
		char *buf;
		size_t n;
		struct rm_error e;

		if (rm_read_file(c->token_file, 4096, &buf, &n, &e)) {
			snprintf(why, len, "%s", e.msg);
			return -1;
		}
		buf[strcspn(buf, "\r\n")] = '\0';
		*token = buf;
	}
	return 0;
}

/* ---- transfers */

struct xfer {
	struct rm_gitweb_job *job;
	CURL *easy;
	struct curl_slist *headers;
	struct rm_gitweb_call call;
	char *url;             /* the URL of this hop (call.url or a redirect's target) */
	char *token;
	struct rm_sb body;
	struct rm_sb line;     /* with a line filter: the line not yet ended */
	bool stopped;          /* the filter had what it needs: the answer is complete */
	bool too_big;
	long retry_after;      /* seconds, from Retry-After */
	long long rate_reset;  /* epoch seconds, from X-RateLimit-Reset */
	bool rate_exhausted;   /* X-RateLimit-Remaining: 0 */
	char content_type[128];
	long attempts;         /* failed attempts of the current request */
	long rate_waits;
	long redirects;        /* hops followed for the current request */
	long long start_at;    /* monotonic ms: not before */
	bool running, done;
};

/* Offer one line (or the unterminated end) to the call's filter. */
static bool keep_line(struct xfer *x, const char *line, size_t len)
{
	enum rm_gitweb_keep k = x->call.keep(x->body.buf, x->body.len, line, len);

	if (k == RM_GITWEB_DROP)
		return true;
	if (x->body.len + len > RM_GITWEB_MAX_BODY) {
		x->too_big = true;
		return false;
	}
	rm_sb_add(&x->body, line, len);
	if (k == RM_GITWEB_STOP) {
		x->stopped = true;
		return false;
	}
	return true;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	size_t n = size * nmemb, i, start = 0;

	if (!x->call.keep && x->call.filter) {
		x->call.filter(x->call.filter_ctx, data, n, &x->body);
		if (x->body.len > RM_GITWEB_MAX_BODY) {
			x->too_big = true;
			return 0;
		}
		return n;
	}
	if (!x->call.keep) {
		if (x->body.len + n > RM_GITWEB_MAX_BODY) {
			x->too_big = true;
			return 0; /* abort the transfer */
		}
		rm_sb_add(&x->body, data, n);
		return n;
	}
	/* line by line through the filter; a line split between two calls
	 * waits in x->line */
	for (i = 0; i < n; i++) {
		if (data[i] != '\n')
			continue;
		if (x->line.len) {
			rm_sb_add(&x->line, data + start, i + 1 - start);
			if (!keep_line(x, x->line.buf, x->line.len))
				return 0;
			rm_sb_reset(&x->line);
		} else if (!keep_line(x, data + start, i + 1 - start)) {
			return 0;
		}
		start = i + 1;
	}
	rm_sb_add(&x->line, data + start, n - start);
	if (x->line.len > RM_GITWEB_MAX_LINE) {
		/* a very long line: hand it over in pieces */
		if (!keep_line(x, x->line.buf, x->line.len))
			return 0;
		rm_sb_reset(&x->line);
	}
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
	if (!strncasecmp(line, "Retry-After:", 12)) {
		/* seconds, or an HTTP date (RFC 9110) */
		const char *v = line + 12 + strspn(line + 12, " \t");

		if (*v >= '0' && *v <= '9') {
			x->retry_after = strtol(v, NULL, 10);
		} else {
			time_t when = curl_getdate(v, NULL);

			if (when > 0)
				x->retry_after = when > time(NULL) ? (long)(when - time(NULL)) : 1;
		}
	}
	else if (!strncasecmp(line, "X-RateLimit-Reset:", 18))
		x->rate_reset = strtoll(line + 18, NULL, 10);
	else if (!strncasecmp(line, "RateLimit-Reset:", 16))
		x->retry_after = strtol(line + 16, NULL, 10);
	else if (!strncasecmp(line, "X-RateLimit-Remaining:", 22))
		x->rate_exhausted = strtol(line + 22, NULL, 10) == 0;
	else if (!strncasecmp(line, "Content-Type:", 13)) {
		const char *v = line + 13 + strspn(line + 13, " \t");

		snprintf(x->content_type, sizeof(x->content_type), "%.*s", (int)strcspn(v, "\r\n"), v);
	}
	return n;
}

/* Does this hop's URL have the origin the credentials were configured for? */
static bool token_goes(const struct xfer *x)
{
	return x->token && rm_gitweb_same_origin(x->job->cred->base, x->url);
}

/* Every curl option of every request robotmail makes is set here. */
static void xfer_setup(struct xfer *x, const struct rm_gitweb_opts *o)
{
	size_t i;

	curl_easy_reset(x->easy);
	rm_sb_reset(&x->body);
	rm_sb_reset(&x->line);
	if (x->call.filter)
		x->call.filter(x->call.filter_ctx, NULL, 0, NULL);
	x->stopped = false;
	x->too_big = false;
	x->retry_after = 0;
	x->rate_reset = 0;
	x->rate_exhausted = false;
	x->content_type[0] = '\0';
	curl_slist_free_all(x->headers);
	x->headers = NULL;
	for (i = 0; i < RM_GITWEB_MAX_HEADERS && x->call.headers[i]; i++)
		x->headers = curl_slist_append(x->headers, x->call.headers[i]);
	if (token_goes(x)) {
		struct rm_sb h = RM_SB_INIT;

		rm_sb_init(&h);
		if (x->job->cred->auth == RM_GITWEB_AUTH_GITLAB)
			rm_sb_addf(&h, "PRIVATE-TOKEN: %s", x->token);
		else if (x->job->cred->auth == RM_GITWEB_AUTH_TOKEN)
			rm_sb_addf(&h, "Authorization: token %s", x->token);
		else
			rm_sb_addf(&h, "Authorization: Bearer %s", x->token);
		x->headers = curl_slist_append(x->headers, h.buf);
		memset(h.buf, 0, h.len);
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
	/* redirects are followed in finish(), one hop at a time, so that the
	 * credentials are decided for each origin */
	curl_easy_setopt(x->easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	if (x->call.head)
		curl_easy_setopt(x->easy, CURLOPT_NOBODY, 1L);
}

static void job_fail(struct xfer *x, enum rm_gitweb_fail_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(struct xfer *x, enum rm_gitweb_fail_kind kind, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (x->job->fail)
		x->job->fail(x->job->ctx, kind, why);
}

/* Ask the job for its next request; false when it is done. */
static bool next_call(struct xfer *x, const struct rm_gitweb_answer *a)
{
	struct rm_gitweb_call c;

	memset(&c, 0, sizeof(c));
	if (!x->job->step(x->job->ctx, a, &c)) {
		free(c.url);
		return false;
	}
	if (!c.url) {
		job_fail(x, RM_GITWEB_TEMP, "internal error: a request without a URL");
		return false;
	}
	if (x->url != x->call.url)
		free(x->url);
	free(x->call.url);
	x->call = c;
	x->url = x->call.url;
	x->attempts = 0;
	x->redirects = 0;
	x->start_at = 0;
	return true;
}

/* Settle a finished transfer; true when the job is done. */
static bool finish(struct xfer *x, CURLcode cc, const struct rm_gitweb_opts *o)
{
	long code = 0;
	long long now = now_ms();
	struct rm_gitweb_answer a;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	x->job->requests++;
	if (x->stopped && cc == CURLE_WRITE_ERROR)
		cc = CURLE_OK; /* ended by the filter, not by a failure */
	else if (cc == CURLE_OK && x->line.len && !x->too_big)
		keep_line(x, x->line.buf, x->line.len); /* the last line had no '\n' */
	rm_sb_reset(&x->line);
	if (x->call.once && cc == CURLE_OK && code > 0 && !x->too_big)
		goto answer;
	if (cc == CURLE_OK && code >= 300 && code < 400) {
		char *loc = NULL;

		curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc);
		if (loc) {
			if (++x->redirects > RM_GITWEB_MAX_REDIRS) {
				job_fail(x, RM_GITWEB_TEMP, "%s: more than %d redirects", x->call.url,
					 RM_GITWEB_MAX_REDIRS);
				return true;
			}
			if (x->url != x->call.url)
				free(x->url);
			x->url = rm_xstrdup(loc);
			x->start_at = now;
			return false;
		}
	}
	/* rate limits: 429; 403 with X-RateLimit-Remaining: 0 or Retry-After
	 * (GitHub); 503 with Retry-After (a forge in maintenance) */
	if (cc == CURLE_OK && (code == 429 || (code == 403 && (x->rate_exhausted || x->retry_after)) ||
			       (code == 503 && x->retry_after))) {
		long long wait_s = x->retry_after;

		if (!wait_s && x->rate_reset)
			wait_s = x->rate_reset - (long long)time(NULL);
		if (wait_s < 1)
			wait_s = 1;
		if (wait_s > o->max_wait || ++x->rate_waits > GITWEB_MAX_RATE_WAITS) {
			job_fail(x, RM_GITWEB_TEMP, "%s: rate limited (HTTP %ld); retry in %lld s",
				 x->url, code, wait_s);
			return true;
		}
		x->start_at = now + wait_s * 1000;
		return false;
	}
	if (x->too_big && (x->call.keep || x->call.filter)) {
		job_fail(x, RM_GITWEB_TOO_BIG, "%s: even the part robotmail reads of the answer is "
			 "larger than %u bytes", x->url, RM_GITWEB_MAX_BODY);
		return true;
	}
	if (x->too_big) {
		job_fail(x, RM_GITWEB_TEMP, "%s: response larger than %u bytes", x->url,
			 RM_GITWEB_MAX_BODY);
		return true;
	}
	if (cc != CURLE_OK || code >= 500) {
		if (!x->call.once && x->attempts++ < o->retries) {
			x->start_at = now + o->backoff_ms * (1LL << (x->attempts - 1));
			return false;
		}
		if (cc != CURLE_OK && x->call.once)
			job_fail(x, RM_GITWEB_TEMP, "%s: %s", x->url, curl_easy_strerror(cc));
		else if (cc != CURLE_OK)
			job_fail(x, RM_GITWEB_TEMP, "%s: %s (after %ld attempts)", x->url,
				 curl_easy_strerror(cc), x->attempts ? x->attempts : 1);
		else
			job_fail(x, RM_GITWEB_TEMP, "%s: HTTP %ld (after %ld attempts)", x->url, code,
				 x->attempts ? x->attempts : 1);
		return true;
	}
answer:
	a.url = x->url;
	a.status = code;
	a.body = x->body.buf;
	a.len = x->body.len;
	a.content_type = x->content_type;
	return !next_call(x, &a);
}

static void xfer_free(struct xfer *x)
{
	if (x->url != x->call.url)
		free(x->url);
	free(x->call.url);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	rm_sb_release(&x->body);
	rm_sb_release(&x->line);
	if (x->token) {
		memset(x->token, 0, strlen(x->token));
		free(x->token);
	}
}

int rm_gitweb_run(struct rm_gitweb_job *jobs, size_t n, const struct rm_gitweb_opts *o,
		  struct rm_error *err)
{
	struct xfer *xs;
	CURLM *multi = NULL;
	size_t i, pending = 0, running = 0;
	int rc = 0;
	long concurrency = o->concurrency > 0 ? o->concurrency : 1;

	if (rm_dynlib_need(RM_LIB_CURL, err))
		return -1;
	xs = rm_xcalloc(n + 1, sizeof(*xs));
	for (i = 0; i < n; i++) {
		struct xfer *x = &xs[i];
		char why[RM_ERROR_MSG_MAX];

		x->job = &jobs[i];
		x->done = true;
		jobs[i].requests = 0;
		rm_sb_init(&x->body);
		rm_sb_init(&x->line);
		if (read_token(jobs[i].cred, &x->token, why, sizeof(why))) {
			job_fail(x, RM_GITWEB_CONFIG, "the token of %s: %s", jobs[i].cred->base, why);
			continue;
		}
		if (!next_call(x, NULL))
			continue;
		if (!multi) {
			multi = curl_multi_init();
			if (!multi) {
				rc = rm_error_set(err, RM_ERR_INTERNAL, "cannot initialise libcurl");
				goto out;
			}
		}
		x->easy = curl_easy_init();
		if (!x->easy) {
			rc = rm_error_set(err, RM_ERR_INTERNAL, "cannot initialise libcurl");
			goto out;
		}
		x->done = false;
		pending++;
	}
	while (pending) {
		long long now = now_ms(), next = now + 1000;
		int still, msgs;
		CURLMsg *m;

		for (i = 0; i < n && running < (size_t)concurrency; i++) {
			struct xfer *x = &xs[i];

			if (x->done || x->running)
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
				x->done = true;
				pending--;
			}
		}
		if (pending) {
			long long wait = next - now_ms();
			bool ready = false;

			/* a transfer that may start now (a finished one freed its
			 * slot, or moved to its next request) must not wait for a poll */
			for (i = 0; i < n && !ready; i++)
				ready = !xs[i].done && !xs[i].running && xs[i].start_at <= now_ms();
			if (ready && running < (size_t)concurrency)
				continue;
			if (running && wait > 200)
				wait = 200;
			if (wait < 1)
				wait = 1;
			curl_multi_poll(multi, NULL, 0, (int)wait, NULL);
		}
	}
out:
	for (i = 0; i < n; i++) {
		if (xs[i].running)
			curl_multi_remove_handle(multi, xs[i].easy);
		xfer_free(&xs[i]);
	}
	if (multi)
		curl_multi_cleanup(multi);
	free(xs);
	return rc;
}

/* ---- one request */

struct one {
	char *url;        /* the first request's URL, until it is handed over */
	bool once, head;
	bool answered, failed;
	enum rm_gitweb_fail_kind kind;
	long status;
	struct rm_sb body;
	char why[512];
};

static bool one_step(void *ctx, const struct rm_gitweb_answer *a, struct rm_gitweb_call *next)
{
	struct one *g = ctx;

	if (!a) {
		next->url = g->url;
		next->once = g->once;
		next->head = g->head;
		g->url = NULL;
		return true;
	}
	g->answered = true;
	g->status = a->status;
	rm_sb_add(&g->body, a->body, a->len);
	return false;
}

static void one_fail(void *ctx, enum rm_gitweb_fail_kind kind, const char *why)
{
	struct one *g = ctx;

	g->failed = true;
	g->kind = kind;
	snprintf(g->why, sizeof(g->why), "%s", why);
}

/* Run one request; 0 with g answered or failed, -1 on an internal error. */
static int one_run(struct one *g, const struct rm_gitweb_opts *o, struct rm_error *err)
{
	struct rm_gitweb_job job;
	int rc;

	memset(&job, 0, sizeof(job));
	job.ctx = g;
	job.step = one_step;
	job.fail = one_fail;
	rm_sb_init(&g->body);
	rc = rm_gitweb_run(&job, 1, o, err);
	free(g->url);
	g->url = NULL;
	return rc;
}

int rm_gitweb_get(char *url, const struct rm_gitweb_opts *o, long *status, char **body,
		  size_t *len, struct rm_error *err)
{
	struct one g;

	memset(&g, 0, sizeof(g));
	g.url = url;
	*body = NULL;
	*len = 0;
	*status = 0;
	if (one_run(&g, o, err)) {
		rm_sb_release(&g.body);
		return -1;
	}
	if (!g.answered) {
		rm_sb_release(&g.body);
		return rm_error_set(err, g.kind == RM_GITWEB_CONFIG ? RM_ERR_CONFIG : RM_ERR_TEMP,
				    "%s", g.failed ? g.why : "no answer");
	}
	*status = g.status;
	*body = rm_sb_detach(&g.body, len);
	return 0;
}

int rm_gitweb_ping(const char *url, const struct rm_gitweb_opts *o, char *why, size_t len)
{
	struct one g;
	struct rm_error e;

	memset(&g, 0, sizeof(g));
	g.url = rm_xstrdup(url);
	g.once = true;
	g.head = true;
	if (one_run(&g, o, &e)) {
		rm_sb_release(&g.body);
		snprintf(why, len, "%s: %s", url, e.msg);
		return -1;
	}
	rm_sb_release(&g.body);
	if (!g.answered) {
		snprintf(why, len, "%s", g.why);
		return -1;
	}
	snprintf(why, len, "%s: HTTP %ld", url, g.status);
	return g.status > 0 && g.status < 500 ? 0 : -1;
}
