/*
 * outbox.h - the state database: what robotmail remembers between runs.
 *
 * Owns: the SQLite database (WAL mode, a busy timeout, versioned schema
 * migrations applied in one transaction each) and, in it, the commit-facts
 * cache (found commits are immutable and kept for good; misses expire).
 * Later versions add the reports seen (dedupe keys) and the messages queued,
 * sent and failed.  Callers see only this interface, so a PostgreSQL
 * backend can sit behind it.
 *
 * Must not: send anything, fetch anything, know what a report looks like.
 */
#ifndef RM_OUTBOX_H
#define RM_OUTBOX_H

#include <stdbool.h>
#include <time.h>

#include "error.h"

struct rm_outbox;

enum rm_outbox_mode {
	RM_OUTBOX_READWRITE, /* create the file and migrate the schema as needed */
	RM_OUTBOX_READONLY,  /* --dry-run: never write; a missing file is an empty cache */
};

/* Open (and for READWRITE create and migrate) the database at `path`.
 * In READONLY mode a missing file gives *ob == NULL and success.  The caller
 * closes with rm_outbox_close(). */
int rm_outbox_open(struct rm_outbox **ob, const char *path, enum rm_outbox_mode mode,
		   struct rm_error *err);
void rm_outbox_close(struct rm_outbox *ob);

/* The schema version the file is at. */
int rm_outbox_schema_version(struct rm_outbox *ob);

/* Commit cache.  get returns 1 on a hit (with *json malloc'd, caller frees,
 * and *found), 0 on a miss or an expired miss, -1 on error. */
int rm_outbox_cache_get(struct rm_outbox *ob, const char *tree, const char *sha, time_t now,
			char **json, bool *found, struct rm_error *err);
/* Store facts (found) for good, or a miss until now + ttl.  A no-op
 * returning 0 for a read-only outbox. */
int rm_outbox_cache_put(struct rm_outbox *ob, const char *tree, const char *sha, bool found,
			const char *json, time_t now, long ttl, struct rm_error *err);

#endif
