/*
 * inbox.h - the inbox of `robotmail run`: which archives are ready, and
 * where they go afterwards.
 *
 * Owns: claiming the inbox for one run (the lock file beside the state
 * database), scanning `paths.inbox` for finished archives (a "<name>.done"
 * marker beside it, or unchanged for `delivery.settle` seconds - a
 * directory: nothing inside it changed; never a "<name>.part", which is
 * still being copied in), a stalled writer's unreadable archive
 * (rm_inbox_maybe_writing: left until `delivery.settle_max`), the rules
 * for entries that are not plain archives (symlinks are followed only when
 * `paths.inbox_links` names a directory their target lies in; anything else
 * that is neither a file nor a directory is refused with its reason), moving
 * archives to done/ or failed/ (with their marker), and the reproduction
 * materials directory (`run --materials DIR`).
 *
 * With a store several hosts share (PostgreSQL) the inbox is a shared
 * directory: no lock file (locks on NFS are not to be trusted); each archive
 * is claimed in the store instead (store.h's archive claims with a lease), a
 * few at a time, so the runs of several hosts split the inbox.
 *
 * Must not: parse archives (it includes no later stage), decide what to
 * report, touch the state database other than through store.h's archive
 * claims.
 */
#ifndef RM_INBOX_H
#define RM_INBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "config.h"
#include "error.h"

/* An inbox entry that can never be read as an archive, and why. */
struct rm_inbox_refused {
	char *path;   /* the entry, inbox/<name> */
	char *reason; /* e.g. "a symlink, and paths.inbox_links allows none" */
};

/* What a scan found.  Every entry of the inbox is in exactly one of: ready,
 * refused, waiting (not settled yet, or named NAME.part - an archive still
 * being copied in, by convention - named on stderr with -v), or ignored
 * (hidden names and .done markers, which go with their archive). */
struct rm_inbox_scan {
	char **ready;                     /* finished archives, sorted by name */
	size_t nready;
	struct rm_inbox_refused *refused; /* move to failed/ and exit 1 */
	size_t nrefused;
	size_t nwaiting;                  /* still being written */
};

/* Scan cfg->inbox at `now`.  A missing inbox is an empty one.  The caller
 * frees *scan with rm_inbox_scan_free().  Returns 0, or -1 (err set) when the
 * inbox exists but cannot be read. */
int rm_inbox_scan(const struct rm_config *cfg, time_t now, int verbose, struct rm_inbox_scan *scan,
		  struct rm_error *err);
void rm_inbox_scan_free(struct rm_inbox_scan *scan);

/* A stalled writer: may the archive at `path`, which could not be read,
 * still be being written?  True when delivery.settle is not 0 (archives are
 * taken on their mtime), no "<path>.done" marker says it is finished, and
 * its newest change (for a directory, of anything inside it) is less than
 * delivery.settle_max seconds before `now`.  Such an archive stays in the
 * inbox for a later run; past settle_max it goes to failed/ like any
 * unreadable archive. */
bool rm_inbox_maybe_writing(const struct rm_config *cfg, const char *path, time_t now);

/* Where a symlink at `path` may lead: 0 when its target exists and lies
 * inside one of `roots` (each resolved with realpath), else -1 with *why
 * (malloc'd, caller frees) saying why not.  Exposed for tests. */
int rm_inbox_link_allowed(const char *path, const struct rm_strlist *roots, char **why);

/* Move `path` into directory `dir` (created when missing) under its own
 * name (NAME.1, NAME.2 ... when an earlier archive has it: nothing is
 * overwritten), and remove its "<path>.done" marker.  Returns 0, or -1 (err set,
 * RM_ERR_TEMP) when the rename failed. */
int rm_inbox_move(const char *path, const char *dir, struct rm_error *err);

/* Claim the inbox for this run: an exclusive lock on "<state_db>.lock"
 * (on a shared store no lock: returns 1 with *fd = -1, runs overlap).
 * Returns 1 with *fd open (release with rm_inbox_release()), 0 when another
 * run holds it (said on stderr: "another run is active (lock ...)"), -1
 * (err set, RM_ERR_TEMP) when the lock file cannot be opened. */
int rm_inbox_claim(const struct rm_config *cfg, int *fd, struct rm_error *err);
void rm_inbox_release(int fd);

struct rm_store;
/* Archives a run on a shared store claims at a time (the rest stay for
 * other hosts' runs); with SQLite every ready archive at once. */
size_t rm_inbox_claim_batch(const struct rm_config *cfg, size_t nready);
/* Of paths[0..n), those this run now holds in the store (free, expired, or
 * its own claims), and that are still in the inbox (another run may have
 * finished one meanwhile), into *mine: an array of the borrowed path
 * pointers that the caller frees.  With SQLite every path is ours (the lock
 * file excludes other runs).  The caller releases them with
 * rm_inbox_release_archives() once they were moved (or left). */
int rm_inbox_claim_archives(struct rm_store *st, const struct rm_config *cfg, char *const *paths,
			    size_t n, char ***mine, size_t *nmine, struct rm_error *err);
int rm_inbox_release_archives(struct rm_store *st, char *const *paths, size_t n,
			      struct rm_error *err);
/* The same for refused entries: of v[0..n), those this run sets aside into
 * *mine (shallow copies; the caller frees the array; on error those claimed
 * so far are in it), released with rm_inbox_release_refused(). */
int rm_inbox_claim_refused(struct rm_store *st, const struct rm_config *cfg,
			   const struct rm_inbox_refused *v, size_t n, struct rm_inbox_refused **mine,
			   size_t *nmine, struct rm_error *err);
int rm_inbox_release_refused(struct rm_store *st, const struct rm_inbox_refused *v, size_t n,
			     struct rm_error *err);

/* One file of a report's reproduction materials. */
struct rm_material {
	const char *name; /* file name in the materials directory: "job.yaml", "reproduce" ... */
	const char *data;
	size_t len;
};

/* The materials directory of a message, <dir>/<YYYYMMDD>/<message_id>/,
 * created as needed.  The caller frees the path. */
char *rm_inbox_materials_dir(const char *dir, const char *message_id);

/* Write a report's reproduction materials (job.yaml, job-script, reproduce,
 * the kernel config: the caller picks them from the archive) into
 * <dir>/<YYYYMMDD>/<message_id>/, ready to publish.  Best effort: a file
 * that cannot be written is a warning on stderr. */
void rm_inbox_write_materials(const char *dir, const char *message_id,
			      const struct rm_material *files, size_t nfiles, int verbose);

/* Permanent problems a later run cannot fix (kind RM_ERR_CONFIG, exit 2,
 * naming the key and where it was set): the state directory of
 * paths.state_db cannot be created or written (it is created as needed),
 * paths.inbox is missing or not a directory.  Return 0 or -1. */
int rm_inbox_check_state_dir(const struct rm_config *cfg, struct rm_error *err);
int rm_inbox_check_dir(const struct rm_config *cfg, struct rm_error *err);

#endif
