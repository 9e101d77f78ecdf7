/*
 * archive.h - LKP result archives: finding result roots and reading them.
 *
 * Owns: opening an archive (a directory, or a .tar/.tar.gz/.tar.xz/.tar.zst
 * read with libarchive entirely in memory: nothing is ever extracted), the
 * safety checks on tarball members (no absolute paths, no "..", no links or
 * devices, size caps against bombs), finding every `_result_root` (a commit
 * directory whose numbered run directories hold a job.yaml), reading its
 * job.yaml (via job.c) and its matrix (the commit-level matrix.json with
 * stats_source, read by matrix.c: streamed from disk for a directory, rows
 * no metric rule keeps dropped while reading; or, when it is missing, the
 * runs' stats.json united the way lkp-tests unites them; a tarball's run
 * stats.json met before its commit's matrix.json are skipped, their size
 * counted against RM_ARCHIVE_MAX_TOTAL as if held, and read in a second
 * pass over the tarball only when no matrix.json came), zero-filling short columns, dropping incomplete
 * runs, grouping roots by axes and pairing base and head in each group.
 *
 * Must not: compute statistics or decide what changed (stats.c does).
 *
 * Typical use:
 *   struct rm_archive a;
 *   if (rm_archive_open(&a, path, &rules, &opts, &err)) ...;
 *   for (i = 0; i < a.ngroups; i++) use a.groups[i].base / .head;
 *   rm_archive_free(&a);
 */
#ifndef RM_ARCHIVE_H
#define RM_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "job.h"
#include "matrix.h"
#include "rules.h"

/* Limits against hostile archives (documented in the README). */
#define RM_ARCHIVE_MAX_MEMBER (256ull << 20)  /* bytes in one member */
#define RM_ARCHIVE_MAX_TOTAL (1024ull << 20)  /* bytes kept in memory */
#define RM_ARCHIVE_MAX_MEMBERS 1000000        /* entries in one tarball */
/* Bytes a compressed tarball may unpack to (its tar stream, members skipped
 * included: skipping a member of a compressed stream decompresses it).
 * Without it only MAX_MEMBERS x MAX_MEMBER bounded the time: a .tar.xz of
 * 0.6 MiB unpacking to 4 GiB cost `compare` 9.6 s, and 1M members of 256
 * MiB would cost days.  A real result archive keeps at most
 * RM_ARCHIVE_MAX_TOTAL of result files and holds logs of tens of MiB per
 * run: 4 GiB leaves room for dozens of runs' logs, ~10 s of unpacking at
 * most for each pass over the stream.  An uncompressed tarball is not
 * counted (its members are skipped by seeking). */
#define RM_ARCHIVE_MAX_STREAM (4ull << 30)

struct rm_result_root {
	char *path;    /* the _result_root, relative to the archive */
	char *commit;  /* commit axis value */
	struct rm_job job;      /* job.yaml of the first run */
	char *job_path;         /* which job.yaml that was */
	int *runs;              /* run numbers found, ascending */
	size_t nruns;
	struct rm_matrix all;       /* every run (for failure stats) */
	struct rm_matrix complete;  /* incomplete runs removed */
};

struct rm_group {
	char *axes_key;    /* sorted "k=v" pieces (commit excluded) joined by '/' */
	struct rm_result_root **members; /* base first, then head */
	size_t nmembers;
	/* the group's other commits (e.g. the same test on linux-next's head),
	 * in path order: what a report calls "[still regression on ...]" */
	struct rm_result_root **others;
	size_t nothers;
};

struct rm_file;

struct rm_archive {
	char *source;
	bool is_tarball;
	struct rm_file *files;    /* files kept from the archive, sorted by path */
	size_t nfiles;
	struct rm_result_root *roots;
	size_t nroots;
	struct rm_group *groups;  /* in byte order of their result-root paths */
	size_t ngroups;
	char **warnings;          /* things worth telling the operator */
	size_t nwarnings;
};

/* Forced pairing (`compare --base/--head`).  A value must name exactly one
 * commit of every group (the whole commit or a prefix of it), and --base
 * must not name the head: otherwise rm_archive_open fails (RM_ERR_INPUT). */
struct rm_archive_opts {
	const char *base;  /* commit (prefix) forced as base, or NULL */
	const char *head;  /* commit (prefix) forced as head, or NULL */
	/* `compare`: a directory's reproduction materials (a run's job.sh,
	 * reproduce.sh and config-<release>, which only a queued report's
	 * materials use) are not read, only typed and sized by the walk: a
	 * symlink or device among them is skipped, and one above
	 * RM_ARCHIVE_MAX_MEMBER or one taking the files past
	 * RM_ARCHIVE_MAX_TOTAL is the same error as when they are read.  What
	 * changes: one that cannot be opened (no read permission) no longer
	 * fails `compare`, which never reads it; rm_archive_file returns NULL
	 * for them.  Tarballs are read whole either way (they are streamed
	 * once).  False (and NULL opts) reads them, as `run` needs. */
	bool no_materials;
	/* a compressed tarball's cap on its unpacked bytes; 0 (and NULL
	 * opts): RM_ARCHIVE_MAX_STREAM.  Tests set less, to stay fast. */
	unsigned long long max_stream;
};

/* Read `path` and build its groups.  On failure err names the archive
 * member or field at fault; the archive is left freed.  On success the
 * caller owns `a` and calls rm_archive_free(). */
int rm_archive_open(struct rm_archive *a, const char *path, const struct rm_rules *rules,
		    const struct rm_archive_opts *opts, struct rm_error *err);

/* Compare two _result_root directories directly (`compare BASE_DIR HEAD_DIR`):
 * one group of two members, base first unless opts (may be NULL) say
 * otherwise.  Ownership as for rm_archive_open(). */
int rm_archive_open_pair(struct rm_archive *a, const char *base_dir, const char *head_dir,
			 const struct rm_rules *rules, const struct rm_archive_opts *opts,
			 struct rm_error *err);

void rm_archive_free(struct rm_archive *a);

/* The path of the i-th kept member (0 <= i < a->nfiles), in byte order. */
const char *rm_archive_file_path(const struct rm_archive *a, size_t i);

/* Bytes of a member kept from the archive (job.yaml, job.sh, reproduce.sh, ...),
 * by path relative to the archive, or NULL. */
const char *rm_archive_file(const struct rm_archive *a, const char *path, size_t *len);

#endif
