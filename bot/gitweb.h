/*
 * gitweb.h - commit facts from the git web API of the tree that was tested.
 *
 * Owns: looking commits up over HTTP with libcurl (cgit's /patch/?id= mbox,
 * GitHub, Gitea/Forgejo and GitLab JSON) or in a local clone (`git show`),
 * with connect and total timeouts, bounded retries with backoff for 5xx and
 * timeouts, honouring rate limits (403/429 with X-RateLimit-Reset or
 * Retry-After, up to a configured wait), concurrent lookups (curl multi),
 * matching a commit unknown upstream by its subject, and a cache (immutable
 * found commits, short-lived misses) kept behind an interface so that
 * --dry-run can read it without writing.  Parsing of each response format is
 * exposed for tests and fuzzing.
 *
 * Must not: block forever (every request has a deadline), fail a report
 * silently (a failed lookup is RM_GITWEB_FAILED with a message, and the
 * caller defers the report), log tokens.
 */
#ifndef RM_GITWEB_H
#define RM_GITWEB_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "config.h"
#include "error.h"

struct rm_person {
	char *name;
	char *email;
};

struct rm_trailer {
	char *key;   /* as written: "Signed-off-by" */
	char *value;
};

struct rm_commit_facts {
	char *sha;           /* full sha */
	char *subject;       /* first line of the message, unfolded, UTF-8 */
	char *body;          /* the rest of the message */
	struct rm_person author, committer;
	char *date;          /* author date, RFC 3339 or RFC 2822 as the provider gives it */
	long long commit_time; /* committer date, epoch seconds; 0 when not given (for a
				* patch the robot applied: when it made the branch) */
	struct rm_trailer *trailers;
	size_t ntrailers;
	char *patch_msgid;   /* Message-ID of the original patch mail (no <>), from Link: */
	char *parent;        /* first parent sha, when the provider gives it */
	char **files;        /* changed paths, when the provider gives them */
	size_t nfiles;
	char *upstream_sha;  /* set when found by subject instead of by sha */
};

void rm_facts_free(struct rm_commit_facts *f);

/* ---- parsers (pure: bytes in, facts out; err names `what`, e.g. the URL) */

/* A cgit /patch/ response: an mbox message "From <sha> ..." + headers + body. */
int rm_facts_from_cgit_patch(struct rm_commit_facts *f, const char *buf, size_t len,
			     const char *what, struct rm_error *err);
/* GitHub REST commit, Gitea/Forgejo git/commits, GitLab repository/commits. */
int rm_facts_from_json(struct rm_commit_facts *f, enum rm_provider p, const char *buf,
		       size_t len, const char *what, struct rm_error *err);
/* Fill subject, body, trailers and patch_msgid from a full commit message. */
void rm_facts_set_message(struct rm_commit_facts *f, const char *message);
/* The Message-ID named by a lore-style or patch.msgid.link URL, or NULL. */
char *rm_msgid_from_link(const char *url);

/* Facts <-> the JSON kept in the cache. */
char *rm_facts_to_json(const struct rm_commit_facts *f);
int rm_facts_from_cache_json(struct rm_commit_facts *f, const char *json);

/* ---- lookups */

enum rm_gitweb_status {
	RM_GITWEB_FOUND,
	RM_GITWEB_UNKNOWN,  /* the provider does not know the commit (404/422) */
	RM_GITWEB_FAILED,   /* transient: timeouts, 5xx, rate limits; retry later */
};

/* The cache, as an interface (rm_store_commit_cache() provides one; tests may fake it). */
struct rm_commit_cache {
	void *ctx;
	/* 1 hit, 0 miss, -1 error */
	int (*get)(void *ctx, const char *tree, const char *sha, char **json, bool *found);
	int (*put)(void *ctx, const char *tree, const char *sha, bool found, const char *json);
};

struct rm_gitweb_req {
	const struct rm_tree_cfg *tree;
	const char *sha;         /* full or abbreviated */
	const char *subject;     /* optional: search by it when the sha is unknown */
	/* results */
	enum rm_gitweb_status status;
	struct rm_commit_facts facts;  /* when FOUND; free with rm_facts_free */
	char error[512];         /* when FAILED: what went wrong, naming the URL */
	unsigned requests;       /* HTTP requests made for this lookup */
	bool from_cache;
};

struct rm_gitweb_opts {
	long connect_timeout, timeout; /* seconds */
	long retries;                  /* extra attempts after a 5xx or timeout */
	long concurrency;
	long max_wait;                 /* longest rate-limit wait honoured, seconds */
	long backoff_ms;               /* first retry delay; doubles each time */
};

/* Look every request up, `concurrency` at a time.  Cache hits make no
 * request; results are written back to the cache (when it has put).  Returns
 * 0 when every request has a status (FOUND, UNKNOWN or FAILED), -1 only on
 * an internal error. */
int rm_gitweb_lookup(struct rm_gitweb_req *reqs, size_t n, const struct rm_gitweb_opts *opts,
		     const struct rm_commit_cache *cache, struct rm_error *err);

/* The original mail of a patch, from a public-inbox archive (lore). */
struct rm_patch_mail {
	char *subject;   /* raw, e.g. "[PATCH v2 1/3] mm: ..." (decoded, one line) */
	char **to, **cc; /* "Name <addr>" or "addr" */
	size_t nto, ncc;
};
void rm_patch_mail_free(struct rm_patch_mail *p);
/* Parse a raw mail (an optional mbox "From " line first). */
int rm_patch_mail_parse(struct rm_patch_mail *p, const char *buf, size_t len, const char *what,
			struct rm_error *err);
/* GET <base>/<msgid>/raw.  Returns 1 found, 0 not in the archive (404), -1
 * failed (err names the URL). */
int rm_patch_mail_lookup(struct rm_patch_mail *p, const char *base, const char *msgid,
			 const struct rm_gitweb_opts *o, struct rm_error *err);

/* 4 to 64 hex digits: what may be looked up (and put in a URL). */
bool rm_gitweb_valid_sha(const char *s);

/* Is the API base reachable (any HTTP answer below 500)?  0 yes, -1 no;
 * `why` says which. */
int rm_gitweb_ping(const char *url, const struct rm_gitweb_opts *o, char *why, size_t len);

/* Options from the configuration. */
void rm_gitweb_opts_from_config(struct rm_gitweb_opts *o, const struct rm_config *c);

#endif
