/*
 * lookup.h - looking commits up: the cache, then the tree's provider.
 *
 * Owns: for each (tree, sha) asked, the answer FOUND (with its facts),
 * UNKNOWN (the provider does not know the commit) or FAILED (why, naming the
 * URL or the clone); consulting the commit cache first (a hit makes no
 * request) and writing found commits and misses back; the conversation with
 * the tree's provider (cgit: the patch, then the commit page; the JSON
 * forges: the commit; a commit unknown by its sha searched by its subject
 * when one is given), run over the gitweb engine, `concurrency` at a time;
 * local clones through localgit.c.
 *
 * Must not: set curl options or credentials (gitweb.c), parse a provider's
 * answer itself (cgit.c, forge.c), decide what a failed lookup does to a
 * report (the caller defers or fails it), print (rm_lookup_format gives
 * `robotmail commit` its text; the caller prints it).
 */
#ifndef RM_LOOKUP_H
#define RM_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>

#include "commit.h"
#include "config.h"
#include "error.h"
#include "gitweb.h"
#include "strbuf.h"

/* An unknown commit is asked again after RM_LOOKUP_FIRST_WAIT seconds, then
 * after twice as long each time, up to the cache's miss_cap
 * (gitweb.miss_ttl); the caller decides how long an archive waits for it
 * (gitweb.lookup_horizon).  An answer that does not parse is asked again on
 * the same rule; the RM_LOOKUP_MALFORMED_MAX-th in a row makes the lookup
 * fail for good (RM_ERR_INPUT), naming the reason. */
#define RM_LOOKUP_FIRST_WAIT 60
#define RM_LOOKUP_MALFORMED_MAX 3

enum rm_lookup_status {
	RM_LOOKUP_FOUND,
	RM_LOOKUP_UNKNOWN,  /* the provider does not know the commit (404/422) */
	RM_LOOKUP_FAILED,   /* see error_kind */
};

struct rm_lookup_req {
	const struct rm_tree_cfg *tree;
	const char *sha;         /* full or abbreviated */
	const char *subject;     /* optional: search by it when the sha is unknown */
	/* results */
	enum rm_lookup_status status;
	struct rm_commit_facts facts;  /* when FOUND; free with rm_commit_free */
	char error[512];         /* when FAILED: what went wrong, naming the URL */
	enum rm_error_kind error_kind; /* when FAILED: RM_ERR_TEMP (timeouts, 5xx, rate
				  * limits, a malformed answer not yet repeated:
				  * retry later), RM_ERR_CONFIG (401/403, an
				  * unreadable token, a clone git refuses: the
				  * operator must act) or RM_ERR_INPUT (the answer
				  * never parses: the commit's archive fails) */
	long long fresh_after;   /* in: a miss last asked before this time (epoch
				  * seconds) is asked again even when its wait is
				  * not over (0: none); set by a caller about to
				  * give up on the commit, so that it gives up on a
				  * fresh answer */
	struct rm_commit_miss miss; /* when UNKNOWN, or FAILED on a malformed answer:
				  * the asks in a row that gave no facts, this
				  * one included (also when the cache takes no
				  * write: a dry run shows what run would) */
	unsigned requests;       /* HTTP requests (or git runs) made for this lookup */
	bool from_cache;
};

/* Look every request up, `concurrency` at a time.  Cache hits make no
 * request; results are written back to the cache (when it has put).  Returns
 * 0 when every request has a status (FOUND, UNKNOWN or FAILED), -1 only on
 * an internal error. */
int rm_lookup_run(struct rm_lookup_req *reqs, size_t n, const struct rm_gitweb_opts *opts,
		  const struct rm_commit_cache *cache, struct rm_error *err);

/* `robotmail commit`'s answer for a FOUND request, appended to out: one
 * "name: value" line per fact (sha, matched-by-subject, subject, author,
 * committer, date, committed in UTC, parent, patch-message-id, each trailer
 * and file), then where it came from (cache or network, with the number of
 * requests). */
void rm_lookup_format(const struct rm_lookup_req *r, struct rm_sb *out);

/* Does `commit` contain `ancestor` (the same commit, or a descendant of it)
 * in the tree's history?  1 yes, 0 no, -1 when it cannot be known (err
 * says why: a provider that tells no ancestry, a commit unknown to it, a
 * failed request, git failing).  Asked of a local clone (`git merge-base
 * --is-ancestor`), GitHub's compare, GitLab's merge base or Gitea's
 * compare the other way round (forge.c, over the gitweb engine with the
 * tree's credentials, options `o`); cgit tells no ancestry: -1 saying so.
 * Nothing is cached. */
int rm_lookup_is_ancestor(const struct rm_tree_cfg *tree, const struct rm_gitweb_opts *o,
			  const char *ancestor, const char *commit, struct rm_error *err);

#endif
