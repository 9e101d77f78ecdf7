/*
 * notice.h - what robotmail already said: one warning per key per period
 * across runs (issue 13: "unknown_branch: skip ... with one warning per
 * branch per day", not one per run; a stalled writer's archive named once).
 *
 * Owns: the file "<paths.state_db>.said" beside a SQLite state database
 * (like its .lock), one line per key: the time it was last said and the
 * key; rewritten atomically (a temporary file renamed over it) when a key
 * is said again.
 *
 * Must not: print (the caller says the warning), touch the store, decide
 * what is worth a warning.
 */
#ifndef RM_NOTICE_H
#define RM_NOTICE_H

#include <stdbool.h>
#include <time.h>

/* Is `key` due to be said at `now` (not said in the last `period`
 * seconds)?  When it is, it is remembered as said now.  `state_db` is the
 * configured paths.state_db: on a store several hosts share (a
 * postgresql:// URL) there is no such file and every key is due (the
 * caller's own once-per-run rule stands).  A file that cannot be read or
 * written makes the key due too: a warning too many, never one lost. */
bool rm_notice_due(const char *state_db, const char *key, time_t now, long period);

#endif
