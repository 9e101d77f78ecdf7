/*
 * localgit.h - commit facts from a local clone (`git show`, no shell).
 *
 * Owns: running git in the configured clone (posix_spawn, bounded output)
 * and reading its answer into commit facts; telling an unknown commit (git's
 * "bad revision", "bad object") from a clone that is missing, that git
 * refuses to read (dubious ownership) or any other failure of git.
 *
 * Must not: change the clone (no fetch, no config), touch the cache, print.
 */
#ifndef RM_LOCALGIT_H
#define RM_LOCALGIT_H

#include "commit.h"
#include "error.h"

/* Look `sha` up in the clone `dir`.  1 found (f filled; free with
 * rm_commit_free), 0 the clone does not have it, -1 the lookup failed (err:
 * RM_ERR_TEMP when the clone is missing or git fails otherwise; RM_ERR_CONFIG
 * when git refuses a clone owned by another user, naming the safe.directory
 * fix).  *runs counts the git processes
 * started. */
int rm_localgit_lookup(const char *dir, const char *sha, struct rm_commit_facts *f,
		       unsigned *runs, struct rm_error *err);

/* Does the clone `dir` know `ancestor` to be an ancestor of `commit` (or
 * the same commit)?  `git merge-base --is-ancestor`: 1 yes, 0 no, -1 when
 * it cannot tell (err: either commit unknown to the clone, the clone
 * missing, git failing); both shas must have passed rm_commit_valid_sha. */
int rm_localgit_is_ancestor(const char *dir, const char *ancestor, const char *commit,
			    struct rm_error *err);

#endif
