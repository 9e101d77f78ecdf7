/*
 * metrics.h - the metrics file: what the last `robotmail run` did, as a
 * Prometheus textfile (node_exporter's textfile collector reads it).
 *
 * Owns: the names, help and types of the metrics and writing the file
 * atomically (a temporary file beside it, renamed over it), so a collector
 * never reads half a file.
 *
 * Must not: count anything itself (the run hands it its true counts and
 * schedule.h the outbox's), read the store, print.
 */
#ifndef RM_METRICS_H
#define RM_METRICS_H

#include <stdbool.h>
#include <time.h>

#include "error.h"

struct rm_metrics {
	time_t end;             /* when the run ended */
	double seconds;         /* how long it took */
	int exit_code;          /* what it exits with */
	bool complete;          /* false: it stopped early (exit 2, a store
	                         * error); the counts are what it did before */
	/* the archives of this run: reported (done/), failed/, left in the inbox */
	int arch_done, arch_failed, arch_waiting;
	int inbox_waiting;      /* entries not settled yet (or NAME.part) */
	int reports, duplicates, deferred;
	/* mails: queued this run; this run's delivery attempts */
	int queued, held, sent, retried, failed, capped;
	bool stopped;           /* the emergency stop was present */
	/* the outbox after the run (by state), and the age of the oldest
	 * message still waiting (queued or sending; 0: none) */
	long outbox[5];         /* indexed by enum rm_store_state */
	long long oldest_waiting;
	bool outbox_known;      /* false: the store could not say (left out) */
};

/* Write m to `path` (paths.metrics_file) atomically.  0, or -1 with *err
 * set (RM_ERR_TEMP) naming the file. */
int rm_metrics_write(const char *path, const struct rm_metrics *m, struct rm_error *err);

#endif
