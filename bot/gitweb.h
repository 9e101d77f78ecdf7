/*
 * gitweb.h - the HTTP engine (libcurl multi) of every git web and patch-archive request.
 *
 * Owns: every HTTP request robotmail makes to a git web API or an archive of
 * patch mails, and every curl option of them (this is the one file that sets
 * one): connect and total timeouts, the user agent, allowed protocols
 * (http, https), compression, the cap on a response's size; credentials,
 * read from the configured file or environment variable and attached only to
 * requests whose origin (scheme, host, port) is the origin of the API base
 * they were configured for; redirects, followed here one hop at a time (at
 * most RM_GITWEB_MAX_REDIRS) so that a token never follows a redirect to
 * another origin or from https to http; retries with doubling backoff for
 * transport errors and 5xx; rate limits (429, 403 with X-RateLimit-*,
 * Retry-After, RateLimit-Reset; 503 with Retry-After) waited out up to
 * `max_wait`; running many
 * jobs `concurrency` at a time.
 *
 * A job is a conversation of one or more GETs that a provider (cgit.c,
 * forge.c, patchmail.c, through lookup.c) drives: the engine asks the job
 * for a request, performs it, and hands the answer back to the job, which
 * either asks for another request or is done.
 *
 * Must not: know what a commit, a patch or a provider is (the job decides
 * what an answer means), log or print tokens, block forever (every request
 * has a deadline).
 */
#ifndef RM_GITWEB_H
#define RM_GITWEB_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "error.h"

struct rm_sb; /* strbuf.h */

#define RM_GITWEB_MAX_BODY (16u << 20) /* a response larger than this is refused */
#define RM_GITWEB_MAX_LINE (1u << 20)  /* with a line filter: the longest line */
#define RM_GITWEB_MAX_REDIRS 3
#define RM_GITWEB_MAX_HEADERS 4

struct rm_gitweb_opts {
	long connect_timeout, timeout; /* seconds */
	long retries;                  /* extra attempts after a 5xx or timeout */
	long concurrency;
	long max_wait;                 /* longest rate-limit wait honoured, seconds */
	long backoff_ms;               /* first retry delay; doubles each time */
};

/* Options from the configuration. */
void rm_gitweb_opts_from_config(struct rm_gitweb_opts *o, const struct rm_config *c);

/* How an API takes its token. */
enum rm_gitweb_auth {
	RM_GITWEB_AUTH_BEARER, /* Authorization: Bearer TOKEN (GitHub, anything else) */
	RM_GITWEB_AUTH_TOKEN,  /* Authorization: token TOKEN (Gitea, Forgejo) */
	RM_GITWEB_AUTH_GITLAB, /* PRIVATE-TOKEN: TOKEN (GitLab) */
};

/* Credentials of one API: sent only to the origin of `base`. */
struct rm_gitweb_cred {
	const char *base;       /* the configured API URL */
	const char *token_env;  /* environment variable holding the token, or NULL */
	const char *token_file; /* file holding it (first line), or NULL */
	enum rm_gitweb_auth auth;
};

enum rm_gitweb_keep { RM_GITWEB_DROP, RM_GITWEB_KEEP, RM_GITWEB_STOP };

/* One request, as a job asks for it. */
struct rm_gitweb_call {
	char *url;  /* malloc()ed by the job; the engine owns (and frees) it */
	/* fixed, non-secret headers ("Accept: ..."), NULL-terminated; borrowed,
	 * they must live as long as the run */
	const char *headers[RM_GITWEB_MAX_HEADERS + 1];
	bool once;  /* no retry, no redirect, no rate-limit wait: every HTTP answer
		     * goes back to the job (for probes) */
	bool head;  /* HEAD instead of GET */
	/* When set, the body is handed to it line by line (each with its '\n';
	 * `kept` is what was kept so far; a line longer than RM_GITWEB_MAX_LINE
	 * comes in pieces of that size) and only the lines it keeps are kept;
	 * RM_GITWEB_STOP keeps the line and ends the transfer there, as a
	 * complete answer (the job has what it needs).  RM_GITWEB_MAX_BODY then
	 * bounds what is kept, not what was sent: a provider that needs a few
	 * lines of a 100 MB answer reads it in the memory of a small one. */
	enum rm_gitweb_keep (*keep)(const char *kept, size_t kept_len, const char *line,
				    size_t len);
	/* When set (and keep is not), the body is handed to it in pieces as it
	 * arrives and only what it appends to `out` is kept (bounded by
	 * RM_GITWEB_MAX_BODY): a job that needs part of a large answer (a JSON
	 * commit without its patches) reads it in the memory of that part.
	 * Called with data NULL before each attempt and redirect hop (a new
	 * body: it resets its state).  `ctx` is filter_ctx, the job's. */
	void (*filter)(void *ctx, const char *data, size_t len, struct rm_sb *out);
	void *filter_ctx;
};

/* An HTTP answer handed back to its job (borrowed for the call of step). */
struct rm_gitweb_answer {
	const char *url;   /* the URL that answered (after redirects) */
	long status;       /* HTTP status: 2xx, 3xx without Location, 4xx but rate limits */
	const char *body;  /* NUL-terminated */
	size_t len;
	const char *content_type; /* the Content-Type header's value, "" when none */
};

enum rm_gitweb_fail_kind {
	RM_GITWEB_TEMP,   /* a later run may succeed: timeouts, 5xx, rate limits, too big */
	RM_GITWEB_CONFIG, /* the operator must fix something: a token that cannot be read */
	RM_GITWEB_TOO_BIG, /* what a keep or filter call keeps is over RM_GITWEB_MAX_BODY:
			    * the part the job needs is too big, for any later run too */
};

struct rm_gitweb_job {
	void *ctx;
	const struct rm_gitweb_cred *cred; /* borrowed; NULL: no credentials */
	/* The next request.  `a` is NULL for the first, else the answer to the
	 * previous request.  Fill *next and return true to make it; return
	 * false when the job is done. */
	bool (*step)(void *ctx, const struct rm_gitweb_answer *a, struct rm_gitweb_call *next);
	/* The engine gave up on the job's request; the job is done.  `why`
	 * names the URL and the cause. */
	void (*fail)(void *ctx, enum rm_gitweb_fail_kind kind, const char *why);
	unsigned requests; /* out: HTTP requests made (each redirect hop counts) */
};

/* Run every job to its end, `concurrency` requests at a time.  Returns 0
 * when every job is done (each has been told its answers or its failure),
 * -1 only on an internal error, or when libcurl cannot be loaded (dynlib.h;
 * err says which). */
int rm_gitweb_run(struct rm_gitweb_job *jobs, size_t n, const struct rm_gitweb_opts *o,
		  struct rm_error *err);

/* One GET of `url` without credentials: 0 with *status and *body (malloc()ed,
 * NUL-terminated, the caller frees it) set for an answer the engine does not
 * handle itself (see rm_gitweb_answer), -1 with err (RM_ERR_TEMP or
 * RM_ERR_CONFIG) when it gave up.  Takes ownership of url. */
int rm_gitweb_get(char *url, const struct rm_gitweb_opts *o, long *status, char **body,
		  size_t *len, struct rm_error *err);

/* `s` percent-encoded for a URL path segment or query value, and back
 * (malloc()ed). */
char *rm_gitweb_escape(const char *s);
char *rm_gitweb_unescape(const char *s);

/* Do two URLs have the same origin (scheme, host, port; default ports made
 * explicit, case ignored)?  The rule for where a token may go; false when
 * either is no absolute URL. */
bool rm_gitweb_same_origin(const char *a, const char *b);

/* Is the API base reachable (any HTTP answer below 500)?  0 yes, -1 no;
 * `why` says which. */
int rm_gitweb_ping(const char *url, const struct rm_gitweb_opts *o, char *why, size_t len);

#endif
