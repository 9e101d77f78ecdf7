/*
 * forge.h - commit facts from the JSON forges: GitHub (and GitHub
 * Enterprise), Gitea/Forgejo, GitLab.
 *
 * Owns: each forge's REST URLs for a commit, its changed files (GitLab) and
 * for a commit search, the
 * fixed headers its API asks for, which way it takes a token (the kind, not
 * the token), and parsing its JSON answers into commit facts.  The parsers
 * are pure (bytes in, facts out) and exposed for tests and fuzzing.
 *
 * Must not: set curl options or read or attach credentials (gitweb.c),
 * decide what an HTTP status means for a lookup (lookup.c), touch the cache.
 */
#ifndef RM_FORGE_H
#define RM_FORGE_H

#include <stdbool.h>
#include <stddef.h>

#include "commit.h"
#include "config.h"
#include "error.h"
#include "gitweb.h"

/* The commit's URL under the API base `api` (malloc()ed), or NULL when p is
 * no JSON forge.  `sha` must have passed rm_commit_valid_sha. */
char *rm_forge_commit_url(enum rm_provider p, const char *api, const char *sha);
/* The commit search for `subject` (malloc()ed), or NULL when the forge has
 * none (Gitea) or the base does not allow one. */
char *rm_forge_search_url(enum rm_provider p, const char *api, const char *subject);
/* The sha of the first search result whose subject is exactly `subject`
 * (malloc()ed), or NULL. */
char *rm_forge_search_result(enum rm_provider p, const char *body, size_t len,
			     const char *subject);

/* Ancestry: the URL that tells whether `ancestor` is an ancestor of (or
 * the same as) `commit` (malloc()ed): GitHub's compare
 * (<api>/compare/A...B), GitLab's merge base
 * (<api>/repository/merge_base?refs[]=A&refs[]=B), Gitea's compare the
 * other way round (<api>/compare/B...A: the commits A has and B has not;
 * Gitea 1.22 and older compare only branches and tags and answer 404,
 * go-gitea/gitea#31838: a failed request, which tells nothing);
 * NULL for a forge without one.  Both shas must have passed
 * rm_commit_valid_sha. */
char *rm_forge_ancestry_url(enum rm_provider p, const char *api, const char *ancestor,
			    const char *commit);
/* Its answer: 1 an ancestor (GitHub: status "ahead" or "identical"; GitLab:
 * the merge base is `ancestor`; Gitea: "total_commits" 0), 0 not ("behind",
 * "diverged"; another merge base; commits of `ancestor` missing), -1 when the
 * answer says neither (why into `why`). */
int rm_forge_ancestry(enum rm_provider p, const char *body, size_t len, const char *ancestor,
		      char *why, size_t n);

/* The fixed headers of p's requests into hdr (NULL-terminated; static strings). */
void rm_forge_headers(enum rm_provider p, const char *hdr[RM_GITWEB_MAX_HEADERS + 1]);
/* How p takes a token. */
enum rm_gitweb_auth rm_forge_auth(enum rm_provider p);

/* GitLab's commit answer has no changed files: they are on the paginated
 * repository/commits/<sha>/diff endpoint.  Page `page` (1-based) of it,
 * RM_FORGE_DIFF_PAGE entries a page (malloc()ed URL). */
#define RM_FORGE_DIFF_PAGE 50
#define RM_FORGE_DIFF_MAX_PAGES 200 /* 10,000 files: the rest is not asked */
char *rm_forge_gitlab_diff_url(const char *api, const char *sha, unsigned page);
/* Add the paths of a diff page to f (new_path, and old_path when renamed or
 * deleted); *entries is the page's length (fewer than RM_FORGE_DIFF_PAGE:
 * the last page).  -1 with err naming `what` when it is no JSON array. */
int rm_forge_gitlab_diff(struct rm_commit_facts *f, const char *buf, size_t len, const char *what,
			 size_t *entries, struct rm_error *err);

/* Is a commit answer about the repository of `api`?  GitHub and Gitea name
 * it in "url" (.../repos/OWNER/REPO/...), GitLab in "web_url" (checked when
 * api names the project by its path, GROUP%2FPROJECT).  0 yes or cannot
 * tell; -1 with why (the repository answered for) when it is another. */
int rm_forge_check_repo(enum rm_provider p, const char *api, const char *buf, size_t len,
			char *why, size_t whylen);

/* A JSON answer without its diffs, as it arrives (a gitweb filter): the
 * string value of every member named "patch" (GitHub, Gitea) or "diff"
 * (GitLab's diff pages) is dropped ("" instead), everything else is passed
 * on to `out` byte for byte.  `ctx` is a struct rm_forge_skim; data NULL
 * starts a new answer.  So a commit with a 100 MB diff costs what its
 * headers and file list cost. */
struct rm_forge_skim {
	int mode;          /* 0 between tokens, 1 in a string, 2 in a dropped string */
	bool esc;          /* the last byte in the string was a backslash */
	bool was_string;   /* the last token was a string (a ':' makes it a key) */
	bool drop_next;    /* a ':' followed a "patch" or "diff" key */
	char key[8];       /* the current string's first bytes */
	size_t keylen;
};
void rm_forge_skim(void *ctx, const char *data, size_t len, struct rm_sb *out);

/* GitHub REST commit, Gitea/Forgejo git/commits, GitLab repository/commits.
 * Fills f (free with rm_commit_free); -1 with err naming `what` (f empty). */
int rm_forge_parse_commit(struct rm_commit_facts *f, enum rm_provider p, const char *buf,
			  size_t len, const char *what, struct rm_error *err);

#endif
