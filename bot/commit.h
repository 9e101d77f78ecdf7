/*
 * commit.h - what robotmail knows about a commit, whatever told it.
 *
 * Owns: `struct rm_commit_facts` (sha, subject, message, author, committer,
 * dates, trailers, parent, changed files, the patch's Message-ID); reading a
 * commit message into subject, body and trailers (`git interpret-trailers`
 * rules: the last paragraph); choosing the patch link among the trailers;
 * the facts <-> JSON records of the commit cache, and the cache interface
 * itself; what a lookable sha is; git's date forms.
 *
 * Must not: speak HTTP or run git (no curl, no process: the providers in
 * cgit.c, forge.c, localgit.c and patchmail.c fetch, lookup.c drives them),
 * print anything.
 */
#ifndef RM_COMMIT_H
#define RM_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

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

/* Free every field and zero f (f itself is the caller's). */
void rm_commit_free(struct rm_commit_facts *f);

/* Fill subject, body, trailers and patch_msgid from a full commit message
 * (replacing what f had). */
void rm_commit_set_message(struct rm_commit_facts *f, const char *message);

/* The Message-ID named by a lore-style or patch.msgid.link URL, or NULL.
 * The result is malloc()ed, without <>; the caller frees it. */
char *rm_commit_msgid_from_link(const char *url);

/* Add a changed path (len bytes of path) unless f already lists it. */
void rm_commit_add_file(struct rm_commit_facts *f, const char *path, size_t len);

/* Replace invalid UTF-8 and every control character of s (in place) by a
 * space: a subject or a name must never carry one into a header or a table. */
void rm_commit_clean(char *s);

/* Epoch seconds of a date as providers print it: "2025-10-17 09:53:20
 * +0000" (cgit), "2025-10-17T09:53:20Z" or "...T09:53:20+02:00" (git %cI,
 * GitHub, Gitea), with optional fractions (GitLab); git's raw "1760694800
 * +0000"; RFC 2822 "Fri, 17 Oct 2025 09:53:20 +0000".  0 for anything else
 * (a date it cannot read is no date, never a wrong one).  Old cgit's
 * "2025-10-17 09:53:20 (UTC)" (also GMT, UT, UTC as a bare zone; a zone
 * abbreviation other than these is ambiguous and not read). */
long long rm_commit_date(const char *s);

/* A provider's date field `field` (its name in the answer, e.g.
 * "commit.committer.date") holding `value`: 0 with *epoch (0 when the field
 * is absent or empty: no date), or -1 (RM_ERR_INPUT, naming `what` -- the
 * URL or repository --, the field and the value) when it is a date no form
 * of rm_commit_date reads: a date read wrong is never kept. */
int rm_commit_read_date(const char *value, const char *field, const char *what,
			long long *epoch, struct rm_error *err);

/* 4 to 64 hex digits: what may be looked up (and put in a URL). */
bool rm_commit_valid_sha(const char *s);

/* Facts <-> the JSON kept in the cache.  rm_commit_to_json returns a
 * malloc()ed string (the caller frees it); rm_commit_from_cache_json fills f
 * (free with rm_commit_free) and returns 0, or -1 (f left empty) when the
 * record is damaged. */
char *rm_commit_to_json(const struct rm_commit_facts *f);
int rm_commit_from_cache_json(struct rm_commit_facts *f, const char *json);

/* The record of asks that gave no facts for one (tree, sha): the provider
 * did not know the commit (failure[0] == '\0'), or answered with something
 * that does not parse (failure says what).  Asked again not before next_at,
 * with a growing wait (lookup.c); kept by the store (schema step 7). */
struct rm_commit_miss {
	unsigned attempts;    /* asks of this kind in a row, the last one included */
	long long first_at;   /* epoch seconds of the first of them */
	long long last_at;    /* of the last */
	long long next_at;    /* not asked again before */
	char failure[256];    /* "" a miss (404/422), else why the answer was malformed */
};

/* The commit cache, as an interface (store.c provides one; tests may fake
 * it).  Keys are the tree's name and the sha as asked; a record is the JSON
 * of rm_commit_to_json (found) or none (a miss). */
struct rm_commit_cache {
	void *ctx;
	/* 1 hit, 0 miss, -1 error; *json is malloc()ed, the caller frees it */
	int (*get)(void *ctx, const char *tree, const char *sha, char **json, bool *found);
	int (*put)(void *ctx, const char *tree, const char *sha, bool found, const char *json);
	/* The miss record, expired or not: 1 with *m, 0 none, -1 error (read as
	 * none).  NULL: misses are only what get says. */
	int (*miss_get)(void *ctx, const char *tree, const char *sha, struct rm_commit_miss *m);
	/* Replace the miss record (NULL on a read-only store: nothing counted). */
	int (*miss_put)(void *ctx, const char *tree, const char *sha, const struct rm_commit_miss *m);
	long miss_cap;        /* the longest wait between two asks (gitweb.miss_ttl), seconds */
};

#endif
