/*
 * localgit.h - commit facts from a local clone (`git show`, no shell).
 *
 * Owns: running git in the configured clone (posix_spawn, bounded output)
 * and reading its answer into commit facts; telling an unknown commit from a
 * clone that is missing or that git refuses to read.
 *
 * Must not: change the clone (no fetch, no config), touch the cache, print.
 */
#ifndef RM_LOCALGIT_H
#define RM_LOCALGIT_H

#include "commit.h"
#include "error.h"

/* Look `sha` up in the clone `dir`.  1 found (f filled; free with
 * rm_commit_free), 0 the clone does not have it, -1 the lookup failed (err:
 * RM_ERR_TEMP, e.g. the clone is missing).  *runs counts the git processes
 * started. */
int rm_localgit_lookup(const char *dir, const char *sha, struct rm_commit_facts *f,
		       unsigned *runs, struct rm_error *err);

#endif
