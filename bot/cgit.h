/*
 * cgit.h - commit facts from cgit (the scraper).
 *
 * Owns: the URLs of cgit's pages for a commit (<repo>/patch/?id= for the
 * mbox form, <repo>/commit/?id= for the committer, parent and a merge's
 * message, <repo>/log/?qt=grep&q= to find a commit by its subject) and
 * parsing their answers into commit facts.  The parsers are pure (bytes in,
 * facts out) and exposed for tests and fuzzing.
 *
 * Must not: set curl options or credentials (gitweb.c), decide what an HTTP
 * status means for a lookup (lookup.c), touch the cache.
 */
#ifndef RM_CGIT_H
#define RM_CGIT_H

#include <stdbool.h>
#include <stddef.h>

#include "commit.h"
#include "error.h"
#include "gitweb.h"

/* URLs under the repository base `api` (malloc()ed).  `sha` must have passed
 * rm_commit_valid_sha. */
char *rm_cgit_patch_url(const char *api, const char *sha);
char *rm_cgit_page_url(const char *api, const char *sha);
/* The log search for a commit message matching `subject` literally. */
char *rm_cgit_search_url(const char *api, const char *subject);

/* A /patch/ answer: an mbox message "From <sha> ..." + headers + body.
 * Fills f (free with rm_commit_free); -1 with err naming `what` (f empty). */
int rm_cgit_parse_patch(struct rm_commit_facts *f, const char *buf, size_t len, const char *what,
			struct rm_error *err);

/* The line filter of a /patch/ request (see rm_gitweb_call.keep): everything
 * up to the first "diff --git" line, then only those lines, which is all
 * rm_cgit_parse_patch reads; a huge diff costs no memory. */
enum rm_gitweb_keep rm_cgit_patch_keep(const char *kept, size_t kept_len, const char *line,
				       size_t len);
/* The line filter of a /commit/ page: everything up to the diffstat, where
 * the transfer stops (a huge commit's page is mostly its diff). */
enum rm_gitweb_keep rm_cgit_page_keep(const char *kept, size_t kept_len, const char *line,
				      size_t len);

/* Is a /patch/ answer the one cgit gives for a commit without changes (no
 * mbox at all, only its "-- " signature)?  Its facts are on the commit page. */
bool rm_cgit_empty_patch(const char *buf, size_t len);

/* Merge facts from a /commit/ page into f: committer, commit time, parent;
 * with `full` (a merge, whose /patch/ shows another commit, or an empty
 * commit, whose /patch/ shows none) the subject, message, author and author
 * date too.  -1 with err naming `what`. */
int rm_cgit_parse_page(struct rm_commit_facts *f, const char *buf, size_t len, bool full,
		       const char *what, struct rm_error *err);

/* The sha of the first commit of a /log/ search page whose subject is
 * exactly `subject` (malloc()ed), or NULL. */
char *rm_cgit_search_result(const char *body, size_t len, const char *subject);

#endif
